#include "transforms/middle/convolution_multiply_fusion.hpp"

#include "transforms/middle/channel_constant.hpp"

namespace mo {

namespace {

// Conv -> [Add(bias)] -> Multiply(scale).
struct ConvScaleForm {
    bool with_bias;
};

Pattern conv_times_scale(ConvScaleForm form) {
    Pattern p("out");
    p.node("out", {"Multiply"}).commutative("out");
    p.node("conv", {"Convolution", "GroupConvolution"}, {consumers(1)});
    p.node("scale", {}, {is_constant()});
    p.edge("scale", "out", 1);
    if (!form.with_bias) return p.edge("conv", "out", 0);
    p.node("bias_add", {"Add"}, {consumers(1)}).commutative("bias_add");
    p.node("bias", {}, {is_constant()});
    return p.edge("conv", "bias_add", 0).edge("bias", "bias_add", 1).edge("bias_add", "out", 0);
}

}  // namespace

std::vector<Pattern> ConvolutionMultiplyFusion::patterns() const {
    return {conv_times_scale({.with_bias = true}), conv_times_scale({.with_bias = false})};
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

}  // namespace mo
