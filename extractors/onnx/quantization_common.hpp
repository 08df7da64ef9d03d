// The two halves of ONNX Runtime's QLinear* contrib ops (QLinearAdd, QLinearSigmoid, ...), which
// compute in f32 between them. Both take the ONNX node's input indices; per-tensor scales and
// zero points only. Defined in quantization.cpp, next to QuantizeLinear and DequantizeLinear.
#pragma once

#include <string>

#include "extractors/extract_context.hpp"

namespace mo {

// (f32(x) - f32(zero_point)) · scale; `zero_point` may be an absent optional input.
OutPort dequantize_input(ExtractContext& c, const std::string& name, size_t x, size_t scale, size_t zero_point);

// Output 0 = saturate(round_half_even(y / scale) + zero_point) in the zero point's type (uint8
// when it is absent).
void quantize_output(ExtractContext& c, const OutPort& y, size_t scale, size_t zero_point);

// i32(x) - i32(zero_point) of the node's per-tensor 8-bit input x; `zero_point` may be absent.
OutPort integer_input(ExtractContext& c, const std::string& name, size_t x, size_t zero_point);

// Output 0 = saturate(round_half_even(f32(acc) · (s1 · s2 / s3)) + zero_point) for an i32
// accumulator, the multiplier in f32 as ONNX Runtime computes QLinearMatMul / QLinearConv.
void requantize_product(ExtractContext& c, const OutPort& acc, size_t s1, size_t s2, size_t s3, size_t zero_point);

}  // namespace mo
