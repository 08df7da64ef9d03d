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
void register_tflite_detection(ExtractorRegistry& r);    // TFLite_Detection_PostProcess (CUSTOM)

// (scale, zero point) of output j when the loader quantized it (per tensor), else nullopt.
std::optional<std::pair<double, double>> tflite_output_quantization(ExtractContext& c, size_t j);

// The operator's fused_activation_function applied to `x` (NONE: x itself).
OutPort tflite_activation(ExtractContext& c, const OutPort& x, const std::string& suffix);

}  // namespace mo
