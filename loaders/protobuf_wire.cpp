#include "loaders/protobuf_wire.hpp"

#include <cstdint>

#include "core/error.hpp"

namespace mo::protobuf_wire {

namespace {
constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;  // protobuf's limit
}  // namespace

uint64_t Reader::varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (pos_ >= end_) corrupt("a varint runs past the end of its message");
        auto b = static_cast<uint8_t>(base_[pos_++]);
        v |= static_cast<uint64_t>(b & 0x7f) << shift;
        if ((b & 0x80) == 0) return v;
    }
    corrupt("a varint is longer than 10 bytes");
}

void Reader::skip(uint64_t n) {
    if (n > end_ - pos_) corrupt("a field runs past the end of its message");
    pos_ += n;
}

Field Reader::next_field() {
    const uint64_t tag = varint();
    if ((tag >> 3) == 0 || (tag >> 3) > kMaxFieldNumber) corrupt("field number " + std::to_string(tag >> 3));
    Field f{static_cast<uint32_t>(tag >> 3), static_cast<uint32_t>(tag & 7)};
    switch (f.wire) {
        case Varint: f.varint = varint(); break;
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

void Reader::corrupt(const std::string& what) const {
    throw Error("the " + format_ + " file is truncated or corrupt: " + what + " (byte " + std::to_string(pos_) + ")",
                file_, "re-export the model; check that the file was copied completely");
}

namespace {

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
        if (f.number == 1 && f.wire == LengthDelimited) key.assign(r.view(f));
    }
    return key;
}

struct Lifter {
    const std::byte* base;
    const std::string& file;
    const std::string& format;
    const std::vector<LiftPath>& paths;
    std::vector<std::vector<std::optional<ByteRange>>>& items;

    bool follows(const LiftPath& p, size_t depth, const Field& f) const {
        if (depth >= p.path.size() || f.wire != LengthDelimited || f.number != p.path[depth]) return false;
        // Another entry of the map (a TensorFlow attr other than "value") is kept whole.
        return !(p.only_key && p.only_key->depth == depth &&
                 map_key(base, f.body, f.body + f.size, file, format) != p.only_key->key);
    }

    // Copies the fields of the message at `depth` in [begin, end) to `out`, rewriting the
    // nested messages on the `active` paths and dropping the fields at their ends.
    void copy(size_t begin, size_t end, size_t depth, const std::vector<size_t>& active, std::string& out) {
        Reader r(base, begin, end, file, format);
        while (!r.done()) {
            const size_t field_start = r.pos();
            const Field f = r.next_field();
            std::vector<size_t> deeper;
            bool lifted = false;
            for (size_t k : active) {
                const LiftPath& p = paths[k];
                if (!follows(p, depth, f)) continue;
                if (depth + 1 == p.path.size()) {
                    lifted = true;
                    if (depth == p.item_depth) items[k].emplace_back(ByteRange{f.body, f.size});
                    else if (!items[k].empty()) items[k].back() = ByteRange{f.body, f.size};
                } else {
                    if (depth == p.item_depth) items[k].emplace_back();
                    deeper.push_back(k);
                }
            }
            if (lifted) continue;  // dropped from the copy
            if (deeper.empty()) {
                out.append(reinterpret_cast<const char*>(base + field_start), r.pos() - field_start);
                continue;
            }
            std::string inner;
            copy(f.body, f.body + f.size, depth + 1, deeper, inner);
            put_varint(out, uint64_t{f.number} << 3 | LengthDelimited);
            put_varint(out, inner.size());
            out += inner;
        }
    }
};

}  // namespace

LiftedFields lift_fields(const std::byte* data, size_t size, const std::vector<LiftPath>& paths,
                         const std::string& file, const std::string& format) {
    LiftedFields m;
    m.items.resize(paths.size());
    m.bytes.reserve(size < (size_t{1} << 20) ? size : (size_t{1} << 20));
    std::vector<size_t> all(paths.size());
    for (size_t k = 0; k < paths.size(); ++k) all[k] = k;
    Lifter l{data, file, format, paths, m.items};
    l.copy(0, size, 0, all, m.bytes);
    return m;
}

LiftedMessage lift_bytes_fields(const std::byte* data, size_t size, const std::vector<uint32_t>& path,
                                size_t item_depth, const std::string& file, const std::string& format,
                                const std::optional<MapKey>& only_key) {
    LiftedFields lifted = lift_fields(data, size, {LiftPath{path, item_depth, only_key}}, file, format);
    return LiftedMessage{std::move(lifted.bytes), std::move(lifted.items[0])};
}

}  // namespace mo::protobuf_wire
