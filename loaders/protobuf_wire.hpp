// A minimal protobuf wire-format scanner. It lifts fields out of a serialized message without
// copying them: it returns a copy of the message with every field at given paths removed
// (enclosing length prefixes re-encoded) plus where each removed field lies in the original
// bytes. The ONNX loader lifts ModelProto.graph(7).initializer(5).raw_data(9) (weights) and
// ModelProto.graph(7).node(1) (read one by one, never all held parsed); the TensorFlow loader
// GraphDef.node(1).attr(5).value(2).tensor(8).tensor_content(4). Reader reads the fields of
// one message in place, checking every length against the bytes that hold it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mo::protobuf_wire {

struct ByteRange {
    size_t offset = 0;
    size_t size = 0;
};

enum WireType : uint32_t { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

// One field of a message: its number, wire type, and its value (a varint's, or where a
// length-delimited one lies in the bytes given to the Reader).
struct Field {
    uint32_t number = 0, wire = 0;
    uint64_t varint = 0;
    size_t body = 0, size = 0;
};

// Reads the fields of the message in bytes [begin, end) of `base`. Throws mo::Error naming
// `file` and `format` ("ONNX", "GraphDef") on a truncated or malformed message.
class Reader {
public:
    Reader(const std::byte* base, size_t begin, size_t end, const std::string& file, const std::string& format)
        : base_(base), pos_(begin), end_(end), file_(file), format_(format) {}
    bool done() const { return pos_ >= end_; }
    size_t pos() const { return pos_; }
    // The next field; its value is read (a varint) or skipped (anything else).
    Field next_field();
    // The bytes of a length-delimited field.
    std::string_view view(const Field& f) const {
        return {reinterpret_cast<const char*>(base_ + f.body), f.size};
    }
    [[noreturn]] void corrupt(const std::string& what) const;

private:
    uint64_t varint();
    void skip(uint64_t n);
    const std::byte* base_;
    size_t pos_, end_;
    const std::string& file_;
    const std::string& format_;
};

// Restricts lifting to the entries of the map field at path[depth] whose key (field 1, a string)
// is `key`: the other entries are copied whole.
struct MapKey {
    size_t depth = 0;
    std::string key;
};

// Fields to lift: `path` lists the field numbers from the root message to the lifted field
// (every field but the last is a message; map fields are messages with key 1, value 2). Items
// are the elements of the repeated field at path[item_depth]: one per element, in message
// order, holding the lifted field inside it if any (the last one when there are several, as
// protobuf parsing keeps). When item_depth is the last depth, each lifted field is an item.
struct LiftPath {
    std::vector<uint32_t> path;
    size_t item_depth = 0;
    std::optional<MapKey> only_key;
};

struct LiftedFields {
    std::string bytes;  // the message without the lifted fields
    std::vector<std::vector<std::optional<ByteRange>>> items;  // per LiftPath
};

// The paths may share a prefix but not a whole path. Throws mo::Error (see Reader).
LiftedFields lift_fields(const std::byte* data, size_t size, const std::vector<LiftPath>& paths,
                         const std::string& file, const std::string& format);

struct LiftedMessage {
    std::string bytes;
    std::vector<std::optional<ByteRange>> items;
};

// lift_fields() of one path.
LiftedMessage lift_bytes_fields(const std::byte* data, size_t size, const std::vector<uint32_t>& path,
                                size_t item_depth, const std::string& file, const std::string& format,
                                const std::optional<MapKey>& only_key = std::nullopt);

}  // namespace mo::protobuf_wire
