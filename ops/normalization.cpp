// BatchNormInference-5 (per-channel affine normalisation on axis 1), MVN-6 (mean/variance
// normalisation over the axes given by its second input), LRN-1 (local response normalisation)
// and NormalizeL2-1 (division by the L2 norm over the axes given).
#include <algorithm>
#include <cmath>
#include <set>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/normalization.hpp"
#include "ops/ops.hpp"

namespace mo {

void infer_batch_norm(InferContext& c) {
    const PartialShape& data = c.in_shape(0);
    if (data.rank_is_static() && data.rank() < 2) c.fail("input must have rank 2 or more ([N, C, ...])");
    if (c.attr<double>("epsilon") < 0) c.fail("epsilon must not be negative");
    Dimension channels = data.rank_is_static() ? data[1] : Dimension();
    static const char* kNames[] = {"", "gamma", "beta", "mean", "variance"};
    for (size_t i = 1; i < 5; ++i) {
        const PartialShape& s = c.in_shape(i);
        if (!s.rank_is_static()) continue;
        if (s.rank() != 1) c.fail(std::string(kNames[i]) + " must be 1D, got " + s.to_string());
        if (!channels.compatible(s[0]))
            c.fail(std::string(kNames[i]) + " has " + s[0].to_string() + " values for " + channels.to_string() +
                   " channels");
        channels = Dimension::merge(channels, s[0]);
    }
    PartialShape out = data;
    if (out.rank_is_static()) out[1] = channels;
    c.set_output(0, c.in_type(0), out);
}

std::vector<Tensor> eval_batch_norm(const Node& n, const std::vector<Tensor>& inputs) {
    const double eps = n.attr<double>("epsilon");
    const Shape& xs = inputs.at(0).shape();
    if (xs.size() < 2) throw Error("input must have rank 2 or more", n.describe());
    const int64_t channels = xs[1];
    for (size_t i = 1; i < 5; ++i)
        if (inputs.at(i).size() != static_cast<size_t>(channels))
            throw Error("per-channel inputs do not match the channel count", n.describe());
    const int64_t inner = shape_size(Shape(xs.begin() + 2, xs.end()));
    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        Tensor y = Tensor::allocate(in[0].type(), xs);
        const auto gamma = in[1].to_f64(), beta = in[2].to_f64(), mean = in[3].to_f64(), var = in[4].to_f64();
        dispatch_type(in[0].type(), [&]<typename T>() {
            const T* x = in[0].data<T>();
            T* out = y.mutable_data<T>();
            for (int64_t b = 0; b < xs[0]; ++b)
                for (int64_t ch = 0; ch < channels; ++ch) {
                    // gamma * (x - mean) / sqrt(var + eps) + beta, folded into scale and shift.
                    const double scale = gamma[ch] / std::sqrt(var[ch] + eps);
                    const double shift = beta[ch] - mean[ch] * scale;
                    const int64_t base = (b * channels + ch) * inner;
                    for (int64_t i = 0; i < inner; ++i)
                        out[base + i] = static_cast<T>(static_cast<double>(x[base + i]) * scale + shift);
                }
        }, false);
        return std::vector<Tensor>{y};
    });
}

namespace {

void check_eps_mode(const std::string& mode, const std::string& where) {
    if (mode != "INSIDE_SQRT" && mode != "OUTSIDE_SQRT" && mode != "inside_sqrt" && mode != "outside_sqrt")
        throw Error("unknown eps_mode '" + mode + "'", where, "use INSIDE_SQRT or OUTSIDE_SQRT");
}

void infer_mvn(InferContext& c) {
    check_eps_mode(c.attr<std::string>("eps_mode"), c.node.describe());
    const PartialShape& data = c.in_shape(0);
    const PartialShape& axes = c.in_shape(1);
    if (axes.rank_is_static() && axes.rank() != 1) c.fail("axes must be 1D");
    if (!is_integral(c.in_type(1)) && c.in_type(1) != ElementType::dynamic) c.fail("axes must be an integer tensor");
    if (const Tensor* v = c.in_value(1); v && data.rank_is_static()) {
        for (int64_t axis : v->to_i64()) {
            if (axis < -static_cast<int64_t>(data.rank()) || axis >= static_cast<int64_t>(data.rank()))
                c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(data.rank()));
        }
    }
    c.set_output(0, c.in_type(0), data);
}

