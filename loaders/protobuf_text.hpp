// Protobuf text format (ONNX .prototxt, TensorFlow .pbtxt) parsed with its first error kept for
// mo's message ("line 9, column 21: ...") instead of printed by protobuf's own logger.
#pragma once

#include <optional>
#include <string>

#include <google/protobuf/message.h>

namespace mo::protobuf_text {

// Parses `text` into `message`, nesting messages at most `recursion_limit` deep (protobuf's
// default is 100). Returns the first error, or nothing when the text parsed. With
// `allow_unknown_fields`, a field the message type does not declare is skipped, not an error
// (the Caffe loader finds such fields itself: loaders/caffe/text_tree.hpp).
std::optional<std::string> parse(const std::string& text, google::protobuf::Message& message, int recursion_limit = 100,
                                 bool allow_unknown_fields = false);

}  // namespace mo::protobuf_text
