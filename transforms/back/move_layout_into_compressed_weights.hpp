// Replaces `Transpose(W)` and `Reshape(W)` of compressed weights W = (f32(Q) - Z) · S (Q a stored
// low-precision Constant behind a decompression Convert, Z and S constants) with the compressed
// weights of the transposed / reshaped Q: the stored Constant takes the layout its consumer needs
// (still in its own type), Z and S follow as broadcast operands, and the IR does no layout change
// of weights at run time. Frontends dequantize weights before the layout their ops need (TFLite's
// OHWI filters, depthwise [1, H, W, C·M]); for float weights constant folding does this.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Declines when the weights have other consumers, when the layout op's order or shape is not a
// constant, or when a per-channel Z or S cannot follow a Reshape (its channel axis would be split
// or merged).
class MoveLayoutIntoCompressedWeights final : public OpTransformation {
public:
    std::string id() const override { return "MoveLayoutIntoCompressedWeights"; }
    Phase phase() const override { return Phase::Back; }
    std::vector<std::string> op_types() const override { return {"Transpose", "Reshape"}; }
    // Weights are Constants by then; the replaced nodes die with the clean-up.
    std::vector<std::string> run_after() const override { return {"ReplaceFoldedWithConstants"}; }
    std::vector<std::string> run_before() const override { return {"RemoveDeadNodes", "CompressFloatConstantsToF16"}; }
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
