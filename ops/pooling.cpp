// MaxPool-8 (values + indices) and AvgPool-1. Both slide a window over the spatial axes of
// [N, C, spatial...]; 1D and 2D run as 3D with unit leading axes.
#include <algorithm>
#include <limits>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

struct PoolAttrs {
    std::vector<WindowAxis> axes;  // explicit pads, auto_pad not yet applied
    std::string auto_pad;
    bool ceil = false;
};

PoolAttrs read_attrs(const Node& n, bool has_dilations) {
    const auto where = n.describe();
    auto kernel = n.attr<std::vector<int64_t>>("kernel");
    auto strides = n.attr<std::vector<int64_t>>("strides");
    auto pads_begin = n.attr<std::vector<int64_t>>("pads_begin");
    auto pads_end = n.attr<std::vector<int64_t>>("pads_end");
    std::vector<int64_t> dilations;
    if (has_dilations) dilations = n.attr<std::vector<int64_t>>("dilations");
    PoolAttrs a;
    a.auto_pad = n.attr<std::string>("auto_pad");
    const auto rounding = n.attr<std::string>("rounding_type");
    if (rounding != "floor" && rounding != "ceil")
        throw Error("unsupported rounding_type '" + rounding + "'", where, "use floor or ceil");
    a.ceil = rounding == "ceil";
    const size_t spatial = kernel.size();
    if (spatial < 1 || spatial > 3) throw Error("kernel must have 1 to 3 values", where);
    // Empty lists mean the defaults (unit strides/dilations, zero pads), as OpenVINO reads them.
    if (strides.empty()) strides.assign(spatial, 1);
    if (dilations.empty()) dilations.assign(spatial, 1);
    if (pads_begin.empty()) pads_begin.assign(spatial, 0);
    if (pads_end.empty()) pads_end.assign(spatial, 0);
    if (strides.size() != spatial || dilations.size() != spatial || pads_begin.size() != spatial ||
        pads_end.size() != spatial)
        throw Error("kernel, strides, dilations and pads must have one value per spatial axis", where);
    for (size_t i = 0; i < spatial; ++i) {
        if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1)
            throw Error("kernel, strides and dilations must be positive", where);
        if (pads_begin[i] < 0 || pads_end[i] < 0) throw Error("pads must not be negative", where);
        a.axes.push_back({kernel[i], strides[i], dilations[i], pads_begin[i], pads_end[i]});
    }
    if (a.auto_pad != "explicit" && a.auto_pad != "valid" && a.auto_pad != "same_upper" && a.auto_pad != "same_lower")
        throw Error("unknown auto_pad '" + a.auto_pad + "'", where, "use explicit, valid, same_upper or same_lower");
    return a;
}

PartialShape infer_pool_shape(InferContext& c, const PoolAttrs& a) {
    const PartialShape& data = c.in_shape(0);
    const size_t rank = a.axes.size() + 2;
    if (data.rank_is_static() && data.rank() != rank)
        c.fail("input rank " + std::to_string(data.rank()) + " does not match the " +
               std::to_string(a.axes.size()) + " kernel axes");
    PartialShape out = data.rank_is_static() ? data : PartialShape::dynamic(rank);
    for (size_t i = 0; i < a.axes.size(); ++i) {
        out[2 + i] = window_output_dim(a.axes[i], a.auto_pad, out[2 + i], a.ceil);
        if (out[2 + i].is_static() && out[2 + i].get_length() < 1)
            c.fail("the pooling window is larger than the padded input along spatial axis " + std::to_string(i));
    }
    return out;
}

// Resolved geometry of one evaluation, padded to three spatial axes.
struct Pool3 {
    int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
    WindowAxis w[3];
    Shape out_shape;
};

// A window's every tap is visited per output element.
void charge_windows(const Pool3& p) {
    EvalBudget::charge_operations(saturating_product({shape_size(p.out_shape), p.w[0].kernel, p.w[1].kernel, p.w[2].kernel}),
                                  "the pooling");
}

Pool3 resolve(const Node& n, const PoolAttrs& a, const Shape& xs) {
    if (xs.size() != a.axes.size() + 2) throw Error("input rank does not match the kernel", n.describe());
    Pool3 p;
    const size_t lead = 3 - a.axes.size();
    p.out_shape = {xs[0], xs[1]};
    for (size_t i = 0; i < a.axes.size(); ++i) {
        WindowAxis w = a.axes[i];
        resolve_auto_pad(w, a.auto_pad, xs[2 + i]);
        p.w[lead + i] = w;
        p.in[lead + i] = xs[2 + i];
        p.out[lead + i] = window_output_extent(w, xs[2 + i], a.ceil);
        if (p.out[lead + i] < 1) throw Error("empty pooling output", n.describe());
        p.out_shape.push_back(p.out[lead + i]);
    }
    return p;
}

