// A minimal protobuf wire-format scanner that lifts large bytes fields (weights) out of a
// serialized message without copying them: it returns a copy of the message with every bytes
// field at a given path removed (enclosing length prefixes re-encoded) plus where each removed
// field lies in the original bytes. The ONNX loader lifts ModelProto.graph(7).initializer(5).
// raw_data(9); the TensorFlow loader GraphDef.node(1).attr(5).value(2).tensor(8).tensor_content(4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mo::protobuf_wire {

struct ByteRange {
    size_t offset = 0;
    size_t size = 0;
};

struct LiftedMessage {
    std::string bytes;  // the message without the lifted fields
    // Per element of the repeated field at path[item_depth], in message order: the lifted field
    // inside it, if any (the last one when there are several, as protobuf parsing keeps).
    std::vector<std::optional<ByteRange>> items;
};

// Restricts lifting to the entries of the map field at path[depth] whose key (field 1, a string)
// is `key`: the other entries are copied whole.
struct MapKey {
    size_t depth = 0;
    std::string key;
};

// `path` lists the field numbers from the root message to the bytes field (every field but the
// last is a message; map fields are messages with key 1, value 2). Throws mo::Error naming `file`
// and `format` ("ONNX", "GraphDef") on a truncated or malformed message.
LiftedMessage lift_bytes_fields(const std::byte* data, size_t size, const std::vector<uint32_t>& path,
                                size_t item_depth, const std::string& file, const std::string& format,
                                const std::optional<MapKey>& only_key = std::nullopt);

}  // namespace mo::protobuf_wire
