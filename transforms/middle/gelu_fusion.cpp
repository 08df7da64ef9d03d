#include "transforms/middle/gelu_fusion.hpp"

#include <cmath>
#include <numbers>

namespace mo {

using namespace fusion_parts;

namespace {

// Where the 0.5 of 0.5 * x * (1 + erf(x / sqrt(2))) joins the Multiply chain ("plus" is 1 + erf).
enum class HalfJoins {
    Last,      // (x * plus) * 0.5, as PyTorch exports it
    X,         // (x * 0.5) * plus
    Plus,      // x * (plus * 0.5)
};
struct GeluErfForm {
    HalfJoins half;
    bool divide;  // x / sqrt(2) rather than x * (1 / sqrt(2))
};

Pattern gelu_erf(GeluErfForm form) {
    Pattern p("out");
    p.node("x").any_output("x");
    scaled(p, "inner", "x", 1.0 / std::numbers::sqrt2, {.divide = form.divide});
    unary(p, "erf", "Erf", "inner");
    plus_constant(p, "plus", "erf", 1.0);
    constant(p, "half", 0.5);
    switch (form.half) {
    case HalfJoins::Last:
        binary(p, "mul", "Multiply", "x", "plus");
        binary(p, "out", "Multiply", "mul", "half", {.root = true});
        break;
    case HalfJoins::X:
        binary(p, "mul", "Multiply", "x", "half");
        binary(p, "out", "Multiply", "mul", "plus", {.root = true});
        break;
    case HalfJoins::Plus:
        binary(p, "mul", "Multiply", "plus", "half");
        binary(p, "out", "Multiply", "x", "mul", {.root = true});
        break;
    }
    return p;
}

// 0.5 * (x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))) as PyTorch exports it.
struct GeluTanhForm {
    bool cube_as_power;  // x^3 as Power(x, 3) rather than x * (x * x)
};

Pattern gelu_tanh(GeluTanhForm form) {
    Pattern p("out");
    p.node("x").any_output("x");
    if (form.cube_as_power) {
        constant(p, "three", 3.0);
        p.node("cube", {"Power"}, {consumers(1)}).edge("x", "cube", 0).edge("three", "cube", 1);
    } else {
        binary(p, "square", "Multiply", "x", "x");
        binary(p, "cube", "Multiply", "x", "square");
    }
    scaled(p, "kappa_cube", "cube", 0.044715);
    binary(p, "sum", "Add", "x", "kappa_cube");
    scaled(p, "inner", "sum", std::sqrt(2.0 / std::numbers::pi));
    unary(p, "tanh", "Tanh", "inner");
    plus_constant(p, "plus", "tanh", 1.0);
    binary(p, "mul", "Multiply", "x", "plus");
    scaled(p, "out", "mul", 0.5, {.root = true});
    return p;
}

}  // namespace

std::vector<Pattern> GeluFusion::patterns() const {
    std::vector<Pattern> v;
    for (HalfJoins half : {HalfJoins::Last, HalfJoins::X, HalfJoins::Plus})
        for (bool divide : {true, false}) v.push_back(gelu_erf({.half = half, .divide = divide}));
    v.push_back(gelu_tanh({.cube_as_power = false}));
    v.push_back(gelu_tanh({.cube_as_power = true}));
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

}  // namespace mo
