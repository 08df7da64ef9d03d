#include "core/element_type.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/error.hpp"

namespace mo {

namespace {
struct TypeInfo {
    ElementType type;
    size_t bits;
    std::string_view name, precision;
};
constexpr std::array<TypeInfo, 18> kTypes{{
    {ElementType::dynamic, 0, "dynamic", "UNSPECIFIED"},
    {ElementType::boolean, 8, "boolean", "BOOL"},
    {ElementType::bf16, 16, "bf16", "BF16"},
    {ElementType::f16, 16, "f16", "FP16"},
    {ElementType::f32, 32, "f32", "FP32"},
    {ElementType::f64, 64, "f64", "FP64"},
    {ElementType::i4, 4, "i4", "I4"},
    {ElementType::i8, 8, "i8", "I8"},
    {ElementType::i16, 16, "i16", "I16"},
    {ElementType::i32, 32, "i32", "I32"},
    {ElementType::i64, 64, "i64", "I64"},
    {ElementType::u1, 1, "u1", "BIN"},
    {ElementType::u4, 4, "u4", "U4"},
    {ElementType::u8, 8, "u8", "U8"},
    {ElementType::u16, 16, "u16", "U16"},
    {ElementType::u32, 32, "u32", "U32"},
    {ElementType::u64, 64, "u64", "U64"},
    {ElementType::string, 0, "string", "STRING"},
}};

const TypeInfo& info(ElementType t) { return kTypes[static_cast<size_t>(t)]; }

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}
}  // namespace

size_t bit_width(ElementType t) { return info(t).bits; }
size_t byte_size(ElementType t, size_t count) {
    // shape_size bounds the count, not count x bits: 2^59 f32 elements wrapped to a few bytes,
    // which a 4-byte buffer then passed for.
    const size_t bits = bit_width(t);
    if (bits && count > (SIZE_MAX - 7) / bits)
        throw Error(std::to_string(count) + " elements of " + std::string(ir_name(t)) + " have more bytes than 64 bits count",
                    "", "the model's dimensions are corrupt or hostile");
    return (count * bits + 7) / 8;
}

bool is_float(ElementType t) {
    return t == ElementType::f16 || t == ElementType::bf16 || t == ElementType::f32 || t == ElementType::f64;
}
bool is_signed_int(ElementType t) {
    return t == ElementType::i4 || t == ElementType::i8 || t == ElementType::i16 || t == ElementType::i32 ||
           t == ElementType::i64;
}
bool is_unsigned_int(ElementType t) {
    return t == ElementType::u1 || t == ElementType::u4 || t == ElementType::u8 || t == ElementType::u16 ||
           t == ElementType::u32 || t == ElementType::u64;
}

std::string_view ir_name(ElementType t) { return info(t).name; }
std::string_view ir_precision(ElementType t) { return info(t).precision; }

ElementType element_type_from_string(std::string_view s) {
    for (const auto& ti : kTypes)
        if (iequals(s, ti.name) || iequals(s, ti.precision)) return ti.type;
    if (iequals(s, "undefined")) return ElementType::dynamic;
    throw Error("unknown element type '" + std::string(s) + "'", {},
                "use one of f32, f16, bf16, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean");
}

}  // namespace mo
