#include "transforms/middle/mish_fusion.hpp"

namespace mo {

using namespace fusion_parts;

std::vector<Pattern> MishFusion::patterns() const {
    Pattern p("out");  // x * tanh(SoftPlus(x))
    p.node("x").any_output("x");
    unary(p, "softplus", "SoftPlus", "x");
    unary(p, "tanh", "Tanh", "softplus");
    binary(p, "out", "Multiply", "x", "tanh", {.root = true});
    return {p};
}

bool MishFusion::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!float_input(x)) return false;
    Node mish = x.node().graph().add_op("Mish", m["out"].name() + "/mish", {x});
    return fuse(m, "out", mish, {"x"});
}

}  // namespace mo
