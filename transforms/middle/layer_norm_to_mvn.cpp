#include "transforms/middle/layer_norm_to_mvn.hpp"

#include <numeric>

namespace mo {

namespace {

bool keeps_dims(const Node& n) { return n.attr<bool>("keep_dims"); }

// reduce(input, axes) with keep_dims and constant axes; `uses` consumers.
void reduction(Pattern& p, const std::string& name, const char* type, const std::string& input, size_t uses) {
    p.node(name + "/axes", {}, {is_constant()});
    p.node(name, {type}, {consumers(uses), keeps_dims}).edge(input, name, 0).edge(name + "/axes", name, 1);
}

// The reduced axes of a matched reduction, non-negative and sorted, or empty when the rank of
// its input is unknown.
std::vector<int64_t> reduced_axes(const Node& reduce) {
    const PartialShape& in = reduce.in(0).shape();
    if (!in.rank_is_static()) return {};
    const int64_t rank = static_cast<int64_t>(in.rank());
    std::vector<int64_t> axes;
    for (int64_t a : reduce.in(1).value()->to_i64()) {
        if (a < -rank || a >= rank) return {};
        axes.push_back(a < 0 ? a + rank : a);
    }
    std::sort(axes.begin(), axes.end());
    return axes;
}

Pattern layer_norm(bool power) {
    Pattern p("out");
    p.node("x").any_output("x");
    reduction(p, "mean", "ReduceMean", "x", 1);
    p.node("centered", {"Subtract"}, {consumers(2)}).edge("x", "centered", 0).edge("mean", "centered", 1);
    if (power) {
        p.node("two", {}, {const_value(2.0)});
        p.node("square", {"Power"}, {consumers(1)}).edge("centered", "square", 0).edge("two", "square", 1);
    } else {
        p.node("square", {"Multiply"}, {consumers(1)}).edge("centered", "square", 0).edge("centered", "square", 1);
    }
    reduction(p, "variance", "ReduceMean", "square", 1);
    p.node("eps", {}, {scalar_constant()});
    p.node("plus_eps", {"Add"}, {consumers(1)}).commutative("plus_eps").edge("variance", "plus_eps", 0).edge("eps", "plus_eps", 1);
    p.node("std", {"Sqrt"}, {consumers(1)}).edge("plus_eps", "std", 0);
    p.node("out", {"Divide"}).edge("centered", "out", 0).edge("std", "out", 1);
    return p;
}

}  // namespace

std::vector<Pattern> LayerNormFusion::patterns() const {
    return {layer_norm(true), layer_norm(false)};
}

bool LayerNormFusion::apply(const PatternMatch& m, const TransformContext&) {
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

std::vector<Pattern> SoftmaxFusion::patterns() const {
    Pattern p("out");
    p.node("x").any_output("x");
    reduction(p, "max", "ReduceMax", "x", 1);
    p.node("shifted", {"Subtract"}, {consumers(1)}).edge("x", "shifted", 0).edge("max", "shifted", 1);
    p.node("exp", {"Exp"}, {consumers(2)}).edge("shifted", "exp", 0);
    reduction(p, "sum", "ReduceSum", "exp", 1);
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
