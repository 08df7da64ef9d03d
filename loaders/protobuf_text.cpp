#include "loaders/protobuf_text.hpp"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

namespace mo::protobuf_text {

namespace {

class FirstError : public google::protobuf::io::ErrorCollector {
public:
    void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
        if (first.empty())
            first = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
    }
    void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
    std::string first;
};

}  // namespace

std::optional<std::string> parse(const std::string& text, google::protobuf::Message& message, int recursion_limit,
                                 bool allow_unknown_fields) {
    FirstError errors;
    google::protobuf::TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    parser.SetRecursionLimit(recursion_limit);
    parser.AllowUnknownField(allow_unknown_fields);
    if (parser.ParseFromString(text, &message)) return std::nullopt;
    return errors.first.empty() ? std::string("not valid text format") : errors.first;
}

}  // namespace mo::protobuf_text
