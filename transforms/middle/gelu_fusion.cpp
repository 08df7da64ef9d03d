#include "transforms/middle/gelu_fusion.hpp"

#include <cmath>
#include <numbers>

namespace mo {

using namespace fusion_parts;

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

}  // namespace mo
