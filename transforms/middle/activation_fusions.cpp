#include "transforms/middle/activation_fusions.hpp"

#include <cmath>
#include <numbers>

namespace mo {

namespace {

constexpr double kTolerance = 1e-5;  // relative, on the formula's constants

// Building blocks of the patterns. Every node but the root must have its single consumer in the
// pattern (consumers(1)), so that removing it takes nothing from the rest of the graph.
void constant(Pattern& p, const std::string& name, double value) {
    p.node(name, {}, {const_value(value, kTolerance)});
}

// name = input * factor, as Multiply(input, factor) in either order or Divide(input, 1/factor).
void scaled(Pattern& p, const std::string& name, const std::string& input, double factor, bool divide,
            bool root = false) {
    std::vector<NodePredicate> preds;
    if (!root) preds.push_back(consumers(1));
    p.node(name, {divide ? "Divide" : "Multiply"}, preds);
    if (!divide) p.commutative(name);
    constant(p, name + "/factor", divide ? 1.0 / factor : factor);
    p.edge(input, name, 0).edge(name + "/factor", name, 1);
}

// name = a + b or a * b, either order.
void binary(Pattern& p, const std::string& name, const char* type, const std::string& a, const std::string& b,
            bool root = false) {
    std::vector<NodePredicate> preds;
    if (!root) preds.push_back(consumers(1));
    p.node(name, {type}, preds).commutative(name).edge(a, name, 0).edge(b, name, 1);
}

void unary(Pattern& p, const std::string& name, const char* type, const std::string& input, bool root = false) {
    std::vector<NodePredicate> preds;
    if (!root) preds.push_back(consumers(1));
    p.node(name, {type}, preds).edge(input, name, 0);
}

// name + "/plus" = input + c
void plus_constant(Pattern& p, const std::string& name, const std::string& input, double c) {
    constant(p, name + "/c", c);
    binary(p, name, "Add", input, name + "/c");
}

bool is_relu6_clamp(const Node& n) { return n.attr<double>("min") == 0.0 && n.attr<double>("max") == 6.0; }

// The forms of relu6(x + 3) relu6_of_x_plus_3() matches.
constexpr int kRelu6Forms = 4;

// "relu6" = relu6(x + 3) in one of its exported forms: ONNX Clip(x + 3, 0, 6) (the internal
// Clip op until the back phase), Clamp(x + 3; 0, 6), Minimum(Relu(x + 3), 6) or
// Minimum(Maximum(x + 3, 0), 6).
void relu6_of_x_plus_3(Pattern& p, int form) {
    plus_constant(p, "plus3", "x", 3.0);
    if (form == 0) {
        constant(p, "zero", 0.0);
        constant(p, "six", 6.0);
        p.node("relu6", {"Clip"}, {consumers(1)}).edge("plus3", "relu6", 0).edge("zero", "relu6", 1).edge("six", "relu6", 2);
        return;
    }
    if (form == 1) {
        p.node("relu6", {"Clamp"}, {consumers(1), is_relu6_clamp}).edge("plus3", "relu6", 0);
        return;
    }
    if (form == 2) {
        unary(p, "relu", "Relu", "plus3");
    } else {
        constant(p, "zero", 0.0);
        binary(p, "relu", "Maximum", "plus3", "zero");
    }
    constant(p, "six", 6.0);
    binary(p, "relu6", "Minimum", "relu", "six");
}

bool fuse(const PatternMatch& m, const std::string& root, Node fused, const std::vector<std::string>& inputs) {
    fuse_match(m, root, fused, inputs);
    return true;
}

bool float_input(const OutPort& x) { return is_float(x.type()); }

}  // namespace

// ---- Gelu ---------------------------------------------------------------------------------------

namespace {

// 0.5 * x * (1 + erf(x / sqrt(2))) with the Multiply chain in `order`:
// 0: (x * plus) * 0.5 (PyTorch), 1: (x * 0.5) * plus, 2: x * (plus * 0.5).
Pattern gelu_erf(int order, bool divide) {
    Pattern p("out");
    p.node("x").any_output("x");
    scaled(p, "inner", "x", 1.0 / std::numbers::sqrt2, divide);
    unary(p, "erf", "Erf", "inner");
    plus_constant(p, "plus", "erf", 1.0);
    constant(p, "half", 0.5);
    if (order == 0) binary(p, "mul", "Multiply", "x", "plus"), binary(p, "out", "Multiply", "mul", "half", true);
    if (order == 1) binary(p, "mul", "Multiply", "x", "half"), binary(p, "out", "Multiply", "mul", "plus", true);
    if (order == 2) binary(p, "mul", "Multiply", "plus", "half"), binary(p, "out", "Multiply", "x", "mul", true);
    return p;
}

// 0.5 * (x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))) as PyTorch exports it, with x^3 as
// x * (x * x) or Power(x, 3).
Pattern gelu_tanh(bool power) {
    Pattern p("out");
    p.node("x").any_output("x");
    if (power) {
        constant(p, "three", 3.0);
        p.node("cube", {"Power"}, {consumers(1)}).edge("x", "cube", 0).edge("three", "cube", 1);
    } else {
        binary(p, "square", "Multiply", "x", "x");
        binary(p, "cube", "Multiply", "x", "square");
    }
    scaled(p, "kappa_cube", "cube", 0.044715, false);
    binary(p, "sum", "Add", "x", "kappa_cube");
    scaled(p, "inner", "sum", std::sqrt(2.0 / std::numbers::pi), false);
    unary(p, "tanh", "Tanh", "inner");
    plus_constant(p, "plus", "tanh", 1.0);
    binary(p, "mul", "Multiply", "x", "plus");
    scaled(p, "out", "mul", 0.5, false, true);
    return p;
}

}  // namespace

std::vector<Pattern> GeluFusion::patterns() const {
    std::vector<Pattern> v;
    for (int order = 0; order < 3; ++order)
        for (bool divide : {true, false}) v.push_back(gelu_erf(order, divide));
    v.push_back(gelu_tanh(false));
    v.push_back(gelu_tanh(true));
    return v;
}

bool GeluFusion::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!float_input(x)) return false;
    Graph& g = x.node().graph();
    const std::string mode = m.nodes().count("erf") ? "ERF" : "TANH";
    Node gelu = g.add_op("Gelu", m["out"].name() + "/gelu", {x}, {{"approximation_mode", mode}});
    return fuse(m, "out", gelu, {"x"});
}

