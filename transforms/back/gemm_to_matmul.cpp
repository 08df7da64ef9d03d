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

// An integral Gemm multiplies by alpha / beta as values of its type: one that type cannot hold
// exactly (0.5 would become 0) is refused rather than silently changing the result.
void check_coefficient(const char* what, double value, ElementType type) {
    if (!is_integral(type) || Tensor::scalar<double>(value).convert(type).to_f64().at(0) == value) return;
    throw Error(detail::concat("integer Gemm (", ir_name(type), ") with a fractional or out-of-range ", what, " (",
                               value, ") is not supported"),
                {},  // the pass driver names the node
                detail::concat("use a whole-number ", what, " that fits in ", ir_name(type),
                               ", or compute the Gemm in a float type"));
}

}  // namespace

bool GemmToMatMul::apply(Node gemm, const TransformContext&) {
    Graph& g = gemm.graph();
    const double alpha = gemm.attr<double>("alpha"), beta = gemm.attr<double>("beta");
    const std::string& name = gemm.name();
    const ElementType type = gemm.out(0).type();
    if (type == ElementType::dynamic) return false;  // constants below need the element type
    const bool has_c = gemm.input_count() > 2 && gemm.in(2).connected() && beta != 0.0;
    if (alpha != 1.0) check_coefficient("alpha", alpha, type);
    if (has_c && beta != 1.0) check_coefficient("beta", beta, type);

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
