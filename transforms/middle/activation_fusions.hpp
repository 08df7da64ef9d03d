// Decomposed activations -> the opset's activation ops, as OpenVINO users expect them in an IR:
//   Gelu:     0.5 * x * (1 + erf(x / sqrt(2)))                        -> Gelu(x; ERF)
//             0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) -> Gelu(x; TANH)
//   HSwish:   x * HardSigmoid(x; 1/6, 1/2),  x * relu6(x + 3) / 6     -> HSwish(x)
//   HSigmoid: HardSigmoid(x; 1/6, 1/2),      relu6(x + 3) / 6         -> HSigmoid(x)
//   Swish:    x * sigmoid(x),  x * sigmoid(beta * x)                  -> Swish(x [, beta])
//   SoftPlus: log(exp(x) + 1)                                         -> SoftPlus(x)
//   Mish:     x * tanh(SoftPlus(x))                                   -> Mish(x)
// Each form is matched in the operand orders exporters produce (commutative Add / Multiply,
// Divide by c or Multiply by 1/c). Constants must equal the formula's within 1e-5 relative and
// must not broadcast the result to another shape (const_value), and every intermediate tensor
// must have no consumer outside the pattern. The fused op takes the last node's name and tensor
// names; the absorbed nodes' names are kept as fused names.
#pragma once

#include "transforms/pattern.hpp"

namespace mo {

// The shared part of the activation fusions: middle phase, after PartialInference (constants
// are known), dead nodes removed afterwards.
class ActivationFusion : public PatternTransformation {
public:
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"PartialInference"}; }
    bool force_clean_up() const override { return true; }
};

class GeluFusion final : public ActivationFusion {
public:
    std::string id() const override { return "GeluFusion"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

class HSwishFusion final : public ActivationFusion {
public:
    std::string id() const override { return "HSwishFusion"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

// After HSwishFusion, which consumes the HSigmoid form inside x * hsigmoid(x).
class HSigmoidFusion final : public ActivationFusion {
public:
    std::string id() const override { return "HSigmoidFusion"; }
    std::vector<std::string> run_after() const override { return {"HSwishFusion"}; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

class SwishFusion final : public ActivationFusion {
public:
    std::string id() const override { return "SwishFusion"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

class SoftPlusFusion final : public ActivationFusion {
public:
    std::string id() const override { return "SoftPlusFusion"; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

// After SoftPlusFusion, whose SoftPlus it looks for.
class MishFusion final : public ActivationFusion {
public:
    std::string id() const override { return "MishFusion"; }
    std::vector<std::string> run_after() const override { return {"SoftPlusFusion"}; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
