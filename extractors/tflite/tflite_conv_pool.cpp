// CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, CONV_3D, MAX_POOL_2D, AVERAGE_POOL_2D (NHWC, between
// Transposes) and FULLY_CONNECTED.
#include <algorithm>

#include "extractors/tensorflow_family.hpp"
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

using tf_family::kToNchw;
using tf_family::kToNhwc;
using tf_family::transpose;

// Padding: SAME (0) pads like OpenVINO's same_upper (the odd pixel at the end), VALID (1) not at all.
std::string auto_pad(ExtractContext& c) {
    const int64_t padding = c.i("padding", 0);
    if (padding != 0 && padding != 1) c.fail("padding " + std::to_string(padding) + " is neither SAME (0) nor VALID (1)");
    return padding == 0 ? "same_upper" : "valid";
}

AttrMap window_attrs(ExtractContext& c, bool with_dilations) {
    AttrMap a{{"strides", std::vector<int64_t>{c.i("stride_h", 1), c.i("stride_w", 1)}},
              {"pads_begin", std::vector<int64_t>{0, 0}},
              {"pads_end", std::vector<int64_t>{0, 0}},
              {"auto_pad", auto_pad(c)}};
    if (with_dilations) a["dilations"] = std::vector<int64_t>{c.i("dilation_h_factor", 1), c.i("dilation_w_factor", 1)};
    return a;
}

// conv_out (NCHW) + bias (input `bias_input`, [C]), requantized as TFLite's reference kernels
// round (input `x_input`, weights input 1), the fused activation, then back to NHWC.
void finish_conv(ExtractContext& c, OutPort y, size_t bias_input = 2, size_t x_input = 0) {
    if (c.has_input(bias_input)) {
        OutPort bias = c.op("Reshape", "bias", {c.input(bias_input), c.i64s("bias/shape", {1, -1, 1, 1})},
                            {{"special_zero", false}});
        y = c.op("Add", "biased", {y, bias});
    }
    y = tflite_reference_requantization(c, y, x_input, 1, 1, 4);
    y = tflite_activation(c, y, "activation");
    c.set_output(0, transpose(c, "", y, kToNhwc));
}

void conv_2d(ExtractContext& c) {
    // filter [O, H, W, I] -> OIHW
    OutPort x = transpose(c, "to_nchw", c.input(0), kToNchw);
    OutPort w = transpose(c, "weights", c.input(1), kToNchw);
    const PartialShape &xs = c.input(0).shape(), &ws = c.input(1).shape();
    for (const auto& [shape, what] : {std::pair{&xs, "input"}, std::pair{&ws, "filter [O, H, W, I]"}})
        if (shape->rank_is_static() && shape->rank() != 4)
            c.fail(std::string("the ") + what + " must be 4-D, not of rank " + std::to_string(shape->rank()));
    if (xs.rank_is_static() && ws.rank_is_static() && xs[3].is_static() && ws[3].is_static() &&
        xs[3].get_length() != ws[3].get_length())
        c.unsupported("CONV_2D with groups (input channels " + std::to_string(xs[3].get_length()) +
                      ", filter channels " + std::to_string(ws[3].get_length()) + ")");
    finish_conv(c, c.op("Convolution", "conv", {x, w}, window_attrs(c, true)));
}

