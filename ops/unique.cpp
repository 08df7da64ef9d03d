// Unique-10: the distinct elements of a tensor (no axis: of the flattened tensor) or its distinct
// slices along a constant axis. Outputs: the unique values, the index of each one's first
// occurrence, for every input element (slice) the position of its value in the first output, and
// the count of each unique value. `sorted` orders them ascending (slices lexicographically in
// row-major order), otherwise in order of first occurrence. Output sizes depend on the data:
// inference gives intervals unless the data is constant.
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

bool is_index_type(ElementType t) { return t == ElementType::i32 || t == ElementType::i64; }

// The axis input: one i32/i64 value. Absent: nullopt.
std::optional<int64_t> axis_value(const Tensor& axis, const std::string& where) {
    if (axis.empty()) return std::nullopt;
    if (!is_index_type(axis.type())) throw Error("the axis input of Unique must be i32 or i64", where);
    if (axis.size() != 1 || axis.shape().size() > 1)
        throw Error("the axis input of Unique must be a scalar or a 1D tensor of one element", where);
    return axis.to_i64()[0];
}

std::vector<Tensor> eval_unique(const Node& n, const std::vector<Tensor>& in) {
    const Tensor& x = in.at(0);
    const Shape& shape = x.shape();
    const ElementType index_type = n.attr<ElementType>("index_element_type");
    const ElementType count_type = n.attr<ElementType>("count_element_type");
    if (!is_index_type(index_type) || !is_index_type(count_type))
        throw Error("index_element_type and count_element_type of Unique must be i32 or i64", n.describe());
    const std::optional<int64_t> axis_in = axis_value(in.size() > 1 ? in[1] : Tensor(), n.describe());
    const bool sorted = n.attr<bool>("sorted");

    // The input as `extent` slices; slice j is element (o, j, i) for every outer o, inner i.
    int64_t outer = 1, extent = shape_size(shape), inner = 1;
    size_t axis = 0;
    if (axis_in) {
        axis = static_cast<size_t>(normalize_axis(*axis_in, static_cast<int64_t>(shape.size())));
        outer = shape_size(Shape(shape.begin(), shape.begin() + axis));
        extent = shape[axis];
        inner = shape_size(Shape(shape.begin() + axis + 1, shape.end()));
    }
    std::vector<int64_t> first, counts, inverse(static_cast<size_t>(extent));
    Tensor values;
    dispatch_type(x.type(), [&]<typename T>() {
        const T* d = x.data<T>();
        auto at = [&](int64_t slice, int64_t k) { return d[((k / inner) * extent + slice) * inner + k % inner]; };
        const int64_t len = outer * inner;
        auto less = [&](int64_t a, int64_t b) {
            for (int64_t k = 0; k < len; ++k) {
                if (at(a, k) < at(b, k)) return true;
                if (at(b, k) < at(a, k)) return false;
            }
            return false;
        };
        auto equal = [&](int64_t a, int64_t b) {
            for (int64_t k = 0; k < len; ++k)
                if (!(at(a, k) == at(b, k))) return false;
            return true;
        };
        if (sorted) {
            // Stable: the first of each run of equal slices is its first occurrence.
            std::vector<int64_t> order(static_cast<size_t>(extent));
            std::iota(order.begin(), order.end(), int64_t(0));
            std::stable_sort(order.begin(), order.end(), less);
            for (int64_t j : order) {
                if (first.empty() || !equal(first.back(), j)) {
                    first.push_back(j);
                    counts.push_back(0);
                }
                inverse[size_t(j)] = int64_t(first.size()) - 1;
                ++counts.back();
            }
        } else {
            std::map<int64_t, int64_t, decltype(less)> seen(less);  // slice -> position in `first`
            for (int64_t j = 0; j < extent; ++j) {
                auto [it, fresh] = seen.emplace(j, int64_t(first.size()));
                if (fresh) {
                    first.push_back(j);
                    counts.push_back(0);
                }
                inverse[size_t(j)] = it->second;
                ++counts[size_t(it->second)];
            }
        }
        Shape out_shape = axis_in ? shape : Shape{};
        if (axis_in) out_shape[axis] = int64_t(first.size());
        else out_shape = {int64_t(first.size())};
        values = Tensor::allocate(x.type(), out_shape);
        T* v = values.mutable_data<T>();
        const int64_t u = int64_t(first.size());
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < u; ++j)
                for (int64_t i = 0; i < inner; ++i) v[(o * u + j) * inner + i] = d[(o * extent + first[size_t(j)]) * inner + i];
    });
    auto typed = [](const std::vector<int64_t>& v, ElementType t) {
        return Tensor::from_vector<int64_t>(v, {int64_t(v.size())}).convert(t);
    };
    return {values, typed(first, index_type), typed(inverse, index_type), typed(counts, count_type)};
}

