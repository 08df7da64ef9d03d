// 0.5 * x * (1 + erf(x / sqrt(2)))                        -> Gelu(x; ERF)
// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) -> Gelu(x; TANH)
// Matched in the operand orders exporters produce (commutative Add / Multiply, Divide by c or
// Multiply by 1/c); constants equal the formula's within 1e-5 relative and do not broadcast the
// result to another shape (const_value); intermediates have no consumer outside the pattern.
// The fused op takes the last node's name and tensor names.
#pragma once

#include "transforms/middle/fusion_parts.hpp"

namespace mo {

class GeluFusion final : public MiddleFusion {
public:
    std::string id() const override { return "GeluFusion"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
