// Extractors of TensorFlow ops (frozen GraphDef and TF.js share them). As for TFLite, NHWC
// convolutions and poolings are extracted between Transposes (data_format NCHW needs none) and
// LayoutChange removes what it can; every other op keeps the source layout.
#pragma once

#include "extractors/extract_context.hpp"
#include "extractors/extractor_registry.hpp"

namespace mo {

void register_tf_extractors(ExtractorRegistry& r);

void register_tf_conv_pool(ExtractorRegistry& r);  // Conv2D, DepthwiseConv2dNative, fused forms, pools, MatMul
void register_tf_elementwise(ExtractorRegistry& r);  // arithmetic, activations, BiasAdd, FusedBatchNorm
void register_tf_shape(ExtractorRegistry& r);  // Identity, Reshape, ConcatV2, Pad, reductions, Softmax, ...
void register_tf_slice_gather(ExtractorRegistry& r);  // slices, splits, gathers, ArgMax, TopKV2, Select, ...
void register_tf_detection(ExtractorRegistry& r);     // NonMaxSuppressionV3 / V4 / V5
void register_tf_control_flow(ExtractorRegistry& r);  // If, StatelessIf, While, StatelessWhile
void register_tf_tensor_list(ExtractorRegistry& r);   // TensorList* as dense tensors

// One activation op by TensorFlow name (Relu, Relu6, Elu, Selu, LeakyRelu, Sigmoid, Tanh,
// Softplus) applied to x; nullopt for another name.
std::optional<OutPort> tf_activation(ExtractContext& c, const std::string& op, const OutPort& x,
                                     const std::string& suffix, double leaky_alpha = 0.2);

// The index type attribute `attr` (out_type, output_type; `def` when absent): DT_INT32 or
// DT_INT64, anything else fails.
ElementType tf_index_type(ExtractContext& c, std::string_view attr, int64_t def);

// Whether the node's data_format attribute is NHWC (the default) rather than NCHW.
bool tf_nhwc(ExtractContext& c);

}  // namespace mo
