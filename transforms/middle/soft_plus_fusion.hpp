// log(exp(x) + 1) -> SoftPlus(x)
// Matched in the operand orders exporters produce (commutative Add / Multiply, Divide by c or
// Multiply by 1/c); constants equal the formula's within 1e-5 relative and do not broadcast the
// result to another shape (const_value); intermediates have no consumer outside the pattern.
// The fused op takes the last node's name and tensor names.
#pragma once

#include "transforms/middle/fusion_parts.hpp"

namespace mo {

class SoftPlusFusion final : public MiddleFusion {
public:
    std::string id() const override { return "SoftPlusFusion"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
