// Quantization as ONNX's QuantizeLinear / DequantizeLinear, so that integer weights stay integer
// and ONNX Runtime sees the QDQ form its quantized kernels are chosen for:
// * FakeQuantize with ranges whose zero lands on an integer step: QuantizeLinear then
//   DequantizeLinear (int8; per axis when the ranges vary along one axis), with a Clip in front
//   when `levels` is below 256. Other ranges: the FakeQuantize formula decomposed.
// * Weight decompression (integer Constant -> Convert -> [Subtract zero point] -> Multiply
//   scale): one DequantizeLinear of the integer weights, when the scale is per tensor or per
//   axis. Other forms (grouped int4 scales) keep the Cast / Sub / Mul, still on integer weights.
#include <algorithm>
#include <cmath>

#include "emit/onnx/onnx_rules.hpp"

namespace mo::onnx_emit {

namespace {

// The one axis of `shape` (aligned right to `rank` dims) that is not 1: -1 when all are 1,
// -2 when more than one is not.
int64_t varying_axis(const Shape& shape, size_t rank) {
    int64_t axis = -1;
    const auto offset = static_cast<int64_t>(rank) - static_cast<int64_t>(shape.size());
    if (offset < 0) return -2;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 1) continue;
        if (axis != -1) return -2;
        axis = offset + static_cast<int64_t>(i);
    }
    return axis;
}

// A range tensor as per-element values along `axis` (one value when per tensor): ranges
// broadcast, so a [1, C, 1, 1] range gives C values.
std::vector<double> along_axis(const Tensor& t) { return t.to_f64(); }

bool integral(double v) { return std::fabs(v - std::nearbyint(v)) < 1e-3; }

// x -> QuantizeLinear(scale_in, zp) -> DequantizeLinear(scale_out, zp_out) when exact; false
// when the ranges do not allow it.
bool emit_qdq(OnnxNodeContext& c) {
    const Tensor *il = c.in_value(1), *ih = c.in_value(2), *ol = c.in_value(3), *oh = c.in_value(4);
    if (!il || !ih || !ol || !oh) return false;
    if (c.in_type(0) != ElementType::f32) return false;  // QuantizeLinear-13 takes float
    const PartialShape& xs = c.in_shape(0);
    if (!xs.rank_is_static()) return false;
    const size_t rank = xs.rank();
    // Every range varies along the same axis (or none).
    int64_t axis = -1;
    for (const Tensor* r : {il, ih, ol, oh}) {
        const int64_t a = varying_axis(r->shape(), rank);
        if (a == -2 || (a >= 0 && axis >= 0 && a != axis)) return false;
        if (a >= 0) axis = a;
    }
    size_t n = 1;
    if (axis >= 0) {
        if (!xs[axis].is_static()) return false;
        n = static_cast<size_t>(xs[axis].get_length());
    }
    auto expand = [&](const Tensor& t) {
        std::vector<double> v = along_axis(t);
        if (v.size() == 1) v.assign(n, v[0]);
        return v;
    };
    const auto lo = expand(*il), hi = expand(*ih), olo = expand(*ol), ohi = expand(*oh);
    if (lo.size() != n || hi.size() != n || olo.size() != n || ohi.size() != n) return false;
    const auto levels = static_cast<double>(c.attr<int64_t>("levels"));
    if (levels > 256) return false;
    std::vector<double> s_in(n), s_out(n), zp_in(n), zp_out(n);
    for (size_t i = 0; i < n; ++i) {
        s_in[i] = (hi[i] - lo[i]) / (levels - 1);
        s_out[i] = (ohi[i] - olo[i]) / (levels - 1);
        if (!(s_in[i] > 0) || !(s_out[i] > 0)) return false;
        const double z = -lo[i] / s_in[i], zo = -olo[i] / s_out[i];
        if (!integral(z) || !integral(zo)) return false;
        // q = round((x - lo) / s) in [0, levels - 1] is stored as int8 q - 128: the zero points shift too.
        zp_in[i] = std::nearbyint(z) - 128;
        zp_out[i] = std::nearbyint(zo) - 128;
        // round(x / s) + zp is q - 128 for x in [lo, hi], which fits int8 for levels <= 256.
        if (zp_in[i] < -128 || zp_in[i] > 127 || zp_out[i] < -128 || zp_out[i] > 127) return false;
    }
    auto vec = [&](const std::vector<double>& v, ElementType t, const char* hint) {
        return axis >= 0 ? c.values(v, t, hint) : c.scalar(v[0], t, hint);
    };
    std::vector<onnx::AttributeProto> attrs;
    if (axis >= 0) attrs.push_back(a_int("axis", axis));
    std::string x = c.in(0);
    if (levels < 256) x = c.add_tmp("Max", {c.add_tmp("Min", {x, c.in(2)}), c.in(1)}, {}, "clip");
    const std::string q = c.add_tmp("QuantizeLinear", {x, vec(s_in, ElementType::f32, "scale"), vec(zp_in, ElementType::i8, "zero_point")},
                                    attrs, "q");
    c.add("DequantizeLinear", {q, vec(s_out, ElementType::f32, "out_scale"), vec(zp_out, ElementType::i8, "out_zero_point")},
          {c.out(0)}, attrs);
    return true;
}

