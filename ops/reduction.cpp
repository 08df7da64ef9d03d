// Ops that combine values along axes: Reduce* (data + axes input, keep_dims), Softmax,
// LogSoftmax, TopK-11 and CumSum-3. The nine reductions are one table of (name, accepted
// types, initial value, step, finish).
#include "ops/ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <type_traits>

#include "core/graph.hpp"
#include "ops/op_utils.hpp"

namespace mo {
namespace {


enum class Accepts { Numeric, Float, Boolean, Integer };

void check_type(const InferContext& c, size_t input, Accepts a) {
    ElementType t = c.in_type(input);
    if (t == ElementType::dynamic) return;
    bool ok = a == Accepts::Numeric   ? is_float(t) || is_integral(t)
              : a == Accepts::Float   ? is_float(t)
              : a == Accepts::Integer ? is_integral(t)
                                      : t == ElementType::boolean;
    static const char* names[] = {"a numeric type", "a floating-point type", "boolean", "an integer type"};
    if (!ok)
        c.fail("input " + std::to_string(input) + " has element type " + std::string(ir_name(t)) + ", expected " +
                   names[static_cast<int>(a)],
               "insert a Convert before this op");
}

// A possibly negative axis checked against a static rank, failing with the node named.
int64_t checked_axis(const InferContext& c, int64_t axis, int64_t rank) {
    try {
        return normalize_axis(axis, rank);
    } catch (const Error& e) {
        c.fail(e.what_part(), e.hint());
    }
}

int64_t eval_axis(const Node& n, int64_t axis, int64_t rank) {
    try {
        return normalize_axis(axis, rank);
    } catch (const Error& e) {
        throw Error(e.what_part(), n.describe(), e.hint());
    }
}

// A static shape seen as [outer, extent of `axis`, inner]: the loops of axis-wise ops.
struct AxisSplit {
    int64_t outer = 1, extent = 1, inner = 1;
    AxisSplit(const Shape& s, size_t axis) {
        for (size_t d = 0; d < s.size(); ++d) {
            if (d < axis) outer *= s[d];
            else if (d == axis) extent = s[d];
            else inner *= s[d];
        }
    }
    int64_t offset(int64_t o, int64_t k, int64_t i) const { return (o * extent + k) * inner + i; }
};

// ---- Reduce* ---------------------------------------------------------------------------------

enum class Reduction { Sum, Mean, Prod, Max, Min, L1, L2, LogicalAnd, LogicalOr };

struct ReduceRow {
    const char* type;
    const char* version;
    Reduction kind;
    Accepts accepts;
};

constexpr ReduceRow kReductions[] = {
    {"ReduceSum", "opset1", Reduction::Sum, Accepts::Numeric},
    {"ReduceMean", "opset1", Reduction::Mean, Accepts::Numeric},
    {"ReduceProd", "opset1", Reduction::Prod, Accepts::Numeric},
    {"ReduceMax", "opset1", Reduction::Max, Accepts::Numeric},
    {"ReduceMin", "opset1", Reduction::Min, Accepts::Numeric},
    {"ReduceL1", "opset4", Reduction::L1, Accepts::Numeric},
    {"ReduceL2", "opset4", Reduction::L2, Accepts::Numeric},
    {"ReduceLogicalAnd", "opset1", Reduction::LogicalAnd, Accepts::Boolean},
    {"ReduceLogicalOr", "opset1", Reduction::LogicalOr, Accepts::Boolean},
};

// Normalised, de-duplicated axes from an axes tensor.
template <typename Fail>
std::set<int64_t> reduce_axes(const Tensor& axes, int64_t rank, Fail&& normalize) {
    std::set<int64_t> out;
    for (int64_t a : axes.to_i64()) out.insert(normalize(a, rank));
    return out;
}

void infer_reduce(InferContext& c, Accepts accepts) {
    check_type(c, 0, accepts);
    check_type(c, 1, Accepts::Integer);
    const PartialShape& data = c.in_shape(0);
    const PartialShape& axes_shape = c.in_shape(1);
    if (axes_shape.rank_is_static() && axes_shape.rank() > 1)
        c.fail("axes must be a scalar or 1D, got shape [" + axes_shape.to_string() + "]");
    const bool keep = c.attr<bool>("keep_dims");
    const ElementType type = c.in_type(0);
    if (!data.rank_is_static()) return c.set_output(0, type, PartialShape::dynamic_rank());
    const int64_t rank = static_cast<int64_t>(data.rank());

    if (const Tensor* axes = c.in_value(1)) {
        auto reduced = reduce_axes(*axes, rank, [&](int64_t a, int64_t r) { return checked_axis(c, a, r); });
        std::vector<Dimension> dims;
        for (int64_t d = 0; d < rank; ++d) {
            if (!reduced.count(d)) dims.push_back(data[d]);
            else if (keep) dims.push_back(Dimension(1));
        }
        return c.set_output(0, type, PartialShape(dims));
    }
    // Axes unknown: with keep_dims each dim is either itself or 1; otherwise only the rank is
    // known, and only when the number of axes is.
    if (keep) {
        std::vector<Dimension> dims;
        for (const auto& d : data.dims())
            dims.push_back(d == Dimension(1) ? d : Dimension(std::min<int64_t>(d.min(), 1), d.max()));
        return c.set_output(0, type, PartialShape(dims));
    }
    if (axes_shape.is_static()) {
        int64_t count = axes_shape.rank() == 0 ? 1 : axes_shape[0].get_length();
        if (count > rank) c.fail("more axes than the data has dimensions");
        return c.set_output(0, type, PartialShape::dynamic(static_cast<size_t>(rank - count)));
    }
    c.set_output(0, type, PartialShape::dynamic_rank());
}

template <typename T>
Tensor reduce(const Tensor& x, const std::set<int64_t>& axes, bool keep, Reduction kind) {
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
    const Shape& in_shape = x.shape();
    Shape kept = in_shape, out_shape;
    int64_t count = 1;  // elements combined into each output element
    for (size_t d = 0; d < in_shape.size(); ++d) {
        if (axes.count(static_cast<int64_t>(d))) {
            kept[d] = 1;
            count *= in_shape[d];
            if (keep) out_shape.push_back(1);
        } else {
            out_shape.push_back(in_shape[d]);
        }
    }
    Acc init{};
    switch (kind) {
    case Reduction::Prod:
    case Reduction::LogicalAnd: init = Acc(1); break;
    case Reduction::Max:
        init = std::is_floating_point_v<Acc> ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::lowest();
        break;
    case Reduction::Min:
        init = std::is_floating_point_v<Acc> ? std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::max();
        break;
    default: break;
    }
    std::vector<Acc> acc(static_cast<size_t>(shape_size(kept)), init);
    const T* src = x.data<T>();
    for_each_broadcast(in_shape, in_shape, kept, [&](int64_t, int64_t ix, int64_t io) {
        const Acc v = static_cast<Acc>(src[ix]);
        Acc& a = acc[io];
        switch (kind) {
        case Reduction::Sum:
        case Reduction::Mean: a = wrapping_add(a, v); break;
        case Reduction::Prod: a = wrapping_mul(a, v); break;
        case Reduction::Max: a = std::max(a, v); break;
        case Reduction::Min: a = std::min(a, v); break;
        case Reduction::L1: a = wrapping_add(a, v < Acc(0) ? wrapping_sub(Acc(0), v) : v); break;
        case Reduction::L2: a = wrapping_add(a, wrapping_mul(v, v)); break;
        case Reduction::LogicalAnd: a = (a != Acc(0) && v != Acc(0)) ? 1 : 0; break;
        case Reduction::LogicalOr: a = (a != Acc(0) || v != Acc(0)) ? 1 : 0; break;
        }
    });
    Tensor out = Tensor::allocate(x.type(), out_shape);
    T* dst = out.mutable_data<T>();
    for (size_t i = 0; i < acc.size(); ++i) {
        Acc a = acc[i];
        if (kind == Reduction::Mean) {
            if constexpr (std::is_floating_point_v<Acc>) a = a / static_cast<Acc>(count);  // 0/0 is NaN
            else {  // count (256 for a uint8 mean) may not fit Acc: divide in 64 bits
                using Wide = std::conditional_t<std::is_signed_v<Acc>, int64_t, uint64_t>;
                a = count ? static_cast<Acc>(static_cast<Wide>(a) / static_cast<Wide>(count)) : Acc(0);
            }
        }
        if (kind == Reduction::L2) {
            if constexpr (std::is_floating_point_v<Acc>) a = std::sqrt(a);
            else a = saturate_cast<Acc>(std::round(std::sqrt(static_cast<double>(a))));
        }
        dst[i] = static_cast<T>(a);
    }
    return out;
}

OpSchema reduction(const ReduceRow& row) {
    OpSchema s = make_schema(row.type, row.type, row.version, 2, 2, 1, {{"keep_dims", AttrKind::Bool, false}});
    const Accepts accepts = row.accepts;
    const Reduction kind = row.kind;
    s.infer = [accepts](InferContext& c) { infer_reduce(c, accepts); };
    s.eval = half_via_f32([kind](const Node& n, const std::vector<Tensor>& in) {
        const Tensor& x = in.at(0);
        const int64_t rank = static_cast<int64_t>(x.shape().size());
        auto axes = reduce_axes(in.at(1), rank, [&](int64_t a, int64_t r) { return eval_axis(n, a, r); });
        const bool keep = n.attr<bool>("keep_dims");
        Tensor out = dispatch_type(x.type(), [&]<typename T>() { return reduce<T>(x, axes, keep, kind); });
        return std::vector<Tensor>{out};
    });
    return s;
}

// ---- Softmax / LogSoftmax ----------------------------------------------------------------------

OpSchema softmax(std::string type, std::string ir_type, std::string version, bool log) {
    OpSchema s = make_schema(std::move(type), std::move(ir_type), std::move(version), 1, 1, 1,
                             {{"axis", AttrKind::Int, int64_t(1)}});
    s.infer = [](InferContext& c) {
        check_type(c, 0, Accepts::Float);
        const PartialShape& data = c.in_shape(0);
        if (data.rank_is_static()) checked_axis(c, c.attr<int64_t>("axis"), static_cast<int64_t>(data.rank()));
        c.set_output(0, c.in_type(0), data);
    };
    s.eval = half_via_f32([log](const Node& n, const std::vector<Tensor>& in) {
        const Tensor& x = in.at(0);
        const Shape& shape = x.shape();
        const size_t axis = static_cast<size_t>(eval_axis(n, n.attr<int64_t>("axis"), static_cast<int64_t>(shape.size())));
        AxisSplit split(shape, axis);
        Tensor out = Tensor::allocate(x.type(), shape);
        dispatch_type(x.type(), [&]<typename T>() {
            const T* src = x.data<T>();
            T* dst = out.mutable_data<T>();
            for (int64_t o = 0; o < split.outer; ++o)
                for (int64_t i = 0; i < split.inner; ++i) {
                    // subtract the max so that exp() cannot overflow
                    double max = -std::numeric_limits<double>::infinity(), sum = 0;
                    for (int64_t k = 0; k < split.extent; ++k) max = std::max(max, double(src[split.offset(o, k, i)]));
                    for (int64_t k = 0; k < split.extent; ++k) sum += std::exp(double(src[split.offset(o, k, i)]) - max);
                    for (int64_t k = 0; k < split.extent; ++k) {
                        const double shifted = double(src[split.offset(o, k, i)]) - max;
                        dst[split.offset(o, k, i)] =
                            static_cast<T>(log ? shifted - std::log(sum) : std::exp(shifted) / sum);
                    }
                }
        }, false);
        return std::vector<Tensor>{out};
    });
    return s;
}

// ---- TopK-11 -------------------------------------------------------------------------------------

// The output extent along the axis: min(k, dim), keeping intervals.
Dimension topk_dim(const Dimension& d, const Tensor* k_value) {
    if (!k_value) return Dimension(0, d.max());
    const int64_t k = k_value->single_i64("k");
    const int64_t hi = d.max() == Dimension::kUnbounded ? k : std::min(k, d.max());
    return Dimension(std::min(k, d.min()), hi);
}

OpSchema topk() {
    OpSchema s = make_schema("TopK", "TopK", "opset11", 2, 2, 2,
                             {{"axis", AttrKind::Int, {}},
                              {"mode", AttrKind::String, {}},
                              {"sort", AttrKind::String, {}},
                              {"index_element_type", AttrKind::Type, ElementType::i32},
                              {"stable", AttrKind::Bool, false}});
    s.infer = [](InferContext& c) {
        check_type(c, 0, Accepts::Numeric);
        check_type(c, 1, Accepts::Integer);
        const auto mode = c.attr<std::string>("mode"), sort = c.attr<std::string>("sort");
        if (mode != "max" && mode != "min") c.fail("mode '" + mode + "' is not one of max, min");
        if (sort != "value" && sort != "index" && sort != "none")
            c.fail("sort '" + sort + "' is not one of value, index, none");
        if (c.attr<bool>("stable") && sort == "none")
            c.fail("stable sorting needs sort 'value' or 'index'", "set sort, or stable to false");
        const ElementType index_type = c.attr<ElementType>("index_element_type");
        if (index_type != ElementType::i32 && index_type != ElementType::i64)
            c.fail("index_element_type must be i32 or i64, got " + std::string(ir_name(index_type)));
        const PartialShape& k_shape = c.in_shape(1);
        if (k_shape.is_static() && shape_size(k_shape.to_shape()) != 1)
            c.fail("k must be a scalar, got shape [" + k_shape.to_string() + "]");
        const Tensor* k = c.in_value(1);
        if (k && (k->size() != 1 || k->to_i64()[0] < 0)) c.fail("k must be a single non-negative value");

        PartialShape out = c.in_shape(0);
        if (out.rank_is_static()) {
            if (out.rank() == 0) c.fail("data must have rank >= 1");
            const int64_t axis = checked_axis(c, c.attr<int64_t>("axis"), static_cast<int64_t>(out.rank()));
            out[static_cast<size_t>(axis)] = topk_dim(out[static_cast<size_t>(axis)], k);
        }
        c.set_output(0, c.in_type(0), out);
        c.set_output(1, index_type, out);
    };
    s.eval = half_via_f32([](const Node& n, const std::vector<Tensor>& in) {
        const Tensor &x = in.at(0), &k_tensor = in.at(1);
        const Shape& shape = x.shape();
        if (shape.empty()) throw Error("data must have rank >= 1", n.describe());
        const size_t axis = static_cast<size_t>(eval_axis(n, n.attr<int64_t>("axis"), static_cast<int64_t>(shape.size())));
        auto kv = k_tensor.to_i64();
        if (kv.size() != 1 || kv[0] < 0) throw Error("k must be a single non-negative value", n.describe());
        const bool largest = n.attr<std::string>("mode") == "max";
        const bool by_index = n.attr<std::string>("sort") == "index";
        const ElementType index_type = n.attr<ElementType>("index_element_type");
        if (index_type != ElementType::i32 && index_type != ElementType::i64)
            throw Error("index_element_type must be i32 or i64", n.describe());

        AxisSplit split(shape, axis);
        const int64_t k = std::min(kv[0], split.extent);
        Shape out_shape = shape;
        out_shape[axis] = k;
        AxisSplit out_split(out_shape, axis);
        Tensor values = Tensor::allocate(x.type(), out_shape);
        Tensor indices = Tensor::allocate(index_type, out_shape);
        dispatch_type(x.type(), [&]<typename T>() {
            const T* src = x.data<T>();
            T* vals = values.mutable_data<T>();
            std::vector<int64_t> order(static_cast<size_t>(split.extent));
            for (int64_t o = 0; o < split.outer; ++o)
                for (int64_t i = 0; i < split.inner; ++i) {
                    auto at = [&](int64_t j) { return src[split.offset(o, j, i)]; };
                    // equal values keep their original order (lower index first), so results
                    // are deterministic whether or not `stable` is set
                    auto better = [&](int64_t a, int64_t b) {
                        if (at(a) != at(b)) return largest ? at(a) > at(b) : at(a) < at(b);
                        return a < b;
                    };
                    std::iota(order.begin(), order.end(), int64_t(0));
                    std::partial_sort(order.begin(), order.begin() + k, order.end(), better);
                    if (by_index) std::sort(order.begin(), order.begin() + k);
                    for (int64_t j = 0; j < k; ++j) {
                        const int64_t dst = out_split.offset(o, j, i);
                        vals[dst] = at(order[j]);
                        if (index_type == ElementType::i32) indices.mutable_data<int32_t>()[dst] = static_cast<int32_t>(order[j]);
                        else indices.mutable_data<int64_t>()[dst] = order[j];
                    }
                }
        }, false);
        return std::vector<Tensor>{values, indices};
    });
    return s;
}

// ---- CumSum-3 ------------------------------------------------------------------------------------

OpSchema cumsum() {
    OpSchema s = make_schema("CumSum", "CumSum", "opset3", 1, 2, 1,
                             {{"exclusive", AttrKind::Bool, false}, {"reverse", AttrKind::Bool, false}});
    s.infer = [](InferContext& c) {
        check_type(c, 0, Accepts::Numeric);
        const PartialShape& data = c.in_shape(0);
        if (c.has_input(1)) {
            check_type(c, 1, Accepts::Integer);
            const PartialShape& axis_shape = c.in_shape(1);
            if (axis_shape.rank_is_static() && axis_shape.rank() != 0)
                c.fail("axis must be a scalar, got shape [" + axis_shape.to_string() + "]");
            if (const Tensor* axis = c.in_value(1); axis && data.rank_is_static())
                checked_axis(c, axis->single_i64("axis"), static_cast<int64_t>(data.rank()));
        }
        if (data.rank_is_static() && data.rank() == 0) c.fail("data must have rank >= 1");
        c.set_output(0, c.in_type(0), data);
    };
    s.eval = half_via_f32([](const Node& n, const std::vector<Tensor>& in) {
        const Tensor& x = in.at(0);
        const Shape& shape = x.shape();
        if (shape.empty()) throw Error("data must have rank >= 1", n.describe());
        int64_t axis = 0;
        if (in.size() > 1 && !in[1].empty()) {
            auto v = in[1].to_i64();
            if (v.size() != 1) throw Error("axis must be a scalar", n.describe());
            axis = v[0];
        }
        const AxisSplit split(shape, static_cast<size_t>(eval_axis(n, axis, static_cast<int64_t>(shape.size()))));
        const bool exclusive = n.attr<bool>("exclusive"), reverse = n.attr<bool>("reverse");
        Tensor out = Tensor::allocate(x.type(), shape);
        dispatch_type(x.type(), [&]<typename T>() {
            const T* src = x.data<T>();
            T* dst = out.mutable_data<T>();
            for (int64_t o = 0; o < split.outer; ++o)
                for (int64_t i = 0; i < split.inner; ++i) {
                    T sum = T(0);
                    for (int64_t step = 0; step < split.extent; ++step) {
                        const int64_t j = reverse ? split.extent - 1 - step : step;
                        const int64_t off = split.offset(o, j, i);
                        if (exclusive) {
                            dst[off] = sum;
                            sum = wrapping_add(sum, src[off]);
                        } else {
                            sum = wrapping_add(sum, src[off]);
                            dst[off] = sum;
                        }
                    }
                }
        }, false);
        return std::vector<Tensor>{out};
    });
    return s;
}

}  // namespace

void register_reduction_ops(OpRegistry& r) {
    for (const auto& row : kReductions) r.add(reduction(row));
    // OpenVINO's serializer spells Softmax "SoftMax" (shared/ir/opsets.json); the reader accepts both.
    r.add(softmax("Softmax", "SoftMax", "opset8", false));
    r.add(softmax("LogSoftmax", "LogSoftmax", "opset5", true));
    r.add(topk());
    r.add(cumsum());
}

}  // namespace mo
