#include "loaders/caffe/text_tree.hpp"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "core/error.hpp"

namespace mo {

namespace {

using google::protobuf::io::Tokenizer;

class Errors : public google::protobuf::io::ErrorCollector {
public:
    void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
        if (first.empty()) first = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
    }
    std::string first;
};

class TreeParser {
public:
    TreeParser(const std::string& text, const std::string& file, int max_depth)
        : input_(text.data(), static_cast<int>(text.size())), tokens_(&input_, &errors_), file_(file), max_depth_(max_depth) {
        tokens_.set_comment_style(Tokenizer::SH_COMMENT_STYLE);
        tokens_.Next();
    }

    std::shared_ptr<const TextMessage> message(const std::string& close, int depth) {
        if (depth > max_depth_) fail("messages nest more than " + std::to_string(max_depth_) + " deep");
        auto m = std::make_shared<TextMessage>();
        while (true) {
            const auto& t = tokens_.current();
            if (t.type == Tokenizer::TYPE_END) {
                if (!close.empty()) fail("the text ends inside a message (expected '" + close + "')");
                return m;
            }
            if (t.type == Tokenizer::TYPE_SYMBOL && t.text == close) {
                tokens_.Next();
                return m;
            }
            if (t.type == Tokenizer::TYPE_SYMBOL && (t.text == ";" || t.text == ",")) {
                tokens_.Next();
                continue;
            }
            if (t.type != Tokenizer::TYPE_IDENTIFIER) fail("expected a field name, not '" + t.text + "'");
            const std::string name = t.text;
            tokens_.Next();
            const bool colon = symbol(":");
            if (symbol("{")) {
                m->fields.emplace_back(name, nested("}", depth));
            } else if (symbol("<")) {
                m->fields.emplace_back(name, nested(">", depth));
            } else if (!colon) {
                fail("expected ':' or '{' after '" + name + "'");
            } else if (symbol("[")) {
                while (!symbol("]")) {
                    m->fields.emplace_back(name, scalar(depth));
                    symbol(",");
                }
            } else {
                m->fields.emplace_back(name, scalar(depth));
            }
        }
    }

private:
    bool symbol(const char* s) {
        const auto& t = tokens_.current();
        if (t.type != Tokenizer::TYPE_SYMBOL || t.text != s) return false;
        tokens_.Next();
        return true;
    }

    TextValue nested(const std::string& close, int depth) {
        TextValue v;
        v.kind = TextValue::Kind::Message;
        v.message = message(close, depth + 1);
        return v;
    }

    TextValue scalar(int depth) {
        if (symbol("{")) return nested("}", depth);
        if (symbol("<")) return nested(">", depth);
        TextValue v;
        std::string sign;
        if (symbol("-")) sign = "-";
        const auto& t = tokens_.current();
        switch (t.type) {
            case Tokenizer::TYPE_INTEGER: v.kind = TextValue::Kind::Integer; v.text = sign + t.text; break;
            case Tokenizer::TYPE_FLOAT: v.kind = TextValue::Kind::Float; v.text = sign + t.text; break;
            case Tokenizer::TYPE_IDENTIFIER: v.kind = TextValue::Kind::Identifier; v.text = sign + t.text; break;
            case Tokenizer::TYPE_STRING:
                v.kind = TextValue::Kind::String;
                Tokenizer::ParseStringAppend(t.text, &v.text);
                tokens_.Next();
                // Adjacent string literals concatenate.
                while (tokens_.current().type == Tokenizer::TYPE_STRING) {
                    Tokenizer::ParseStringAppend(tokens_.current().text, &v.text);
                    tokens_.Next();
                }
                return v;
            default: fail("expected a value, not '" + t.text + "'");
        }
        tokens_.Next();
        return v;
    }

    [[noreturn]] void fail(const std::string& what) {
        const auto& t = tokens_.current();
        std::string where = "line " + std::to_string(t.line + 1) + ", column " + std::to_string(t.column + 1);
        if (!errors_.first.empty()) where = errors_.first;
        throw Error("cannot read the text format: " + where + ": " + what, file_, "check the prototxt syntax");
    }

    google::protobuf::io::ArrayInputStream input_;
    Errors errors_;
    Tokenizer tokens_;
    const std::string& file_;
    int max_depth_;
};

}  // namespace

std::vector<const TextValue*> TextMessage::all(const std::string& name) const {
    std::vector<const TextValue*> out;
    for (const auto& [n, v] : fields)
        if (n == name) out.push_back(&v);
    return out;
}

std::shared_ptr<const TextMessage> parse_text_tree(const std::string& text, const std::string& file, int max_depth) {
    if (text.size() > static_cast<size_t>(INT32_MAX)) throw Error("the text file exceeds 2 GB", file);
    return TreeParser(text, file, max_depth).message("", 0);
}

}  // namespace mo