std::vector<Tensor> eval_mvn(const Node& n, const std::vector<Tensor>& inputs) {
    const Shape& xs = inputs.at(0).shape();
    const int64_t rank = static_cast<int64_t>(xs.size());
    const bool normalize_variance = n.attr<bool>("normalize_variance");
    const double eps = n.attr<double>("eps");
    std::string mode = n.attr<std::string>("eps_mode");
    check_eps_mode(mode, n.describe());
    const bool inside = mode == "INSIDE_SQRT" || mode == "inside_sqrt";
    std::vector<bool> reduced(xs.size(), false);
    for (int64_t axis : inputs.at(1).to_i64()) reduced[normalize_axis(axis, rank)] = true;
    // Each group of reduced elements is indexed by the kept axes; walk both in row-major order.
    Shape kept_shape(xs.size(), 1), red_shape(xs.size(), 1);
    for (size_t i = 0; i < xs.size(); ++i) (reduced[i] ? red_shape : kept_shape)[i] = xs[i];
    const auto strides = row_major_strides(xs);
    std::vector<int64_t> kept_strides(xs.size()), red_strides(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) (reduced[i] ? red_strides : kept_strides)[i] = strides[i];
    auto offsets = [](const Shape& shape, const std::vector<int64_t>& st) {
        std::vector<int64_t> result(static_cast<size_t>(shape_size(shape)));
        std::vector<int64_t> idx(shape.size(), 0);
        for (size_t k = 0; k < result.size(); ++k) {
            int64_t off = 0;
            for (size_t d = 0; d < shape.size(); ++d) off += idx[d] * st[d];
            result[k] = off;
            for (size_t d = shape.size(); d-- > 0;) {
                if (++idx[d] < shape[d]) break;
                idx[d] = 0;
            }
        }
        return result;
    };
    const auto groups = offsets(kept_shape, kept_strides), members = offsets(red_shape, red_strides);
    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        Tensor y = Tensor::allocate(in[0].type(), xs);
        dispatch_type(in[0].type(), [&]<typename T>() {
            const T* x = in[0].data<T>();
            T* out = y.mutable_data<T>();
            const double count = static_cast<double>(members.size());
            for (int64_t g : groups) {
                double mean = 0;
                for (int64_t m : members) mean += static_cast<double>(x[g + m]);
                mean /= count;
                double scale = 1;
                if (normalize_variance) {
                    double var = 0;
                    for (int64_t m : members) var += (static_cast<double>(x[g + m]) - mean) * (x[g + m] - mean);
                    var /= count;
                    scale = 1 / (inside ? std::sqrt(var + eps) : std::sqrt(var) + eps);
                }
                for (int64_t m : members) out[g + m] = static_cast<T>((static_cast<double>(x[g + m]) - mean) * scale);
            }
        }, false);
        return std::vector<Tensor>{y};
    });
}

