#include "transforms/middle/hswish_fusion.hpp"

namespace mo {

using namespace fusion_parts;

std::vector<Pattern> HSwishFusion::patterns() const {
    std::vector<Pattern> v;
    Pattern hs("out");
    hs.node("x").any_output("x");
    hard_sigmoid(hs);
    binary(hs, "out", "Multiply", "x", "hsig", {.root = true});
    v.push_back(hs);
    for (Relu6Form form : kRelu6Forms)
        for (bool divide : {true, false}) {
            Pattern inner("out");  // x * (relu6(x + 3) / 6)
            inner.node("x").any_output("x");
            relu6_of_x_plus_3(inner, form);
            scaled(inner, "sixth", "relu6", 1.0 / 6.0, {.divide = divide});
            binary(inner, "out", "Multiply", "x", "sixth", {.root = true});
            v.push_back(inner);
            Pattern outer("out");  // (x * relu6(x + 3)) / 6
            outer.node("x").any_output("x");
            relu6_of_x_plus_3(outer, form);
            binary(outer, "mul", "Multiply", "x", "relu6");
            scaled(outer, "out", "mul", 1.0 / 6.0, {.divide = divide, .root = true});
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

}  // namespace mo
