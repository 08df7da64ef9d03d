#include "loaders/protobuf_wire.hpp"

#include <cstdint>

#include "core/error.hpp"

namespace mo::protobuf_wire {

namespace {

enum WireType : uint32_t { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };
constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;  // protobuf's limit

struct Field {
    uint32_t number = 0, wire = 0;
    size_t body = 0, size = 0;  // where a length-delimited value lies
};

class Reader {
public:
    Reader(const std::byte* base, size_t begin, size_t end, const std::string& file, const std::string& format)
        : base_(base), pos_(begin), end_(end), file_(file), format_(format) {}
    bool done() const { return pos_ >= end_; }
    size_t pos() const { return pos_; }

    uint64_t varint() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos_ >= end_) corrupt("a varint runs past the end of its message");
            auto b = static_cast<uint8_t>(base_[pos_++]);
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if ((b & 0x80) == 0) return v;
        }
        corrupt("a varint is longer than 10 bytes");
    }
    void skip(uint64_t n) {
        if (n > end_ - pos_) corrupt("a field runs past the end of its message");
        pos_ += n;
    }
    // The next field's number and wire type; its value is skipped.
    Field next_field() {
        const uint64_t tag = varint();
        if ((tag >> 3) == 0 || (tag >> 3) > kMaxFieldNumber) corrupt("field number " + std::to_string(tag >> 3));
        Field f{static_cast<uint32_t>(tag >> 3), static_cast<uint32_t>(tag & 7)};
        switch (f.wire) {
            case Varint: varint(); break;
            case Fixed64: skip(8); break;
            case Fixed32: skip(4); break;
            case LengthDelimited: {
                const uint64_t len = varint();
                f.body = pos_;
                skip(len);
                f.size = static_cast<size_t>(len);
                break;
            }
            default: corrupt("unsupported wire type " + std::to_string(f.wire));
        }
        return f;
    }
    [[noreturn]] void corrupt(const std::string& what) const {
        throw Error("the " + format_ + " file is truncated or corrupt: " + what + " (byte " + std::to_string(pos_) + ")",
                    file_, "re-export the model; check that the file was copied completely");
    }

private:
    const std::byte* base_;
    size_t pos_, end_;
    const std::string& file_;
    const std::string& format_;
};

void put_varint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

// The key (field 1) of the map entry in [begin, end); the last one, as protobuf parsing keeps.
std::string map_key(const std::byte* base, size_t begin, size_t end, const std::string& file, const std::string& format) {
    Reader r(base, begin, end, file, format);
    std::string key;
    while (!r.done()) {
        const Field f = r.next_field();
        if (f.number == 1 && f.wire == LengthDelimited) key.assign(reinterpret_cast<const char*>(base + f.body), f.size);
    }
    return key;
}

struct Lifter {
    const std::byte* base;
    const std::string& file;
    const std::string& format;
    const std::vector<uint32_t>& path;
    size_t item_depth;
    std::vector<std::optional<ByteRange>>& items;
    const std::optional<MapKey>& only_key;

    // Copies the fields of the message at `depth` on the path in [begin, end) to `out`,
    // rewriting the nested messages on the path and dropping the bytes field at its end.
    void copy(size_t begin, size_t end, size_t depth, std::string& out) {
        Reader r(base, begin, end, file, format);
        while (!r.done()) {
            const size_t field_start = r.pos();
            const Field f = r.next_field();
            // Another entry of the map (a TensorFlow attr other than "value") is kept whole.
            const bool on_path = f.wire == LengthDelimited && f.number == path[depth] &&
                                 !(only_key && only_key->depth == depth &&
                                   map_key(base, f.body, f.body + f.size, file, format) != only_key->key);
            if (!on_path) {
                out.append(reinterpret_cast<const char*>(base + field_start), r.pos() - field_start);
            } else if (depth + 1 == path.size()) {
                if (!items.empty()) items.back() = ByteRange{f.body, f.size};  // dropped from the copy
            } else {
                if (depth == item_depth) items.emplace_back();
                std::string inner;
                copy(f.body, f.body + f.size, depth + 1, inner);
                put_varint(out, uint64_t{f.number} << 3 | LengthDelimited);
                put_varint(out, inner.size());
                out += inner;
            }
        }
    }
};

}  // namespace

LiftedMessage lift_bytes_fields(const std::byte* data, size_t size, const std::vector<uint32_t>& path,
                                size_t item_depth, const std::string& file, const std::string& format,
                                const std::optional<MapKey>& only_key) {
    LiftedMessage m;
    m.bytes.reserve(size < (size_t{1} << 20) ? size : (size_t{1} << 20));
    Lifter l{data, file, format, path, item_depth, m.items, only_key};
    l.copy(0, size, 0, m.bytes);
    return m;
}

}  // namespace mo::protobuf_wire
