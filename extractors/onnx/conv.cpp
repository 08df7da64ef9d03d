// Conv and ConvTranspose -> (Group)Convolution / (Group)ConvolutionBackpropData, plus an Add
// of the bias reshaped to [1, C, 1, ...].
#include <algorithm>

#include "extractors/onnx/conv_common.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

std::string onnx_auto_pad(ExtractContext& c) {
    std::string p = c.s("auto_pad", "NOTSET");
    if (p == "NOTSET") return "explicit";
    if (p == "SAME_UPPER") return "same_upper";
    if (p == "SAME_LOWER") return "same_lower";
    if (p == "VALID") return "valid";
    c.fail("unknown auto_pad '" + p + "'", "use NOTSET, SAME_UPPER, SAME_LOWER or VALID");
}

SpatialAttrs onnx_spatial_attrs(ExtractContext& c, size_t spatial, bool with_dilations) {
    SpatialAttrs a;
    a.auto_pad = onnx_auto_pad(c);
    a.strides = c.ints("strides", std::vector<int64_t>(spatial, 1));
    a.dilations = with_dilations ? c.ints("dilations", std::vector<int64_t>(spatial, 1)) : std::vector<int64_t>(spatial, 1);
    std::vector<int64_t> pads = c.ints("pads", std::vector<int64_t>(2 * spatial, 0));
    if (a.strides.size() != spatial || a.dilations.size() != spatial || pads.size() != 2 * spatial)
        c.fail("strides, dilations and pads must have " + std::to_string(spatial) + ", " + std::to_string(spatial) +
                   " and " + std::to_string(2 * spatial) + " values",
               "fix the model");
    // ONNX pads: [x1_begin, x2_begin, ..., x1_end, x2_end]; auto_pad overrides them.
    bool explicit_pads = a.auto_pad == "explicit";
    a.pads_begin.assign(pads.begin(), pads.begin() + static_cast<long>(spatial));
    a.pads_end.assign(pads.begin() + static_cast<long>(spatial), pads.end());
    if (!explicit_pads) a.pads_begin = a.pads_end = std::vector<int64_t>(spatial, 0);
    return a;
}

namespace {

// Spatial rank from kernel_shape, else from the weights' rank, else from the data's rank.
size_t spatial_rank(ExtractContext& c) {
    if (c.has("kernel_shape")) return c.ints("kernel_shape").size();
    int64_t w = ExtractContext::rank_of(c.input(1));
    if (w >= 3) return static_cast<size_t>(w - 2);
    int64_t x = ExtractContext::rank_of(c.input(0));
    if (x >= 3) return static_cast<size_t>(x - 2);
    c.fail("cannot tell the number of spatial dimensions", "give the model a kernel_shape or constant weights");
}

// Weights [A, B, k...] -> [G, A/G, B, k...] (Conv) or [G, A/G, B, k...] (ConvTranspose: A = C_in).
OutPort grouped_weights(ExtractContext& c, const OutPort& w, int64_t group) {
    if (!w.shape().is_static())
        c.fail("group convolution weights need a known shape", "make the weights a constant or give input shapes");
    Shape s = w.shape().to_shape();
    if (s.empty() || s[0] % group != 0)
        c.fail("weights' first dimension is not divisible by group " + std::to_string(group), "fix the model");
    Shape grouped{group, s[0] / group};
    grouped.insert(grouped.end(), s.begin() + 1, s.end());
    if (const Tensor* v = w.value()) return c.constant("weights", v->reshaped(grouped));
    return c.op("Reshape", "weights", {w, c.i64s("weights/shape", grouped)}, {{"special_zero", false}});
}

}  // namespace

