#include "transforms/middle/convolution_multiply_fusion.hpp"

#include <cmath>
#include <limits>

#include "transforms/middle/channel_constant.hpp"
#include "transforms/middle/partial_inference.hpp"

namespace mo {

namespace {

bool has_no_value(const Node& n) { return n.out(0).value() == nullptr; }

// Conv -> [Add(bias)] -> Multiply(scale): `with_bias` selects the form.
Pattern conv_times_scale(bool with_bias) {
    Pattern p("out");
    p.node("out", {"Multiply"}).commutative("out");
    p.node("conv", {"Convolution", "GroupConvolution"}, {consumers(1)});
    p.node("scale", {}, {is_constant()});
    p.edge("scale", "out", 1);
    if (!with_bias) return p.edge("conv", "out", 0);
    p.node("bias_add", {"Add"}, {consumers(1)}).commutative("bias_add");
    p.node("bias", {}, {is_constant()});
    return p.edge("conv", "bias_add", 0).edge("bias", "bias_add", 1).edge("bias_add", "out", 0);
}

}  // namespace

std::vector<Pattern> ConvolutionMultiplyFusion::patterns() const {
    return {conv_times_scale(true), conv_times_scale(false)};
}

bool ConvolutionMultiplyFusion::apply(const PatternMatch& m, const TransformContext&) {
    Node conv = m["conv"];
    auto geometry = conv_channels(conv);
    if (!geometry) return false;
    const Tensor& weights = *conv.in(1).value();
    const Tensor& scale_tensor = *m["scale"].out(0).value();
    if (scale_tensor.type() != weights.type()) return false;
    auto scale = per_channel(scale_tensor, geometry->out_rank, geometry->channels);
    if (!scale) return false;
    std::optional<std::vector<double>> bias;
    if (m.nodes().count("bias")) {
        bias = per_channel(*m["bias"].out(0).value(), geometry->out_rank, geometry->channels);
        if (!bias) return false;
        for (size_t c = 0; c < bias->size(); ++c) (*bias)[c] *= (*scale)[c];
    }

    Graph& g = conv.graph();
    Node scaled_weights = g.add_constant(conv.in(1).src().node().name() + "/scaled", scale_output_channels(weights, *scale));
    conv.in(1).connect(scaled_weights.out(0));  // the conv has no other consumer
    if (!bias) {
        fuse_match(m, "out", conv, {"conv"});
        return true;
    }
    Shape bias_shape(geometry->out_rank, 1);
    bias_shape[1] = geometry->channels;
    Node bias_const = g.add_constant(m["out"].name() + "/bias", tensor_of(weights.type(), *bias, bias_shape));
    Node add = g.add_op("Add", m["out"].name() + "/biased", {conv.out(0), bias_const.out(0)});
    fuse_match(m, "out", add, {"conv"});
    return true;
}

std::vector<Pattern> ConstantChainMerge::patterns() const {
    std::vector<Pattern> alternatives;
    for (const char* type : {"Add", "Multiply"}) {
        Pattern p("outer");
        p.node("outer", {type}).commutative("outer");
        p.node("inner", {type}, {consumers(1), has_no_value}).commutative("inner");
        p.node("x").any_output("x");
        p.node("c1", {}, {is_constant()}).node("c2", {}, {is_constant()});
        p.edge("x", "inner", 0).edge("c1", "inner", 1).edge("inner", "outer", 0).edge("c2", "outer", 1);
        alternatives.push_back(std::move(p));
    }
    return alternatives;
}

bool ConstantChainMerge::apply(const PatternMatch& m, const TransformContext&) {
    Node outer = m["outer"];
    Graph& g = outer.graph();
    // The combined constant, computed by the op itself (broadcasting and type rules included).
    Node combine = g.add_op(outer.type(), outer.name() + "/constants", {m.out("c1"), m.out("c2")});
    PartialInference::infer_node(combine);
    const Tensor* combined = combine.out(0).value();
    if (!combined) {
        g.remove_node(combine);
        return false;
    }
    Node merged_const = g.add_constant(outer.name() + "/merged", *combined);
    g.remove_node(combine);
    Node merged = g.add_op(outer.type(), outer.name() + "/merged_op", {m.out("x"), merged_const.out(0)});
    fuse_match(m, "outer", merged, {"x"});
    return true;
}

namespace {

std::vector<int64_t> ints_or_zeros(const Node& n, const char* name, size_t count) {
    auto v = n.attr<std::vector<int64_t>>(name);
    if (v.empty() || n.attr<std::string>("auto_pad") == "valid") v.assign(count, 0);
    return v;
}

// The value a Pad fills with: its fourth input, or 0.
std::optional<double> pad_value(const Node& pad) {
    if (pad.input_count() < 4 || !pad.in(3).connected()) return 0.0;
    const Tensor* v = pad.in(3).value();
    if (!v || v->size() != 1) return std::nullopt;
    return v->to_f64()[0];
}

// Whether padding with `value` means what `consumer`'s own padding means (see the header).
bool padding_agrees(const Node& consumer, double value, bool consumer_has_pads) {
    if (consumer.is("Convolution") || consumer.is("GroupConvolution")) return value == 0.0;
    if (consumer.is("AvgPool")) return value == 0.0 && (!consumer.attr<bool>("exclude-pad") || !consumer_has_pads);
    // MaxPool: the padding never wins the max; its indices would count from the padded input.
    return std::isinf(value) && value < 0 && !consumer.out(1).has_targets();
}

// A MaxPool window that lies entirely in the padding would see no input element.
bool windows_overlap_input(const Node& pool, const std::vector<int64_t>& begin, const std::vector<int64_t>& end) {
    if (!pool.is("MaxPool")) return true;
    auto kernel = pool.attr<std::vector<int64_t>>("kernel");
    auto dilations = pool.attr<std::vector<int64_t>>("dilations");
    for (size_t i = 0; i < kernel.size(); ++i) {
        const int64_t extent = (kernel[i] - 1) * (dilations.empty() ? 1 : dilations[i]) + 1;
        if (begin[i] >= extent || end[i] >= extent) return false;
    }
    return true;
}

}  // namespace

std::vector<Pattern> PadFusion::patterns() const {
    Pattern p("consumer");
    p.node("consumer", {"Convolution", "GroupConvolution", "AvgPool", "MaxPool"});
    p.node("pad", {"Pad"}, {consumers(1)});
    p.edge("pad", "consumer", 0);
    return {p};
}

bool PadFusion::apply(const PatternMatch& m, const TransformContext&) {
    Node pad = m["pad"], consumer = m["consumer"];
    if (pad.attr<std::string>("pad_mode") != "constant") return false;
    const std::string auto_pad = consumer.attr<std::string>("auto_pad");
    if (auto_pad != "explicit" && auto_pad != "valid") return false;
    const Tensor *begin_t = pad.in(1).value(), *end_t = pad.in(2).value();
    auto value = pad_value(pad);
    if (!begin_t || !end_t || !value) return false;
    const auto pad_begin = begin_t->to_i64(), pad_end = end_t->to_i64();
    if (pad_begin.size() != pad_end.size() || pad_begin.size() < 3) return false;
    const size_t spatial = pad_begin.size() - 2;
    for (size_t i = 0; i < pad_begin.size(); ++i)
        if (pad_begin[i] < 0 || pad_end[i] < 0 || (i < 2 && (pad_begin[i] != 0 || pad_end[i] != 0))) return false;

    auto begin = ints_or_zeros(consumer, "pads_begin", spatial), end = ints_or_zeros(consumer, "pads_end", spatial);
    if (begin.size() != spatial || end.size() != spatial) return false;
    bool has_pads = false;
    for (size_t i = 0; i < spatial; ++i) has_pads = has_pads || begin[i] != 0 || end[i] != 0;
    if (!padding_agrees(consumer, *value, has_pads)) return false;
    for (size_t i = 0; i < spatial; ++i) {
        begin[i] += pad_begin[i + 2];
        end[i] += pad_end[i + 2];
    }
    if (!windows_overlap_input(consumer, begin, end)) return false;

    consumer.in(0).connect(pad.in(0).src());
    consumer.set_attr("pads_begin", begin);
    consumer.set_attr("pads_end", end);
    consumer.set_attr("auto_pad", std::string("explicit"));
    if (consumer.is("AvgPool")) consumer.set_attr("exclude-pad", false);  // the Pad's zeros were counted
    consumer.fused_names().push_back(pad.name());
    return true;
}

}  // namespace mo
