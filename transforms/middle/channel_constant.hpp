// Reading a constant as one value per channel, for the passes that fold it into a
// convolution's weights (BatchNorm, Multiply) or bias.
#pragma once

#include <optional>
#include <vector>

#include "core/graph.hpp"
#include "core/tensor.hpp"

namespace mo {

// The output channels of a Convolution or GroupConvolution, read from its constant weights
// ([O, I, k...] or [G, O/G, I/G, k...]), and the rank of its output; nullopt when the weights
// are not a constant of a float type or there are no output channels.
struct ConvChannels {
    int64_t channels = 0;
    size_t out_rank = 0;
};
std::optional<ConvChannels> conv_channels(const Node& conv);

// Conv weights with output channel c scaled by k[c]; k holds one factor per output channel.
Tensor scale_output_channels(const Tensor& weights, const std::vector<double>& k);

// `c` broadcast along the channel axis (axis 1) of a rank-`rank` tensor, as `channels`
// per-channel values (a single value is repeated); nullopt when it varies along any other axis
// or would broadcast the tensor to a larger shape.
std::optional<std::vector<double>> per_channel(const Tensor& c, size_t rank, int64_t channels);

// A tensor of `type` holding `values` in `shape`.
Tensor tensor_of(ElementType type, const std::vector<double>& values, Shape shape);

}  // namespace mo
