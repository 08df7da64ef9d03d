// Gemm(A, B, C; alpha, beta, transA, transB) -> MatMul(A, B; transA, transB) [* alpha] [+ beta * C].
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// alpha is folded into a constant B, beta into a constant C (new owned constants); otherwise
// they become Multiply nodes. beta == 0 drops C, alpha == beta == 1 adds no Multiply. The last
// node of the chain takes the Gemm's name and output tensor names. An integral Gemm whose alpha
// or beta its type cannot hold exactly (0.5, 1e20 for i32) is a mo::Error: a MatMul of that type
// cannot compute it.
class GemmToMatMul final : public OpTransformation {
public:
    std::string id() const override { return "GemmToMatMul"; }
    Phase phase() const override { return Phase::Back; }
    std::vector<std::string> op_types() const override { return {"Gemm"}; }
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
