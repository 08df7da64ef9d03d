#include "extractors/tensorflow_family.hpp"

namespace mo::tf_family {

OutPort transpose(ExtractContext& c, const std::string& suffix, const OutPort& x, const std::vector<int64_t>& perm) {
    return c.op("Transpose", suffix, {x, c.i64s(suffix + "/order", perm)});
}

void depth_space(ExtractContext& c, const char* type, bool nhwc) {
    OutPort x = nhwc ? transpose(c, "to_nchw", c.input(0), kToNchw) : c.input(0);
    OutPort y = c.op(type, "op", {x}, {{"block_size", c.i("block_size")}, {"mode", std::string("blocks_first")}});
    c.set_output(0, nhwc ? transpose(c, "", y, kToNhwc) : y);
}

namespace {

// A TensorFlow bit mask (begin_mask, shrink_axis_mask, ...) as OpenVINO's per-axis 0 / 1 list;
// axes past the mask's 64 bits are 0.
std::vector<int64_t> bit_mask(int64_t mask, size_t axes) {
    std::vector<int64_t> v(axes);
    for (size_t i = 0; i < axes && i < 64; ++i) v[i] = static_cast<int64_t>((static_cast<uint64_t>(mask) >> i) & 1);
    return v;
}

}  // namespace

void pad(ExtractContext& c, const std::string& mode) {
    std::vector<int64_t> p = c.input_ints(1);
    if (p.size() % 2) c.fail("paddings must have shape [rank, 2]");
    std::vector<int64_t> begin, end;
    for (size_t i = 0; i < p.size(); i += 2) begin.push_back(p[i]), end.push_back(p[i + 1]);
    std::vector<OutPort> in{c.input(0), c.i64s("pads_begin", begin), c.i64s("pads_end", end)};
    // TFLite's PADV2 takes a constant_values of one element in any rank; Pad wants a scalar.
    if (mode == "constant" && c.has_input(2))
        in.push_back(ExtractContext::rank_of(c.input(2)) > 0
                         ? c.op("Reshape", "pad_value", {c.input(2), c.i64s("pad_value/shape", {})}, {{"special_zero", false}})
                         : c.input(2));
    c.set_output(0, c.op("Pad", "", in, {{"pad_mode", mode}}));
}

void slice_begin_size(ExtractContext& c) {
    const auto begin = c.input_ints(1), size = c.input_ints(2);
    if (begin.size() != size.size()) c.fail("begin and size differ in length");
    std::vector<int64_t> stop(begin.size()), axes(begin.size());
    for (size_t i = 0; i < begin.size(); ++i) {
        stop[i] = size[i] < 0 ? INT64_MAX : begin[i] + size[i];
        axes[i] = static_cast<int64_t>(i);
    }
    c.set_output(0, c.op("Slice", "", {c.input(0), c.i64s("start", begin), c.i64s("stop", stop),
                                       c.i64s("step", std::vector<int64_t>(begin.size(), 1)), c.i64s("axes", axes)}));
}

void strided_slice(ExtractContext& c, const OutPort& end) {
    const size_t n = c.input_ints(1).size();
    AttrMap masks;
    for (const char* mask : {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"})
        masks[mask] = bit_mask(c.i(mask, 0), n);
    c.set_output(0, c.op("StridedSlice", "", {c.input(0), c.input(1), end, c.input(3)}, masks));
}

void unpack(ExtractContext& c, int64_t axis, int64_t num) {
    const PartialShape& x = c.input(0).shape();
    if (x.rank_is_static()) {
        const auto rank = static_cast<int64_t>(x.rank());
        if (axis < -rank || axis >= rank)
            c.fail("axis " + std::to_string(axis) + " is outside the input's rank " + std::to_string(rank));
        const Dimension& d = x[static_cast<size_t>(axis < 0 ? axis + rank : axis)];
        if (d.is_static() && d.get_length() != num)
            c.fail("num is " + std::to_string(num) + " but the input has " + std::to_string(d.get_length()) +
                       " entries along axis " + std::to_string(axis),
                   "the model is corrupt; re-export it");
    }
    Node s = c.add("Split", "split", {c.input(0), c.i64("split/axis", axis)}, {{"num_splits", num}});
    s.set_output_count(static_cast<size_t>(num));
    for (size_t j = 0; j < c.output_count(); ++j)
        c.set_output(j, c.op("Squeeze", "squeeze" + std::to_string(j),
                             {s.out(j), c.i64s("squeeze" + std::to_string(j) + "/axes", {axis})}));
}

void pack(ExtractContext& c, int64_t axis) {
    if (c.input_count() == 0) c.fail("nothing to pack: the node has no inputs", "the model is corrupt; re-export it");
    std::vector<OutPort> parts;
    for (size_t i = 0; i < c.input_count(); ++i)
        parts.push_back(c.op("Unsqueeze", "unsqueeze" + std::to_string(i), {c.input(i), c.i64s("axis" + std::to_string(i), {axis})}));
    c.set_output(0, c.op("Concat", "", parts, {{"axis", axis}}));
}

void squeeze(ExtractContext& c, const std::vector<int64_t>& axes) {
    if (axes.empty()) c.set_output(0, c.op("Squeeze", "", {c.input(0)}));
    else c.set_output(0, c.op("Squeeze", "", {c.input(0), c.i64s("axes", axes)}));
}

void arg_extreme(ExtractContext& c, const char* mode, ElementType out) {
    const auto axis = c.input_ints(1);
    if (axis.size() != 1) c.fail("the axis must hold one value");
    OutPort x = c.input(0);
    if (x.type() == ElementType::boolean)  // TopK compares numbers: false < true as 0 < 1
        x = c.op("Convert", "as_u8", {x}, {{"destination_type", ElementType::u8}});
    Node topk = c.add("TopK", "topk", {x, c.i64("k", 1)},
                      {{"axis", axis[0]}, {"mode", std::string(mode)}, {"sort", std::string("value")}, {"stable", true},
                       {"index_element_type", ElementType::i64}});
    OutPort y = c.op("Squeeze", "squeeze", {topk.out(1), c.i64s("squeeze/axes", {axis[0]})});
    c.set_output(0, c.op("Convert", "", {y}, {{"destination_type", out}}));
}

void resize(ExtractContext& c, bool bilinear, bool align, bool half, ElementType compute_type) {
    if (align && half) c.fail("align_corners and half_pixel_centers are both set");
    OutPort x = c.input(0);
    if (compute_type != ElementType::dynamic && x.type() != compute_type)
        x = c.op("Convert", "convert", {x}, {{"destination_type", compute_type}});
    std::string coord = align ? "align_corners" : half ? (bilinear ? "half_pixel" : "tf_half_pixel_for_nn") : "asymmetric";
    // Nearest: floor((out [+ 0.5]) * scale), or with align_corners round half away from zero.
    c.set_output(0, c.op("Interpolate", "", {x, c.input(1), c.i64s("axes", {1, 2})},
                         {{"mode", std::string(bilinear ? "linear_onnx" : "nearest")},
                          {"shape_calculation_mode", std::string("sizes")},
                          {"coordinate_transformation_mode", coord},
                          {"nearest_mode", std::string(align ? "round_prefer_ceil" : "floor")},
                          {"cube_coeff", -0.75},
                          {"antialias", false}}));
}

OutPort transposed_conv(ExtractContext& c, const OutPort& x, const OutPort& weights, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& output_shape, const std::vector<int64_t>& strides, bool same) {
    const PartialShape& xs = x.shape();
    if (output_shape.size() != 4) c.fail("the output shape must have 4 values (NHWC)");
    if (!xs.rank_is_static() || xs.rank() != 4 || !xs[1].is_static() || !xs[2].is_static())
        c.unsupported("a transposed convolution of an input without static spatial dims");
    std::vector<int64_t> begin(2), end(2), extra(2);
    for (size_t i = 0; i < 2; ++i) {
        const int64_t in = xs[1 + i].get_length(), k = kernel[i], out = output_shape[1 + i];
        const int64_t full = (in - 1) * strides[i] + k;  // the output before cropping
        const int64_t pad = same ? std::max<int64_t>(full - out, 0) : 0;
        begin[i] = pad / 2;
        end[i] = pad - begin[i];
        extra[i] = out - (full - pad);
        if (extra[i] < 0 || extra[i] >= std::max<int64_t>(strides[i], 1))
            c.fail("output size " + std::to_string(out) + " does not follow from input " + std::to_string(in) +
                   ", kernel " + std::to_string(k) + " and stride " + std::to_string(strides[i]));
    }
    OutPort nchw = transpose(c, "to_nchw", x, kToNchw);
    return c.op("ConvolutionBackpropData", "conv", {nchw, weights},
                {{"strides", strides},
                 {"dilations", std::vector<int64_t>{1, 1}},
                 {"pads_begin", begin},
                 {"pads_end", end},
                 {"output_padding", extra},
                 {"auto_pad", std::string("explicit")}});
}

void add_pool_attrs(AttrMap& a, bool max) {
    a["rounding_type"] = std::string("floor");
    if (max) {
        a["dilations"] = std::vector<int64_t>{1, 1};
        a["index_element_type"] = ElementType::i64;
        a["axis"] = int64_t{0};
    } else {
        a["exclude-pad"] = true;  // TensorFlow averages over the input pixels of a window only
    }
}

}  // namespace mo::tf_family