// LRN's and NormalizeL2's inputs: floating-point data, and integer axes (1-D, or also a scalar
// for NormalizeL2) that, when constant, name axes of the data. The output is the data's type and
// shape.
void infer_data_and_axes(InferContext& c, bool scalar_axes) {
    const ElementType t = c.in_type(0);
    if (t != ElementType::dynamic && !is_float(t)) c.fail("data must be of a floating-point type");
    if (c.in_type(1) != ElementType::dynamic && !is_integral(c.in_type(1))) c.fail("axes must be an integer tensor");
    const PartialShape& data = c.in_shape(0);
    const PartialShape& axes = c.in_shape(1);
    if (scalar_axes && axes.rank_is_static() && axes.rank() > 1) c.fail("axes must be a scalar or 1D");
    if (!scalar_axes && axes.rank_is_static() && axes.rank() != 1) c.fail("axes must be 1D");
    if (const Tensor* v = c.in_value(1); v && data.rank_is_static()) {
        const auto rank = static_cast<int64_t>(data.rank());
        for (int64_t axis : v->to_i64())
            if (axis < -rank || axis >= rank)
                c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    c.set_output(0, t, data);
}

// LRN-1: x / (bias + alpha / size^len(axes) * sum of x^2 over a window)^beta. The window spans
// [i - (size-1)/2, i + (size-1)/2] on each listed axis, clipped to the tensor (OpenVINO's
// reference; for even sizes the spec's text differs from it, so the ONNX extractor refuses them).
void infer_lrn(InferContext& c) {
    if (c.attr<int64_t>("size") <= 0) c.fail("size must be positive");
    infer_data_and_axes(c, false);
}

std::vector<Tensor> eval_lrn(const Node& n, const std::vector<Tensor>& inputs) {
    const Shape& xs = inputs.at(0).shape();
    const auto rank = static_cast<int64_t>(xs.size());
    const int64_t size = n.attr<int64_t>("size");
    if (size <= 0) throw Error("size must be positive", n.describe());
    std::set<size_t> axes;
    for (int64_t axis : inputs.at(1).to_i64()) {
        if (axis < -rank || axis >= rank) throw Error("axis out of range", n.describe());
        axes.insert(static_cast<size_t>(normalize_axis(axis, rank)));
    }
    const double scale = n.attr<double>("alpha") / std::pow(static_cast<double>(size), static_cast<double>(axes.size()));
    const double beta = n.attr<double>("beta"), bias = n.attr<double>("bias");
    const int64_t half = (size - 1) / 2;
    std::vector<int64_t> work{shape_size(xs)};  // every element sums a window of up to `size` per axis
    for (size_t d : axes) work.push_back(std::min(size, xs[d]));
    EvalBudget::charge_operations(saturating_product(work), "the LRN windows");
    const auto strides = row_major_strides(xs);
    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        Tensor y = Tensor::allocate(in[0].type(), xs);
        dispatch_type(in[0].type(), [&]<typename T>() {
            if constexpr (std::is_floating_point_v<T>) {
                const T* x = in[0].data<T>();
                T* out = y.mutable_data<T>();
                std::vector<int64_t> idx(xs.size(), 0), lo(xs.size()), hi(xs.size()), w(xs.size());
                const int64_t total = shape_size(xs);
                for (int64_t i = 0; i < total; ++i) {
                    // The window: [lo, hi) per axis, the element itself on the others.
                    for (size_t d = 0; d < xs.size(); ++d) {
                        lo[d] = axes.count(d) ? std::max<int64_t>(0, idx[d] - half) : idx[d];
                        hi[d] = axes.count(d) ? std::min<int64_t>(xs[d], idx[d] + half + 1) : idx[d] + 1;
                    }
                    double sum = 0;
                    w = lo;
                    for (bool more = true; more;) {
                        int64_t off = 0;
                        for (size_t d = 0; d < xs.size(); ++d) off += w[d] * strides[d];
                        sum += static_cast<double>(x[off]) * static_cast<double>(x[off]);
                        more = false;
                        for (size_t d = xs.size(); d-- > 0;) {
                            if (++w[d] < hi[d]) {
                                more = true;
                                break;
                            }
                            w[d] = lo[d];
                        }
                    }
                    out[i] = static_cast<T>(static_cast<double>(x[i]) / std::pow(bias + scale * sum, beta));
                    for (size_t d = xs.size(); d-- > 0;) {
                        if (++idx[d] < xs[d]) break;
                        idx[d] = 0;
                    }
                }
            } else {
                throw Error("LRN needs a floating-point input", n.describe());
            }
        }, false);
        return std::vector<Tensor>{y};
    });
}

// NormalizeL2-1: x / sqrt(sum of x^2 over `axes` + eps) (eps_mode add) or / sqrt(max(sum, eps))
// (eps_mode max). Empty axes normalise each element by itself (sum = x^2), as the spec says.
void infer_normalize_l2(InferContext& c) {
    const std::string mode = c.attr<std::string>("eps_mode");
    if (mode != "add" && mode != "max") c.fail("unknown eps_mode '" + mode + "'", "use add or max");
    infer_data_and_axes(c, true);
}

