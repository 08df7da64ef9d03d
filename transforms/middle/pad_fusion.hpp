// Conv / pool (Pad(x, 0)) -> Conv / pool (x) with the pads added to its own.
#pragma once

#include "transforms/pattern.hpp"

namespace mo {

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