// Calls visit(out_offset, in_offsets_of_window, padded_window_size) per output element of one
// plane. Window positions outside the input are skipped; padded_window_size counts positions
// inside the padded input (for AvgPool with exclude-pad = false).
template <typename Visit>
void for_each_window(const Pool3& p, Visit&& visit) {
    std::vector<int64_t> taps;
    int64_t o = 0;
    for (int64_t od = 0; od < p.out[0]; ++od)
        for (int64_t oh = 0; oh < p.out[1]; ++oh)
            for (int64_t ow = 0; ow < p.out[2]; ++ow, ++o) {
                taps.clear();
                int64_t padded = 1;
                const int64_t pos[3] = {od, oh, ow};
                int64_t start[3];
                for (int i = 0; i < 3; ++i) {
                    start[i] = pos[i] * p.w[i].stride - p.w[i].pad_begin;
                    // Positions inside input + pads (the window may overhang with ceil rounding).
                    int64_t count = 0;
                    for (int64_t k = 0; k < p.w[i].kernel; ++k) {
                        int64_t at = start[i] + k * p.w[i].dilation;
                        if (at >= -p.w[i].pad_begin && at < p.in[i] + p.w[i].pad_end) ++count;
                    }
                    padded *= count;
                }
                for (int64_t kd = 0; kd < p.w[0].kernel; ++kd) {
                    int64_t id = start[0] + kd * p.w[0].dilation;
                    if (id < 0 || id >= p.in[0]) continue;
                    for (int64_t kh = 0; kh < p.w[1].kernel; ++kh) {
                        int64_t ih = start[1] + kh * p.w[1].dilation;
                        if (ih < 0 || ih >= p.in[1]) continue;
                        for (int64_t kw = 0; kw < p.w[2].kernel; ++kw) {
                            int64_t iw = start[2] + kw * p.w[2].dilation;
                            if (iw < 0 || iw >= p.in[2]) continue;
                            taps.push_back((id * p.in[1] + ih) * p.in[2] + iw);
                        }
                    }
                }
                visit(o, taps, padded);
            }
}

void infer_max_pool(InferContext& c) {
    const PoolAttrs a = read_attrs(c.node, true);
    const ElementType index_type = c.attr<ElementType>("index_element_type");
    if (index_type != ElementType::i32 && index_type != ElementType::i64)
        c.fail("index_element_type must be i32 or i64");
    PartialShape out = infer_pool_shape(c, a);
    if (c.in_shape(0).rank_is_static()) {
        const int64_t axis = c.attr<int64_t>("axis");
        const int64_t rank = static_cast<int64_t>(c.in_shape(0).rank());
        if (axis < -rank || axis >= rank) c.fail("axis " + std::to_string(axis) + " is out of range");
    }
    c.set_output(0, c.in_type(0), out);
    c.set_output(1, index_type, out);
}

std::vector<Tensor> eval_max_pool(const Node& n, const std::vector<Tensor>& inputs) {
    const PoolAttrs a = read_attrs(n, true);
    const Pool3 p = resolve(n, a, inputs.at(0).shape());
    charge_windows(p);
    const ElementType index_type = n.attr<ElementType>("index_element_type");
    const Shape& xs = inputs[0].shape();
    int64_t axis = n.attr<int64_t>("axis");
    axis = normalize_axis(axis, static_cast<int64_t>(xs.size()));
    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        Tensor values = Tensor::allocate(in[0].type(), p.out_shape);
        Tensor indices = Tensor::allocate(index_type, p.out_shape);
        const int64_t in_plane = p.in[0] * p.in[1] * p.in[2], out_plane = p.out[0] * p.out[1] * p.out[2];
        // Indices are flat over the input counted from `axis` (axis 0: the whole tensor).
        const int64_t planes = xs[0] * xs[1];
        const int64_t axis_block = axis == 0 ? 0 : (axis == 1 ? xs[1] * in_plane : in_plane);
        dispatch_type(in[0].type(), [&]<typename T>() {
            const T* x = in[0].data<T>();
            T* y = values.mutable_data<T>();
            std::vector<int64_t> idx(static_cast<size_t>(planes * out_plane));
            for (int64_t pl = 0; pl < planes; ++pl) {
                const T* plane = x + pl * in_plane;
                const int64_t base = pl * in_plane;
                for_each_window(p, [&](int64_t o, const std::vector<int64_t>& taps, int64_t) {
                    T best = std::numeric_limits<T>::lowest();
                    int64_t best_at = taps.empty() ? 0 : taps[0];
                    for (int64_t t : taps)
                        if (plane[t] > best) best = plane[t], best_at = t;
                    y[pl * out_plane + o] = best;
                    int64_t flat = base + best_at;
                    idx[pl * out_plane + o] = axis_block == 0 ? flat : flat % axis_block;
                });
            }
            for (size_t i = 0; i < idx.size(); ++i) {
                if (index_type == ElementType::i32) indices.mutable_data<int32_t>()[i] = static_cast<int32_t>(idx[i]);
                else indices.mutable_data<int64_t>()[i] = idx[i];
            }
        }, false);
        return std::vector<Tensor>{values, indices};
    });
}

