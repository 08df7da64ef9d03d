#include "transforms/middle/fusion_parts.hpp"

#include <algorithm>

namespace mo::fusion_parts {

void constant(Pattern& p, const std::string& name, double value) {
    p.node(name, {}, {const_value(value, kTolerance)});
}

// name = input * factor, as Multiply(input, factor) in either order or Divide(input, 1/factor).
void scaled(Pattern& p, const std::string& name, const std::string& input, double factor, ScaleOptions options) {
    std::vector<NodePredicate> preds;
    if (!options.root) preds.push_back(consumers(1));
    p.node(name, {options.divide ? "Divide" : "Multiply"}, preds);
    if (!options.divide) p.commutative(name);
    constant(p, name + "/factor", options.divide ? 1.0 / factor : factor);
    p.edge(input, name, 0).edge(name + "/factor", name, 1);
}

// name = a + b or a * b, either order.
void binary(Pattern& p, const std::string& name, const char* type, const std::string& a, const std::string& b,
            BlockOptions options) {
    std::vector<NodePredicate> preds;
    if (!options.root) preds.push_back(consumers(1));
    p.node(name, {type}, preds).commutative(name).edge(a, name, 0).edge(b, name, 1);
}

void unary(Pattern& p, const std::string& name, const char* type, const std::string& input, BlockOptions options) {
    std::vector<NodePredicate> preds;
    if (!options.root) preds.push_back(consumers(1));
    p.node(name, {type}, preds).edge(input, name, 0);
}

// name + "/plus" = input + c
void plus_constant(Pattern& p, const std::string& name, const std::string& input, double c) {
    constant(p, name + "/c", c);
    binary(p, name, "Add", input, name + "/c");
}

static bool is_relu6_clamp(const Node& n) { return n.attr<double>("min") == 0.0 && n.attr<double>("max") == 6.0; }

void relu6_of_x_plus_3(Pattern& p, Relu6Form form) {
    plus_constant(p, "plus3", "x", 3.0);
    if (form == Relu6Form::Clip) {
        constant(p, "zero", 0.0);
        constant(p, "six", 6.0);
        p.node("relu6", {"Clip"}, {consumers(1)}).edge("plus3", "relu6", 0).edge("zero", "relu6", 1).edge("six", "relu6", 2);
        return;
    }
    if (form == Relu6Form::Clamp) {
        p.node("relu6", {"Clamp"}, {consumers(1), is_relu6_clamp}).edge("plus3", "relu6", 0);
        return;
    }
    if (form == Relu6Form::MinimumOfRelu) {
        unary(p, "relu", "Relu", "plus3");
    } else {
        constant(p, "zero", 0.0);
        binary(p, "relu", "Maximum", "plus3", "zero");
    }
    constant(p, "six", 6.0);
    binary(p, "relu6", "Minimum", "relu", "six");
}

// "hsig" = HardSigmoid(x; 1/6, 1/2)
void hard_sigmoid(Pattern& p, BlockOptions options) {
    constant(p, "alpha", 1.0 / 6.0);
    constant(p, "beta", 0.5);
    std::vector<NodePredicate> preds;
    if (!options.root) preds.push_back(consumers(1));
    p.node("hsig", {"HardSigmoid"}, preds).edge("x", "hsig", 0).edge("alpha", "hsig", 1).edge("beta", "hsig", 2);
}

static bool keeps_dims(const Node& n) { return n.attr<bool>("keep_dims"); }

// reduce(input, axes) with keep_dims, constant axes and its single consumer in the pattern.
void reduction(Pattern& p, const std::string& name, const char* type, const std::string& input) {
    p.node(name + "/axes", {}, {is_constant()});
    p.node(name, {type}, {consumers(1), keeps_dims}).edge(input, name, 0).edge(name + "/axes", name, 1);
}

// The reduced axes of a matched reduction, non-negative and sorted, or empty when the rank of
// its input is unknown.
std::vector<int64_t> reduced_axes(const Node& reduce) {
    const PartialShape& in = reduce.in(0).shape();
    if (!in.rank_is_static()) return {};
    const int64_t rank = static_cast<int64_t>(in.rank());
    std::vector<int64_t> axes;
    for (int64_t a : reduce.in(1).value()->to_i64()) {
        if (a < -rank || a >= rank) return {};
        axes.push_back(a < 0 ? a + rank : a);
    }
    std::sort(axes.begin(), axes.end());
    return axes;
}

}  // namespace mo::fusion_parts
