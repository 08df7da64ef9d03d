#include "transforms/middle/batch_norm.hpp"

#include <cmath>
#include <optional>

namespace mo {

namespace {

// The single consumer of `port`, if it has exactly one.
bool single_use(const OutPort& port) { return port.targets().size() == 1; }

// A tensor of `type` holding `values` in `shape`.
Tensor make_tensor(ElementType type, const std::vector<double>& values, Shape shape) {
    return Tensor::from_vector<double>(values, std::move(shape)).convert(type);
}

// A constant bias broadcast along the channel axis (axis 1) of a rank-`rank` output, as C
// per-channel values; nullopt when it varies along any other axis.
std::optional<std::vector<double>> per_channel(const Tensor& bias, size_t rank, int64_t channels) {
    const Shape& s = bias.shape();
    if (s.size() > rank) return std::nullopt;
    Shape padded(rank - s.size(), 1);
    padded.insert(padded.end(), s.begin(), s.end());
    for (size_t i = 0; i < rank; ++i)
        if (i != 1 && padded[i] != 1) return std::nullopt;
    auto v = bias.to_f64();
    if (rank < 2 || v.size() == 1) return std::vector<double>(static_cast<size_t>(channels), v.at(0));
    if (padded[1] != channels) return std::nullopt;
    return v;
}

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
    if (!conv.is("Convolution") && !conv.is("GroupConvolution")) return false;
    const Tensor* weights = conv.in(1).value();
    if (!weights || !is_float(weights->type())) return false;
    const bool grouped = conv.is("GroupConvolution");
    const Shape& ws = weights->shape();
    if (ws.size() < (grouped ? 4u : 3u)) return false;
    const int64_t channels = grouped ? ws[0] * ws[1] : ws[0];
    const size_t out_rank = grouped ? ws.size() - 1 : ws.size();

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
    auto w = weights->to_f64();
    const size_t per_channel_size = w.size() / c;
    for (size_t i = 0; i < w.size(); ++i) w[i] *= k[i / per_channel_size];

    Node new_weights = g.add_constant(conv.in(1).src().node().name() + "/fused_bn", make_tensor(weights->type(), w, ws));
    conv.in(1).connect(new_weights.out(0));
    Shape bias_shape(out_rank, 1);
    bias_shape[1] = channels;
    const ElementType out_type = bn.out(0).type() == ElementType::dynamic ? weights->type() : bn.out(0).type();
    Node bias_const = g.add_constant(bn.name() + "/bias", make_tensor(out_type, bias, bias_shape));
    Node fused = g.add_op("Add", bn.name() + "/fused", {conv.out(0), bias_const.out(0)});
    if (add) fused.fused_names().push_back(add.name());
    g.replace(bn, fused);
    return true;
}

bool BatchNormToBatchNormInference::apply(Node bn, const TransformContext&) {
    Graph& g = bn.graph();
    std::vector<OutPort> inputs;
    for (size_t i = 0; i < 5; ++i) inputs.push_back(bn.in(i).src());
    Node bni = g.add_op("BatchNormInference", bn.name() + "/inference", inputs,
                        {{"epsilon", AttrValue(bn.attr<double>("epsilon"))}});
    g.replace(bn, bni);
    return true;
}

}  // namespace mo