// 0 or 1 .. n unique values out of n (none only when n can be 0).
Dimension unique_count(const Dimension& n) { return Dimension(n.min() > 0 ? 1 : 0, n.max()); }

void infer_unique(InferContext& c) {
    const ElementType index_type = c.attr<ElementType>("index_element_type");
    const ElementType count_type = c.attr<ElementType>("count_element_type");
    if (!is_index_type(index_type)) c.fail("index_element_type must be i32 or i64, got " + std::string(ir_name(index_type)));
    if (!is_index_type(count_type)) c.fail("count_element_type must be i32 or i64, got " + std::string(ir_name(count_type)));
    const ElementType type = c.in_type(0);
    const bool has_axis = c.has_input(1);
    if (has_axis) {
        const ElementType at = c.in_type(1);
        if (at != ElementType::dynamic && !is_index_type(at))
            c.fail("the axis input must be i32 or i64, got " + std::string(ir_name(at)));
        if (!c.in_value(1)) c.fail("the axis input of Unique must be a constant", "fold it to a Constant");
    }
    // Constant data: the exact result.
    if (c.in_value(0)) {
        std::vector<Tensor> in{c.in_value(0)->aligned()};
        if (has_axis) in.push_back(c.in_value(1)->aligned());
        std::vector<Tensor> out;
        try {
            out = c.node.op().eval(c.node, in);
        } catch (const Error& e) {
            c.fail(e.what_part(), e.hint());
        }
        for (size_t j = 0; j < 4; ++j) c.set_output(j, out[j].type(), PartialShape(out[j].shape()));
        return;
    }
    const PartialShape& shape = c.in_shape(0);
    Dimension slices;  // how many elements or slices are compared
    PartialShape values = PartialShape::dynamic_rank();
    if (!has_axis) {
        if (shape.rank_is_static()) {
            slices = 1;
            for (const Dimension& d : shape.dims()) slices = slices * d;
        }
        values = PartialShape{unique_count(slices)};
    } else {
        const std::optional<int64_t> axis = axis_value(*c.in_value(1), c.node.describe());
        if (shape.rank_is_static()) {
            int64_t a = 0;
            try {
                a = normalize_axis(*axis, static_cast<int64_t>(shape.rank()));
            } catch (const Error& e) {
                c.fail(e.what_part());
            }
            slices = shape[size_t(a)];
            values = shape;
            values[size_t(a)] = unique_count(slices);
        }
    }
    c.set_output(0, type, values);
    c.set_output(1, index_type, PartialShape{unique_count(slices)});
    c.set_output(2, index_type, PartialShape{slices});
    c.set_output(3, count_type, PartialShape{unique_count(slices)});
}

}  // namespace

void register_unique_ops(OpRegistry& r) {
    OpSchema s = make_schema("Unique", "Unique", "opset10", 1, 2, 4,
                             {{"sorted", AttrKind::Bool, true},
                              {"index_element_type", AttrKind::Type, ElementType::i64},
                              {"count_element_type", AttrKind::Type, ElementType::i64}});
    s.infer = infer_unique;
    s.eval = half_via_f32(eval_unique);
    r.add(std::move(s));
}

}  // namespace mo
