// QuantizeDequantizeToFakeQuantize: a QuantizeLinear -> DequantizeLinear pair on activations
// (static quantization, QAT exports), as the ONNX extractors decompose it,
//   Divide(x, s) -> Round -> [Add zp] -> Clamp(lo, hi) -> Convert(u8 / i8)
//   -> Convert(f32) -> [Subtract zp] -> Multiply(s)
// -> FakeQuantize(x, (lo - zp) * s, (hi - zp) * s, the same, levels = hi - lo + 1), as OpenVINO's
// ConvertQuantizeDequantize makes it. Per tensor or per channel; the scale and zero point of the
// two halves must be the same constants, every scale positive and finite, and the bounds must
// fold (--max_constant_size). A quantized tensor read by several DequantizeLinears
// gives one FakeQuantize per reader. The result equals the pair's except where x / s falls
// on a rounding tie, which FakeQuantize computes as (x - low) / (high - low) * (levels - 1).
// Weights (DequantizeLinear of constants) keep their decompression form instead.
#pragma once

#include "transforms/pattern.hpp"

namespace mo {

class QuantizeDequantizeToFakeQuantize final : public PatternTransformation {
public:
    std::string id() const override { return "QuantizeDequantizeToFakeQuantize"; }
    Phase phase() const override { return Phase::Middle; }
    bool force_clean_up() const override { return true; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