void depthwise_conv_2d(ExtractContext& c) {
    // filter [1, H, W, C * M] -> GroupConvolution weights [C, M, 1, H, W]
    const PartialShape &xs = c.input(0).shape(), &ws = c.input(1).shape();
    if (!ws.is_static() || ws.rank() != 4) c.fail("the depthwise filter must have a static 4-D shape");
    const int64_t kh = ws[1].get_length(), kw = ws[2].get_length(), out = ws[3].get_length();
    int64_t channels = xs.rank_is_static() && xs.rank() == 4 && xs[3].is_static() ? xs[3].get_length() : 0;
    if (channels == 0) {
        const int64_t m = c.i("depth_multiplier", 1);
        if (m < 1) c.fail("depth_multiplier must be positive");
        if (out % m != 0)
            c.fail("depth_multiplier " + std::to_string(m) + " does not divide the filter's " + std::to_string(out) +
                   " channels");
        channels = out / m;
    }
    if (channels < 1 || out % channels != 0) c.fail("the filter's channels are not a multiple of the input's");
    const int64_t m = out / channels;
    OutPort w = c.op("Reshape", "weights/hwcm", {c.input(1), c.i64s("weights/hwcm/shape", {kh, kw, channels, m})},
                     {{"special_zero", false}});
    w = transpose(c, "weights/cmhw", w, {2, 3, 0, 1});
    w = c.op("Reshape", "weights", {w, c.i64s("weights/shape", {channels, m, 1, kh, kw})}, {{"special_zero", false}});
    OutPort x = transpose(c, "to_nchw", c.input(0), kToNchw);
    finish_conv(c, c.op("GroupConvolution", "conv", {x, w}, window_attrs(c, true)));
}

// TFLite's quantized AVERAGE_POOL_2D rounds the mean of the stored integers half away from
// zero, the FakeQuantize after it half to even. Moving the mean by 1 / (4 · count) steps (at
// most 0.01) away from the stored zero (real value -zp · scale) takes exact ties TFLite's way:
// any other mean of `count` integers is at least 1 / (2 · count) steps from a tie, and the f32
// rounding of the mean stays below 1e-5 steps.
OutPort round_ties_away_from_zero(ExtractContext& c, const OutPort& mean, double scale, double zero_point,
                                  int64_t count) {
    const double nudge = std::min(0.01, 1.0 / (4.0 * static_cast<double>(count)));
    auto scalar = [&](const std::string& suffix, double v) {
        return c.constant(suffix, Tensor::scalar<float>(static_cast<float>(v)));
    };
    OutPort stored = c.op("Add", "ties/stored", {mean, scalar("ties/zero_point", zero_point * scale)});
    OutPort away = c.op("Sign", "ties/sign", {stored});
    away = c.op("Multiply", "ties/nudge", {away, scalar("ties/step", nudge * scale)});
    return c.op("Add", "ties", {mean, away});
}

void pool_2d(ExtractContext& c, bool max) {
    AttrMap a = window_attrs(c, false);
    const int64_t fh = c.i("filter_height"), fw = c.i("filter_width");
    a["kernel"] = std::vector<int64_t>{fh, fw};
    tf_family::add_pool_attrs(a, max);
    OutPort x = transpose(c, "to_nchw", c.input(0), kToNchw);
    OutPort y = c.op(max ? "MaxPool" : "AvgPool", "pool", {x}, a);
    if (auto q = tflite_output_quantization(c, 0); q && !max)
        y = round_ties_away_from_zero(c, y, q->first, q->second, fh * fw);
    y = tflite_activation(c, y, "activation");
    c.set_output(0, transpose(c, "", y, kToNhwc));
}

// TRANSPOSE_CONV(output_shape, weights [O, H, W, I], x [, bias])
void transpose_conv(ExtractContext& c) {
    const PartialShape& ws = c.input(1).shape();
    if (!ws.is_static() || ws.rank() != 4) c.fail("the weights must have a static 4-D shape [O, H, W, I]");
    OutPort w = transpose(c, "weights", c.input(1), {3, 0, 1, 2});  // -> [I, O, H, W]
    OutPort y = tf_family::transposed_conv(c, c.input(2), w, {ws[1].get_length(), ws[2].get_length()}, c.input_ints(0),
                                           {c.i("stride_h", 1), c.i("stride_w", 1)}, c.i("padding", 0) == 0);
    finish_conv(c, y, 3, 2);
}

