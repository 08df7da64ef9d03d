// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) -> MVN(x, axes; eps, inside_sqrt); the
// exported gamma / beta Multiply and Add stay as they are. The two reductions keep their dims
// and reduce the same trailing axes; the square is Power(d, 2) or d * d; every intermediate is
// used only in the pattern.
#pragma once

#include "transforms/middle/fusion_parts.hpp"

namespace mo {

class LayerNormToMVN final : public MiddleFusion {
public:
    std::string id() const override { return "LayerNormToMVN"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