OutPort onnx_convolution(ExtractContext& c, bool transposed, const std::string& result) {
    size_t spatial = spatial_rank(c);
    SpatialAttrs a = onnx_spatial_attrs(c, spatial, true);
    int64_t group = c.i("group", 1);
    if (group < 1) c.fail("group must be positive", "fix the model");
    OutPort x = c.input(0), w = c.input(1);
    const char* type = transposed ? (group > 1 ? "GroupConvolutionBackpropData" : "ConvolutionBackpropData")
                                  : (group > 1 ? "GroupConvolution" : "Convolution");
    if (group > 1) w = grouped_weights(c, w, group);
    std::vector<OutPort> inputs{x, w};
    AttrMap attrs{{"strides", a.strides},     {"pads_begin", a.pads_begin}, {"pads_end", a.pads_end},
                  {"dilations", a.dilations}, {"auto_pad", a.auto_pad}};
    if (transposed) {
        std::vector<int64_t> output_padding = c.ints("output_padding", std::vector<int64_t>(spatial, 0));
        if (output_padding.size() != spatial) c.fail("output_padding needs one value per spatial axis", "fix the model");
        attrs["output_padding"] = output_padding;
        if (c.has("output_shape")) {
            // ONNX output_shape may list only the spatial dims or N, C and the spatial dims.
            std::vector<int64_t> out = c.ints("output_shape");
            if (out.size() == spatial + 2) out.erase(out.begin(), out.begin() + 2);
            if (out.size() != spatial) c.fail("output_shape needs one value per spatial axis", "fix the model");
            inputs.push_back(c.i64s("output_shape", out));
        } else if (a.auto_pad == "same_upper" || a.auto_pad == "same_lower") {
            // ONNX: with SAME padding the output is input * stride, and the pads follow from it
            // (SAME_UPPER puts the odd pad at the end). Written as explicit pads.
            const PartialShape& xs = x.shape();
            const PartialShape& ws = c.input(1).shape();
            if (!xs.rank_is_static() || xs.rank() != spatial + 2 || !ws.rank_is_static() || ws.rank() != spatial + 2)
                c.unsupported("auto_pad SAME with an input or weight of unknown rank");
            std::vector<int64_t> begin(spatial), end(spatial);
            for (size_t i = 0; i < spatial; ++i) {
                if (!xs[i + 2].is_static() || !ws[i + 2].is_static())
                    c.unsupported("auto_pad SAME with dynamic spatial dims");
                const int64_t in = xs[i + 2].get_length(), k = ws[i + 2].get_length();
                const int64_t total = std::max<int64_t>(
                    0, a.strides[i] * (in - 1) + output_padding[i] + (k - 1) * a.dilations[i] + 1 - in * a.strides[i]);
                begin[i] = a.auto_pad == "same_upper" ? total / 2 : total - total / 2;
                end[i] = total - begin[i];
            }
            attrs["pads_begin"] = begin;
            attrs["pads_end"] = end;
            attrs["auto_pad"] = std::string("explicit");
        }
    }
    bool bias = c.has_input(2);
    Node conv = c.add(type, bias ? "conv" : result, inputs, attrs);
    if (!bias) return conv.out(0);
    // Bias [C] -> [1, C, 1, ...] so it broadcasts over N and the spatial axes.
    OutPort b = c.input(2);
    Shape target{1, -1};
    target.insert(target.end(), spatial, 1);
    OutPort b_shaped;
    if (const Tensor* v = b.value(); v && v->shape().size() == 1) {
        target[1] = v->shape()[0];
        b_shaped = c.constant("bias", v->reshaped(target));
    } else {
        b_shaped = c.op("Reshape", "bias", {b, c.i64s("bias/shape", target)}, {{"special_zero", false}});
    }
    return c.op("Add", result, {conv.out(0), b_shaped});
}

void register_onnx_conv(ExtractorRegistry& r) {
    r.add({"onnx", "", "Conv", since(1), [](ExtractContext& c) { c.set_output(0, onnx_convolution(c, false, "")); }});
    r.add({"onnx", "", "ConvTranspose", since(1), [](ExtractContext& c) { c.set_output(0, onnx_convolution(c, true, "")); }});
}

}  // namespace mo
