#include "transforms/middle/fuse_batch_norm_into_convolution.hpp"

#include <cmath>

#include "transforms/middle/channel_constant.hpp"

namespace mo {

namespace {

// The single consumer of `port`, if it has exactly one.
bool single_use(const OutPort& port) { return port.targets().size() == 1; }

}  // namespace

bool FuseBatchNormIntoConvolution::apply(Node bn, const TransformContext&) {
    Graph& g = bn.graph();
    for (size_t i = 1; i < 5; ++i)
        if (!bn.in(i).value()) return false;
    OutPort x = bn.in(0).src();
    if (!single_use(x)) return false;
    Node add, conv = x.node();
    if (conv.is("Add")) {
        add = conv;
        conv = Node();
        for (size_t i = 0; i < 2 && !conv; ++i) {
            auto src = add.in(i).src();
            if ((src.node().is("Convolution") || src.node().is("GroupConvolution")) && add.in(1 - i).value() &&
                single_use(src))
                conv = src.node();
        }
        if (!conv) return false;
    }
    auto geometry = conv_channels(conv);
    if (!geometry) return false;
    const Tensor& weights = *conv.in(1).value();
    const int64_t channels = geometry->channels;
    const size_t out_rank = geometry->out_rank;

    auto scale = bn.in(1).value()->to_f64(), beta = bn.in(2).value()->to_f64();
    auto mean = bn.in(3).value()->to_f64(), var = bn.in(4).value()->to_f64();
    const auto c = static_cast<size_t>(channels);
    if (scale.size() != c || beta.size() != c || mean.size() != c || var.size() != c) return false;
    std::vector<double> bias(c, 0.0);
    if (add) {
        const Tensor* b = add.in(0).value() ? add.in(0).value() : add.in(1).value();
        auto v = per_channel(*b, out_rank, channels);
        if (!v) return false;
        bias = *v;
    }

    // k = scale / sqrt(var + eps); W'[c] = W[c] * k[c]; b'[c] = (b[c] - mean[c]) * k[c] + beta[c].
    const double eps = bn.attr<double>("epsilon");
    std::vector<double> k(c);
    for (size_t i = 0; i < c; ++i) {
        k[i] = scale[i] / std::sqrt(var[i] + eps);
        bias[i] = (bias[i] - mean[i]) * k[i] + beta[i];
    }
    Node new_weights = g.add_constant(conv.in(1).src().node().name() + "/fused_bn", scale_output_channels(weights, k));
    conv.in(1).connect(new_weights.out(0));
    Shape bias_shape(out_rank, 1);
    bias_shape[1] = channels;
    const ElementType out_type = bn.out(0).type() == ElementType::dynamic ? weights.type() : bn.out(0).type();
    Node bias_const = g.add_constant(bn.name() + "/bias", tensor_of(out_type, bias, bias_shape));
    Node fused = g.add_op("Add", bn.name() + "/fused", {conv.out(0), bias_const.out(0)});
    if (add) fused.fused_names().push_back(add.name());
    g.replace(bn, fused);
    return true;
}

}  // namespace mo
