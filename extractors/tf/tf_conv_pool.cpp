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

// A per-channel vector `v` ([C]) of a fused op made to broadcast over y: [1, C, 1, 1] when y is
// a convolution output (NCHW), as it is otherwise (a MatMul's: the channel axis is the last).
OutPort per_channel(ExtractContext& c, const std::string& name, OutPort v, bool nchw) {
    if (!nchw) return v;
    return c.op("Reshape", name, {v, c.i64s(name + "/shape", {1, -1, 1, 1})}, {{"special_zero", false}});
}

// The fused ops of _FusedConv2D / FusedDepthwiseConv2dNative / _FusedMatMul after the contraction
// y, in `fused_ops` order, each taking its arguments from the inputs from `first_arg` on, as
// TensorFlow's remapper and tfjs-converter write them (fuse_depthwise_conv2d.py, fuse_prelu.py):
//   BiasAdd (bias), Add (a tensor added as it is), NoOp (nothing: a depthwise convolution
//   without bias), FusedBatchNorm (scale, offset, mean, variance; attr epsilon: inference batch
//   norm), Prelu (alpha, broadcast against the NHWC output from the last axis as TF.js's prelu),
//   and the activations Relu, Relu6, Elu, LeakyRelu (attr leakyrelu_alpha), Sigmoid, Tanh.
// `conv`: y is a convolution output, NCHW; `moved`: the node's data format is NHWC, y was moved
// to NCHW, and full-shape arguments (Add's, Prelu's alpha) move with it.
OutPort apply_fused(ExtractContext& c, OutPort y, size_t first_arg, bool conv, bool moved) {
    const bool nchw = conv;
    size_t arg = first_arg;
    const std::vector<std::string> ops = c.strings("fused_ops");
    const int64_t num_args = c.i("num_args", -1);
    for (size_t i = 0; i < ops.size(); ++i) {
        const std::string& op = ops[i];
        const std::string name = "fused" + std::to_string(i);
        if (op == "BiasAdd") {
            y = c.op("Add", name, {y, per_channel(c, name + "/bias", c.input(arg++), nchw)});
        } else if (op == "Add") {
            OutPort other = c.input(arg++);
            if (moved) other = transpose(c, name + "/to_nchw", other, kToNchw);
            y = c.op("Add", name, {y, other});
        } else if (op == "NoOp") {
        } else if (op == "FusedBatchNorm") {
            OutPort scale = c.input(arg), offset = c.input(arg + 1), mean = c.input(arg + 2), variance = c.input(arg + 3);
            arg += 4;
            OutPort eps = c.scalar_like(name + "/epsilon", c.f("epsilon", 1e-4), variance);
            OutPort k = c.op("Divide", name + "/k", {scale, c.op("Sqrt", name + "/std", {c.op("Add", name + "/var_eps", {variance, eps})})});
            OutPort shift = c.op("Subtract", name + "/shift", {offset, c.op("Multiply", name + "/mean_k", {mean, k})});
            y = c.op("Add", name, {c.op("Multiply", name + "/scaled", {y, per_channel(c, name + "/k_c", k, nchw)}),
                                   per_channel(c, name + "/shift_c", shift, nchw)});
        } else if (op == "Prelu") {
            // alpha broadcasts against the output in the node's data format: padded with leading
            // 1s to its rank, then moved to NCHW with it.
            OutPort alpha = c.input(arg++);
            const int64_t rank = ExtractContext::rank_of(c.input(0)), alpha_rank = ExtractContext::rank_of(alpha);
            if (rank < 0 || alpha_rank < 0 || alpha_rank > rank) c.unsupported("a fused Prelu whose alpha or input has an unknown or larger rank");
            if (alpha_rank < rank) {
                std::vector<int64_t> axes(static_cast<size_t>(rank - alpha_rank));
                for (size_t a = 0; a < axes.size(); ++a) axes[a] = static_cast<int64_t>(a);
                alpha = c.op("Unsqueeze", name + "/alpha", {alpha, c.i64s(name + "/alpha/axes", axes)});
            }
            if (moved) alpha = transpose(c, name + "/alpha/nchw", alpha, kToNchw);
            y = c.op("PRelu", name, {y, alpha});
        } else if (auto a = tf_activation(c, op, y, name, c.f("leakyrelu_alpha", 0.2))) {
            y = *a;
        } else {
            c.unsupported("fused op " + op);
        }
    }
    if (num_args >= 0 && arg - first_arg != static_cast<size_t>(num_args))
        c.fail("num_args is " + std::to_string(num_args) + " but fused_ops [" + [&] {
                   std::string list;
                   for (const auto& o : ops) list += (list.empty() ? "" : ", ") + o;
                   return list;
               }() + "] take " + std::to_string(arg - first_arg) + " argument(s)",
               "the model is corrupt; re-export it");
    if (arg != c.input_count())
        c.fail("the node has " + std::to_string(c.input_count() - first_arg) + " fused argument(s), its fused_ops take " +
                   std::to_string(arg - first_arg),
               "the model is corrupt; re-export it");
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
    if (fused) y = apply_fused(c, y, 2, true, nhwc);
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
    if (fused) y = apply_fused(c, y, 2, false, false);
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
