// Conv2D, DepthwiseConv2dNative, _FusedConv2D / FusedDepthwiseConv2dNative (TF.js), MaxPool,
// AvgPool, MatMul, _FusedMatMul.
#include "extractors/tensorflow_family.hpp"
#include "extractors/tf/tf_extractors.hpp"

namespace mo {

namespace {

using tf_family::kToNchw;
using tf_family::kToNhwc;
using tf_family::transpose;

// The spatial (H, W) entries of a 4-value NHWC / NCHW list attribute, whose batch and channel
// entries must be 1 (TensorFlow's depth-wise pooling windows the channels: not converted).
std::vector<int64_t> spatial(ExtractContext& c, const char* attr, bool nhwc) {
    std::vector<int64_t> v = c.ints(attr, {1, 1, 1, 1});
    if (v.size() != 4) c.fail(std::string(attr) + " must have 4 values");
    if (v[0] != 1 || v[nhwc ? 3 : 1] != 1)
        c.unsupported(std::string(attr) + " over the batch or channel axis (" + std::to_string(v[0]) + " and " +
                      std::to_string(v[nhwc ? 3 : 1]) + ")");
    return nhwc ? std::vector<int64_t>{v[1], v[2]} : std::vector<int64_t>{v[2], v[3]};
}

AttrMap window_attrs(ExtractContext& c, bool nhwc, bool with_dilations) {
    const std::string padding = c.s("padding", "VALID");
    AttrMap a{{"strides", spatial(c, "strides", nhwc)},
              {"pads_begin", std::vector<int64_t>{0, 0}},
              {"pads_end", std::vector<int64_t>{0, 0}}};
    if (padding == "SAME") a["auto_pad"] = std::string("same_upper");
    else if (padding == "VALID") a["auto_pad"] = std::string("valid");
    else if (padding == "EXPLICIT") {
        // explicit_paddings: [before, after] per dimension, in data_format order.
        std::vector<int64_t> p = c.ints("explicit_paddings");
        if (p.size() != 8) c.fail("explicit_paddings must have 8 values");
        const size_t h = nhwc ? 1 : 2, w = nhwc ? 2 : 3;
        a["auto_pad"] = std::string("explicit");
        a["pads_begin"] = std::vector<int64_t>{p[2 * h], p[2 * w]};
        a["pads_end"] = std::vector<int64_t>{p[2 * h + 1], p[2 * w + 1]};
    } else {
        c.unsupported("padding " + padding);
    }
    if (with_dilations) a["dilations"] = spatial(c, "dilations", nhwc);
    return a;
}

// The fused ops of _FusedConv2D / _FusedMatMul after the convolution: BiasAdd (args[0]) and
// one activation; FusedBatchNorm and others are refused.
OutPort apply_fused(ExtractContext& c, OutPort y, size_t first_arg, bool nchw_bias) {
    size_t arg = first_arg;
    for (const std::string& op : c.strings("fused_ops")) {
        if (op == "BiasAdd" || op == "Add") {
            OutPort b = c.input(arg++);
            if (nchw_bias) b = c.op("Reshape", "bias", {b, c.i64s("bias/shape", {1, -1, 1, 1})}, {{"special_zero", false}});
            y = c.op("Add", "biased", {y, b});
        } else if (auto a = tf_activation(c, op, y, "activation", c.f("leakyrelu_alpha", 0.2))) {
            y = *a;
        } else {
            c.unsupported("fused op " + op);
        }
    }
    return y;
}

void conv(ExtractContext& c, bool depthwise, bool fused) {
    const bool nhwc = tf_nhwc(c);
    OutPort x = nhwc ? transpose(c, "to_nchw", c.input(0), kToNchw) : c.input(0);
    OutPort w;
    const PartialShape& ws = c.input(1).shape();
    if (!depthwise) {
        w = transpose(c, "weights", c.input(1), {3, 2, 0, 1});  // HWIO -> OIHW
    } else {
        // [H, W, C, M] -> [C, M, 1, H, W]
        if (!ws.is_static() || ws.rank() != 4) c.fail("the depthwise filter must have a static 4-D shape");
        w = transpose(c, "weights/cmhw", c.input(1), {2, 3, 0, 1});
        w = c.op("Reshape", "weights", {w, c.i64s("weights/shape", {ws[2].get_length(), ws[3].get_length(), 1,
                                                                    ws[0].get_length(), ws[1].get_length()})},
                 {{"special_zero", false}});
    }
    OutPort y = c.op(depthwise ? "GroupConvolution" : "Convolution", "conv", {x, w}, window_attrs(c, nhwc, true));
    if (fused) y = apply_fused(c, y, 2, true);
    c.set_output(0, nhwc ? transpose(c, "", y, kToNhwc) : y);
}

// Conv2DBackpropInput(input_sizes, filter [H, W, C_out, C_in], out_backprop): the transposed
// convolution, NHWC only.
void conv_backprop_input(ExtractContext& c) {
    if (!tf_nhwc(c)) c.unsupported("Conv2DBackpropInput with data_format NCHW");
    const std::string padding = c.s("padding", "VALID");
    if (padding != "SAME" && padding != "VALID") c.unsupported("Conv2DBackpropInput with padding " + padding);
    for (int64_t d : spatial(c, "dilations", true))
        if (d != 1) c.unsupported("Conv2DBackpropInput with dilations");
    const PartialShape& ws = c.input(1).shape();
    if (!ws.is_static() || ws.rank() != 4) c.fail("the filter must have a static 4-D shape [H, W, C_out, C_in]");
    OutPort w = transpose(c, "weights", c.input(1), {3, 2, 0, 1});  // -> [C_in, C_out, H, W]
    OutPort y = tf_family::transposed_conv(c, c.input(2), w, {ws[0].get_length(), ws[1].get_length()}, c.input_ints(0),
                                           spatial(c, "strides", true), padding == "SAME");
    c.set_output(0, transpose(c, "", y, kToNhwc));
}

void pool(ExtractContext& c, bool max) {
    const bool nhwc = tf_nhwc(c);
    AttrMap a = window_attrs(c, nhwc, false);
    a["kernel"] = spatial(c, "ksize", nhwc);
    tf_family::add_pool_attrs(a, max);
    OutPort x = nhwc ? transpose(c, "to_nchw", c.input(0), kToNchw) : c.input(0);
    OutPort y = c.op(max ? "MaxPool" : "AvgPool", "pool", {x}, a);
    c.set_output(0, nhwc ? transpose(c, "", y, kToNhwc) : y);
}

void matmul(ExtractContext& c, bool fused, bool batch) {
    const char* ta = batch ? "adj_x" : "transpose_a";
    const char* tb = batch ? "adj_y" : "transpose_b";
    OutPort y = c.op("MatMul", "matmul", {c.input(0), c.input(1)},
                     {{"transpose_a", c.i(ta, 0) != 0}, {"transpose_b", c.i(tb, 0) != 0}});
    if (fused) y = apply_fused(c, y, 2, false);
    c.set_output(0, y);
}

}  // namespace

void register_tf_conv_pool(ExtractorRegistry& r) {
    r.add({"tf", "", "Conv2D", 1, INT64_MAX, [](ExtractContext& c) { conv(c, false, false); }});
    r.add({"tf", "", "_FusedConv2D", 1, INT64_MAX, [](ExtractContext& c) { conv(c, false, true); }});
    r.add({"tf", "", "DepthwiseConv2dNative", 1, INT64_MAX, [](ExtractContext& c) { conv(c, true, false); }});
    r.add({"tf", "", "FusedDepthwiseConv2dNative", 1, INT64_MAX, [](ExtractContext& c) { conv(c, true, true); }});
    r.add({"tf", "", "Conv2DBackpropInput", 1, INT64_MAX, conv_backprop_input});
    r.add({"tf", "", "MaxPool", 1, INT64_MAX, [](ExtractContext& c) { pool(c, true); }});
    r.add({"tf", "", "AvgPool", 1, INT64_MAX, [](ExtractContext& c) { pool(c, false); }});
    r.add({"tf", "", "MatMul", 1, INT64_MAX, [](ExtractContext& c) { matmul(c, false, false); }});
    r.add({"tf", "", "_FusedMatMul", 1, INT64_MAX, [](ExtractContext& c) { matmul(c, true, false); }});
    r.add({"tf", "", "BatchMatMul", 1, INT64_MAX, [](ExtractContext& c) { matmul(c, false, true); }});
    r.add({"tf", "", "BatchMatMulV2", 1, INT64_MAX, [](ExtractContext& c) { matmul(c, false, true); }});
}

}  // namespace mo
