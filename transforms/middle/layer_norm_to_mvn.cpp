#include "transforms/middle/layer_norm_to_mvn.hpp"

namespace mo {

using namespace fusion_parts;

namespace {

struct LayerNormForm {
    bool square_as_power;  // (x - mean)^2 as Power(d, 2) rather than d * d
};

Pattern layer_norm(LayerNormForm form) {
    Pattern p("out");
    p.node("x").any_output("x");
    reduction(p, "mean", "ReduceMean", "x");
    p.node("centered", {"Subtract"}, {consumers(2)}).edge("x", "centered", 0).edge("mean", "centered", 1);
    if (form.square_as_power) {
        p.node("two", {}, {const_value(2.0)});
        p.node("square", {"Power"}, {consumers(1)}).edge("centered", "square", 0).edge("two", "square", 1);
    } else {
        p.node("square", {"Multiply"}, {consumers(1)}).edge("centered", "square", 0).edge("centered", "square", 1);
    }
    reduction(p, "variance", "ReduceMean", "square");
    p.node("eps", {}, {scalar_constant()});
    p.node("plus_eps", {"Add"}, {consumers(1)}).commutative("plus_eps").edge("variance", "plus_eps", 0).edge("eps", "plus_eps", 1);
    p.node("std", {"Sqrt"}, {consumers(1)}).edge("plus_eps", "std", 0);
    p.node("out", {"Divide"}).edge("centered", "out", 0).edge("std", "out", 1);
    return p;
}

}  // namespace

std::vector<Pattern> LayerNormToMVN::patterns() const {
    return {layer_norm({.square_as_power = true}), layer_norm({.square_as_power = false})};
}

bool LayerNormToMVN::apply(const PatternMatch& m, const TransformContext&) {
    OutPort x = m.out("x");
    if (!is_float(x.type())) return false;
    std::vector<int64_t> axes = reduced_axes(m["mean"]);
    if (axes.empty() || axes != reduced_axes(m["variance"])) return false;
    // MVN normalizes over the trailing axes only when they are contiguous up to the last one.
    const int64_t rank = static_cast<int64_t>(x.shape().rank());
    for (size_t i = 0; i < axes.size(); ++i)
        if (axes[i] != rank - static_cast<int64_t>(axes.size() - i)) return false;
    const Tensor& eps = *m["eps"].out(0).value();
    Graph& g = x.node().graph();
    OutPort axes_port = g.add_constant(m["out"].name() + "/axes",
                                       Tensor::from_vector<int64_t>(axes, {static_cast<int64_t>(axes.size())})).out(0);
    Node mvn = g.add_op("MVN", m["out"].name() + "/mvn", {x, axes_port},
                        {{"eps", eps.to_f64()[0]}, {"normalize_variance", true}, {"eps_mode", std::string("inside_sqrt")}});
    fuse_match(m, "out", mvn, {"x"});
    return true;
}

}  // namespace mo
