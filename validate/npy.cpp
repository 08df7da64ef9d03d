#include "validate/npy.hpp"

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <utility>

#include "core/error.hpp"

namespace mo {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// Magic (6) + version (2) + header length (2 in v1.0, 4 in v2.0/3.0), then the header dict.
constexpr size_t kPreludeV1 = 10, kPreludeV2 = 12;

struct Dtype {
    const char* descr;  // the spelling mo writes
    ElementType type;
};
constexpr std::array<Dtype, 11> kDtypes = {{
    {"<f2", ElementType::f16}, {"<f4", ElementType::f32}, {"<f8", ElementType::f64},
    {"|i1", ElementType::i8}, {"<i2", ElementType::i16}, {"<i4", ElementType::i32}, {"<i8", ElementType::i64},
    {"|u1", ElementType::u8}, {"<u2", ElementType::u16}, {"<u4", ElementType::u32}, {"<u8", ElementType::u64},
}};

Error malformed(const std::string& where, const std::string& what) {
    return Error("malformed .npy file: " + what, where, "write the file with numpy.save (C order, little endian)");
}

// A descr string to an element type. Single-byte types may carry any byte-order mark.
ElementType type_of_descr(const std::string& d, const std::string& where) {
    if (d.size() < 3) throw malformed(where, "dtype '" + d + "' is not a simple numeric dtype");
    const char order = d[0];
    const std::string code = d.substr(1);
    if (code == "b1" || code == "i1" || code == "u1") {
        if (order != '|' && order != '<' && order != '>' && order != '=')
            throw malformed(where, "dtype '" + d + "' has an unknown byte order");
        return code == "b1" ? ElementType::boolean : code == "i1" ? ElementType::i8 : ElementType::u8;
    }
    if (order == '>')
        throw Error("big-endian .npy arrays are not supported (dtype '" + d + "')", where,
                    "convert with array.astype(array.dtype.newbyteorder('<')) before saving");
    // '=' is native order, and mo only runs on little-endian machines.
    if (order != '<' && order != '=')
        throw Error("unsupported .npy dtype '" + d + "'", where, "use a numeric dtype such as '<f4' or '<i8'");
    for (const Dtype& t : kDtypes)
        if (code == t.descr + 1) return t.type;
    throw Error("unsupported .npy dtype '" + d + "'", where,
                "supported: float16/32/64, int8/16/32/64, uint8/16/32/64, bool");
}

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& where) : s_(text), where_(where) {}

    void parse(std::string& descr, bool& fortran, Shape& shape) {
        bool seen_descr = false, seen_fortran = false, seen_shape = false;
        expect('{');
        while (!peek('}')) {
            std::string key = string_literal();
            expect(':');
            if (key == "descr") {
                descr = string_literal();
                seen_descr = true;
            } else if (key == "fortran_order") {
                fortran = boolean();
                seen_fortran = true;
            } else if (key == "shape") {
                shape = tuple();
                seen_shape = true;
            } else {
                throw malformed(where_, "unknown header key '" + key + "'");
            }
            if (!peek('}')) expect(',');
        }
        expect('}');
        skip_space();
        if (pos_ != s_.size()) throw malformed(where_, "unexpected text after the header dictionary");
        if (!seen_descr || !seen_fortran || !seen_shape)
            throw malformed(where_, "the header lacks 'descr', 'fortran_order' or 'shape'");
    }

private:
    void skip_space() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
    }
    bool peek(char c) {
        skip_space();
        return pos_ < s_.size() && s_[pos_] == c;
    }
    void expect(char c) {
        if (!peek(c)) throw malformed(where_, std::string("expected '") + c + "' in the header at offset " + std::to_string(pos_));
        ++pos_;
    }
    std::string string_literal() {
        skip_space();
        if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
            throw malformed(where_, "expected a string in the header at offset " + std::to_string(pos_));
        const char quote = s_[pos_++];
        size_t end = s_.find(quote, pos_);
        if (end == std::string_view::npos) throw malformed(where_, "unterminated string in the header");
        std::string v(s_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return v;
    }
    bool boolean() {
        skip_space();
        if (s_.substr(pos_, 4) == "True") { pos_ += 4; return true; }
        if (s_.substr(pos_, 5) == "False") { pos_ += 5; return false; }
        throw malformed(where_, "'fortran_order' must be True or False");
    }
    Shape tuple() {
        Shape dims;
        expect('(');
        while (!peek(')')) {
            skip_space();
            int64_t v = 0;
            size_t digits = 0;
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
                if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) throw malformed(where_, "a dimension is too large");
                v = v * 10 + (s_[pos_++] - '0');
                ++digits;
            }
            if (digits == 0) throw malformed(where_, "expected a non-negative dimension in 'shape'");
            dims.push_back(v);
            if (!peek(')')) expect(',');
        }
        expect(')');
        return dims;
    }

    std::string_view s_;
    const std::string& where_;
    size_t pos_ = 0;
};

uint32_t read_le(const std::byte* p, size_t n) {
    uint32_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
    return v;
}

