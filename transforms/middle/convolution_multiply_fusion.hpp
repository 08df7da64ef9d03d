// Folding constant linear operations into their neighbours, as OpenVINO's own fusions leave an
// IR:
//   Conv(x, W) [+ b] * s         -> Conv(x, W * s) [+ b * s]      s, b per output channel
//   (x + c1) + c2,  (x * c1) * c2 -> x + (c1 + c2),  x * (c1 * c2)
//   Conv / pool (Pad(x, 0))       -> Conv / pool (x) with the pads added to its own
// Every intermediate tensor must have no consumer outside the chain; the replacement takes the
// last node's name and output tensor names.
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

// Two Adds or two Multiplies, each with one constant input, become one whose constant is the
// two constants combined (broadcast together). After the activation and normalization fusions,
// whose patterns look for the constants as exported.
class ConstantChainMerge final : public PatternTransformation {
public:
    std::string id() const override { return "ConstantChainMerge"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override {
        return {"GeluFusion", "HSwishFusion", "HSigmoidFusion", "SwishFusion", "MishFusion",
                "LayerNormToMVN", "SoftmaxFusion", "FuseBatchNormIntoConvolution"};
    }
    bool force_clean_up() const override { return true; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

// A constant-mode Pad with constant, non-negative pads on the spatial axes only, feeding a
// Convolution, GroupConvolution, AvgPool or MaxPool with explicit (or valid) padding. The pad
// value must be what the consumer's own padding means: 0 for a convolution and for an AvgPool
// that counts padding (an AvgPool without pads of its own is switched to counting it), -inf for
// a MaxPool (whose indices output must be unused).
class PadFusion final : public PatternTransformation {
public:
    std::string id() const override { return "PadFusion"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"PartialInference"}; }
    bool force_clean_up() const override { return true; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