void infer_avg_pool(InferContext& c) {
    const PoolAttrs a = read_attrs(c.node, false);
    c.set_output(0, c.in_type(0), infer_pool_shape(c, a));
}

std::vector<Tensor> eval_avg_pool(const Node& n, const std::vector<Tensor>& inputs) {
    const PoolAttrs a = read_attrs(n, false);
    const Pool3 p = resolve(n, a, inputs.at(0).shape());
    charge_windows(p);
    const bool exclude_pad = n.attr<bool>("exclude-pad");
    const Shape& xs = inputs[0].shape();
    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        Tensor values = Tensor::allocate(in[0].type(), p.out_shape);
        const int64_t in_plane = p.in[0] * p.in[1] * p.in[2], out_plane = p.out[0] * p.out[1] * p.out[2];
        dispatch_type(in[0].type(), [&]<typename T>() {
            const T* x = in[0].data<T>();
            T* y = values.mutable_data<T>();
            for (int64_t pl = 0; pl < xs[0] * xs[1]; ++pl) {
                const T* plane = x + pl * in_plane;
                for_each_window(p, [&](int64_t o, const std::vector<int64_t>& taps, int64_t padded) {
                    double sum = 0;
                    for (int64_t t : taps) sum += static_cast<double>(plane[t]);
                    const int64_t count = exclude_pad ? static_cast<int64_t>(taps.size()) : padded;
                    y[pl * out_plane + o] = count == 0 ? T{} : static_cast<T>(sum / static_cast<double>(count));
                });
            }
        }, false);
        return std::vector<Tensor>{values};
    });
}

}  // namespace

void register_pooling_ops(OpRegistry& r) {
    r.add(OpSchema{
        .type = "MaxPool", .ir_type = "MaxPool", .ir_version = "opset8",
        .min_inputs = 1, .max_inputs = 1, .num_outputs = 2,
        .attrs = {
            {"strides", AttrKind::Ints, {}},
            // Empty: unit dilations.
            {"dilations", AttrKind::Ints, std::vector<int64_t>{}},
            {"pads_begin", AttrKind::Ints, {}},
            {"pads_end", AttrKind::Ints, {}},
            {"kernel", AttrKind::Ints, {}},
            {"rounding_type", AttrKind::String, std::string("floor")},
            {"auto_pad", AttrKind::String, std::string("explicit")},
            {"index_element_type", AttrKind::Type, ElementType::i64},
            {"axis", AttrKind::Int, int64_t{0}},
        },
        .infer = infer_max_pool,
        .eval = eval_max_pool,
    });
    r.add(OpSchema{
        .type = "AvgPool", .ir_type = "AvgPool", .ir_version = "opset1",
        .min_inputs = 1, .max_inputs = 1, .num_outputs = 1,
        .attrs = {
            {"strides", AttrKind::Ints, {}},
            {"pads_begin", AttrKind::Ints, {}},
            {"pads_end", AttrKind::Ints, {}},
            {"kernel", AttrKind::Ints, {}},
            {"exclude-pad", AttrKind::Bool, {}},
            {"rounding_type", AttrKind::String, std::string("floor")},
            {"auto_pad", AttrKind::String, std::string("explicit")},
        },
        .infer = infer_avg_pool,
        .eval = eval_avg_pool,
    });
}

}  // namespace mo
