#include "transforms/middle/channel_constant.hpp"

#include "core/error.hpp"

namespace mo {

std::optional<ConvChannels> conv_channels(const Node& conv) {
    const bool grouped = conv.is("GroupConvolution");
    if (!grouped && !conv.is("Convolution")) return std::nullopt;
    const Tensor* weights = conv.in(1).value();
    if (!weights || !is_float(weights->type())) return std::nullopt;
    const Shape& ws = weights->shape();
    if (ws.size() < (grouped ? 4u : 3u)) return std::nullopt;
    const int64_t channels = grouped ? ws[0] * ws[1] : ws[0];
    if (channels <= 0) return std::nullopt;  // an empty output has nothing to fold into
    return ConvChannels{channels, grouped ? ws.size() - 1 : ws.size()};
}

Tensor scale_output_channels(const Tensor& weights, const std::vector<double>& k) {
    auto w = weights.to_f64();
    MO_ASSERT(!k.empty() && w.size() % k.size() == 0, "cannot scale ", w.size(), " weights by ", k.size(),
              " channel factors");
    const size_t per_channel_size = w.size() / k.size();
    for (size_t i = 0; i < w.size(); ++i) w[i] *= k[i / per_channel_size];
    return tensor_of(weights.type(), w, weights.shape());
}

std::optional<std::vector<double>> per_channel(const Tensor& c, size_t rank, int64_t channels) {
    const Shape& s = c.shape();
    if (s.size() > rank) return std::nullopt;
    Shape padded(rank - s.size(), 1);
    padded.insert(padded.end(), s.begin(), s.end());
    for (size_t i = 0; i < rank; ++i)
        if (i != 1 && padded[i] != 1) return std::nullopt;
    auto v = c.to_f64();
    if (v.size() == 1) return std::vector<double>(static_cast<size_t>(channels), v.at(0));
    if (rank < 2 || padded[1] != channels) return std::nullopt;
    return v;
}

Tensor tensor_of(ElementType type, const std::vector<double>& values, Shape shape) {
    return Tensor::from_vector<double>(values, std::move(shape)).convert(type);
}

}  // namespace mo
