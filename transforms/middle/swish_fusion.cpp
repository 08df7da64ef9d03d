#include "transforms/middle/swish_fusion.hpp"

namespace mo {

using namespace fusion_parts;

std::vector<Pattern> SwishFusion::patterns() const {
    Pattern plain("out");  // x * sigmoid(x)
    plain.node("x").any_output("x");
    unary(plain, "sigmoid", "Sigmoid", "x");
    binary(plain, "out", "Multiply", "x", "sigmoid", {.root = true});
    Pattern with_beta("out");  // x * sigmoid(x * beta)
    with_beta.node("x").any_output("x").node("beta", {}, {scalar_constant()});
    binary(with_beta, "scaled", "Multiply", "x", "beta");
    unary(with_beta, "sigmoid", "Sigmoid", "scaled");
    binary(with_beta, "out", "Multiply", "x", "sigmoid", {.root = true});
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

}  // namespace mo