// OpenVINO's formula: x <= lo -> out_lo, x > hi -> out_hi, else
// round((x - lo) / (hi - lo) * (levels - 1)) / (levels - 1) * (out_hi - out_lo) + out_lo.
void emit_fake_quantize_formula(OnnxNodeContext& c) {
    const ElementType t = c.in_type(0);
    const std::string steps = c.scalar(static_cast<double>(c.attr<int64_t>("levels") - 1), t, "steps");
    const std::string x = c.add_tmp("Max", {c.add_tmp("Min", {c.in(0), c.in(2)}), c.in(1)}, {}, "clip");
    const std::string unit = c.add_tmp("Div", {c.add_tmp("Sub", {x, c.in(1)}), c.add_tmp("Sub", {c.in(2), c.in(1)})});
    const std::string q = c.add_tmp("Round", {c.add_tmp("Mul", {unit, steps})});
    const std::string scaled = c.add_tmp("Mul", {c.add_tmp("Div", {q, steps}), c.add_tmp("Sub", {c.in(4), c.in(3)})});
    c.add("Add", {scaled, c.in(3)}, {c.out(0)});
}

void emit_fake_quantize(OnnxNodeContext& c) {
    if (c.attr<std::string>("auto_broadcast") != "numpy") c.fail("FakeQuantize broadcasting other than numpy");
    if (!emit_qdq(c)) emit_fake_quantize_formula(c);
}

bool is_integer_weight(ElementType t) {
    return t == ElementType::i8 || t == ElementType::u8 || t == ElementType::i4 || t == ElementType::u4;
}

ElementType stored(ElementType t) {
    return t == ElementType::i4 ? ElementType::i8 : t == ElementType::u4 ? ElementType::u8 : t;
}

// The only consumer of `port`, if it has exactly one.
std::optional<InPort> single_target(const OutPort& port) {
    if (port.target_count() != 1) return std::nullopt;
    return port.targets().front();
}

}  // namespace

