#include "transforms/middle/attention_fusion.hpp"

#include <cmath>
#include <limits>
#include <optional>

namespace mo {

namespace {

enum class MaskForm { None, Add, Select };
enum class ScaleForm { None, Multiply, Divide };

// One decomposed form; patterns() lists every combination.
Pattern attention(MaskForm mask, ScaleForm scale, bool key_transposed, bool prescaled) {
    Pattern p("out");
    p.node("q").any_output("q");
    p.node("k").any_output("k");
    p.node("v").any_output("v");
    std::string q_in = "q", k_in = "k";
    if (key_transposed) {
        p.node("k_order", {}, {is_constant()});
        p.node("k_t", {"Transpose"}, {consumers(1)}).edge("k", "k_t", 0).edge("k_order", "k_t", 1);
        k_in = "k_t";
    }
    if (prescaled) {
        for (const std::string side : {"q", "k"}) {
            const std::string node = side + "_scaled", input = side == "q" ? q_in : k_in;
            p.node(node + "/factor", {}, {scalar_constant()});
            p.node(node, {"Multiply"}, {consumers(1)}).commutative(node).edge(input, node, 0).edge(node + "/factor", node, 1);
        }
        q_in = "q_scaled";
        k_in = "k_scaled";
    }
    p.node("scores", {"MatMul"}, {consumers(1)}).edge(q_in, "scores", 0).edge(k_in, "scores", 1);
    std::string scaled = "scores";
    if (scale != ScaleForm::None) {
        p.node("scale", {}, {scalar_constant()});
        p.node("scaled", {scale == ScaleForm::Multiply ? "Multiply" : "Divide"}, {consumers(1)})
            .edge("scores", "scaled", 0)
            .edge("scale", "scaled", 1);
        if (scale == ScaleForm::Multiply) p.commutative("scaled");
        scaled = "scaled";
    }
    std::string masked = scaled;
    if (mask == MaskForm::Add) {
        p.node("mask").any_output("mask");
        p.node("masked", {"Add"}, {consumers(1)}).commutative("masked").edge(scaled, "masked", 0).edge("mask", "masked", 1);
        masked = "masked";
    } else if (mask == MaskForm::Select) {
        p.node("visible").any_output("visible");
        p.node("fill", {}, {scalar_constant()});
        p.node("masked", {"Select"}, {consumers(1)})
            .edge("visible", "masked", 0)
            .edge(scaled, "masked", 1)
            .edge("fill", "masked", 2);
        masked = "masked";
    }
    p.node("probs", {"Softmax"}, {consumers(1)}).edge(masked, "probs", 0);
    p.node("out", {"MatMul"}).edge("probs", "out", 0).edge("v", "out", 1);
    return p;
}

double scalar_of(const Node& n) { return n.out(0).value()->to_f64().at(0); }

bool static_rank_at_least(const OutPort& p, size_t r) {
    return p.shape().rank_is_static() && p.shape().rank() >= r;
}

// For the Transpose order that makes Kᵀ from k: the order that makes K (its last two entries
// swapped), or nothing when it is not a permutation of k's `rank` axes.
std::optional<std::vector<int64_t>> key_order(const Tensor& order, size_t rank) {
    std::vector<int64_t> o = order.to_i64();
    if (o.size() != rank || rank < 2) return std::nullopt;
    std::vector<bool> seen(rank, false);
    for (int64_t a : o) {
        if (a < 0 || a >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(a)]) return std::nullopt;
        seen[static_cast<size_t>(a)] = true;
    }
    std::swap(o[rank - 1], o[rank - 2]);
    return o;
}

bool is_identity(const std::vector<int64_t>& order) {
    for (size_t i = 0; i < order.size(); ++i)
        if (order[i] != static_cast<int64_t>(i)) return false;
    return true;
}

// -inf, or the lowest finite f32 / f64 (see the header for when that is exact).
bool is_exact_fill(double fill, ElementType type) {
    if (std::isinf(fill) && fill < 0) return true;
    if (type == ElementType::f32) return fill == static_cast<double>(std::numeric_limits<float>::lowest());
    if (type == ElementType::f64) return fill == std::numeric_limits<double>::lowest();
    return false;
}

Tensor scalar_tensor(ElementType type, double value) {
    Tensor t = Tensor::scalar<double>(value);
    return type == ElementType::f64 ? t : t.convert(type);
}

// Gather(x, [0,..,0, 1,..,1, ...], axis 1) repeating each of x's [B, kv, T, D] heads heads/kv
// times -> Reshape(Broadcast(Unsqueeze(x, 2), [1, 1, heads/kv, 1, 1]), [0, heads, -1, D]),
// replacing the Gather for all its consumers. Anything else is returned as it is.
OutPort broadcast_grouped_heads(const OutPort& kv) {
    const Node gather = kv.node();
    if (!gather.is("Gather") || gather.attr<int64_t>("batch_dims") != 0) return kv;
    const OutPort x = gather.in(0).src();
    const PartialShape& xs = x.shape();
    const Tensor *indices = gather.in(1).value(), *axis = gather.in(2).value();
    if (!indices || !axis || axis->size() != 1 || indices->shape().size() != 1) return kv;
    if (!xs.rank_is_static() || xs.rank() != 4 || !xs[1].is_static() || !xs[3].is_static()) return kv;
    const int64_t a = axis->to_i64()[0];
    if (a != 1 && a != -3) return kv;
    const int64_t kv_heads = xs[1].get_length(), heads = indices->shape()[0];
    if (kv_heads <= 0 || heads <= kv_heads || heads % kv_heads != 0) return kv;
    const int64_t group = heads / kv_heads;
    const std::vector<int64_t> idx = indices->to_i64();
    for (int64_t h = 0; h < heads; ++h)
        if (idx[static_cast<size_t>(h)] != h / group) return kv;
    Graph& g = gather.graph();
    const std::string name = gather.name();
    Node unsqueeze = g.add_op("Unsqueeze", name + "/unsqueeze", {x, g.add_constant(name + "/unsqueeze/axis", Tensor::from_vector<int64_t>({2}, {1})).out(0)});
    Node repeated = g.add_op("Broadcast", name + "/repeat",
                             {unsqueeze.out(0), g.add_constant(name + "/repeat/shape", Tensor::from_vector<int64_t>({1, 1, group, 1, 1}, {5})).out(0)},
                             {{"mode", std::string("bidirectional")}});
    Node merged = g.add_op("Reshape", name + "/merged",
                           {repeated.out(0), g.add_constant(name + "/merged/shape",
                                                            Tensor::from_vector<int64_t>({0, heads, -1, xs[3].get_length()}, {4})).out(0)},
                           {{"special_zero", true}});
    g.replace(gather, merged);
    return merged.out(0);
}

}  // namespace

