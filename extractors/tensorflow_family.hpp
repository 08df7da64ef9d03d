// Extractor pieces shared by the TensorFlow-family frontends (TFLite, TensorFlow GraphDef and
// TF.js), whose ops have the same semantics under different attribute spellings.
#pragma once

#include <string>
#include <vector>

#include "extractors/extract_context.hpp"

namespace mo::tf_family {

// Axis orders between TensorFlow's NHWC and OpenVINO's NCHW.
inline const std::vector<int64_t> kToNchw{0, 3, 1, 2};
inline const std::vector<int64_t> kToNhwc{0, 2, 3, 1};

// x transposed by `perm` (a Transpose node named <node>/<suffix>).
OutPort transpose(ExtractContext& c, const std::string& suffix, const OutPort& x, const std::vector<int64_t>& perm);

// DepthToSpace / SpaceToDepth of input 0 (`block_size`): TensorFlow's channel order is
// OpenVINO's blocks_first; an NHWC input goes between Transposes.
void depth_space(ExtractContext& c, const char* type, bool nhwc);

// Pad(x = input 0, paddings = input 1 [rank, 2] constant [, value = input 2]) in `mode`
// (constant, reflect, symmetric).
void pad(ExtractContext& c, const std::string& mode);

// Slice(x = input 0, begin = input 1, size = input 2), size -1 meaning to the end.
void slice_begin_size(ExtractContext& c);

// StridedSlice(x = input 0, begin = input 1, `end`, strides = input 3) with the node's
// TensorFlow bit masks (begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask).
void strided_slice(ExtractContext& c, const OutPort& end);

// Input 0 split into `num` along `axis`, each part squeezed there (Unpack / UNPACK). The caller has
// checked `num`: positive and at least the node's outputs. Fails unless `num` is the input's size
// along `axis` when known.
void unpack(ExtractContext& c, int64_t axis, int64_t num);

// Every input unsqueezed at `axis`, then concatenated there; fails for a node without inputs.
void pack(ExtractContext& c, int64_t axis);

// Squeeze of input 0 at `axes` (all size-1 axes when empty).
void squeeze(ExtractContext& c, const std::vector<int64_t>& axes);

// ArgMax / ArgMin of input 0 along the constant axis input 1: TopK(k = 1, stable) indices,
// squeezed, converted to `out` (the first of equal values wins, as in TensorFlow).
void arg_extreme(ExtractContext& c, const char* mode, ElementType out);

// ResizeBilinear / ResizeNearestNeighbor of NHWC input 0 to the size input 1 ([h, w]), the input
// first converted to `compute_type` unless that is dynamic (the input's type is kept).
void resize(ExtractContext& c, bool bilinear, bool align_corners, bool half_pixel_centers,
            ElementType compute_type = ElementType::dynamic);

// TensorFlow's transposed convolution (TFLite TRANSPOSE_CONV, Conv2DBackpropInput) of NHWC `x`
// with weights already in OpenVINO's [C_in, C_out, kH, kW] layout (`kernel` = {kH, kW}), to the
// constant NHWC
// `output_shape`: ConvolutionBackpropData between Transposes, with the pads TensorFlow's SAME
// puts (half the excess in front, the rest behind) or none for VALID, and output_padding for
// what the strides leave over. Returns the NCHW result (before any bias).
OutPort transposed_conv(ExtractContext& c, const OutPort& x, const OutPort& weights, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& output_shape, const std::vector<int64_t>& strides, bool same);

// The attributes MaxPool-8 / AvgPool-1 need besides the window (TensorFlow averages exclude padding).
void add_pool_attrs(AttrMap& a, bool max);

}  // namespace mo::tf_family
