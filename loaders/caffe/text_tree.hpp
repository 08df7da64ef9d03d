// Protobuf text format read without a schema: a tree of named fields whose values are scalars
// (numbers, identifiers, strings) or nested messages. The Caffe loader reads a prototxt with its
// caffe.proto subset; fields the subset does not know (a fork's layer parameters) are found in
// this tree, so that a plugin's extractor can still read them and a built-in one can refuse them.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mo {

struct TextMessage;

struct TextValue {
    enum class Kind { Integer, Float, Identifier, String, Message };
    Kind kind = Kind::Identifier;
    std::string text;  // the scalar as written (a string unquoted and unescaped)
    std::shared_ptr<const TextMessage> message;
};

struct TextMessage {
    std::vector<std::pair<std::string, TextValue>> fields;  // in file order; a repeated field repeats
    // The values of every field named `name`, in order.
    std::vector<const TextValue*> all(const std::string& name) const;
};

// Parses `text`, nesting messages at most `max_depth` deep. Throws mo::Error naming `file` and
// the line on a syntax error (the typed parser has accepted the text first, so this is rare).
std::shared_ptr<const TextMessage> parse_text_tree(const std::string& text, const std::string& file, int max_depth = 100);

}  // namespace mo
