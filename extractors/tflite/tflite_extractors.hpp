// Extractors of TFLite builtin operators, by family. TFLite tensors are NHWC: an op whose
// OpenVINO form is NCHW (convolutions, pooling) is extracted between Transposes (NHWC->NCHW in
// front, NCHW->NHWC behind), every other op keeps the source layout; the middle phase's layout
// change (transforms/middle/layout_change.hpp) moves those Transposes until they cancel.
#pragma once

#include <optional>
#include <utility>

#include "extractors/extract_context.hpp"
#include "extractors/extractor_registry.hpp"

namespace mo {

void register_tflite_extractors(ExtractorRegistry& r);

void register_tflite_conv_pool(ExtractorRegistry& r);    // CONV_2D, DEPTHWISE_CONV_2D, pools, FULLY_CONNECTED
void register_tflite_elementwise(ExtractorRegistry& r);  // arithmetic and activations
void register_tflite_shape(ExtractorRegistry& r);        // RESHAPE, CONCATENATION, PAD, reductions, ...
void register_tflite_slice_gather(ExtractorRegistry& r); // slices, splits, GATHER, PACK, ARG_MAX, ...
void register_tflite_quantization(ExtractorRegistry& r); // quantized tensors, QUANTIZE, DEQUANTIZE
void register_tflite_control_flow(ExtractorRegistry& r); // IF, WHILE, variables' state

// (scale, zero point) of output j when the loader quantized it (per tensor), else nullopt.
std::optional<std::pair<double, double>> tflite_output_quantization(ExtractContext& c, size_t j);

// TFLite's reference requantization of an 8-bit CONV_2D / DEPTHWISE_CONV_2D / TRANSPOSE_CONV /
// FULLY_CONNECTED output, applied to its real-valued accumulator `y` (bias added, before the
// fused activation): MultiplyByQuantizedMultiplier rounds twice, first the high half of the
// fixed-point product (half up), then the division by 2^shift (half away from zero), where
// shift is the right shift of input scale · weight scale / output scale. In real steps v = y / s:
// round_half_away(floor(v · 2^shift + 1/2) / 2^shift) · s, per output channel (axis
// `channel_axis` of y's `rank`) when the weights are quantized per channel. `y` unchanged unless
// the output is int8 / uint8 and input `input` and weights `weights` are quantized.
OutPort tflite_reference_requantization(ExtractContext& c, const OutPort& y, size_t input, size_t weights,
                                        int64_t channel_axis, int64_t rank);

// The operator's fused_activation_function applied to `x` (NONE: x itself).
OutPort tflite_activation(ExtractContext& c, const OutPort& x, const std::string& suffix);

}  // namespace mo