void plan_weight_dequantization(const Graph& graph, WeightDequantization& plans) {
    for (const Node& w : graph.nodes()) {
        if (!w.is("Constant") || !w.out(0).value() || !is_integer_weight(w.out(0).type())) continue;
        const Tensor& weights = *w.out(0).value();
        const size_t rank = weights.shape().size();
        for (const InPort& use : w.out(0).targets()) {
            const Node convert = use.node();
            if (!convert.is("Convert") || convert.attr<ElementType>("destination_type") != ElementType::f32) continue;
            auto next = single_target(convert.out(0));
            if (!next) continue;
            Node sub, mul = next->node();
            std::optional<Tensor> zero_point;
            std::vector<Node> absorbed{convert};
            if (mul.is("Subtract")) {
                sub = mul;
                const size_t other = next->index() == 0 ? 1 : 0;
                if (next->index() != 0 || !sub.in(other).connected()) continue;
                OutPort zp_src = sub.in(other).src();
                const Tensor* zp = zp_src.value();
                // A zero point stored in the weights' type behind its own Convert, not folded.
                if (!zp && zp_src.node().is("Convert")) zp = zp_src.node().in(0).value();
                if (!zp) continue;
                zero_point = *zp;
                if (zp_src.node().is("Convert")) {  // zero point stored in the weights' type
                    if (zp_src.target_count() == 1) absorbed.push_back(zp_src.node());
                }
                auto after = single_target(sub.out(0));
                if (!after) continue;
                mul = after->node();
                absorbed.push_back(sub);
            }
            if (!mul.is("Multiply") || mul.out(0).type() != ElementType::f32) continue;
            const Node from = sub ? sub : convert;
            size_t scale_input = mul.in(0).connected() && mul.in(0).src().node() == from ? 1 : 0;
            const Tensor* scale = mul.in(scale_input).value();
            if (!scale || scale->type() != ElementType::f32) continue;
            int64_t axis = varying_axis(scale->shape(), rank);
            if (axis == -2) continue;
            if (zero_point) {
                const int64_t za = varying_axis(zero_point->shape(), rank);
                if (za == -2 || (za >= 0 && axis >= 0 && za != axis)) continue;
                if (axis < 0) axis = za;
            }
            const size_t n = axis >= 0 ? static_cast<size_t>(weights.shape()[axis]) : 1;
            DequantizePlan plan;
            plan.weights = w;
            plan.axis = axis;
            plan.scale = scale->to_f64();
            if (plan.scale.size() == 1) plan.scale.assign(n, plan.scale[0]);
            if (zero_point) {
                plan.zero_point = zero_point->to_f64();
                if (plan.zero_point.size() == 1) plan.zero_point.assign(n, plan.zero_point[0]);
            } else {
                plan.zero_point.assign(n, 0.0);
            }
            if (plan.scale.size() != n || plan.zero_point.size() != n) continue;
            const ElementType t = stored(weights.type());
            const double lo = t == ElementType::i8 ? -128 : 0, hi = t == ElementType::i8 ? 127 : 255;
            if (!std::all_of(plan.zero_point.begin(), plan.zero_point.end(),
                             [&](double z) { return z == std::nearbyint(z) && z >= lo && z <= hi; }))
                continue;
            plan.type = t;
            plans.multiply[&mul.graph()][mul.id()] = std::move(plan);
            for (const Node& a : absorbed) plans.absorbed[&a.graph()].insert(a.id());
        }
    }
}

void emit_dequantize(OnnxNodeContext& c, const DequantizePlan& plan, const std::string& weights) {
    std::vector<onnx::AttributeProto> attrs;
    const bool per_axis = plan.axis >= 0;
    if (per_axis) attrs.push_back(a_int("axis", plan.axis));
    const std::string scale = per_axis ? c.values(plan.scale, ElementType::f32, "scale") : c.scalar(plan.scale[0], ElementType::f32, "scale");
    const std::string zp = per_axis ? c.values(plan.zero_point, plan.type, "zero_point")
                                    : c.scalar(plan.zero_point[0], plan.type, "zero_point");
    c.add("DequantizeLinear", {weights, scale, zp}, {c.out(0)}, attrs);
}

std::vector<OnnxRule> quantization_rules() {
    return {
        {"FakeQuantize", 13, emit_fake_quantize,
         "QuantizeLinear + DequantizeLinear (int8, per tensor or per axis); other ranges: the formula decomposed"},
    };
}

}  // namespace mo::onnx_emit
