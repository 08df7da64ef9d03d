// IEEE half and bfloat16 conversions (round to nearest even), used by constant compression
// and by evaluation of f16/bf16 tensors.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/api.hpp"

namespace mo {

MO_API uint16_t f32_to_f16(float v);
MO_API float f16_to_f32(uint16_t h);
MO_API uint16_t f32_to_bf16(float v);
MO_API float bf16_to_f32(uint16_t h);

// Bulk conversions; `n` elements.
MO_API void f32_to_f16(const float* src, uint16_t* dst, size_t n);
MO_API void f16_to_f32(const uint16_t* src, float* dst, size_t n);

}  // namespace mo
