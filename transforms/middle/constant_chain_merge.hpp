// (x + c1) + c2 -> x + (c1 + c2),  (x * c1) * c2 -> x * (c1 * c2); the replacement takes the
// last node's name and output tensor names.
#pragma once

#include "transforms/pattern.hpp"

namespace mo {

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

}  // namespace mo
