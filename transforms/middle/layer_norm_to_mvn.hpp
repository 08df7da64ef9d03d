// Decomposed normalizations -> the opset's ops:
//   LayerNorm: (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)  -> MVN(x, axes; eps, inside_sqrt)
//              (the exported gamma / beta Multiply and Add stay as they are)
//   Softmax:   exp(x - max(x)) / sum(exp(x - max(x)))             -> SoftMax(x; axis)
// The reductions must keep their dims and reduce the same axes: for MVN the trailing axes, for
// SoftMax one axis; squares as Power(d, 2) or d * d; every intermediate used only in the pattern.
#pragma once

#include "transforms/middle/activation_fusions.hpp"

namespace mo {

class LayerNormFusion final : public ActivationFusion {
public:
    std::string id() const override { return "LayerNormToMVN"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

class SoftmaxFusion final : public ActivationFusion {
public:
    std::string id() const override { return "SoftmaxFusion"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
