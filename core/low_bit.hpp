// Packed sub-byte element types u1, u4 and i4, as OpenVINO lays them out: u1 stores element 0 in
// the most significant bit of byte 0; u4/i4 store element 0 in the low nibble of byte 0 and
// element 1 in its high nibble (i4 is a two's complement nibble). Unused trailing bits are zero.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace mo {

// True for u1, u4 and i4.
bool is_low_bit(ElementType t);
// The one-byte type their elements unpack to: u8 for u1/u4, i8 for i4.
ElementType unpacked_type(ElementType t);
// The value an integer takes in low-bit type `t` (Convert-1 rules): u4 and i4 keep its low 4 bits
// (wrapping modulo 16, two's complement for i4), u1 is 1 for any non-zero value (as boolean).
int64_t low_bit_from_int(ElementType t, int64_t v);
// The same for a float: truncated towards zero and saturated to [0, 15] (u4) or [-8, 7] (i4),
// NaN -> 0; u1 is 1 for any non-zero value, NaN included (as boolean).
int64_t low_bit_from_float(ElementType t, double v);

// A u1/u4/i4 tensor as one byte per element (unpacked_type(), same shape).
Tensor unpack_low_bit(const Tensor& packed);
// Packs a u8 (for u1/u4) or i8 (for i4) tensor into `to`. Values must already be in range
// (low_bit_from_int / low_bit_from_float); only their low bits are stored.
Tensor pack_low_bit(const Tensor& unpacked, ElementType to);

}  // namespace mo
