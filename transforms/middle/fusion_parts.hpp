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

// How a block's last node stands in the pattern: the root may have consumers outside it.
struct BlockOptions {
    bool root = false;
};
struct ScaleOptions {
    bool divide = false;  // Divide(input, 1/factor) rather than Multiply(input, factor)
    bool root = false;
};

// `name`: a constant equal to `value` within kTolerance.
void constant(Pattern& p, const std::string& name, double value);
// name = input * factor, as Multiply(input, factor) in either order or Divide(input, 1/factor).
void scaled(Pattern& p, const std::string& name, const std::string& input, double factor, ScaleOptions options = {});
// name = a + b or a * b, either order.
void binary(Pattern& p, const std::string& name, const char* type, const std::string& a, const std::string& b,
            BlockOptions options = {});
void unary(Pattern& p, const std::string& name, const char* type, const std::string& input, BlockOptions options = {});
// name = input + c
void plus_constant(Pattern& p, const std::string& name, const std::string& input, double c);

// The exported forms of relu6(x + 3): ONNX Clip(x + 3, 0, 6) (the internal Clip op until the
// back phase), Clamp(x + 3; 0, 6), Minimum(Relu(x + 3), 6), Minimum(Maximum(x + 3, 0), 6).
enum class Relu6Form { Clip, Clamp, MinimumOfRelu, MinimumOfMaximum };
inline constexpr Relu6Form kRelu6Forms[] = {Relu6Form::Clip, Relu6Form::Clamp, Relu6Form::MinimumOfRelu,
                                            Relu6Form::MinimumOfMaximum};
// "relu6" = relu6(x + 3) in `form`.
void relu6_of_x_plus_3(Pattern& p, Relu6Form form);
// "hsig" = HardSigmoid(x; 1/6, 1/2)
void hard_sigmoid(Pattern& p, BlockOptions options = {});

// reduce(input, axes) with keep_dims, constant axes and its single consumer in the pattern.
void reduction(Pattern& p, const std::string& name, const char* type, const std::string& input);
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