// ---- HSwish, HSigmoid -----------------------------------------------------------------------------

namespace {

// "hsig" = HardSigmoid(x; 1/6, 1/2)
void hard_sigmoid(Pattern& p, bool root) {
    constant(p, "alpha", 1.0 / 6.0);
    constant(p, "beta", 0.5);
    std::vector<NodePredicate> preds;
    if (!root) preds.push_back(consumers(1));
    p.node("hsig", {"HardSigmoid"}, preds).edge("x", "hsig", 0).edge("alpha", "hsig", 1).edge("beta", "hsig", 2);
}

}  // namespace

std::vector<Pattern> HSwishFusion::patterns() const {
    std::vector<Pattern> v;
    Pattern hs("out");
    hs.node("x").any_output("x");
    hard_sigmoid(hs, false);
    binary(hs, "out", "Multiply", "x", "hsig", true);
    v.push_back(hs);
    for (int form = 0; form < kRelu6Forms; ++form)
        for (bool divide : {true, false}) {
            Pattern inner("out");  // x * (relu6(x + 3) / 6)
            inner.node("x").any_output("x");
            relu6_of_x_plus_3(inner, form);
            scaled(inner, "sixth", "relu6", 1.0 / 6.0, divide);
            binary(inner, "out", "Multiply", "x", "sixth", true);
            v.push_back(inner);
            Pattern outer("out");  // (x * relu6(x + 3)) / 6
            outer.node("x").any_output("x");
            relu6_of_x_plus_3(outer, form);
            binary(outer, "mul", "Multiply", "x", "relu6");
            scaled(outer, "out", "mul", 1.0 / 6.0, divide, true);
            v.push_back(outer);
        }
    return v;
}

