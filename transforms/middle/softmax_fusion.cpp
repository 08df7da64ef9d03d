#include "transforms/middle/softmax_fusion.hpp"

namespace mo {

using namespace fusion_parts;

std::vector<Pattern> SoftmaxFusion::patterns() const {
    Pattern p("out");
    p.node("x").any_output("x");
    reduction(p, "max", "ReduceMax", "x");
    p.node("shifted", {"Subtract"}, {consumers(1)}).edge("x", "shifted", 0).edge("max", "shifted", 1);
    p.node("exp", {"Exp"}, {consumers(2)}).edge("shifted", "exp", 0);
    reduction(p, "sum", "ReduceSum", "exp");
    p.node("out", {"Divide"}).edge("exp", "out", 0).edge("sum", "out", 1);
    return {p};
}

bool SoftmaxFusion::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!is_float(x.type())) return false;
    std::vector<int64_t> axes = reduced_axes(m["max"]);
    if (axes.size() != 1 || axes != reduced_axes(m["sum"])) return false;
    Node softmax = x.node().graph().add_op("Softmax", m["out"].name() + "/softmax", {x}, {{"axis", axes[0]}});
    fuse_match(m, "out", softmax, {"x"});
    return true;
}

}  // namespace mo
