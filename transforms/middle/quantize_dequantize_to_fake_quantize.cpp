#include "transforms/middle/quantize_dequantize_to_fake_quantize.hpp"

#include <cmath>
#include <optional>

#include "transforms/middle/partial_inference.hpp"

namespace mo {

namespace {

// The pair with or without each half's zero point (the extractors drop a zero one).
struct QdqForm {
    bool quantize_zero_point;
    bool dequantize_zero_point;
};

Pattern quantize_dequantize(QdqForm form) {
    Pattern p("dq");
    p.node("x").any_output("x");
    p.node("s1", {}, {is_constant()}).node("s2", {}, {is_constant()});
    p.node("divide", {"Divide"}, {consumers(1)}).edge("x", "divide", 0).edge("s1", "divide", 1);
    p.node("round", {"Round"}, {consumers(1)}).edge("divide", "round", 0);
    std::string last = "round";
    if (form.quantize_zero_point) {
        p.node("zp1", {}, {is_constant()});
        p.node("add", {"Add"}, {consumers(1)}).edge("round", "add", 0).edge("zp1", "add", 1);
        last = "add";
    }
    p.node("clamp", {"Clamp"}, {consumers(1)}).edge(last, "clamp", 0);
    // The quantized tensor may feed several DequantizeLinears (residual branches): each becomes
    // its own FakeQuantize, and the quantizing half goes once none is left.
    p.node("q", {"Convert"}).edge("clamp", "q", 0);
    p.node("f", {"Convert"}, {consumers(1)}).edge("q", "f", 0);
    last = "f";
    if (form.dequantize_zero_point) {
        p.node("zp2", {}, {is_constant()});
        p.node("sub", {"Subtract"}, {consumers(1)}).edge("f", "sub", 0).edge("zp2", "sub", 1);
        last = "sub";
    }
    p.node("dq", {"Multiply"}).commutative("dq").edge(last, "dq", 0).edge("s2", "dq", 1);
    return p;
}

bool same_values(const Tensor& a, const Tensor& b) { return a.shape() == b.shape() && a.to_f64() == b.to_f64(); }

bool all_zero(const Tensor& t) {
    for (double v : t.to_f64())
        if (v != 0) return false;
    return true;
}

// Whether every scale is positive and finite: a negative one swaps the FakeQuantize bounds.
bool all_positive(const Tensor& t) {
    for (double v : t.to_f64())
        if (!(v > 0 && std::isfinite(v))) return false;
    return true;
}

// (bound - zp) * s, computed now by the ops themselves (broadcasting included); the helper
// nodes are removed again. nullopt when it does not fold (above --max_constant_size).
std::optional<Tensor> range(Graph& g, const std::string& name, double bound, const OutPort* zp, const OutPort& s) {
    std::vector<Node> temp{g.add_constant(name + "/bound", Tensor::scalar<float>(static_cast<float>(bound)))};
    if (zp) temp.push_back(g.add_op("Subtract", name + "/shifted", {temp.back().out(0), *zp}));
    temp.push_back(g.add_op("Multiply", name + "/scaled", {temp.back().out(0), s}));
    for (const Node& n : temp) PartialInference::infer_node(n);
    const Tensor* value = temp.back().out(0).value();
    std::optional<Tensor> out = value ? std::optional<Tensor>(*value) : std::nullopt;
    for (auto it = temp.rbegin(); it != temp.rend(); ++it) g.remove_node(*it);
    return out;
}

}  // namespace

std::vector<Pattern> QuantizeDequantizeToFakeQuantize::patterns() const {
    std::vector<Pattern> forms;
    for (bool quantize_zero_point : {true, false})
        for (bool dequantize_zero_point : {true, false})
            forms.push_back(quantize_dequantize(
                {.quantize_zero_point = quantize_zero_point, .dequantize_zero_point = dequantize_zero_point}));
    return forms;
}

bool QuantizeDequantizeToFakeQuantize::apply(const PatternMatch& m, const TransformContext&) {
    const OutPort x = m.out("x");
    const ElementType q_type = m["q"].attr<ElementType>("destination_type");
    if (x.type() != ElementType::f32 || (q_type != ElementType::u8 && q_type != ElementType::i8)) return false;
    if (m["f"].attr<ElementType>("destination_type") != ElementType::f32 || m["f"].has_rt_info(kDecompression))
        return false;
    const Tensor &s1 = *m["s1"].out(0).value(), &s2 = *m["s2"].out(0).value();
    if (!same_values(s1, s2) || !all_positive(s1)) return false;
    const bool has1 = m.nodes().count("zp1") > 0, has2 = m.nodes().count("zp2") > 0;
    const Tensor* zp1 = has1 ? m["zp1"].out(0).value() : nullptr;
    const Tensor* zp2 = has2 ? m["zp2"].out(0).value() : nullptr;
    if (zp1 && zp2 ? !same_values(*zp1, *zp2) : (zp1 && !all_zero(*zp1)) || (zp2 && !all_zero(*zp2))) return false;
    const double lo = m["clamp"].attr<double>("min"), hi = m["clamp"].attr<double>("max");
    const double expected_lo = q_type == ElementType::u8 ? 0 : -128, expected_hi = q_type == ElementType::u8 ? 255 : 127;
    if (lo != expected_lo || hi != expected_hi) return false;

    Graph& g = x.node().graph();
    const std::string name = m["dq"].name();
    const OutPort zp = has1 ? m.out("zp1") : OutPort();
    std::optional<Tensor> low_value = range(g, name + "/low", lo, has1 ? &zp : nullptr, m.out("s1"));
    std::optional<Tensor> high_value = range(g, name + "/high", hi, has1 ? &zp : nullptr, m.out("s1"));
    if (!low_value || !high_value) return false;
    Node low = g.add_constant(name + "/low", std::move(*low_value));
    Node high = g.add_constant(name + "/high", std::move(*high_value));
    Node fq = g.add_op("FakeQuantize", name + "/fake_quantize", {x, low.out(0), high.out(0), low.out(0), high.out(0)},
                       {{"levels", static_cast<int64_t>(hi - lo + 1)}});
    fuse_match(m, "dq", fq, {"x"});
    return true;
}

}  // namespace mo
