#include "transforms/middle/hsigmoid_fusion.hpp"

namespace mo {

using namespace fusion_parts;

std::vector<Pattern> HSigmoidFusion::patterns() const {
    std::vector<Pattern> v;
    Pattern hs("hsig");
    hs.node("x").any_output("x");
    hard_sigmoid(hs, {.root = true});
    v.push_back(hs);
    for (Relu6Form form : kRelu6Forms)
        for (bool divide : {true, false}) {
            Pattern p("out");  // relu6(x + 3) / 6
            p.node("x").any_output("x");
            relu6_of_x_plus_3(p, form);
            scaled(p, "out", "relu6", 1.0 / 6.0, {.divide = divide, .root = true});
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

}  // namespace mo
