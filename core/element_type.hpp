// Element types of tensors, with their IR spellings (see shared/ir/ir-format.md §5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api.hpp"

namespace mo {

enum class ElementType : uint8_t {
    dynamic, boolean, bf16, f16, f32, f64, i4, i8, i16, i32, i64, u1, u4, u8, u16, u32, u64, string
};

// Bits per element (u1 = 1, i4/u4 = 4, others multiples of 8; dynamic/string = 0).
MO_API size_t bit_width(ElementType t);
// Bytes needed for `count` elements, packing sub-byte types.
MO_API size_t byte_size(ElementType t, size_t count);
MO_API bool is_float(ElementType t);
MO_API bool is_signed_int(ElementType t);
MO_API bool is_unsigned_int(ElementType t);
inline bool is_integral(ElementType t) { return is_signed_int(t) || is_unsigned_int(t); }

// "f32", "i64", "boolean": the spelling of `<data element_type=...>` and destination_type.
MO_API std::string_view ir_name(ElementType t);
// "FP32", "I64", "BOOL": the spelling of a port's `precision`.
MO_API std::string_view ir_precision(ElementType t);
// Parses either spelling; throws mo::Error on an unknown name.
MO_API ElementType element_type_from_string(std::string_view s);

// Maps a C++ scalar type to its element type: element_type_of<float>() == f32.
template <typename T> constexpr ElementType element_type_of();
template <> constexpr ElementType element_type_of<float>() { return ElementType::f32; }
template <> constexpr ElementType element_type_of<double>() { return ElementType::f64; }
template <> constexpr ElementType element_type_of<int8_t>() { return ElementType::i8; }
template <> constexpr ElementType element_type_of<int16_t>() { return ElementType::i16; }
template <> constexpr ElementType element_type_of<int32_t>() { return ElementType::i32; }
template <> constexpr ElementType element_type_of<int64_t>() { return ElementType::i64; }
template <> constexpr ElementType element_type_of<uint8_t>() { return ElementType::u8; }
template <> constexpr ElementType element_type_of<uint16_t>() { return ElementType::u16; }
template <> constexpr ElementType element_type_of<uint32_t>() { return ElementType::u32; }
template <> constexpr ElementType element_type_of<uint64_t>() { return ElementType::u64; }
template <> constexpr ElementType element_type_of<bool>() { return ElementType::boolean; }

}  // namespace mo
