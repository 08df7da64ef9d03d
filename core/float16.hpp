// IEEE half and bfloat16 conversions (round to nearest even), used by constant compression
// and by evaluation of f16/bf16 tensors.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mo {

uint16_t f32_to_f16(float v);
float f16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float v);
float bf16_to_f32(uint16_t h);

// Bulk conversions; `n` elements.
void f32_to_f16(const float* src, uint16_t* dst, size_t n);
void f16_to_f32(const uint16_t* src, float* dst, size_t n);

}  // namespace mo
