// TFLite's quantized tensors (real = scale · (q - zero_point), per tensor or per channel along
// quantized_dimension) enter the graph as f32 real values. The loader puts one framework node
// of domain "quantization" on each such tensor; extractors/tflite/tflite_quantization.cpp turns
// it into opset ops:
//   DEQUANTIZE_STORED  a constant or a model input, as stored -> its real values (Convert ->
//                      Subtract -> Multiply; an 8-bit constant stays 8-bit in the IR)
//   FAKE_QUANTIZE      an operator's output -> snapped to its grid (FakeQuantize), as the
//                      integer kernel rounds and saturates
//   QUANTIZE_OUTPUT    a model output -> the stored integers again (the IR keeps the model's
//                      interface)
// Their attributes: scale (floats), zero_point (ints), quantized_dimension (int), tensor (the
// tensor's name), storage (the stored element type, as the IR spells it) and, for an operator's
// output, producer (the operator's type, for messages).
#pragma once

#include <memory>
#include <string>

#include "core/framework_attributes.hpp"
#include "core/tensor.hpp"

namespace tflite {
struct Tensor;
}

namespace mo {

inline constexpr const char* kTfliteQuantizationDomain = "quantization";
inline constexpr const char* kDequantizeStored = "DEQUANTIZE_STORED";
inline constexpr const char* kFakeQuantizeTensor = "FAKE_QUANTIZE";
inline constexpr const char* kQuantizeOutput = "QUANTIZE_OUTPUT";

// The quantization of tensor `t` (stored as `stored`, named `name`) as those attributes, or null
// when it has none: no scales, or a float tensor (whose min / max are only calibration notes).
// Throws mo::Error at `where` for parameters that are inconsistent or not linear.
std::shared_ptr<const FrameworkAttributes> tflite_quantization(const tflite::Tensor& t, ElementType stored,
                                                               const std::string& name, const std::string& where,
                                                               const std::string& producer = {});

}  // namespace mo
