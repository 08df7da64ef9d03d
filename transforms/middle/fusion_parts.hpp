// What the built-in pattern fusions of the middle phase share: their base class, and the
// building blocks of their patterns. Every node a block adds but the root must have its single
// consumer in the pattern (consumers(1)), so that removing it takes nothing from the rest of the
// graph.
#pragma once

#include <string>
#include <vector>

#include "transforms/pattern.hpp"

namespace mo {

// A fusion of the middle phase: after PartialInference (constants are known), dead nodes
// removed afterwards.
class MiddleFusion : public PatternTransformation {
public:
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"PartialInference"}; }
    bool force_clean_up() const override { return true; }
};

namespace fusion_parts {

inline constexpr double kTolerance = 1e-5;  // relative, on the formulas' constants

// `name`: a constant equal to `value` within kTolerance.
void constant(Pattern& p, const std::string& name, double value);
// name = input * factor, as Multiply(input, factor) in either order or Divide(input, 1/factor).
void scaled(Pattern& p, const std::string& name, const std::string& input, double factor, bool divide,
            bool root = false);
// name = a + b or a * b, either order.
void binary(Pattern& p, const std::string& name, const char* type, const std::string& a, const std::string& b,
            bool root = false);
void unary(Pattern& p, const std::string& name, const char* type, const std::string& input, bool root = false);
// name = input + c
void plus_constant(Pattern& p, const std::string& name, const std::string& input, double c);

// The forms of relu6(x + 3) relu6_of_x_plus_3() matches.
inline constexpr int kRelu6Forms = 4;
// "relu6" = relu6(x + 3) in the exported form `form` (0 .. kRelu6Forms - 1).
void relu6_of_x_plus_3(Pattern& p, int form);
// "hsig" = HardSigmoid(x; 1/6, 1/2)
void hard_sigmoid(Pattern& p, bool root);

// reduce(input, axes) with keep_dims and constant axes; `uses` consumers.
void reduction(Pattern& p, const std::string& name, const char* type, const std::string& input, size_t uses);
// The reduced axes of a matched reduction, non-negative and sorted, or empty when the rank of
// its input is unknown.
std::vector<int64_t> reduced_axes(const Node& reduce);

inline bool float_input(const OutPort& x) { return is_float(x.type()); }
inline bool fuse(const PatternMatch& m, const std::string& root, Node fused, const std::vector<std::string>& inputs) {
    fuse_match(m, root, fused, inputs);
    return true;
}

}  // namespace fusion_parts

}  // namespace mo
