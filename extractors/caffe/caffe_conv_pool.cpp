// Convolution and Deconvolution (any number of spatial axes, groups, dilation; pad / stride /
// kernel as one value, one per axis, or *_h / *_w), Pooling (MAX / AVE / global, Caffe's CEIL or
// FLOOR rounding, the MAX argmax top) and InnerProduct (axis, transpose).
#include <cmath>

#include "extractors/caffe/caffe_extractors.hpp"

namespace mo {

namespace {

using caffe::blob;
using caffe::blob_as;

// A window parameter per spatial axis: `name_h` / `name_w` (2-D only), else the repeated `name`
// (empty: `def`; one value: every axis; else one per axis).
std::vector<int64_t> per_axis(ExtractContext& c, const std::string& p, const std::string& name, int64_t spatial,
                              int64_t def, bool required) {
    const std::string base = name == "kernel_size" ? "kernel" : name;
    const std::string h = p + base + "_h", w = p + base + "_w";
    if (c.has(h) || c.has(w)) {
        if (spatial != 2) c.fail(base + "_h / " + base + "_w are for 2-D windows only");
        if (!c.has(h) || !c.has(w)) c.fail("give both " + base + "_h and " + base + "_w, or neither");
        if (c.has(p + name)) c.fail("give either " + name + " or " + base + "_h / " + base + "_w, not both");
        return {c.i(h), c.i(w)};
    }
    std::vector<int64_t> v = c.has(p + name) ? c.ints(p + name) : std::vector<int64_t>{};
    if (v.empty()) {
        if (required) c.fail(name + " is required", "give " + name + " or " + base + "_h and " + base + "_w");
        return std::vector<int64_t>(static_cast<size_t>(spatial), def);
    }
    if (v.size() == 1) return std::vector<int64_t>(static_cast<size_t>(spatial), v[0]);
    if (static_cast<int64_t>(v.size()) != spatial)
        c.fail(name + " has " + std::to_string(v.size()) + " values for " + std::to_string(spatial) + " spatial axes");
    return v;
}

// Pooling's fields are single values: `name`, or `name_h` / `name_w`.
std::vector<int64_t> pool_param(ExtractContext& c, const std::string& name, int64_t def, bool required) {
    const std::string p = "pooling_param.";
    const std::string base = name == "kernel_size" ? "kernel" : name;
    if (c.has(p + base + "_h") || c.has(p + base + "_w")) {
        if (!c.has(p + base + "_h") || !c.has(p + base + "_w")) c.fail("give both " + base + "_h and " + base + "_w, or neither");
        if (c.has(p + name)) c.fail("give either " + name + " or " + base + "_h / " + base + "_w, not both");
        return {c.i(p + base + "_h"), c.i(p + base + "_w")};
    }
    if (!c.has(p + name) && required) c.fail(name + " is required", "give " + name + " or " + base + "_h and " + base + "_w");
    const int64_t v = c.i(p + name, def);
    return {v, v};
}

int64_t product(const std::vector<int64_t>& v) {
    int64_t n = 1;
    for (int64_t x : v) n *= x;
    return n;
}

struct ConvParams {
    int64_t spatial, group, outputs;
    std::vector<int64_t> kernel, stride, pad, dilation;
    bool bias;
};

ConvParams conv_params(ExtractContext& c) {
    const std::string p = "convolution_param.";
    ConvParams a{};
    const int64_t rank = ExtractContext::rank_of(c.input(0));
    if (rank >= 0) {
        if (rank < 3) c.fail("the input must have a batch, a channel and spatial axes, not rank " + std::to_string(rank));
        a.spatial = rank - 2;
    } else {
        const auto k = c.has(p + "kernel_size") ? c.ints(p + "kernel_size") : std::vector<int64_t>{};
        a.spatial = k.size() > 1 ? static_cast<int64_t>(k.size()) : 2;
    }
    if (c.i(p + "axis", 1) != 1 && !(rank >= 0 && c.i(p + "axis", 1) == 1 - rank)) c.unsupported("a channel axis other than 1");
    a.kernel = per_axis(c, p, "kernel_size", a.spatial, 0, true);
    if (!c.has(p + "kernel_h") && c.has(p + "kernel_size") && c.ints(p + "kernel_size").size() > 1 &&
        static_cast<int64_t>(c.ints(p + "kernel_size").size()) != a.spatial)
        c.fail("kernel_size has more values than the input has spatial axes");
    a.stride = per_axis(c, p, "stride", a.spatial, 1, false);
    a.pad = per_axis(c, p, "pad", a.spatial, 0, false);
    a.dilation = c.has(p + "dilation") ? c.ints(p + "dilation") : std::vector<int64_t>{};
    if (a.dilation.empty()) a.dilation.assign(static_cast<size_t>(a.spatial), 1);
    else if (a.dilation.size() == 1) a.dilation.assign(static_cast<size_t>(a.spatial), a.dilation[0]);
    else if (static_cast<int64_t>(a.dilation.size()) != a.spatial) c.fail("dilation has the wrong number of values");
    for (size_t i = 0; i < a.kernel.size(); ++i)
        if (a.kernel[i] < 1 || a.stride[i] < 1 || a.dilation[i] < 1) c.fail("kernel, stride and dilation must be positive");
    a.group = c.i(p + "group", 1);
    a.outputs = c.i(p + "num_output");
    if (a.group < 1 || a.outputs < 1 || a.outputs % a.group != 0)
        c.fail("num_output " + std::to_string(a.outputs) + " is not a positive multiple of group " + std::to_string(a.group));
    a.bias = c.i(p + "bias_term", 1) != 0;
    return a;
}

AttrMap window_attrs(const ConvParams& a) {
    return {{"strides", a.stride}, {"pads_begin", a.pad}, {"pads_end", a.pad}, {"dilations", a.dilation},
            {"auto_pad", std::string("explicit")}};
}

// y + bias (blob 1, [outputs]) along the channel axis.
OutPort add_bias(ExtractContext& c, OutPort y, const ConvParams& a) {
    if (!a.bias) return y;
    OutPort b = blob_as(c, 1, "bias", {a.outputs});
    std::vector<int64_t> shape(static_cast<size_t>(a.spatial + 1), 1);
    shape[0] = a.outputs;
    b = c.op("Reshape", "bias/shape", {b, c.i64s("bias/shape/value", shape)}, {{"special_zero", false}});
    return c.op("Add", "", {y, b});
}

// Weights [outputs, channels / group, kernel...]: Convolution, or GroupConvolution with weights
// [group, outputs / group, channels / group, kernel...].
void convolution(ExtractContext& c) {
    const ConvParams a = conv_params(c);
    const Tensor w = blob(c, 0, "weights");
    const int64_t per_out = a.outputs * product(a.kernel);
    if (per_out == 0 || static_cast<int64_t>(w.size()) % per_out != 0)
        c.fail("the weights hold " + std::to_string(w.size()) + " values, not a multiple of num_output x kernel");
    const int64_t group_channels = static_cast<int64_t>(w.size()) / per_out;
    const PartialShape& xs = c.input(0).shape();
    if (xs.rank_is_static() && xs[1].is_static() && xs[1].get_length() != group_channels * a.group)
        c.fail("the input has " + std::to_string(xs[1].get_length()) + " channels, the weights are for " +
               std::to_string(group_channels * a.group) + " (group " + std::to_string(a.group) + ")");
    Shape ws{a.outputs, group_channels};
    ws.insert(ws.end(), a.kernel.begin(), a.kernel.end());
    const std::string name = a.bias ? "conv" : "";  // the last node takes the layer's name
    OutPort y;
    if (a.group == 1) {
        y = c.op("Convolution", name, {c.input(0), blob_as(c, 0, "weights", ws)}, window_attrs(a));
    } else {
        Shape gs{a.group, a.outputs / a.group, group_channels};
        gs.insert(gs.end(), a.kernel.begin(), a.kernel.end());
        y = c.op("GroupConvolution", name, {c.input(0), blob_as(c, 0, "weights", gs)}, window_attrs(a));
    }
    c.set_output(0, add_bias(c, y, a));
}

// Weights [channels, outputs / group, kernel...]: ConvolutionBackpropData, or its group form with
// weights [group, channels / group, outputs / group, kernel...].
void deconvolution(ExtractContext& c) {
    const ConvParams a = conv_params(c);
    const Tensor w = blob(c, 0, "weights");
    const int64_t per_in = a.outputs / a.group * product(a.kernel);
    if (per_in == 0 || static_cast<int64_t>(w.size()) % per_in != 0)
        c.fail("the weights hold " + std::to_string(w.size()) + " values, not a multiple of num_output / group x kernel");
    const int64_t channels = static_cast<int64_t>(w.size()) / per_in;
    if (channels % a.group != 0) c.fail("the input channels are not a multiple of group");
    const PartialShape& xs = c.input(0).shape();
    if (xs.rank_is_static() && xs[1].is_static() && xs[1].get_length() != channels)
        c.fail("the input has " + std::to_string(xs[1].get_length()) + " channels, the weights are for " + std::to_string(channels));
    AttrMap attrs = window_attrs(a);
    attrs["output_padding"] = std::vector<int64_t>(static_cast<size_t>(a.spatial), 0);
    OutPort y;
    if (a.group == 1) {
        Shape ws{channels, a.outputs};
        ws.insert(ws.end(), a.kernel.begin(), a.kernel.end());
        y = c.op("ConvolutionBackpropData", a.bias ? "deconv" : "", {c.input(0), blob_as(c, 0, "weights", ws)}, attrs);
    } else {
        Shape gs{a.group, channels / a.group, a.outputs / a.group};
        gs.insert(gs.end(), a.kernel.begin(), a.kernel.end());
        y = c.op("GroupConvolutionBackpropData", a.bias ? "deconv" : "", {c.input(0), blob_as(c, 0, "weights", gs)}, attrs);
    }
    c.set_output(0, add_bias(c, y, a));
}

// Caffe's output extent: ceil (or floor) of (in + 2 pad - kernel) / stride, plus one; with
// padding, a last window that would start in the padding is dropped.
int64_t caffe_pooled(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil) {
    const int64_t span = in + 2 * p - k;
    int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (span < 0) out = ceil ? (span + s - 1) / s + 1 : 1;  // as Caffe's float ceil / floor of a negative
    if (p > 0 && (out - 1) * s >= in + p) --out;
    return out;
}

void pooling(ExtractContext& c) {
    const std::string p = "pooling_param.";
    const std::string method = c.s(p + "pool", "MAX");
    if (method == "STOCHASTIC") c.unsupported("STOCHASTIC pooling");
    const bool max = method == "MAX";
    const int64_t rank = caffe::input_rank(c, 0, "Pooling needs it");
    if (rank != 4) c.unsupported("Pooling of a rank-" + std::to_string(rank) + " input (Caffe pools 4-D blobs)");
    const bool mask = c.output_count() > 1;
    if (mask && !max) c.fail("only MAX pooling has a second top (the argmax mask)");
    if (c.output_count() > 2) c.fail("Pooling has at most two tops");
    if (c.i(p + "global_pooling", 0)) {
        if (c.has(p + "kernel_size") || c.has(p + "kernel_h")) c.fail("global pooling takes no kernel size");
        for (const auto& name : pool_param(c, "pad", 0, false))
            if (name != 0) c.fail("global pooling takes no padding");
        for (const auto& name : pool_param(c, "stride", 1, false))
            if (name != 1) c.fail("global pooling takes stride 1");
        if (mask) c.unsupported("the argmax top of global pooling");
        OutPort axes = c.i64s("axes", {2, 3});
        c.set_output(0, c.op(max ? "ReduceMax" : "ReduceMean", "", {c.input(0), axes}, {{"keep_dims", true}}));
        return;
    }
    const std::vector<int64_t> kernel = pool_param(c, "kernel_size", 0, true), stride = pool_param(c, "stride", 1, false),
                               pad = pool_param(c, "pad", 0, false);
    for (size_t i = 0; i < 2; ++i) {
        if (kernel[i] < 1 || stride[i] < 1) c.fail("kernel and stride must be positive");
        if (pad[i] >= kernel[i]) c.fail("pad " + std::to_string(pad[i]) + " must be smaller than the kernel " + std::to_string(kernel[i]));
    }
    const bool ceil = c.s(p + "round_mode", "CEIL") == "CEIL";
    // OpenVINO's ceil rounding keeps a last window that starts in the padding; where Caffe drops
    // it, floor rounding gives Caffe's extent (pad < kernel, so only a partial step is dropped).
    std::string rounding = ceil ? "ceil" : "floor";
    if (ceil) {
        const PartialShape& xs = c.input(0).shape();
        for (size_t i = 0; i < 2; ++i) {
            if (pad[i] == 0) continue;
            const Dimension& d = xs[2 + i];
            if (!d.is_static())
                c.unsupported("CEIL pooling with padding of an input whose spatial size is unknown (Caffe may drop the last "
                              "window depending on it); give the input a static shape");
            const int64_t in = d.get_length();
            const int64_t span = in + 2 * pad[i] - kernel[i];
            if (span >= 0 && caffe_pooled(in, kernel[i], stride[i], pad[i], true) != (span + stride[i] - 1) / stride[i] + 1)
                rounding = "floor";
        }
        if (rounding == "floor") {  // both axes must then agree with floor
            for (size_t i = 0; i < 2; ++i) {
                const int64_t in = xs[2 + i].get_length(), span = in + 2 * pad[i] - kernel[i];
                if (span < 0 || caffe_pooled(in, kernel[i], stride[i], pad[i], true) != span / stride[i] + 1)
                    c.unsupported("CEIL pooling whose last window Caffe drops on one axis only");
            }
        }
    }
    AttrMap a{{"strides", stride}, {"pads_begin", pad}, {"pads_end", pad}, {"kernel", kernel},
              {"rounding_type", rounding}, {"auto_pad", std::string("explicit")}};
    if (max) {
        a["dilations"] = std::vector<int64_t>{1, 1};
        a["axis"] = int64_t{2};  // argmax indices per channel plane: h * W + w, as Caffe's mask
        Node pool = c.add("MaxPool", "", {c.input(0)}, a);
        c.set_output(0, pool.out(0));
        if (mask) c.set_output(1, c.op("Convert", "mask", {pool.out(1)}, {{"destination_type", ElementType::f32}}));
        return;
    }
    a["exclude-pad"] = false;  // Caffe divides by the window clipped to the padded input
    c.set_output(0, c.op("AvgPool", "", {c.input(0)}, a));
}

// y = flatten(x, axis) W^T + b with W [num_output, K] (transpose: W is [K, num_output]).
void inner_product(ExtractContext& c) {
    const std::string p = "inner_product_param.";
    const int64_t outputs = c.i(p + "num_output");
    if (outputs < 1) c.fail("num_output must be positive");
    const bool transpose = c.i(p + "transpose", 0) != 0;
    int64_t axis = c.i(p + "axis", 1);
    if (axis < 0) axis = caffe::axis(c, axis, caffe::input_rank(c, 0, "a negative axis counts from it"), "axis");
    const Tensor w = blob(c, 0, "weights");
    if (static_cast<int64_t>(w.size()) % outputs != 0) c.fail("the weights are not a multiple of num_output");
    const int64_t k = static_cast<int64_t>(w.size()) / outputs;
    std::vector<int64_t> flat(static_cast<size_t>(axis), 0);
    flat.push_back(k);
    OutPort x = c.op("Reshape", "flatten", {c.input(0), c.i64s("flatten/shape", flat)}, {{"special_zero", true}});
    OutPort weights = blob_as(c, 0, "weights", transpose ? Shape{k, outputs} : Shape{outputs, k});
    const bool bias = c.i(p + "bias_term", 1) != 0;
    OutPort y = c.op("MatMul", bias ? "matmul" : "", {x, weights}, {{"transpose_a", false}, {"transpose_b", !transpose}});
    if (bias) y = c.op("Add", "", {y, blob_as(c, 1, "bias", {outputs})});
    c.set_output(0, y);
}

}  // namespace

void register_caffe_conv_pool(ExtractorRegistry& r) {
    caffe::add(r, "Convolution", convolution);
    caffe::add(r, "Deconvolution", deconvolution);
    caffe::add(r, "Pooling", pooling);
    caffe::add(r, "InnerProduct", inner_product);
}

}  // namespace mo
