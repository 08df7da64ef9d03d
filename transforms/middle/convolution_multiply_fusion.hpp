// Conv(x, W) [+ b] * s -> Conv(x, W * s) [+ b * s], s and b per output channel, as OpenVINO's own
// fusions leave an IR. Every intermediate tensor must have no consumer outside the chain; the
// replacement takes the last node's name and output tensor names.
#pragma once

#include "transforms/pattern.hpp"

namespace mo {

// Convolution / GroupConvolution with constant float weights, optionally followed by a constant
// per-channel Add (the bias), then a constant per-channel Multiply. After BatchNorm fusion, whose
// Add it may absorb, and after the constant chains are merged.
class ConvolutionMultiplyFusion final : public PatternTransformation {
public:
    std::string id() const override { return "ConvolutionMultiplyFusion"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override {
        return {"FuseBatchNormIntoConvolution", "ConstantChainMerge"};
    }
    bool force_clean_up() const override { return true; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
