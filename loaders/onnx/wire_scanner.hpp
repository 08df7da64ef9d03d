// A minimal protobuf wire-format scanner that lifts initializer weights out of a serialized
// ModelProto without copying them: it returns a copy of the message with every
// ModelProto.graph(7).initializer(5).raw_data(9) field removed (enclosing length prefixes
// re-encoded) plus where each removed raw_data lies in the original bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace mo::onnx_wire {

struct ByteRange {
    size_t offset = 0;
    size_t size = 0;
};

struct StrippedModel {
    std::string bytes;  // the ModelProto without the initializers' raw_data
    // Per initializer, in message order: the raw_data bytes in the original buffer, if any.
    std::vector<std::optional<ByteRange>> initializer_raw;
};

// Throws mo::Error naming `file` on a truncated or malformed message.
StrippedModel strip_initializer_data(const std::byte* data, size_t size, const std::string& file);

}  // namespace mo::onnx_wire
