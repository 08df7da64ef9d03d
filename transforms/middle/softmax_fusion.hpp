// exp(x - max(x)) / sum(exp(x - max(x))) -> SoftMax(x; axis). The two reductions keep their
// dims and reduce the same single axis; every intermediate is used only in the pattern.
#pragma once

#include "transforms/middle/fusion_parts.hpp"

namespace mo {

class SoftmaxFusion final : public MiddleFusion {
public:
    std::string id() const override { return "SoftmaxFusion"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
