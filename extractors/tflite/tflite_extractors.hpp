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
void register_tflite_detection(ExtractorRegistry& r);    // TFLite_Detection_PostProcess (CUSTOM)
void register_tflite_comparison(ExtractorRegistry& r);   // comparisons, logic, SELECT, WHERE
void register_tflite_math(ExtractorRegistry& r);         // SIGN, ROUND, GELU, FLOOR_DIV, ADD_N, L2_NORMALIZATION, ...
void register_tflite_tensor(ExtractorRegistry& r);       // SHAPE, FILL, RANGE, REVERSE_V2, TOPK_V2, UNIQUE, ...
void register_tflite_scatter_segment(ExtractorRegistry& r); // EMBEDDING_LOOKUP, SCATTER_ND, segment sums
void register_tflite_spatial(ExtractorRegistry& r);      // SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, L2_POOL_2D, LRN
void register_tflite_fft(ExtractorRegistry& r);          // RFFT2D, COMPLEX_ABS, REAL, IMAG
void register_tflite_recurrent(ExtractorRegistry& r);    // RNN, UNIDIRECTIONAL_SEQUENCE_RNN, the sequence LSTMs
void register_tflite_nms(ExtractorRegistry& r);          // NON_MAX_SUPPRESSION_V4, _V5

// (scale, zero point) of output j when the loader quantized it (per tensor), else nullopt.
std::optional<std::pair<double, double>> tflite_output_quantization(ExtractContext& c, size_t j);

// The number of elements of a constant of `dims` the extractor is about to make (`what` names it):
// fails, naming the node, when the product overflows or exceeds --max_constant_size, so that an
// option or shape from a hostile file never allocates beyond it.
int64_t tflite_constant_elements(ExtractContext& c, const std::vector<int64_t>& dims, ElementType type,
                                 const std::string& what);

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