std::vector<Tensor> eval_normalize_l2(const Node& n, const std::vector<Tensor>& inputs) {
    const Shape& xs = inputs.at(0).shape();
    const auto rank = static_cast<int64_t>(xs.size());
    const double eps = n.attr<double>("eps");
    const bool add = n.attr<std::string>("eps_mode") == "add";
    std::vector<bool> reduced(xs.size(), false);
    for (int64_t axis : inputs.at(1).to_i64()) {
        if (axis < -rank || axis >= rank) throw Error("axis out of range", n.describe());
        reduced[static_cast<size_t>(normalize_axis(axis, rank))] = true;
    }
    // Each element's sum lives at its index with the reduced axes set to 0.
    const auto strides = row_major_strides(xs);
    const int64_t total = shape_size(xs);
    std::vector<int64_t> group(static_cast<size_t>(total));
    std::vector<int64_t> idx(xs.size(), 0);
    for (int64_t i = 0; i < total; ++i) {
        int64_t off = 0;
        for (size_t d = 0; d < xs.size(); ++d) off += reduced[d] ? 0 : idx[d] * strides[d];
        group[static_cast<size_t>(i)] = off;
        for (size_t d = xs.size(); d-- > 0;) {
            if (++idx[d] < xs[d]) break;
            idx[d] = 0;
        }
    }
    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        Tensor y = Tensor::allocate(in[0].type(), xs);
        dispatch_type(in[0].type(), [&]<typename T>() {
            if constexpr (std::is_floating_point_v<T>) {
                const T* x = in[0].data<T>();
                T* out = y.mutable_data<T>();
                std::vector<double> sum(static_cast<size_t>(total), 0.0);
                for (int64_t i = 0; i < total; ++i)
                    sum[static_cast<size_t>(group[static_cast<size_t>(i)])] += static_cast<double>(x[i]) * static_cast<double>(x[i]);
                for (int64_t i = 0; i < total; ++i) {
                    const double s = sum[static_cast<size_t>(group[static_cast<size_t>(i)])];
                    out[i] = static_cast<T>(static_cast<double>(x[i]) / std::sqrt(add ? s + eps : std::max(s, eps)));
                }
            } else {
                throw Error("NormalizeL2 needs a floating-point input", n.describe());
            }
        }, false);
        return std::vector<Tensor>{y};
    });
}

}  // namespace

void register_normalization_ops(OpRegistry& r) {
    r.add(OpSchema{
        .type = "BatchNormInference", .ir_type = "BatchNormInference", .ir_version = "opset5",
        .min_inputs = 5, .max_inputs = 5, .num_outputs = 1,
        .attrs = {{"epsilon", AttrKind::Float, {}}},
        .infer = infer_batch_norm,
        .eval = eval_batch_norm,
    });
    // eps_mode uses the runtime's enum table spelling (upper case), see ir-format.md §6.
    r.add(OpSchema{
        .type = "MVN", .ir_type = "MVN", .ir_version = "opset6",
        .min_inputs = 2, .max_inputs = 2, .num_outputs = 1,
        .attrs = {
            {"eps", AttrKind::Float, {}},
            {"normalize_variance", AttrKind::Bool, {}},
            {"eps_mode", AttrKind::String, {}},
        },
        .infer = infer_mvn,
        .eval = eval_mvn,
    });
    r.add(OpSchema{
        .type = "LRN", .ir_type = "LRN", .ir_version = "opset1",
        .min_inputs = 2, .max_inputs = 2, .num_outputs = 1,
        .attrs = {
            {"alpha", AttrKind::Float, {}},
            {"beta", AttrKind::Float, {}},
            {"bias", AttrKind::Float, {}},
            {"size", AttrKind::Int, {}},
        },
        .infer = infer_lrn,
        .eval = eval_lrn,
    });
    r.add(OpSchema{
        .type = "NormalizeL2", .ir_type = "NormalizeL2", .ir_version = "opset1",
        .min_inputs = 2, .max_inputs = 2, .num_outputs = 1,
        .attrs = {
            {"eps", AttrKind::Float, {}},
            {"eps_mode", AttrKind::String, {}},
        },
        .infer = infer_normalize_l2,
        .eval = eval_normalize_l2,
    });
}

}  // namespace mo
