// Convolution, pooling, matrix, normalization, reduction and resampling ops as ONNX.
#include <algorithm>
#include <cmath>
#include <limits>

#include "emit/onnx/onnx_rules.hpp"

namespace mo::onnx_emit {

namespace {

std::string as_i64(OnnxNodeContext& c, size_t i) { return c.cast(c.in(i), c.in_type(i), ElementType::i64); }

// auto_pad and pads of convolution and pooling.
void padding_attrs(OnnxNodeContext& c, std::vector<onnx::AttributeProto>& attrs) {
    const std::string mode = c.attr<std::string>("auto_pad");
    if (mode == "same_upper") attrs.push_back(a_str("auto_pad", "SAME_UPPER"));
    else if (mode == "same_lower") attrs.push_back(a_str("auto_pad", "SAME_LOWER"));
    else if (mode == "valid") attrs.push_back(a_str("auto_pad", "VALID"));
    else if (mode == "explicit" || mode == "notset") {
        std::vector<int64_t> pads = c.attr<std::vector<int64_t>>("pads_begin");
        const auto end = c.attr<std::vector<int64_t>>("pads_end");
        pads.insert(pads.end(), end.begin(), end.end());
        attrs.push_back(a_ints("pads", pads));
    } else {
        c.fail("auto_pad '" + mode + "'");
    }
}

// OpenVINO's grouped filter [G, O/G, I/G, k...] (or [G, I/G, O/G, k...] transposed) as ONNX's
// [G * first, second, k...].
std::string merged_group_filter(OnnxNodeContext& c, size_t input, int64_t& groups) {
    const PartialShape& s = c.in_shape(input);
    if (!s.rank_is_static() || s.rank() < 3 || !s[0].is_static() || !s[1].is_static())
        c.fail("a grouped filter whose group and channel counts are not static");
    groups = s[0].get_length();
    std::vector<int64_t> shape{s[0].get_length() * s[1].get_length()};
    bool known = true;
    for (size_t d = 2; d < s.rank(); ++d) {
        known = known && s[d].is_static();
        shape.push_back(s[d].is_static() ? s[d].get_length() : -1);
    }
    std::string target;
    if (known) {
        target = c.ints(shape, "filter_shape");
    } else {  // the merged count, then the filter's own dims from axis 2
        const std::string dims = c.add_tmp("Slice", {c.add_tmp("Shape", {c.in(input)}), c.ints({2}, "two"), c.ints({INT64_MAX}, "end")});
        target = c.add_tmp("Concat", {c.ints({shape[0]}, "merged"), dims}, {a_int("axis", 0)}, "filter_shape");
    }
    return c.add_tmp("Reshape", {c.in(input), target}, {}, "filter");
}

void emit_convolution(OnnxNodeContext& c, bool grouped) {
    std::vector<onnx::AttributeProto> attrs{a_ints("strides", c.attr<std::vector<int64_t>>("strides")),
                                            a_ints("dilations", c.attr<std::vector<int64_t>>("dilations"))};
    padding_attrs(c, attrs);
    std::string filter = c.in(1);
    if (grouped) {
        int64_t groups = 1;
        filter = merged_group_filter(c, 1, groups);
        attrs.push_back(a_int("group", groups));
    }
    c.add("Conv", {c.in(0), filter}, {c.out(0)}, attrs);
}

void emit_deconvolution(OnnxNodeContext& c, bool grouped) {
    std::vector<onnx::AttributeProto> attrs{a_ints("strides", c.attr<std::vector<int64_t>>("strides")),
                                            a_ints("dilations", c.attr<std::vector<int64_t>>("dilations"))};
    auto output_padding = c.attr<std::vector<int64_t>>("output_padding");
    std::string filter = c.in(1);
    if (grouped) {
        int64_t groups = 1;
        filter = merged_group_filter(c, 1, groups);
        attrs.push_back(a_int("group", groups));
    }
    if (c.has_in(2)) {
        // An output shape given: the padding that gives it, split as OpenVINO splits it.
        const auto out_shape = c.const_ints(2, "the output shape");
        const PartialShape& in = c.in_shape(0);
        const PartialShape& f = c.in_shape(1);
        const auto strides = c.attr<std::vector<int64_t>>("strides"), dil = c.attr<std::vector<int64_t>>("dilations");
        const size_t spatial = out_shape.size();
        if (!in.rank_is_static() || !f.rank_is_static()) c.fail("a deconvolution with an output shape on dynamic ranks");
        const size_t kernel_at = f.rank() - spatial;
        std::vector<int64_t> begin(spatial), end(spatial);
        if (output_padding.empty()) output_padding.assign(spatial, 0);
        for (size_t i = 0; i < spatial; ++i) {
            if (!in[2 + i].is_static() || !f[kernel_at + i].is_static()) c.fail("a deconvolution with an output shape on dynamic dims");
            const int64_t k = (f[kernel_at + i].get_length() - 1) * dil[i] + 1;
            const int64_t total = strides[i] * (in[2 + i].get_length() - 1) + k + output_padding[i] - out_shape[i];
            if (total < 0) {
                output_padding[i] -= total;
                begin[i] = end[i] = 0;
                continue;
            }
            const bool lower = c.attr<std::string>("auto_pad") == "same_lower";
            begin[i] = lower ? total - total / 2 : total / 2;
            end[i] = total - begin[i];
        }
        begin.insert(begin.end(), end.begin(), end.end());
        attrs.push_back(a_ints("pads", begin));
    } else {
        padding_attrs(c, attrs);
    }
    if (!output_padding.empty()) attrs.push_back(a_ints("output_padding", output_padding));
    c.add("ConvTranspose", {c.in(0), filter}, {c.out(0)}, attrs);
}

int64_t ceil_mode(OnnxNodeContext& c) {
    const std::string r = c.attr<std::string>("rounding_type");
    return r == "ceil" || r == "ceil_torch" ? 1 : 0;
}

void emit_max_pool(OnnxNodeContext& c) {
    std::vector<onnx::AttributeProto> attrs{a_ints("kernel_shape", c.attr<std::vector<int64_t>>("kernel")),
                                            a_ints("strides", c.attr<std::vector<int64_t>>("strides")),
                                            a_int("ceil_mode", ceil_mode(c))};
    auto dilations = c.attr<std::vector<int64_t>>("dilations");
    if (!dilations.empty()) attrs.push_back(a_ints("dilations", dilations));
    padding_attrs(c, attrs);
    std::vector<std::string> outputs{c.out(0)};
    if (c.node.out(1).has_targets()) {
        if (c.attr<int64_t>("axis") != 0) c.fail("MaxPool indices counted from axis " + std::to_string(c.attr<int64_t>("axis")) +
                                                 " (ONNX counts them over the whole tensor)");
        outputs.push_back(c.fresh(c.node.name() + "/indices"));
    }
    c.add("MaxPool", {c.in(0)}, outputs, attrs);
    if (outputs.size() > 1)
        c.add("Cast", {outputs[1]}, {c.out(1)}, {a_int("to", onnx_type(c.out_type(1), c.node.describe()))});
}

void emit_avg_pool(OnnxNodeContext& c) {
    std::vector<onnx::AttributeProto> attrs{a_ints("kernel_shape", c.attr<std::vector<int64_t>>("kernel")),
                                            a_ints("strides", c.attr<std::vector<int64_t>>("strides")),
                                            a_int("ceil_mode", ceil_mode(c)),
                                            a_int("count_include_pad", c.attr<bool>("exclude-pad") ? 0 : 1)};
    padding_attrs(c, attrs);
    c.add("AveragePool", {c.in(0)}, {c.out(0)}, attrs);
}

// Swaps the last two axes of a value of rank `rank` with a Transpose.
std::string swap_last_two(OnnxNodeContext& c, const std::string& v, size_t rank) {
    std::vector<int64_t> perm;
    for (size_t a = 0; a < rank; ++a) perm.push_back(static_cast<int64_t>(a));
    std::swap(perm[rank - 1], perm[rank - 2]);
    return c.add_tmp("Transpose", {v}, {a_ints("perm", perm)});
}

// A constant's bytes with its last two axes swapped, produced piece by piece as the writer streams
// them: the transposed weights never exist in memory as a whole.
class SwappedLastTwo final : public DerivedBuffer {
public:
    SwappedLastTwo(Tensor source, size_t elem, size_t rows, size_t cols)
        : DerivedBuffer(source.byte_size()), source_(std::move(source)), elem_(elem), rows_(rows), cols_(cols) {}
    void produce(size_t offset, std::byte* out, size_t n) const override {
        const std::byte* in = source_.bytes();
        for (size_t at = offset; at < offset + n; ++at) {  // output byte `at`
            const size_t e = at / elem_, byte = at % elem_;
            const size_t m = e / (rows_ * cols_), j = (e / rows_) % cols_, i = e % rows_;  // out[m][j][i] = in[m][i][j]
            out[at - offset] = in[((m * rows_ + i) * cols_ + j) * elem_ + byte];
        }
    }

private:
    Tensor source_;
    size_t elem_, rows_, cols_;
};

Tensor swapped_last_two(const Tensor& t) {
    const Shape& s = t.shape();
    const size_t rank = s.size();
    Shape out_shape = s;
    std::swap(out_shape[rank - 2], out_shape[rank - 1]);
    auto buffer = std::make_shared<SwappedLastTwo>(t, byte_size(t.type(), 1), static_cast<size_t>(s[rank - 2]),
                                                   static_cast<size_t>(s[rank - 1]));
    return Tensor(t.type(), out_shape, std::move(buffer));
}

// Swaps the last two axes (MatMul's transpose_a / transpose_b) of input i, of rank `rank`: a
// constant is stored transposed (as tflite2onnx stores FULLY_CONNECTED weights), anything else
// goes through a Transpose.
std::string swap_last_two(OnnxNodeContext& c, size_t i, size_t rank) {
    const Tensor* v = c.in_value(i);
    if (v && c.node.in(i).src().node().is("Constant") && bit_width(v->type()) % 8 == 0 && v->size() > 0)
        return c.constant(swapped_last_two(*v), "transposed");
    return swap_last_two(c, c.in(i), rank);
}


void emit_matmul(OnnxNodeContext& c) {
    std::string a = c.in(0), b = c.in(1);
    for (int i = 0; i < 2; ++i) {
        if (!c.attr<bool>(i == 0 ? "transpose_a" : "transpose_b")) continue;
        const PartialShape& s = c.in_shape(i);
        if (!s.rank_is_static()) c.fail("a transposed MatMul input of dynamic rank");
        if (s.rank() < 2) continue;  // a 1-D input is not transposed
        (i == 0 ? a : b) = swap_last_two(c, static_cast<size_t>(i), s.rank());
    }
    c.add("MatMul", {a, b}, {c.out(0)});
}

std::vector<int64_t> reduce_axes(OnnxNodeContext& c) { return c.const_ints(1, "the reduction axes"); }

// Reduce* with axes as an attribute (ReduceSum takes them as an input from opset 13).
EmitFn reduce(std::string onnx_type) {
    return [onnx_type](OnnxNodeContext& c) {
        const int64_t keep = c.attr<bool>("keep_dims") ? 1 : 0;
        if (onnx_type == "ReduceSum" && !c.in_value(1)) {  // axes at run time: empty ones reduce nothing, as OpenVINO
            c.add("ReduceSum", {c.in(0), as_i64(c, 1)}, {c.out(0)}, {a_int("keepdims", keep), a_int("noop_with_empty_axes", 1)});
            return;
        }
        const auto axes = reduce_axes(c);
        if (axes.empty()) {  // OpenVINO reduces nothing; ONNX would reduce everything
            c.add("Identity", {c.in(0)}, {c.out(0)});
            return;
        }
        if (onnx_type == "ReduceSum") c.add("ReduceSum", {c.in(0), c.ints(axes, "axes")}, {c.out(0)}, {a_int("keepdims", keep)});
        else c.add(onnx_type, {c.in(0)}, {c.out(0)}, {a_ints("axes", axes), a_int("keepdims", keep)});
    };
}

// Logical reductions on booleans: min / max of the values as uint8.
EmitFn reduce_logical(std::string onnx_type) {
    return [onnx_type](OnnxNodeContext& c) {
        const auto axes = reduce_axes(c);
        if (axes.empty()) {
            c.add("Identity", {c.in(0)}, {c.out(0)});
            return;
        }
        const std::string bytes = c.add_tmp("Cast", {c.in(0)}, {a_int("to", onnx::TensorProto::UINT8)});
        const std::string r = c.add_tmp(onnx_type, {bytes}, {a_ints("axes", axes), a_int("keepdims", c.attr<bool>("keep_dims") ? 1 : 0)});
        c.add("Cast", {r}, {c.out(0)}, {a_int("to", onnx::TensorProto::BOOL)});
    };
}

void emit_batch_norm(OnnxNodeContext& c) {
    c.add("BatchNormalization", {c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)}, {c.out(0)},
          {a_float("epsilon", c.attr<double>("epsilon"))});
}

// MVN: (x - mean) / sqrt(var + eps), or / (sqrt(var) + eps), over the axes given.
void emit_mvn(OnnxNodeContext& c) {
    const auto axes = c.const_ints(1, "the MVN axes");
    const ElementType t = c.in_type(0);
    const std::string x = c.in(0);
    const std::string mean = c.add_tmp("ReduceMean", {x}, {a_ints("axes", axes), a_int("keepdims", 1)}, "mean");
    const std::string d = c.add_tmp("Sub", {x, mean});
    if (!c.attr<bool>("normalize_variance")) {
        c.add("Identity", {d}, {c.out(0)});
        return;
    }
    const std::string var = c.add_tmp("ReduceMean", {c.add_tmp("Mul", {d, d})}, {a_ints("axes", axes), a_int("keepdims", 1)}, "var");
    const std::string eps = c.scalar(c.attr<double>("eps"), t, "eps");
    std::string mode = c.attr<std::string>("eps_mode");
    std::transform(mode.begin(), mode.end(), mode.begin(), ::toupper);
    const std::string denom = mode == "INSIDE_SQRT" ? c.add_tmp("Sqrt", {c.add_tmp("Add", {var, eps})})
                                                    : c.add_tmp("Add", {c.add_tmp("Sqrt", {var}), eps});
    c.add("Div", {d, denom}, {c.out(0)});
}

// x / sqrt(sum(x², axes) + eps) or / sqrt(max(sum, eps)); empty axes: each element by itself
// (ONNX's ReduceSumSquare would reduce every axis).
void emit_normalize_l2(OnnxNodeContext& c) {
    const auto axes = c.const_ints(1, "the NormalizeL2 axes");
    const std::string x = c.in(0);
    const std::string sum = axes.empty() ? c.add_tmp("Mul", {x, x}, {}, "square")
                                         : c.add_tmp("ReduceSumSquare", {x}, {a_ints("axes", axes), a_int("keepdims", 1)}, "sum");
    const std::string eps = c.scalar(c.attr<double>("eps"), c.in_type(0), "eps");
    const std::string guarded = c.add_tmp(c.attr<std::string>("eps_mode") == "add" ? "Add" : "Max", {sum, eps});
    c.add("Div", {x, c.add_tmp("Sqrt", {guarded})}, {c.out(0)});
}

void emit_lrn(OnnxNodeContext& c) {
    const auto axes = c.const_ints(1, "the LRN axes");
    const int64_t size = c.attr<int64_t>("size");
    if (axes != std::vector<int64_t>{1}) c.fail("LRN across axes other than the channels (ONNX's LRN is across channels)");
    if (size % 2 == 0) c.fail("LRN of even size " + std::to_string(size) + " (ONNX and OpenVINO place the window differently)");
    c.add("LRN", {c.in(0)}, {c.out(0)},
          {a_float("alpha", c.attr<double>("alpha")), a_float("beta", c.attr<double>("beta")),
           a_float("bias", c.attr<double>("bias")), a_int("size", size)});
}

void emit_topk(OnnxNodeContext& c) {
    const std::string sort = c.attr<std::string>("sort");
    if (sort == "index") c.fail("TopK sorted by index (ONNX sorts by value)");
    const std::string k = c.add_tmp("Reshape", {as_i64(c, 1), c.ints({1}, "one")}, {}, "k");
    const std::string indices = c.fresh(c.node.name() + "/indices");
    c.add("TopK", {c.in(0), k}, {c.out(0), indices},
          {a_int("axis", c.attr<int64_t>("axis")), a_int("largest", c.attr<std::string>("mode") == "max" ? 1 : 0),
           a_int("sorted", sort == "none" ? 0 : 1)});
    c.add("Cast", {indices}, {c.out(1)}, {a_int("to", onnx_type(c.out_type(1), c.node.describe()))});
}

void emit_cumsum(OnnxNodeContext& c) {
    const std::string axis = c.has_in(1) ? c.in(1) : c.int_scalar(0, "axis");
    const ElementType t = c.in_type(0);
    if (t != ElementType::f32 && t != ElementType::f64 && t != ElementType::i32 && t != ElementType::i64 &&
        t != ElementType::u32 && t != ElementType::u64)
        c.need_opset(14);
    c.add("CumSum", {c.in(0), axis}, {c.out(0)},
          {a_int("exclusive", c.attr<bool>("exclusive") ? 1 : 0), a_int("reverse", c.attr<bool>("reverse") ? 1 : 0)});
}

// Interpolate-11 as Resize-13, which takes scales or sizes for every axis.
void emit_interpolate(OnnxNodeContext& c) {
    const std::string mode = c.attr<std::string>("mode");
    std::string onnx_mode;
    if (mode == "nearest") onnx_mode = "nearest";
    else if (mode == "linear" || mode == "linear_onnx") onnx_mode = "linear";
    else if (mode == "cubic") onnx_mode = "cubic";
    else c.fail("Interpolate mode '" + mode + "' (ONNX's Resize has nearest, linear and cubic)");
    if (c.attr<bool>("antialias")) c.fail("an antialiased Interpolate (ONNX's Resize antialiases from opset 18)");
    for (const char* p : {"pads_begin", "pads_end"}) {
        const auto pads = c.attr<std::vector<int64_t>>(p);
        if (std::any_of(pads.begin(), pads.end(), [](int64_t v) { return v != 0; })) c.fail("a padded Interpolate");
    }
    const PartialShape& in = c.in_shape(0);
    if (!in.rank_is_static()) c.fail("an Interpolate of dynamic rank");
    const auto rank = static_cast<int64_t>(in.rank());
    std::vector<int64_t> axes;
    if (c.has_in(2)) {
        axes = c.const_ints(2, "the axes");
        for (auto& a : axes) a = a < 0 ? a + rank : a;
    } else {
        for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    std::vector<onnx::AttributeProto> attrs{a_str("mode", onnx_mode),
                                            a_str("coordinate_transformation_mode", c.attr<std::string>("coordinate_transformation_mode"))};
    if (onnx_mode == "nearest") {
        const std::string nearest = c.attr<std::string>("nearest_mode");
        if (nearest == "simple") c.fail("nearest_mode 'simple'");
        attrs.push_back(a_str("nearest_mode", nearest));
    }
    if (onnx_mode == "cubic") attrs.push_back(a_float("cubic_coeff_a", c.attr<double>("cube_coeff")));
    const bool sizes = c.attr<std::string>("shape_calculation_mode") == "sizes";
    std::string full;
    if (sizes) {  // the input's shape with the axes' sizes scattered in
        const std::string shape = c.add_tmp("Shape", {c.in(0)});
        full = c.add_tmp("ScatterElements", {shape, c.ints(axes, "axes"), as_i64(c, 1)}, {a_int("axis", 0)}, "sizes");
        c.add("Resize", {c.in(0), "", "", full}, {c.out(0)}, attrs);
    } else {
        const std::string ones = c.values(std::vector<double>(rank, 1.0), ElementType::f32, "ones");
        const std::string scales = c.cast(c.in(1), c.in_type(1), ElementType::f32);
        full = c.add_tmp("ScatterElements", {ones, c.ints(axes, "axes"), scales}, {a_int("axis", 0)}, "scales");
        c.add("Resize", {c.in(0), "", full}, {c.out(0)}, attrs);
    }
}

void emit_unique(OnnxNodeContext& c) {
    std::vector<onnx::AttributeProto> attrs{a_int("sorted", c.attr<bool>("sorted") ? 1 : 0)};
    if (c.has_in(1)) attrs.push_back(a_int("axis", c.const_ints(1, "the axis").at(0)));
    std::vector<std::string> outs{c.out(0)};
    for (size_t j = 1; j < 4; ++j) outs.push_back(c.fresh(c.node.name() + "/" + std::to_string(j)));
    c.add("Unique", {c.in(0)}, outs, attrs);
    for (size_t j = 1; j < 4; ++j)
        c.add("Cast", {outs[j]}, {c.out(j)}, {a_int("to", onnx_type(c.out_type(j), c.node.describe()))});
}

void emit_roi_align(OnnxNodeContext& c) {
    const std::string aligned = c.attr<std::string>("aligned_mode");
    std::string coordinates;
    // ONNX's output_half_pixel is x * scale (malformed boxes 1 x 1), its half_pixel x * scale - 0.5;
    // OpenVINO's half_pixel, (x + 0.5) * scale - 0.5, has no ONNX form.
    if (aligned == "asymmetric") coordinates = "output_half_pixel";
    else if (aligned == "half_pixel_for_nn") coordinates = "half_pixel";
    else c.fail("aligned_mode '" + aligned + "' ((x + 0.5) * scale - 0.5; ONNX's RoiAlign has x * scale and x * scale - 0.5)");
    c.add("RoiAlign", {c.in(0), c.in(1), as_i64(c, 2)}, {c.out(0)},
          {a_str("mode", c.attr<std::string>("mode")), a_int("output_height", c.attr<int64_t>("pooled_h")),
           a_int("output_width", c.attr<int64_t>("pooled_w")), a_int("sampling_ratio", c.attr<int64_t>("sampling_ratio")),
           a_float("spatial_scale", c.attr<double>("spatial_scale")), a_str("coordinate_transformation_mode", coordinates)});
}

void emit_grid_sample(OnnxNodeContext& c) {
    c.add("GridSample", {c.in(0), c.in(1)}, {c.out(0)},
          {a_int("align_corners", c.attr<bool>("align_corners") ? 1 : 0), a_str("mode", c.attr<std::string>("mode")),
           a_str("padding_mode", c.attr<std::string>("padding_mode"))});
}

// softmax(Q K^T * scale + mask) V, with the causal mask as a lower triangle (Trilu, opset 14).
void emit_sdpa(OnnxNodeContext& c) {
    const PartialShape& q = c.in_shape(0);
    const ElementType t = c.in_type(0);
    if (!q.rank_is_static() || !c.in_shape(1).rank_is_static()) c.fail("attention inputs of dynamic rank");
    std::string scale;
    if (c.has_in(4)) {
        scale = c.in(4);
    } else {
        if (!q[q.rank() - 1].is_static()) c.fail("attention without a scale on a dynamic head size");
        scale = c.scalar(1.0 / std::sqrt(static_cast<double>(q[q.rank() - 1].get_length())), t, "scale");
    }
    const std::string kt = swap_last_two(c, c.in(1), c.in_shape(1).rank());
    std::string scores = c.add_tmp("Mul", {c.add_tmp("MatMul", {c.in(0), kt}), scale}, {}, "scores");
    const double lowest = -std::numeric_limits<float>::infinity();
    if (c.attr<bool>("causal")) {
        c.need_opset(14);
        const std::string shape = c.add_tmp("Shape", {scores});
        const std::string ls = c.add_tmp("Slice", {shape, c.ints({-2}, "start"), c.ints({INT64_MAX}, "end")});
        const std::string ones = c.add_tmp("Expand", {c.scalar(1.0, ElementType::f32, "one"), ls});
        const std::string lower = c.add_tmp("Trilu", {ones}, {a_int("upper", 0)});
        const std::string keep = c.add_tmp("Cast", {lower}, {a_int("to", onnx::TensorProto::BOOL)});
        scores = c.add_tmp("Where", {keep, scores, c.scalar(lowest, t, "minus_inf")});
    } else if (c.has_in(3)) {
        if (c.in_type(3) == ElementType::boolean)
            scores = c.add_tmp("Where", {c.in(3), scores, c.scalar(lowest, t, "minus_inf")});
        else
            scores = c.add_tmp("Add", {scores, c.in(3)});
    }
    const std::string p = c.add_tmp("Softmax", {scores}, {a_int("axis", -1)});
    c.add("MatMul", {p, c.in(2)}, {c.out(0)});
}

}  // namespace

std::vector<OnnxRule> nn_rules() {
    return {
        {"Convolution", 13, [](OnnxNodeContext& c) { emit_convolution(c, false); }, "Conv"},
        {"GroupConvolution", 13, [](OnnxNodeContext& c) { emit_convolution(c, true); }, "Conv with group (filter reshaped)"},
        {"ConvolutionBackpropData", 13, [](OnnxNodeContext& c) { emit_deconvolution(c, false); }, "ConvTranspose"},
        {"GroupConvolutionBackpropData", 13, [](OnnxNodeContext& c) { emit_deconvolution(c, true); }, "ConvTranspose with group"},
        {"MaxPool", 13, emit_max_pool, "MaxPool (indices over the whole tensor)"},
        {"AvgPool", 13, emit_avg_pool, "AveragePool"},
        {"MatMul", 13, emit_matmul, "MatMul (transposes as Transpose)"},
        {"Softmax", 13, [](OnnxNodeContext& c) { c.add("Softmax", {c.in(0)}, {c.out(0)}, {a_int("axis", c.attr<int64_t>("axis"))}); }, "Softmax"},
        {"LogSoftmax", 13, [](OnnxNodeContext& c) { c.add("LogSoftmax", {c.in(0)}, {c.out(0)}, {a_int("axis", c.attr<int64_t>("axis"))}); }, "LogSoftmax"},
        {"ReduceSum", 13, reduce("ReduceSum"), "ReduceSum"},
        {"ReduceMean", 13, reduce("ReduceMean"), "ReduceMean"},
        {"ReduceMax", 13, reduce("ReduceMax"), "ReduceMax"},
        {"ReduceMin", 13, reduce("ReduceMin"), "ReduceMin"},
        {"ReduceProd", 13, reduce("ReduceProd"), "ReduceProd"},
        {"ReduceL1", 13, reduce("ReduceL1"), "ReduceL1"},
        {"ReduceL2", 13, reduce("ReduceL2"), "ReduceL2"},
        {"ReduceLogicalAnd", 13, reduce_logical("ReduceMin"), "ReduceMin on uint8"},
        {"ReduceLogicalOr", 13, reduce_logical("ReduceMax"), "ReduceMax on uint8"},
        {"BatchNormInference", 13, emit_batch_norm, "BatchNormalization"},
        {"MVN", 13, emit_mvn, "decomposed: ReduceMean, Sub, Mul, Sqrt, Div"},
        {"LRN", 13, emit_lrn, "LRN (channels, odd size)"},
        {"NormalizeL2", 13, emit_normalize_l2, "decomposed: ReduceSumSquare (or Mul), Add / Max eps, Sqrt, Div"},
        {"TopK", 13, emit_topk, "TopK (+ Cast of the indices)"},
        {"CumSum", 13, emit_cumsum, "CumSum"},
        {"Interpolate", 13, emit_interpolate, "Resize with full scales / sizes"},
        {"Einsum", 13, [](OnnxNodeContext& c) {
             std::vector<std::string> in;
             for (size_t i = 0; i < c.node.input_count(); ++i) in.push_back(c.in(i));
             c.add("Einsum", in, {c.out(0)}, {a_str("equation", c.attr<std::string>("equation"))});
         }, "Einsum"},
        {"Unique", 13, emit_unique, "Unique (+ Casts)"},
        {"ROIAlign", 16, emit_roi_align, "RoiAlign (asymmetric: output_half_pixel, half_pixel_for_nn: half_pixel)"},
        {"GridSample", 16, emit_grid_sample, "GridSample"},
        {"ScaledDotProductAttention", 13, emit_sdpa, "decomposed: MatMul, Mul, mask, Softmax, MatMul"},
    };
}

}  // namespace mo::onnx_emit
