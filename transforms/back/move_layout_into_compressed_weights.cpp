#include "transforms/back/move_layout_into_compressed_weights.hpp"

#include <optional>

#include "transforms/middle/partial_inference.hpp"

namespace mo {

namespace {

// The parts of W = Multiply(Subtract(Convert(Q), Z) or Convert(Q), S), each used only by the next.
struct CompressedWeights {
    Node convert, subtract, multiply;
    const Tensor *stored = nullptr, *zero_point = nullptr, *scale = nullptr;
};

std::optional<CompressedWeights> compressed_weights(const OutPort& w) {
    CompressedWeights c;
    c.multiply = w.node();
    if (!c.multiply.is("Multiply") || w.target_count() != 1) return std::nullopt;
    OutPort x = c.multiply.in(0).src();
    c.scale = c.multiply.in(1).value();
    if (x.node().is("Subtract")) {
        c.subtract = x.node();
        c.zero_point = c.subtract.in(1).value();
        if (!c.zero_point || x.target_count() != 1) return std::nullopt;
        x = c.subtract.in(0).src();
    }
    c.convert = x.node();
    if (!c.scale || !c.convert.is("Convert") || !c.convert.has_rt_info(kDecompression) || x.target_count() != 1)
        return std::nullopt;
    c.stored = c.convert.in(0).value();
    if (!c.stored || !c.convert.in(0).src().node().is("Constant")) return std::nullopt;
    return c;
}

// `v` padded with leading 1s to `rank` (how it broadcasts against the weights).
Shape broadcast_shape(const Tensor& v, size_t rank) {
    Shape s = v.shape();
    s.insert(s.begin(), rank - s.size(), 1);
    return s;
}

// `value` through a new `type` node with these extra inputs, folded now; nullopt when it does not fold.
std::optional<Tensor> folded(Graph& g, const std::string& name, std::string_view type, const Tensor& value,
                             const OutPort& operand, const AttrMap& attrs) {
    Node data = g.add_constant(name + "/data", value);
    Node op = g.add_op(type, name, {data.out(0), operand}, attrs);
    PartialInference::infer_node(op);
    std::optional<Tensor> out;
    if (const Tensor* v = op.out(0).value()) out = *v;
    g.remove_node(op);
    g.remove_node(data);
    return out;
}

// A broadcast operand of the weights (Z or S) moved through the Reshape from `in` to `out`: a
// single value as is; one channel axis when the Reshape keeps it whole (the same size, the same
// number of elements before it); nullopt otherwise.
std::optional<Tensor> through_reshape(const Tensor& v, const Shape& in, const Shape& out) {
    if (v.size() == 1) return v.reshaped({});
    if (v.shape().size() > in.size()) return std::nullopt;
    const Shape s = broadcast_shape(v, in.size());
    std::optional<size_t> axis;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == 1) continue;
        if (axis || s[i] != in[i]) return std::nullopt;
        axis = i;
    }
    int64_t before = 1;
    for (size_t i = 0; i < *axis; ++i) before *= in[i];
    int64_t out_before = 1;
    for (size_t j = 0; j < out.size(); out_before *= out[j], ++j) {
        if (out_before != before || out[j] != in[*axis]) continue;
        Shape moved(out.size(), 1);
        moved[j] = out[j];
        return v.reshaped(moved);
    }
    return std::nullopt;
}

}  // namespace

bool MoveLayoutIntoCompressedWeights::apply(Node op, const TransformContext&) {
    auto w = compressed_weights(op.in(0).src());
    const Tensor* layout = op.in(1).value();
    if (!w || !layout || !op.out(0).shape().is_static()) return false;
    Graph& g = op.graph();
    const std::string name = op.name();
    const Shape in = w->stored->shape(), out = op.out(0).shape().to_shape();
    const bool transpose = op.is("Transpose");
    // Z and S as the layout op leaves them, before anything changes.
    std::optional<Tensor> zero_point, scale;
    auto moved = [&](const Tensor& v, const std::string& suffix) -> std::optional<Tensor> {
        if (!transpose) return through_reshape(v, in, out);
        if (v.shape().size() > in.size()) return std::nullopt;
        return folded(g, name + suffix, "Transpose", v.reshaped(broadcast_shape(v, in.size())), op.in(1).src(), {});
    };
    if (w->zero_point && !(zero_point = moved(*w->zero_point, "/zero_point"))) return false;
    if (!(scale = moved(*w->scale, "/scale"))) return false;
    auto stored = folded(g, name + "/stored", op.type(), *w->stored, op.in(1).src(), op.attrs());
    if (!stored) return false;

    Node q = g.add_constant(name + "/stored", *stored);
    Node convert = g.add_op("Convert", name + "/stored/f32", {q.out(0)}, w->convert.attrs());
    convert.rt_info() = w->convert.rt_info();
    OutPort x = convert.out(0);
    std::vector<Node> added{convert};
    if (w->subtract) {
        Node z = g.add_constant(name + "/zero_point", *zero_point);
        added.push_back(g.add_op("Subtract", name + "/shifted", {x, z.out(0)}));
        added.back().rt_info() = w->subtract.rt_info();
        x = added.back().out(0);
    }
    Node s = g.add_constant(name + "/scale", *scale);
    Node multiply = g.add_op("Multiply", name + "/dequantized", {x, s.out(0)});
    multiply.rt_info() = w->multiply.rt_info();
    added.push_back(multiply);
    for (const Node& n : added) PartialInference::infer_node(n);
    g.replace(op, multiply);
    return true;
}

}  // namespace mo
