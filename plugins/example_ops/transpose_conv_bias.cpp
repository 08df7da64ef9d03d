// The example plugin's TFLite extractor: MediaPipe's CUSTOM op Convolution2DTransposeBias
// (mediapipe/util/tflite/operations/transpose_conv_bias.cc, in MediaPipe's segmentation and face
// models): TRANSPOSE_CONV with a bias input. Inputs x [N, H, W, C_in] (NHWC), weights
// [C_out, kH, kW, C_in], bias [C_out]. Its padding and strides are in the operator's custom
// options, which are not a flexbuffer map but the bytes of TFLite's C struct
// TfLiteTransposeConvParams: int32 padding (1 SAME, 2 VALID), int32 stride_width, int32
// stride_height, little-endian. The extractor reads them from the attribute "custom_options".
#include <mo/plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace {

struct TransposeConvParams {
    int32_t padding, stride_width, stride_height;
};

TransposeConvParams read_params(mo::ExtractContext& c) {
    const mo::Tensor options = c.tensor("custom_options");  // the raw bytes, a u8 tensor
    if (options.size() < 12)
        c.fail("custom options of " + std::to_string(options.size()) + " bytes; TfLiteTransposeConvParams has 12",
               "the model is corrupt; re-export it");
    const uint8_t* bytes = options.data<uint8_t>();
    auto int32_at = [&](size_t offset) {
        return static_cast<int32_t>(uint32_t(bytes[offset]) | uint32_t(bytes[offset + 1]) << 8 |
                                    uint32_t(bytes[offset + 2]) << 16 | uint32_t(bytes[offset + 3]) << 24);
    };
    const TransposeConvParams p{int32_at(0), int32_at(4), int32_at(8)};
    if (p.padding != 1 && p.padding != 2)
        c.fail("padding " + std::to_string(p.padding) + " is neither SAME (1) nor VALID (2)", "the model is corrupt; re-export it");
    if (p.stride_width < 1 || p.stride_height < 1) c.fail("a stride below 1", "the model is corrupt; re-export it");
    return p;
}

// MediaPipe's SAME padding: total = max(0, k - (in - 1) % stride - 1), half (rounded down) in
// front; the output is stride · (in - 1) + k - total.
std::pair<int64_t, int64_t> pads(bool same, int64_t in, int64_t kernel, int64_t stride) {
    const int64_t total = same ? std::max<int64_t>(0, kernel - (in - 1) % stride - 1) : 0;
    return {total / 2, total - total / 2};
}

void extract_transpose_conv_bias(mo::ExtractContext& c) {
    const TransposeConvParams p = read_params(c);
    const mo::PartialShape &x = c.input(0).shape(), &w = c.input(1).shape();
    if (!x.rank_is_static() || x.rank() != 4 || !x[1].is_static() || !x[2].is_static() || !w.is_static() || w.rank() != 4)
        c.unsupported("Convolution2DTransposeBias without a static 4-D input height, width and weights");
    const bool same = p.padding == 1;
    const auto [top, bottom] = pads(same, x[1].get_length(), w[1].get_length(), p.stride_height);
    const auto [left, right] = pads(same, x[2].get_length(), w[2].get_length(), p.stride_width);
    const mo::OutPort nchw = c.op("Transpose", "to_nchw", {c.input(0), c.i64s("to_nchw/order", {0, 3, 1, 2})});
    const mo::OutPort iohw = c.op("Transpose", "weights", {c.input(1), c.i64s("weights/order", {3, 0, 1, 2})});
    mo::OutPort y = c.op("ConvolutionBackpropData", "deconv", {nchw, iohw},
                         {{"strides", std::vector<int64_t>{p.stride_height, p.stride_width}},
                          {"pads_begin", std::vector<int64_t>{top, left}},
                          {"pads_end", std::vector<int64_t>{bottom, right}},
                          {"dilations", std::vector<int64_t>{1, 1}},
                          {"output_padding", std::vector<int64_t>{0, 0}}});
    const mo::OutPort bias = c.op("Reshape", "bias", {c.input(2), c.i64s("bias/shape", {1, -1, 1, 1})}, {{"special_zero", false}});
    y = c.op("Add", "biased", {y, bias});
    c.set_output(0, c.op("Transpose", "", {y, c.i64s("to_nhwc", {0, 2, 3, 1})}));
}

}  // namespace

void register_transpose_conv_bias(mo::Registries& r) {
    r.extractors.add({"tflite", "custom", "Convolution2DTransposeBias", mo::all_versions, extract_transpose_conv_bias});
}
