// Interpolate-11: resizes the axes listed in `axes` (default: all) to sizes given directly or as
// scales, after zero padding by pads_begin/pads_end. Evaluation is separable: every mode is a
// product of per-axis weights, so the tensor is resampled one axis at a time with a list of
// (source index, weight) taps per output index. The pillow modes follow Pillow 9.4's Resample.c
// as OpenVINO's reference does: two axes (H, W), W first, each pass stored in the data type.
#include <algorithm>
#include <cmath>

#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

// OpenVINO rounds floor(extent * scale) with this tolerance so that e.g. 3 * (1/3.f) gives 1.
constexpr float kScaleEpsilon = 1.0e-5f;

int64_t scaled_extent(int64_t extent, float scale) {
    return saturate_cast<int64_t>(std::floor(static_cast<float>(extent) * scale + kScaleEpsilon));  // a scale of 1e30
}

bool one_of(const std::string& s, std::initializer_list<const char*> values) {
    for (const char* v : values)
        if (s == v) return true;
    return false;
}

void check_attrs(const Node& n) {
    const auto where = n.describe();
    const auto mode = n.attr<std::string>("mode");
    if (!one_of(mode, {"nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow"}))
        throw Error("unknown mode '" + mode + "'", where);
    const auto calc = n.attr<std::string>("shape_calculation_mode");
    if (!one_of(calc, {"sizes", "scales"}))
        throw Error("unknown shape_calculation_mode '" + calc + "'", where, "use sizes or scales");
    const auto transform = n.attr<std::string>("coordinate_transformation_mode");
    if (!one_of(transform, {"half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"}))
        throw Error("unknown coordinate_transformation_mode '" + transform + "'", where);
    const auto nearest = n.attr<std::string>("nearest_mode");
    if (!one_of(nearest, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"}))
        throw Error("unknown nearest_mode '" + nearest + "'", where);
}

// Pads extended with zeros to the data rank.
std::vector<int64_t> pads_of(const Node& n, const char* name, size_t rank) {
    auto pads = n.attr<std::vector<int64_t>>(name);
    if (pads.size() > rank) throw Error(std::string(name) + " has more values than the input rank", n.describe());
    for (int64_t p : pads)
        if (p < 0) throw Error(std::string(name) + " must not be negative", n.describe());
    pads.resize(rank, 0);
    return pads;
}

// The axes input's value normalised against `rank`, or all axes when absent.
std::vector<int64_t> axes_of(const Node& n, const Tensor* axes, bool present, size_t rank) {
    std::vector<int64_t> result;
    if (!present) {
        for (size_t i = 0; i < rank; ++i) result.push_back(static_cast<int64_t>(i));
        return result;
    }
    for (int64_t a : axes->to_i64()) {
        a = normalize_axis(a, static_cast<int64_t>(rank));
        if (std::find(result.begin(), result.end(), a) != result.end())
            throw Error("axes contains " + std::to_string(a) + " twice", n.describe());
        result.push_back(a);
    }
    return result;
}

void infer_interpolate(InferContext& c) {
    check_attrs(c.node);
    const PartialShape& data = c.in_shape(0);
    const bool sizes_mode = c.attr<std::string>("shape_calculation_mode") == "sizes";
    if (c.in_shape(1).rank_is_static() && c.in_shape(1).rank() != 1) c.fail("scales_or_sizes must be 1D");
    if (!data.rank_is_static()) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
        return;
    }
    const size_t rank = data.rank();
    const auto pb = pads_of(c.node, "pads_begin", rank), pe = pads_of(c.node, "pads_end", rank);
    PartialShape out = data;
    for (size_t i = 0; i < rank; ++i) out[i] = out[i] + Dimension(pb[i] + pe[i]);

    const bool has_axes = c.has_input(2);
    const Tensor* axes_value = c.in_value(2);
    if (has_axes && !axes_value) {
        // Which axes change is unknown: each may keep its padded extent or not.
        c.set_output(0, c.in_type(0), PartialShape::dynamic(rank));
        return;
    }
    const auto axes = axes_of(c.node, axes_value, has_axes, rank);
    const Tensor* target = c.in_value(1);
    if (target && target->size() != axes.size())
        c.fail("scales_or_sizes has " + std::to_string(target->size()) + " values for " +
               std::to_string(axes.size()) + " axes");
    for (size_t i = 0; i < axes.size(); ++i) {
        Dimension& d = out[static_cast<size_t>(axes[i])];
        if (!target) {
            d = Dimension::dynamic();
        } else if (sizes_mode) {
            int64_t size = target->to_i64()[i];
            if (size < 0) c.fail("sizes must not be negative");
            d = size;
        } else {
            float scale = static_cast<float>(target->to_f64()[i]);
            if (!(scale > 0)) c.fail("scales must be positive");
            int64_t hi = d.max() == Dimension::kUnbounded ? Dimension::kUnbounded : scaled_extent(d.max(), scale);
            d = d.is_static() ? Dimension(scaled_extent(d.min(), scale)) : Dimension(scaled_extent(d.min(), scale), hi);
        }
    }
    c.set_output(0, c.in_type(0), out);
}

struct Tap {
    int64_t index;
    double weight;  // double: the pillow weights are computed in double
};

float source_coordinate(const std::string& transform, int64_t o, float scale, int64_t in_len, int64_t out_len) {
    const float x = static_cast<float>(o);
    if (transform == "half_pixel") return (x + 0.5f) / scale - 0.5f;
    if (transform == "pytorch_half_pixel") return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    if (transform == "asymmetric") return x / scale;
    if (transform == "tf_half_pixel_for_nn") return (x + 0.5f) / scale;
    // align_corners
    return out_len == 1 ? 0.0f : x * static_cast<float>(in_len - 1) / static_cast<float>(out_len - 1);
}

int64_t nearest_index(const std::string& mode, float x, bool downsample) {
    const float fl = std::floor(x);
    if (mode == "round_prefer_floor") return static_cast<int64_t>(x == fl + 0.5f ? fl : std::round(x));
    if (mode == "round_prefer_ceil") return static_cast<int64_t>(x == fl + 0.5f ? std::ceil(x) : std::round(x));
    if (mode == "floor") return static_cast<int64_t>(fl);
    if (mode == "ceil") return static_cast<int64_t>(std::ceil(x));
    return downsample ? static_cast<int64_t>(std::ceil(x)) : static_cast<int64_t>(x);  // simple
}

// Keys' cubic convolution weights for the 4 neighbours of a point at fraction t.
void cubic_weights(float t, float a, float w[4]) {
    auto near = [a](float s) { return ((a + 2) * s - (a + 3)) * s * s + 1; };      // |s| <= 1
    auto far = [a](float s) { return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a; };  // 1 < |s| < 2
    w[0] = far(t + 1);
    w[1] = near(t);
    w[2] = near(1 - t);
    w[3] = far(2 - t);
}

struct AxisPlan {
    std::vector<std::vector<Tap>> taps;  // per output index
};

AxisPlan plan_axis(const Node& n, int64_t in_len, int64_t out_len, float scale) {
    const auto mode = n.attr<std::string>("mode");
    const auto transform = n.attr<std::string>("coordinate_transformation_mode");
    const auto nearest = n.attr<std::string>("nearest_mode");
    const bool antialias = n.attr<bool>("antialias");
    const float cube_coeff = static_cast<float>(n.attr<double>("cube_coeff"));
    AxisPlan plan;
    plan.taps.resize(static_cast<size_t>(out_len));
    auto clamp = [in_len](int64_t i) { return std::clamp<int64_t>(i, 0, in_len - 1); };
    for (int64_t o = 0; o < out_len; ++o) {
        auto& taps = plan.taps[static_cast<size_t>(o)];
        const float x = source_coordinate(transform, o, scale, in_len, out_len);
        if (mode == "nearest") {
            taps.push_back({clamp(nearest_index(nearest, x, scale < 1)), 1.0f});
        } else if (mode == "linear_onnx") {
            const float xc = std::clamp(x, 0.0f, static_cast<float>(in_len - 1));
            const int64_t i0 = clamp(static_cast<int64_t>(xc));
            const int64_t i1 = std::min(i0 + 1, in_len - 1);
            const float w1 = xc - static_cast<float>(i0);
            taps.push_back({i0, 1 - w1});
            if (i1 != i0) taps.push_back({i1, w1});
        } else if (mode == "cubic") {
            const float fl = std::floor(x);
            float w[4];
            cubic_weights(x - fl, cube_coeff, w);
            for (int k = 0; k < 4; ++k) taps.push_back({clamp(static_cast<int64_t>(fl) - 1 + k), w[k]});
        } else if (mode == "linear") {
            // Triangle filter scaled by `scale` when antialiasing (the spec's linear_func); taps
            // outside the input are dropped and the rest renormalised.
            const float a = antialias ? scale : 1.0f;
            const int64_t radius = static_cast<int64_t>(std::ceil(1.0f / a));
            const int64_t centre = static_cast<int64_t>(std::floor(x));
            float total = 0;
            for (int64_t i = centre - radius; i <= centre + radius + 1; ++i) {
                if (i < 0 || i >= in_len) continue;
                const float w = std::max(0.0f, 1 - std::fabs(a * (x - static_cast<float>(i))));
                if (w > 0) taps.push_back({i, w}), total += w;
            }
            for (auto& t : taps) t.weight /= total;
        } else {
            throw Error("evaluation of Interpolate mode '" + mode + "' is not supported", n.describe());
        }
    }
    return plan;
}

// Pillow's filters: the triangle (support 1) and Keys' cubic with a = cube_coeff (support 2).
double pillow_filter(bool cubic, double x, double a) {
    x = std::fabs(x);
    if (!cubic) return x < 1 ? 1 - x : 0;
    if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
    return 0;
}

// Pillow always antialiases: when downscaling the filter is stretched by in/out. Output pixel
// centres map to input pixel centres (coordinate_transformation_mode is ignored), taps cover
// [centre - support, centre + support) rounded and clipped to the input, weights sum to 1.
AxisPlan plan_pillow_axis(bool cubic, double cube_coeff, int64_t in_len, int64_t out_len) {
    const double scale = static_cast<double>(in_len) / static_cast<double>(out_len);
    const double stretch = std::max(scale, 1.0);
    const double support = (cubic ? 2.0 : 1.0) * stretch;
    const double shrink = 1.0 / stretch;  // multiplied, not divided, to round as Pillow does
    AxisPlan plan;
    plan.taps.resize(static_cast<size_t>(out_len));
    for (int64_t o = 0; o < out_len; ++o) {
        auto& taps = plan.taps[static_cast<size_t>(o)];
        const double centre = (static_cast<double>(o) + 0.5) * scale;
        // Truncation as in Pillow; negative starts are clipped to 0 anyway.
        const int64_t first = std::max<int64_t>(0, static_cast<int64_t>(centre - support + 0.5));
        const int64_t end = std::min<int64_t>(in_len, static_cast<int64_t>(centre + support + 0.5));
        double total = 0;
        for (int64_t i = first; i < end; ++i) {
            const double w = pillow_filter(cubic, (static_cast<double>(i) - centre + 0.5) * shrink, cube_coeff);
            taps.push_back({i, w});
            total += w;
        }
        if (total != 0)
            for (auto& t : taps) t.weight /= total;
    }
    return plan;
}

// Resamples `x` (shape `shape`, float data) along `axis` to `out_len`.
template <typename T>
std::vector<T> resample_axis(const std::vector<T>& x, Shape& shape, size_t axis, int64_t out_len,
                             const AxisPlan& plan) {
    const int64_t outer = shape_size(Shape(shape.begin(), shape.begin() + static_cast<long>(axis)));
    const int64_t inner = shape_size(Shape(shape.begin() + static_cast<long>(axis) + 1, shape.end()));
    const int64_t in_len = shape[axis];
    std::vector<T> y(static_cast<size_t>(outer * out_len * inner), T{});
    for (int64_t b = 0; b < outer; ++b)
        for (int64_t o = 0; o < out_len; ++o) {
            T* dst = y.data() + (b * out_len + o) * inner;
            for (const Tap& t : plan.taps[static_cast<size_t>(o)]) {
                const T* src = x.data() + (b * in_len + t.index) * inner;
                for (int64_t i = 0; i < inner; ++i) dst[i] += static_cast<T>(t.weight) * src[i];
            }
        }
    shape[axis] = out_len;
    return y;
}

// Integer results are rounded half away from zero and saturated to the type (as OpenVINO's
// pillow modes do; a plain cast of an out-of-range double is undefined).
Tensor to_data_type(const std::vector<double>& v, const Shape& shape, ElementType type) {
    if (!is_integral(type)) return Tensor::from_vector<double>(v, shape).convert(type);
    return dispatch_type(type, [&]<typename T>() {
        std::vector<T> out(v.size());
        for (size_t i = 0; i < v.size(); ++i) out[i] = saturate_cast<T>(std::round(v[i]));
        return Tensor::from_vector<T>(out, shape);
    });
}

// What OpenVINO keeps between the two pillow passes: a value of the data type (f16/bf16 are
// evaluated in f32).
void store_pass(ElementType type, std::vector<double>& v, const Shape& shape) {
    if (is_integral(type)) {
        const Tensor t = to_data_type(v, shape, type).convert(ElementType::f64);
        std::copy(t.data<double>(), t.data<double>() + t.size(), v.begin());
    } else if (type != ElementType::f64) {
        for (auto& x : v) x = static_cast<float>(x);
    }
}

bool is_pillow(const std::string& mode) { return mode == "bilinear_pillow" || mode == "bicubic_pillow"; }

// OpenVINO's pillow modes resize one H x W plane: exactly two axes, H before W.
void check_pillow_axes(const Node& n, const std::vector<int64_t>& axes) {
    if (axes.size() == 2 && axes[0] < axes[1]) return;
    std::string listed;
    for (int64_t a : axes) listed += (listed.empty() ? "" : ", ") + std::to_string(a);
    throw Error("mode '" + n.attr<std::string>("mode") + "' resizes exactly two axes (H, W) in increasing order, got [" +
                    listed + "]",
                n.describe(), "pass the axes input with the two spatial axes, e.g. [2, 3] for NCHW or [1, 2] for NHWC");
}

std::vector<Tensor> eval_interpolate(const Node& n, const std::vector<Tensor>& inputs) {
    check_attrs(n);
    const Tensor& data = inputs.at(0);
    const Shape& xs = data.shape();
    const size_t rank = xs.size();
    const auto pb = pads_of(n, "pads_begin", rank), pe = pads_of(n, "pads_end", rank);
    const bool has_axes = inputs.size() > 2 && !inputs[2].empty();
    const auto axes = axes_of(n, has_axes ? &inputs[2] : nullptr, has_axes, rank);
    const bool sizes_mode = n.attr<std::string>("shape_calculation_mode") == "sizes";
    const Tensor& target = inputs.at(1);
    if (target.size() != axes.size()) throw Error("scales_or_sizes does not match the axes", n.describe());
    const auto sizes = sizes_mode ? target.to_i64() : std::vector<int64_t>{};
    const auto scales = sizes_mode ? std::vector<double>{} : target.to_f64();
    const auto mode = n.attr<std::string>("mode");
    if (is_pillow(mode)) check_pillow_axes(n, axes);

    Shape padded = xs;
    for (size_t i = 0; i < rank; ++i) padded[i] += pb[i] + pe[i];
    // Output extent of axes[i].
    auto out_len_of = [&](size_t i) {
        const int64_t in_len = padded[static_cast<size_t>(axes[i])];
        const int64_t out_len = sizes_mode ? sizes[i] : scaled_extent(in_len, static_cast<float>(scales[i]));
        if (out_len < 0 || in_len < 1) throw Error("Interpolate to or from an empty axis", n.describe());
        return out_len;
    };
    // An empty tensor (e.g. the masks of zero detections) resizes to an empty tensor as long as
    // no resized axis grows from nothing.
    if (shape_size(padded) == 0) {
        Shape out = padded;
        for (size_t i = 0; i < axes.size(); ++i) {
            const int64_t in_len = padded[static_cast<size_t>(axes[i])];
            out[static_cast<size_t>(axes[i])] = in_len == 0 && !sizes_mode ? 0 : in_len == 0 ? sizes[i] : out_len_of(i);
        }
        if (shape_size(out) != 0) throw Error("Interpolate from an empty tensor to a non-empty one", n.describe());
        return {Tensor::allocate(data.type(), out)};
    }
    // Work in double for float types, float otherwise (rounded back on output).
    const Tensor wide = data.convert(ElementType::f64);
    std::vector<double> cur(static_cast<size_t>(shape_size(padded)), 0.0);
    {
        // Zero padding: copy the input into the padded box.
        const double* src = wide.data<double>();
        const auto in_strides = row_major_strides(xs), out_strides = row_major_strides(padded);
        for (int64_t i = 0; i < shape_size(xs); ++i) {
            int64_t rem = i, off = 0;
            for (size_t d = 0; d < rank; ++d) {
                off += (rem / in_strides[d] + pb[d]) * out_strides[d];
                rem %= in_strides[d];
            }
            cur[static_cast<size_t>(off)] = src[i];
        }
    }
    Shape shape = padded;
    if (is_pillow(mode)) {
        const bool cubic = mode == "bicubic_pillow";
        const double cube_coeff = n.attr<double>("cube_coeff");
        for (size_t i : {size_t{1}, size_t{0}}) {  // W, then H
            const size_t axis = static_cast<size_t>(axes[i]);
            const int64_t in_len = padded[axis], out_len = out_len_of(i);
            if (out_len == in_len) continue;  // an identity pass, skipped as Pillow does
            cur = resample_axis(cur, shape, axis, out_len, plan_pillow_axis(cubic, cube_coeff, in_len, out_len));
            store_pass(data.type(), cur, shape);
        }
        return {to_data_type(cur, shape, data.type())};
    }
    for (size_t i = 0; i < axes.size(); ++i) {
        const size_t axis = static_cast<size_t>(axes[i]);
        const int64_t in_len = padded[axis], out_len = out_len_of(i);
        const float scale = sizes_mode ? static_cast<float>(out_len) / static_cast<float>(in_len)
                                       : static_cast<float>(scales[i]);
        cur = resample_axis(cur, shape, axis, out_len, plan_axis(n, in_len, out_len, scale));
    }
    // Integer images are rounded to nearest rather than truncated.
    return {to_data_type(cur, shape, data.type())};
}

}  // namespace

void register_interpolate_ops(OpRegistry& r) {
    r.add(OpSchema{
        .type = "Interpolate", .ir_type = "Interpolate", .ir_version = "opset11",
        .min_inputs = 2, .max_inputs = 3, .num_outputs = 1,
        .attrs = {
            {"mode", AttrKind::String, {}},
            {"shape_calculation_mode", AttrKind::String, {}},
            {"coordinate_transformation_mode", AttrKind::String, std::string("half_pixel")},
            {"nearest_mode", AttrKind::String, std::string("round_prefer_floor")},
            {"antialias", AttrKind::Bool, false},
            {"pads_begin", AttrKind::Ints, std::vector<int64_t>{0}},
            {"pads_end", AttrKind::Ints, std::vector<int64_t>{0}},
            {"cube_coeff", AttrKind::Float, -0.75},
        },
        .infer = infer_interpolate,
        .eval = eval_interpolate,
        .precision_sensitive_inputs = {1},
    });
}

}  // namespace mo