bool HSwishFusion::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!float_input(x)) return false;
    Node hswish = x.node().graph().add_op("HSwish", m["out"].name() + "/hswish", {x});
    return fuse(m, "out", hswish, {"x"});
}

std::vector<Pattern> HSigmoidFusion::patterns() const {
    std::vector<Pattern> v;
    Pattern hs("hsig");
    hs.node("x").any_output("x");
    hard_sigmoid(hs, true);
    v.push_back(hs);
    for (int form = 0; form < kRelu6Forms; ++form)
        for (bool divide : {true, false}) {
            Pattern p("out");  // relu6(x + 3) / 6
            p.node("x").any_output("x");
            relu6_of_x_plus_3(p, form);
            scaled(p, "out", "relu6", 1.0 / 6.0, divide, true);
            v.push_back(p);
        }
    return v;
}

bool HSigmoidFusion::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!float_input(x)) return false;
    const std::string root = m.nodes().count("out") ? "out" : "hsig";
    Node hsigmoid = x.node().graph().add_op("HSigmoid", m[root].name() + "/hsigmoid", {x});
    return fuse(m, root, hsigmoid, {"x"});
}

// ---- Swish ----------------------------------------------------------------------------------------

std::vector<Pattern> SwishFusion::patterns() const {
    Pattern plain("out");  // x * sigmoid(x)
    plain.node("x").any_output("x");
    unary(plain, "sigmoid", "Sigmoid", "x");
    binary(plain, "out", "Multiply", "x", "sigmoid", true);
    Pattern with_beta("out");  // x * sigmoid(x * beta)
    with_beta.node("x").any_output("x").node("beta", {}, {scalar_constant()});
    binary(with_beta, "scaled", "Multiply", "x", "beta");
    unary(with_beta, "sigmoid", "Sigmoid", "scaled");
    binary(with_beta, "out", "Multiply", "x", "sigmoid", true);
    return {plain, with_beta};
}

bool SwishFusion::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!float_input(x)) return false;
    Graph& g = x.node().graph();
    std::vector<OutPort> inputs{x};
    if (m.nodes().count("beta")) {
        const Tensor& beta = *m["beta"].out(0).value();
        if (beta.type() != x.type()) return false;
        inputs.push_back(g.add_constant(m["out"].name() + "/beta", beta.reshaped({})).out(0));
    }
    Node swish = g.add_op("Swish", m["out"].name() + "/swish", inputs);
    return fuse(m, "out", swish, {"x"});
}

// ---- SoftPlus, Mish ---------------------------------------------------------------------------------

std::vector<Pattern> SoftPlusFusion::patterns() const {
    Pattern p("out");  // log(exp(x) + 1)
    p.node("x").any_output("x");
    unary(p, "exp", "Exp", "x");
    plus_constant(p, "plus", "exp", 1.0);
    unary(p, "out", "Log", "plus", true);
    return {p};
}

bool SoftPlusFusion::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!float_input(x)) return false;
    Node softplus = x.node().graph().add_op("SoftPlus", m["out"].name() + "/softplus", {x});
    return fuse(m, "out", softplus, {"x"});
}

std::vector<Pattern> MishFusion::patterns() const {
    Pattern p("out");  // x * tanh(SoftPlus(x))
    p.node("x").any_output("x");
    unary(p, "softplus", "SoftPlus", "x");
    unary(p, "tanh", "Tanh", "softplus");
    binary(p, "out", "Multiply", "x", "tanh", true);
    return {p};
}

bool MishFusion::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!float_input(x)) return false;
    Node mish = x.node().graph().add_op("Mish", m["out"].name() + "/mish", {x});
    return fuse(m, "out", mish, {"x"});
}

}  // namespace mo
