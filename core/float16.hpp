// IEEE half and bfloat16 conversions (round to nearest even), used by constant compression
// and by evaluation of f16/bf16 tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "api.hpp"

namespace mo {

MO_API uint16_t f32_to_f16(float v);
MO_API float f16_to_f32(uint16_t h);
MO_API uint16_t f32_to_bf16(float v);
MO_API float bf16_to_f32(uint16_t h);

// Bulk conversions; `n` elements.
MO_API void f32_to_f16(const float* src, uint16_t* dst, size_t n);
MO_API void f16_to_f32(const uint16_t* src, float* dst, size_t n);
// Converts as f32_to_f16 does and returns whether every finite value fits f16 (|v| <= 65504, the
// largest f16): f16 compression's range check in the same sweep as its conversion.
MO_API bool f32_to_f16_fits(const float* src, uint16_t* dst, size_t n);

// The instruction sets the bulk f32 -> f16 conversions can use. Every kernel gives the same
// bits (IEEE round to nearest even); the best one the CPU has is chosen at run time, or the one
// MO_F16_KERNEL names (portable, f16c or avx512), for tests and measurements.
enum class F16Kernel { Portable, F16C, Avx512 };
MO_API const char* f16_kernel_name(F16Kernel kernel);
MO_API std::vector<F16Kernel> available_f16_kernels();  // Portable first
MO_API F16Kernel chosen_f16_kernel();
MO_API bool f32_to_f16_fits(F16Kernel kernel, const float* src, uint16_t* dst, size_t n);

}  // namespace mo
