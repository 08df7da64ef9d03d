#include "transforms/middle/soft_plus_fusion.hpp"

namespace mo {

using namespace fusion_parts;

std::vector<Pattern> SoftPlusFusion::patterns() const {
    Pattern p("out");  // log(exp(x) + 1)
    p.node("x").any_output("x");
    unary(p, "exp", "Exp", "x");
    plus_constant(p, "plus", "exp", 1.0);
    unary(p, "out", "Log", "plus", {.root = true});
    return {p};
}

bool SoftPlusFusion::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!float_input(x)) return false;
    Node softplus = x.node().graph().add_op("SoftPlus", m["out"].name() + "/softplus", {x});
    return fuse(m, "out", softplus, {"x"});
}

}  // namespace mo