// CONV_3D(x [N, D, H, W, C], filter [kD, kH, kW, C, O] [, bias]): Convolution over NCDHW between
// Transposes, the filter to [O, C, kD, kH, kW]; SAME pads as same_upper, as in 2-D.
void conv_3d(ExtractContext& c) {
    const PartialShape& ws = c.input(1).shape();
    if (!ws.rank_is_static() || ws.rank() != 5) c.fail("the filter must be 5-D [kD, kH, kW, C, O]", "the model is corrupt; re-export it");
    if (ExtractContext::rank_of(c.input(0)) != 5) c.fail("the input must be 5-D [N, D, H, W, C]", "the model is corrupt; re-export it");
    OutPort x = transpose(c, "to_ncdhw", c.input(0), {0, 4, 1, 2, 3});
    OutPort w = transpose(c, "weights", c.input(1), {4, 3, 0, 1, 2});
    AttrMap a{{"strides", std::vector<int64_t>{c.i("stride_d", 1), c.i("stride_h", 1), c.i("stride_w", 1)}},
              {"dilations", std::vector<int64_t>{c.i("dilation_d_factor", 1), c.i("dilation_h_factor", 1), c.i("dilation_w_factor", 1)}},
              {"pads_begin", std::vector<int64_t>{0, 0, 0}},
              {"pads_end", std::vector<int64_t>{0, 0, 0}},
              {"auto_pad", auto_pad(c)}};
    OutPort y = c.op("Convolution", "conv", {x, w}, a);
    if (c.has_input(2)) {
        OutPort bias = c.op("Reshape", "bias", {c.input(2), c.i64s("bias/shape", {1, -1, 1, 1, 1})}, {{"special_zero", false}});
        y = c.op("Add", "biased", {y, bias});
    }
    y = tflite_activation(c, y, "activation");
    c.set_output(0, transpose(c, "", y, {0, 2, 3, 4, 1}));
}

// y = x W^T + b; without keep_num_dims the input is flattened to [-1, K] first.
void fully_connected(ExtractContext& c) {
    if (c.i("weights_format", 0) != 0) c.unsupported("FULLY_CONNECTED with shuffled weights");
    const PartialShape& ws = c.input(1).shape();
    if (!ws.is_static() || ws.rank() != 2) c.fail("the weights must have a static 2-D shape [O, K]");
    OutPort x = c.input(0);
    if (!c.i("keep_num_dims", 0))
        x = c.op("Reshape", "flatten", {x, c.i64s("flatten/shape", {-1, ws[1].get_length()})}, {{"special_zero", false}});
    OutPort y = c.op("MatMul", "matmul", {x, c.input(1)}, {{"transpose_a", false}, {"transpose_b", true}});
    if (c.has_input(2)) y = c.op("Add", "biased", {y, c.input(2)});
    y = tflite_reference_requantization(c, y, 0, 1, 0, 1);  // per output channel: the last axis
    c.set_output(0, tflite_activation(c, y, "activation"));
}

}  // namespace

void register_tflite_conv_pool(ExtractorRegistry& r) {
    r.add({"tflite", "", "CONV_2D", 1, INT64_MAX, conv_2d});
    r.add({"tflite", "", "DEPTHWISE_CONV_2D", 1, INT64_MAX, depthwise_conv_2d});
    r.add({"tflite", "", "MAX_POOL_2D", 1, INT64_MAX, [](ExtractContext& c) { pool_2d(c, true); }});
    r.add({"tflite", "", "AVERAGE_POOL_2D", 1, INT64_MAX, [](ExtractContext& c) { pool_2d(c, false); }});
    r.add({"tflite", "", "FULLY_CONNECTED", 1, INT64_MAX, fully_connected});
    r.add({"tflite", "", "TRANSPOSE_CONV", 1, INT64_MAX, transpose_conv});
    r.add({"tflite", "", "CONV_3D", 1, INT64_MAX, conv_3d});
}

}  // namespace mo
