#include "transforms/back/gemm_to_matmul.hpp"

namespace mo {

namespace {

// `value` * factor as a new constant of the same type.
Node scaled_constant(Graph& g, const std::string& name, const Tensor& value, double factor) {
    auto v = value.to_f64();
    for (auto& x : v) x *= factor;
    return g.add_constant(name, Tensor::from_vector<double>(v, value.shape()).convert(value.type()));
}

Node scalar_constant(Graph& g, const std::string& name, ElementType type, double value) {
    return g.add_constant(name, Tensor::scalar<double>(value).convert(type));
}

}  // namespace

bool GemmToMatMul::apply(Node gemm, const TransformContext&) {
    Graph& g = gemm.graph();
    const double alpha = gemm.attr<double>("alpha"), beta = gemm.attr<double>("beta");
    const std::string& name = gemm.name();
    const ElementType type = gemm.out(0).type();
    if (type == ElementType::dynamic) return false;  // constants below need the element type

    OutPort a = gemm.in(0).src(), b = gemm.in(1).src();
    bool alpha_done = alpha == 1.0;
    if (!alpha_done && b.value() && is_float(b.type())) {
        b = scaled_constant(g, name + "/B_scaled", *b.value(), alpha).out(0);
        alpha_done = true;
    }
    Node last = g.add_op("MatMul", name + "/MatMul", {a, b},
                         {{"transpose_a", AttrValue(gemm.attr<bool>("transA"))},
                          {"transpose_b", AttrValue(gemm.attr<bool>("transB"))}});
    if (!alpha_done)
        last = g.add_op("Multiply", name + "/alpha", {last.out(0), scalar_constant(g, name + "/alpha_value", type, alpha).out(0)});

    const bool has_c = gemm.input_count() > 2 && gemm.in(2).connected() && beta != 0.0;
    if (has_c) {
        OutPort c = gemm.in(2).src();
        if (beta != 1.0) {
            if (c.value() && is_float(c.type()))
                c = scaled_constant(g, name + "/C_scaled", *c.value(), beta).out(0);
            else
                c = g.add_op("Multiply", name + "/beta", {c, scalar_constant(g, name + "/beta_value", type, beta).out(0)}).out(0);
        }
        last = g.add_op("Add", name + "/Add", {last.out(0), c});
    }
    g.replace(gemm, last);
    return true;
}

}  // namespace mo