std::string descr_of(ElementType t) {
    if (t == ElementType::boolean) return "|b1";
    for (const Dtype& d : kDtypes)
        if (d.type == t) return d.descr;
    throw Error("element type " + std::string(ir_name(t)) + " has no .npy dtype", "write_npy",
                "convert the tensor to f32 (or another numpy type) first");
}

}  // namespace

Tensor parse_npy(std::span<const std::byte> bytes, const std::string& where) {
    if (bytes.size() < kPreludeV1 || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0)
        throw malformed(where, "it is too short or does not start with the .npy magic string");
    const unsigned major = static_cast<unsigned>(bytes[6]);
    size_t prelude = 0;
    if (major == 1) prelude = kPreludeV1;
    else if (major == 2 || major == 3) prelude = kPreludeV2;
    else throw malformed(where, "unsupported format version " + std::to_string(major) + ".x");
    if (bytes.size() < prelude) throw malformed(where, "the file ends inside the header length");
    const size_t header_len = read_le(bytes.data() + 8, prelude - 8);
    if (header_len > bytes.size() - prelude)
        throw malformed(where, "header length " + std::to_string(header_len) + " exceeds the file size " +
                                   std::to_string(bytes.size()));
    std::string_view header(reinterpret_cast<const char*>(bytes.data() + prelude), header_len);

    std::string descr;
    bool fortran = false;
    Shape shape;
    HeaderParser(header, where).parse(descr, fortran, shape);
    const ElementType type = type_of_descr(descr, where);
    if (fortran)
        throw Error("Fortran-order .npy arrays are not supported", where,
                    "save a C-order array: numpy.save(path, numpy.ascontiguousarray(a))");

    // Element count and payload size, with overflow checked against the file size.
    const size_t payload_available = bytes.size() - prelude - header_len;
    const size_t elem_size = bit_width(type) / 8;
    size_t count = 1;
    bool has_zero_dim = false;
    for (int64_t d : shape) has_zero_dim |= d == 0;
    for (int64_t d : shape) {
        if (has_zero_dim) {
            count = 0;
            break;
        }
        if (count > payload_available / static_cast<size_t>(d) + 1)
            throw malformed(where, "the shape is larger than the file");
        count *= static_cast<size_t>(d);
    }
    if (count > payload_available / elem_size + 1 || count * elem_size != payload_available)
        throw malformed(where, "the payload is " + std::to_string(payload_available) + " bytes but dtype '" + descr +
                                   "' and shape " + PartialShape(shape).to_string() + " need " +
                                   std::to_string(count) + " x " + std::to_string(elem_size));
    Tensor t = Tensor::allocate(type, shape);
    if (payload_available) std::memcpy(t.mutable_data<std::byte>(), bytes.data() + prelude + header_len, payload_available);
    if (type == ElementType::boolean) {
        const uint8_t* b = t.data<uint8_t>();
        for (size_t i = 0; i < count; ++i)
            if (b[i] > 1) throw malformed(where, "bool element " + std::to_string(i) + " is neither 0 nor 1");
    }
    return t;
}

Tensor read_npy(const std::string& path) {
    // A device or a pipe (/dev/zero) would be read until memory runs out; a regular file ends,
    // and parse_npy checks its size against the declared shape.
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw Error("cannot read the .npy file: it is not a regular file", path, "pass a .npy file saved by numpy.save");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open the .npy file", path, "check the path");
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw Error("cannot read the .npy file", path, "check the file and its permissions");
    return parse_npy(std::as_bytes(std::span(data.data(), data.size())), path);
}

std::string npy_bytes(const Tensor& t) {
    std::string dict = "{'descr': '" + descr_of(t.type()) + "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < t.shape().size(); ++i) dict += std::to_string(t.shape()[i]) + ", ";
    if (t.shape().size() > 1) dict.resize(dict.size() - 2);  // (2, 3) but (2,) for rank 1
    else if (t.shape().size() == 1) dict.pop_back();
    dict += "), }";
    // Pad with spaces and a final newline so that the payload starts at a multiple of 64.
    size_t prelude = kPreludeV1;
    if (dict.size() + 1 + 64 > 0xFFFF) prelude = kPreludeV2;
    const size_t total = (prelude + dict.size() + 1 + 63) / 64 * 64;
    const size_t header_len = total - prelude;
    dict.append(header_len - dict.size() - 1, ' ');
    dict += '\n';

    std::string out(kMagic, kMagicSize);
    out += static_cast<char>(prelude == kPreludeV1 ? 1 : 2);
    out += '\0';
    for (size_t i = 0; i < prelude - 8; ++i) out += static_cast<char>((header_len >> (8 * i)) & 0xFF);
    out += dict;
    out.append(reinterpret_cast<const char*>(t.bytes()), t.byte_size());
    return out;
}

void write_npy(const std::string& path, const Tensor& t) {
    const std::string bytes = npy_bytes(t);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot create the .npy file", path, "check the directory and its permissions");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw Error("cannot write the .npy file", path, "check the free disk space");
}

}  // namespace mo
