// Extractors of Caffe layers, by family. Caffe tensors are NCHW, as OpenVINO's, so every layer
// maps to OpenVINO ops directly. A layer's parameters are read by dotted path
// ("convolution_param.kernel_size", loaders/caffe/caffe_attributes.hpp) with Caffe's defaults
// given here; its learned blobs ("blobs.N") become Constants, views of the .caffemodel.
// Every built-in extractor first refuses a layer that sets a field mo's caffe.proto subset does
// not know (it would be ignored silently otherwise).
#pragma once

#include <string>
#include <vector>

#include "extractors/extract_context.hpp"
#include "extractors/extractor_registry.hpp"

namespace mo {

void register_caffe_extractors(ExtractorRegistry& r);

void register_caffe_conv_pool(ExtractorRegistry& r);      // Convolution, Deconvolution, Pooling, InnerProduct
void register_caffe_elementwise(ExtractorRegistry& r);    // activations, Power / Exp / Log, Eltwise, Scale, Bias, ...
void register_caffe_normalization(ExtractorRegistry& r);  // BatchNorm, LRN, Softmax, Normalize, MVN
void register_caffe_shape(ExtractorRegistry& r);          // Concat, Slice, Split, Flatten, Reshape, Permute, Crop, ...
void register_caffe_detection(ExtractorRegistry& r);      // PriorBox, PriorBoxClustered, DetectionOutput
void register_caffe_resize(ExtractorRegistry& r);         // Interp, Upsample

namespace caffe {

// Registers a built-in extractor of layer type `type` (refusing unknown fields first).
void add(ExtractorRegistry& r, const std::string& type, ExtractFn fn);

// The layer's blob i (fails naming the layer when the .caffemodel does not give it).
Tensor blob(ExtractContext& c, size_t i, const std::string& what);
size_t blob_count(ExtractContext& c);
// Blob i as a Constant of shape `shape` (its element count must agree: V1 blobs are 4-D).
OutPort blob_as(ExtractContext& c, size_t i, const std::string& what, const Shape& shape);

// `axis` of a tensor of rank `rank` (negative counts from the end); fails when out of range.
int64_t axis(ExtractContext& c, int64_t axis, int64_t rank, const std::string& what);
// The static rank of input i; fails when unknown.
int64_t input_rank(ExtractContext& c, size_t i, const std::string& why);

// `v` (of shape `dims`, which start at axis `axis` of a tensor of rank `rank`) reshaped to
// broadcast against that tensor: dims followed by ones.
OutPort broadcast_along(ExtractContext& c, const OutPort& v, const std::vector<int64_t>& dims, int64_t axis,
                        int64_t rank, const std::string& suffix);

// A float scalar constant.
OutPort scalar(ExtractContext& c, const std::string& suffix, double value);

}  // namespace caffe
}  // namespace mo