std::vector<Pattern> ScaledDotProductAttentionFusion::patterns() const {
    std::vector<Pattern> forms;
    for (MaskForm mask : {MaskForm::Add, MaskForm::Select, MaskForm::None})
        for (ScaleForm scale : {ScaleForm::Multiply, ScaleForm::Divide, ScaleForm::None})
            for (bool key_transposed : {false, true})
                for (bool prescaled : {false, true}) forms.push_back(attention(mask, scale, key_transposed, prescaled));
    return forms;
}

bool ScaledDotProductAttentionFusion::apply(const PatternMatch& m, const TransformContext&) {
    const Node out = m["out"], scores = m["scores"];
    const auto& names = m.nodes();
    const bool key_transposed = names.count("k_t") != 0, prescaled = names.count("q_scaled") != 0;
    if (out.attr<bool>("transpose_a") || out.attr<bool>("transpose_b") || scores.attr<bool>("transpose_a")) return false;
    if (key_transposed == scores.attr<bool>("transpose_b")) return false;  // Kᵀ exactly once
    const OutPort q = m.out("q"), k = m.out("k"), v = m.out("v");
    const ElementType type = q.type();
    if (!is_float(type) || k.type() != type || v.type() != type) return false;
    if (!static_rank_at_least(q, 3) || !static_rank_at_least(k, 3) || !static_rank_at_least(v, 3)) return false;
    std::optional<std::vector<int64_t>> k_order;  // K = Transpose(k, k_order) when k is not K itself
    if (key_transposed) {
        k_order = key_order(*m["k_order"].out(0).value(), k.shape().rank());
        if (!k_order) return false;
        if (is_identity(*k_order)) k_order.reset();
    }
    const PartialShape& score_shape = scores.out(0).shape();
    if (!score_shape.rank_is_static()) return false;
    const int64_t rank = static_cast<int64_t>(score_shape.rank());
    const int64_t axis = m["probs"].attr<int64_t>("axis");
    if (axis != -1 && axis != rank - 1) return false;

    double scale = 1.0;
    if (names.count("scaled")) {
        const double c = scalar_of(m["scale"]);
        if (m["scaled"].is("Divide")) {
            if (c == 0.0) return false;
            scale = 1.0 / c;
        } else {
            scale = c;
        }
    }
    if (prescaled) scale *= scalar_of(m["q_scaled/factor"]) * scalar_of(m["k_scaled/factor"]);

    Graph& g = out.graph();
    const std::string name = out.name();
    OutPort mask;
    std::string mask_input;
    if (names.count("mask")) {
        mask = m.out("mask");
        const PartialShape& ms = mask.shape();
        if (mask.type() != type || !ms.rank_is_static() || ms.rank() == 1 || static_cast<int64_t>(ms.rank()) > rank) return false;
        mask_input = "mask";
    } else if (names.count("visible")) {
        const OutPort visible = m.out("visible");
        const PartialShape& vs = visible.shape();
        if (visible.type() != ElementType::boolean || !vs.rank_is_static() || vs.rank() < 2 ||
            static_cast<int64_t>(vs.rank()) > rank)
            return false;
        const double fill = scalar_of(m["fill"]);
        if (!is_exact_fill(fill, type)) return false;
        mask = g.add_op("Select", name + "/mask",
                        {visible, g.add_constant(name + "/mask/visible", scalar_tensor(type, 0.0)).out(0),
                         g.add_constant(name + "/mask/hidden", scalar_tensor(type, fill)).out(0)},
                        {{"auto_broadcast", std::string("numpy")}})
                   .out(0);
        mask_input = "visible";
    } else {
        mask = g.add_constant(name + "/no_mask", scalar_tensor(type, 0.0)).out(0);
    }
    OutPort key = broadcast_grouped_heads(k);
    if (k_order) {  // a Transpose that also moved other axes (PyTorch's sequence-first keys)
        const int64_t n = static_cast<int64_t>(k_order->size());
        key = g.add_op("Transpose", name + "/key", {key, g.add_constant(name + "/key/order", Tensor::from_vector<int64_t>(*k_order, {n})).out(0)})
                  .out(0);
    }
    const OutPort value = broadcast_grouped_heads(v);
    const OutPort scale_port = g.add_constant(name + "/scale", scalar_tensor(type, scale)).out(0);
    Node sdpa = g.add_op("ScaledDotProductAttention", name + "/sdpa", {q, key, value, mask, scale_port}, {{"causal", false}});
    std::vector<std::string> inputs = {"q", "k", "v"};
    if (!mask_input.empty()) inputs.push_back(mask_input);
    fuse_match(m, "out", sdpa, inputs);
    return true;
}

}  // namespace mo
