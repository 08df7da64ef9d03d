// Attributes shared by convolutions and poolings: ONNX auto_pad, strides, dilations, pads.
#pragma once

#include <string>
#include <vector>

#include "extractors/extract_context.hpp"

namespace mo {

struct SpatialAttrs {
    std::string auto_pad;  // IR spelling: explicit, same_upper, same_lower, valid
    std::vector<int64_t> strides, dilations, pads_begin, pads_end;
};

// ONNX auto_pad -> IR spelling.
std::string onnx_auto_pad(ExtractContext& c);
// Reads strides, dilations (when the op has them) and pads for `spatial` axes, with ONNX defaults.
SpatialAttrs onnx_spatial_attrs(ExtractContext& c, size_t spatial, bool with_dilations);

// AvgPool-1's attributes from ONNX AveragePool's (kernel_shape, strides, pads, auto_pad,
// ceil_mode, count_include_pad); dilations other than 1 are refused. Also QLinearAveragePool's.
AttrMap onnx_average_pool_attrs(ExtractContext& c);

// ONNX Conv / ConvTranspose (X, W, B?) with the node's attributes as (Group)Convolution(BackpropData)
// [+ bias]; the last node is named `result` ("" = the framework node's own name). Also the
// convolution of ONNX Runtime's FusedConv.
OutPort onnx_convolution(ExtractContext& c, bool transposed, const std::string& result);

}  // namespace mo
