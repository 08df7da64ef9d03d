// Shape-manipulation ops, part 3: indexing and generation. Gather, GatherElements, GatherND,
// ScatterUpdate, ScatterElementsUpdate, ScatterNDUpdate, NonZero, OneHot, Range,
// ReverseSequence. Data moves byte-wise; only reductions and comparisons dispatch on the type.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/shape_ops_common.hpp"

namespace mo {

using namespace shape_ops;

namespace {

int64_t product(const Shape& s, size_t from, size_t to) {
    int64_t p = 1;
    for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
    return p;
}

// Dims [from, to) of a partial shape (rank must be static).
std::vector<Dimension> dims_range(const PartialShape& s, size_t from, size_t to) {
    return {s.dims().begin() + static_cast<std::ptrdiff_t>(from), s.dims().begin() + static_cast<std::ptrdiff_t>(to)};
}

void check_index_type(const InferContext& c, size_t i) {
    const ElementType t = c.in_type(i);
    if (t != ElementType::dynamic && !is_integral(t))
        c.fail("input " + std::to_string(i) + " must be of an integer type, it is " + std::string(ir_name(t)));
}

// ---- Gather ---------------------------------------------------------------------------------

struct GatherAxes {
    size_t axis, batch_dims;
};

GatherAxes gather_axes(const Node& n, int64_t axis, size_t data_rank, size_t indices_rank) {
    int64_t b = n.attr<int64_t>("batch_dims");
    if (b < 0) b += static_cast<int64_t>(indices_rank);
    const auto a = static_cast<size_t>(axis_of(n, axis, static_cast<int64_t>(data_rank)));
    if (b < 0 || static_cast<size_t>(b) > std::min(data_rank, indices_rank) || static_cast<size_t>(b) > a)
        fail(n, "batch_dims " + std::to_string(n.attr<int64_t>("batch_dims")) + " is out of range (axis " + std::to_string(a) + ")");
    return {a, static_cast<size_t>(b)};
}

void infer_gather(InferContext& c) {
    check_index_type(c, 1);
    const PartialShape &data = c.in_shape(0), &indices = c.in_shape(1);
    auto axis = const_scalar(c, 2);
    if (!data.rank_is_static() || !indices.rank_is_static() || !axis) {
        if (data.rank_is_static() && indices.rank_is_static() && data.rank() > 0) {
            int64_t b = c.attr<int64_t>("batch_dims");
            if (b < 0) b += static_cast<int64_t>(indices.rank());
            c.set_output(0, c.in_type(0), PartialShape::dynamic(data.rank() + indices.rank() - 1 - static_cast<size_t>(std::max<int64_t>(b, 0))));
        } else {
            c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
        }
        return;
    }
    auto [a, b] = gather_axes(c.node, *axis, data.rank(), indices.rank());
    std::vector<Dimension> out = dims_range(data, 0, a);
    for (size_t i = 0; i < b; ++i) {
        if (!out[i].compatible(indices[i]))
            c.fail("batch dims of data " + data.to_string() + " and indices " + indices.to_string() + " differ");
        out[i] = Dimension::merge(out[i], indices[i]);
    }
    for (size_t i = b; i < indices.rank(); ++i) out.push_back(indices[i]);
    for (size_t i = a + 1; i < data.rank(); ++i) out.push_back(data[i]);
    c.set_output(0, c.in_type(0), out);
}

std::vector<Tensor> eval_gather(const Node& n, const std::vector<Tensor>& in) {
    const Shape &ds = in[0].shape(), &is = in[1].shape();
    if (in[2].size() != 1) fail(n, "the axis must be a single value");
    auto [a, b] = gather_axes(n, in[2].to_i64()[0], ds.size(), is.size());
    for (size_t i = 0; i < b; ++i)
        if (ds[i] != is[i]) fail(n, "batch dims of data and indices differ");
    Shape out_shape(ds.begin(), ds.begin() + static_cast<std::ptrdiff_t>(a));
    out_shape.insert(out_shape.end(), is.begin() + static_cast<std::ptrdiff_t>(b), is.end());
    out_shape.insert(out_shape.end(), ds.begin() + static_cast<std::ptrdiff_t>(a) + 1, ds.end());
    const auto indices = in[1].to_i64();
    const size_t esize = element_bytes(in[0].type());
    const int64_t batches = product(ds, 0, b), outer = product(ds, b, a), dim = ds[a];
    const int64_t inner_bytes = product(ds, a + 1, ds.size()) * static_cast<int64_t>(esize);
    const int64_t per_batch = product(is, b, is.size());
    Tensor out = Tensor::allocate(in[0].type(), out_shape);  // zero-filled: out-of-range indices give zeros
    std::byte* dst = out.mutable_data<std::byte>();
    const std::byte* src = in[0].bytes();
    for (int64_t batch = 0; batch < batches; ++batch)
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < per_batch; ++j) {
                int64_t idx = indices[batch * per_batch + j];
                if (idx < 0) idx += dim;
                if (idx < 0 || idx >= dim) { dst += inner_bytes; continue; }
                std::memcpy(dst, src + ((batch * outer + o) * dim + idx) * inner_bytes, static_cast<size_t>(inner_bytes));
                dst += inner_bytes;
            }
    return {out};
}

// ---- GatherElements -------------------------------------------------------------------------

void infer_gather_elements(InferContext& c) {
    check_index_type(c, 1);
    const PartialShape &data = c.in_shape(0), &indices = c.in_shape(1);
    if (!data.rank_is_static() || !indices.rank_is_static()) {
        c.set_output(0, c.in_type(0), indices.rank_is_static() ? indices : data.rank_is_static() ? PartialShape::dynamic(data.rank()) : indices);
        return;
    }
    if (data.rank() != indices.rank() || data.rank() == 0)
        c.fail("data " + data.to_string() + " and indices " + indices.to_string() + " must have the same non-zero rank");
    const auto a = static_cast<size_t>(axis_of(c.node, c.attr<int64_t>("axis"), static_cast<int64_t>(data.rank())));
    PartialShape out = indices;
    for (size_t i = 0; i < data.rank(); ++i) {
        if (i == a) continue;
        if (!data[i].compatible(indices[i])) c.fail("data " + data.to_string() + " and indices " + indices.to_string() + " differ outside the axis");
        out[i] = Dimension::merge(data[i], indices[i]);
    }
    c.set_output(0, c.in_type(0), out);
}

int64_t checked_index(const Node& n, int64_t idx, int64_t dim) {
    const int64_t original = idx;
    if (idx < 0) idx += dim;
    if (idx < 0 || idx >= dim) fail(n, "index " + std::to_string(original) + " is out of range for a dim of " + std::to_string(dim));
    return idx;
}

// Offsets in data of each element of an indices-shaped tensor: its own coordinates with the one
// on axis `a` replaced by its index (GatherElements reads there, ScatterElementsUpdate writes).
std::vector<int64_t> element_offsets(const Node& n, const Shape& ds, const Shape& is, size_t a, const std::vector<int64_t>& indices) {
    const auto ds_strides = row_major_strides(ds), is_strides = row_major_strides(is);
    std::vector<int64_t> targets(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
        const int64_t idx = checked_index(n, indices[k], ds[a]);
        int64_t offset = 0, rest = static_cast<int64_t>(k);
        for (size_t d = 0; d < is.size(); ++d) {
            const int64_t coord = rest / is_strides[d];
            rest %= is_strides[d];
            offset += (d == a ? idx : coord) * ds_strides[d];
        }
        targets[k] = offset;
    }
    return targets;
}

std::vector<Tensor> eval_gather_elements(const Node& n, const std::vector<Tensor>& in) {
    const Shape &ds = in[0].shape(), &is = in[1].shape();
    if (ds.size() != is.size() || ds.empty()) fail(n, "data and indices must have the same non-zero rank");
    const auto a = static_cast<size_t>(axis_of(n, n.attr<int64_t>("axis"), static_cast<int64_t>(ds.size())));
    for (size_t i = 0; i < ds.size(); ++i)
        if (i != a && ds[i] != is[i]) fail(n, "data and indices differ outside the axis");
    const auto map = element_offsets(n, ds, is, a, in[1].to_i64());
    Tensor out = Tensor::allocate(in[0].type(), is);
    gather_elements_bytes(out.mutable_data<std::byte>(), in[0].bytes(), element_bytes(in[0].type()), map);
    return {out};
}

// ---- GatherND -------------------------------------------------------------------------------

void infer_gather_nd(InferContext& c) {
    check_index_type(c, 1);
    const PartialShape &data = c.in_shape(0), &indices = c.in_shape(1);
    const auto b = static_cast<size_t>(std::max<int64_t>(c.attr<int64_t>("batch_dims"), 0));
    if (!data.rank_is_static() || !indices.rank_is_static() || indices.rank() == 0 || indices[indices.rank() - 1].is_dynamic()) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
        return;
    }
    const int64_t k = indices[indices.rank() - 1].get_length();
    if (b >= std::min(data.rank(), indices.rank()) || b + static_cast<size_t>(k) > data.rank())
        c.fail("indices " + indices.to_string() + " with batch_dims " + std::to_string(b) + " do not fit data " + data.to_string());
    std::vector<Dimension> out = dims_range(indices, 0, indices.rank() - 1);
    for (size_t i = 0; i < b; ++i) {
        if (!out[i].compatible(data[i])) c.fail("batch dims of data " + data.to_string() + " and indices " + indices.to_string() + " differ");
        out[i] = Dimension::merge(out[i], data[i]);
    }
    for (size_t i = b + static_cast<size_t>(k); i < data.rank(); ++i) out.push_back(data[i]);
    c.set_output(0, c.in_type(0), out);
}

std::vector<Tensor> eval_gather_nd(const Node& n, const std::vector<Tensor>& in) {
    const Shape &ds = in[0].shape(), &is = in[1].shape();
    const auto b = static_cast<size_t>(std::max<int64_t>(n.attr<int64_t>("batch_dims"), 0));
    if (is.empty() || b >= std::min(ds.size(), is.size())) fail(n, "indices do not fit the data");
    const auto k = static_cast<size_t>(is.back());
    if (b + k > ds.size()) fail(n, "indices do not fit the data");
    for (size_t i = 0; i < b; ++i)
        if (ds[i] != is[i]) fail(n, "batch dims of data and indices differ");
    Shape out_shape(is.begin(), is.end() - 1);
    out_shape.insert(out_shape.end(), ds.begin() + static_cast<std::ptrdiff_t>(b + k), ds.end());
    const auto indices = in[1].to_i64();
    const auto strides = row_major_strides(ds);
    const size_t esize = element_bytes(in[0].type());
    const int64_t slice_bytes = product(ds, b + k, ds.size()) * static_cast<int64_t>(esize);
    const int64_t batches = product(is, 0, b), per_batch = product(is, b, is.size() - 1);
    const int64_t batch_stride = b > 0 ? strides[b - 1] : 0;
    Tensor out = Tensor::allocate(in[0].type(), out_shape);
    std::byte* dst = out.mutable_data<std::byte>();
    for (int64_t batch = 0; batch < batches; ++batch)
        for (int64_t j = 0; j < per_batch; ++j) {
            const int64_t* tuple = indices.data() + (batch * per_batch + j) * static_cast<int64_t>(k);
            int64_t offset = batch * batch_stride;
            for (size_t d = 0; d < k; ++d) {
                int64_t idx = tuple[d];
                if (idx < 0) idx += ds[b + d];
                if (idx < 0 || idx >= ds[b + d]) fail(n, "index " + std::to_string(tuple[d]) + " is out of range for a dim of " + std::to_string(ds[b + d]));
                offset += idx * strides[b + d];
            }
            std::memcpy(dst, in[0].bytes() + offset * static_cast<int64_t>(esize), static_cast<size_t>(slice_bytes));
            dst += slice_bytes;
        }
    return {out};
}

// ---- Scatter family -------------------------------------------------------------------------

void infer_same_as_data(InferContext& c) {
    check_index_type(c, 1);
    c.set_output(0, c.in_type(0), c.in_shape(0));
}

// Copy of the data tensor that the scatter ops then update in place.
Tensor copy_of(const Tensor& t) {
    Tensor out = Tensor::allocate(t.type(), t.shape());
    if (t.byte_size() > 0) std::memcpy(out.mutable_data<std::byte>(), t.bytes(), t.byte_size());
    return out;
}

std::vector<Tensor> eval_scatter_update(const Node& n, const std::vector<Tensor>& in) {
    const Shape &ds = in[0].shape(), &is = in[1].shape(), &us = in[2].shape();
    if (in[3].size() != 1) fail(n, "the axis must be a single value");
    if (in[2].type() != in[0].type()) fail(n, "updates must have the data type");
    const auto a = static_cast<size_t>(axis_of(n, in[3].to_i64()[0], static_cast<int64_t>(ds.size())));
    Shape expected(ds.begin(), ds.begin() + static_cast<std::ptrdiff_t>(a));
    expected.insert(expected.end(), is.begin(), is.end());
    expected.insert(expected.end(), ds.begin() + static_cast<std::ptrdiff_t>(a) + 1, ds.end());
    if (us != expected) fail(n, "updates must have the shape data[:axis] + indices + data[axis+1:]");
    const auto indices = in[1].to_i64();
    const size_t esize = element_bytes(in[0].type());
    const int64_t outer = product(ds, 0, a), inner_bytes = product(ds, a + 1, ds.size()) * static_cast<int64_t>(esize);
    const auto count = static_cast<int64_t>(indices.size());
    Tensor out = copy_of(in[0]);
    std::byte* dst = out.mutable_data<std::byte>();
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < count; ++j) {
            const int64_t idx = checked_index(n, indices[j], ds[a]);
            std::memcpy(dst + (o * ds[a] + idx) * inner_bytes, in[2].bytes() + (o * count + j) * inner_bytes, static_cast<size_t>(inner_bytes));
        }
    return {out};
}

std::vector<Tensor> eval_scatter_nd_update(const Node& n, const std::vector<Tensor>& in) {
    const Shape &ds = in[0].shape(), &is = in[1].shape(), &us = in[2].shape();
    if (is.empty() || static_cast<size_t>(is.back()) > ds.size()) fail(n, "the last indices dim must not exceed the data rank");
    if (in[2].type() != in[0].type()) fail(n, "updates must have the data type");
    const auto k = static_cast<size_t>(is.back());
    Shape expected(is.begin(), is.end() - 1);
    expected.insert(expected.end(), ds.begin() + static_cast<std::ptrdiff_t>(k), ds.end());
    if (us != expected) fail(n, "updates must have the shape indices[:-1] + data[indices.shape[-1]:]");
    const auto indices = in[1].to_i64();
    const auto strides = row_major_strides(ds);
    const size_t esize = element_bytes(in[0].type());
    const int64_t slice_bytes = product(ds, k, ds.size()) * static_cast<int64_t>(esize);
    const int64_t tuples = product(is, 0, is.size() - 1);
    Tensor out = copy_of(in[0]);
    for (int64_t j = 0; j < tuples; ++j) {
        int64_t offset = 0;
        for (size_t d = 0; d < k; ++d) offset += checked_index(n, indices[j * static_cast<int64_t>(k) + d], ds[d]) * strides[d];
        std::memcpy(out.mutable_data<std::byte>() + offset * static_cast<int64_t>(esize), in[2].bytes() + j * slice_bytes, static_cast<size_t>(slice_bytes));
    }
    return {out};
}

enum class Reduction { none, sum, prod, min, max, mean };

Reduction reduction_of(const Node& n) {
    static const std::pair<const char*, Reduction> table[] = {{"none", Reduction::none}, {"sum", Reduction::sum},
                                                              {"prod", Reduction::prod}, {"min", Reduction::min},
                                                              {"max", Reduction::max}, {"mean", Reduction::mean}};
    const auto name = n.attr<std::string>("reduction");
    for (const auto& [spelling, r] : table)
        if (name == spelling) return r;
    fail(n, "unknown reduction '" + name + "'", "use none, sum, prod, min, max or mean");
}

void infer_scatter_elements(InferContext& c) {
    reduction_of(c.node);
    infer_same_as_data(c);
}

template <typename T>
void scatter_reduce(T* out, const T* updates, const std::vector<int64_t>& targets, Reduction r, bool use_init, bool is_bool) {
    std::vector<int64_t> counts;
    if (r == Reduction::mean) counts.assign(targets.size() ? static_cast<size_t>(*std::max_element(targets.begin(), targets.end()) + 1) : 0, 0);
    if (!use_init) {
        // Touched elements start from the reduction's identity instead of the data value.
        for (int64_t t : targets) {
            switch (r) {
            case Reduction::sum: case Reduction::mean: out[t] = T(0); break;
            case Reduction::prod: out[t] = T(1); break;
            case Reduction::min: out[t] = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max(); break;
            case Reduction::max: out[t] = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest(); break;
            case Reduction::none: break;
            }
        }
    } else if (r == Reduction::mean) {
        for (int64_t t : targets) counts[t] = 1;
    }
    for (size_t k = 0; k < targets.size(); ++k) {
        T& o = out[targets[k]];
        const T u = updates[k];
        switch (r) {
        case Reduction::none: o = u; break;
        case Reduction::sum: case Reduction::mean: o = is_bool ? T(o || u) : wrapping_add(o, u); break;
        case Reduction::prod: o = is_bool ? T(o && u) : wrapping_mul(o, u); break;
        case Reduction::min: o = std::min(o, u); break;
        case Reduction::max: o = std::max(o, u); break;
        }
        if (r == Reduction::mean) ++counts[targets[k]];
    }
    if (r == Reduction::mean)
        for (size_t t = 0; t < counts.size(); ++t) {
            if (counts[t] == 0) continue;
            if constexpr (std::is_floating_point_v<T>) out[t] = out[t] / static_cast<T>(counts[t]);
            else out[t] = static_cast<T>(std::floor(static_cast<double>(out[t]) / static_cast<double>(counts[t])));  // towards -inf
        }
}

std::vector<Tensor> eval_scatter_elements(const Node& n, const std::vector<Tensor>& inputs) {
    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        const Shape &ds = in[0].shape(), &is = in[1].shape();
        if (in[3].size() != 1) fail(n, "the axis must be a single value");
        if (in[2].shape() != is) fail(n, "updates must have the shape of indices");
        if (in[2].type() != in[0].type()) fail(n, "updates must have the data type");
        if (is.size() != ds.size()) fail(n, "indices must have the data rank");
        const auto a = static_cast<size_t>(axis_of(n, in[3].to_i64()[0], static_cast<int64_t>(ds.size())));
        for (size_t d = 0; d < ds.size(); ++d)
            if (d != a && is[d] > ds[d]) fail(n, "indices exceed the data outside the axis");
        const auto targets = element_offsets(n, ds, is, a, in[1].to_i64());
        const Reduction r = reduction_of(n);
        const bool is_bool = in[0].type() == ElementType::boolean;
        if (is_bool && r == Reduction::mean) fail(n, "reduction mean is not defined for boolean data");
        Tensor out = copy_of(in[0]);
        dispatch_type(in[0].type(), [&]<typename T>() {
            scatter_reduce<T>(out.mutable_data<T>(), in[2].data<T>(), targets, r, n.attr<bool>("use_init_val"), is_bool);
        });
        return std::vector<Tensor>{out};
    });
}

// ---- NonZero --------------------------------------------------------------------------------

ElementType index_type_attr(const Node& n) {
    auto t = n.attr<ElementType>("output_type");
    if (t != ElementType::i64 && t != ElementType::i32) fail(n, "output_type must be i64 or i32, it is " + std::string(ir_name(t)));
    return t;
}

void infer_non_zero(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    const ElementType t = index_type_attr(c.node);
    if (!in.rank_is_static()) {
        c.set_output(0, t, PartialShape{Dimension::dynamic(), Dimension::dynamic()});
        return;
    }
    Dimension count(0, Dimension::kUnbounded);
    if (in.is_static()) count = Dimension(0, shape_size(in.to_shape()));
    // A scalar behaves as a 1-element 1-D tensor.
    c.set_output(0, t, PartialShape{static_cast<int64_t>(std::max<size_t>(in.rank(), 1)), count});
}

std::vector<Tensor> eval_non_zero(const Node& n, const std::vector<Tensor>& inputs) {
    Tensor data = inputs[0];
    if (data.type() == ElementType::f16 || data.type() == ElementType::bf16) data = data.convert(ElementType::f32);
    const Shape& s = data.shape();
    std::vector<int64_t> positions;
    dispatch_type(data.type(), [&]<typename T>() {
        const T* v = data.data<T>();
        for (size_t i = 0; i < data.size(); ++i)
            if (v[i] != T(0)) positions.push_back(static_cast<int64_t>(i));
    });
    const size_t rank = std::max<size_t>(s.size(), 1);
    const auto count = static_cast<int64_t>(positions.size());
    std::vector<int64_t> out(rank * positions.size());
    const auto strides = row_major_strides(s.empty() ? Shape{1} : s);
    for (size_t j = 0; j < positions.size(); ++j) {
        int64_t rest = positions[j];
        for (size_t d = 0; d < rank; ++d) {
            out[d * positions.size() + j] = rest / strides[d];
            rest %= strides[d];
        }
    }
    return {Tensor::from_vector<int64_t>(out, {static_cast<int64_t>(rank), count}).convert(index_type_attr(n))};
}

// ---- OneHot ---------------------------------------------------------------------------------

void infer_one_hot(InferContext& c) {
    check_index_type(c, 0);
    const PartialShape& in = c.in_shape(0);
    const ElementType t = c.in_type(2);
    if (c.in_type(3) != ElementType::dynamic && t != ElementType::dynamic && c.in_type(3) != t)
        c.fail("on_value and off_value must have the same type");
    if (!in.rank_is_static()) {
        c.set_output(0, t, PartialShape::dynamic_rank());
        return;
    }
    const auto rank = static_cast<int64_t>(in.rank()) + 1;
    const auto a = static_cast<size_t>(axis_of(c.node, c.attr<int64_t>("axis"), rank));
    Dimension depth = Dimension::dynamic();
    if (auto d = const_scalar(c, 1)) {
        if (*d < 0) c.fail("depth must not be negative, it is " + std::to_string(*d));
        depth = *d;
    } else if (auto b = input_bounds(c, 1); b && b->size() == 1) {
        depth = (*b)[0];
    }
    std::vector<Dimension> out = in.dims();
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(a), depth);
    c.set_output(0, t, out);
}

std::vector<Tensor> eval_one_hot(const Node& n, const std::vector<Tensor>& in) {
    const Shape& s = in[0].shape();
    if (in[1].size() != 1 || in[2].size() != 1 || in[3].size() != 1) fail(n, "depth, on_value and off_value must be scalars");
    if (in[2].type() != in[3].type()) fail(n, "on_value and off_value must have the same type");
    const int64_t depth = in[1].to_i64()[0];
    if (depth < 0) fail(n, "depth must not be negative");
    const auto a = static_cast<size_t>(axis_of(n, n.attr<int64_t>("axis"), static_cast<int64_t>(s.size()) + 1));
    Shape out_shape = s;
    out_shape.insert(out_shape.begin() + static_cast<std::ptrdiff_t>(a), depth);
    const auto indices = in[0].to_i64();
    const size_t esize = element_bytes(in[2].type());
    const int64_t outer = product(s, 0, a), inner = product(s, a, s.size());
    Tensor out = Tensor::allocate(in[2].type(), out_shape);
    std::byte* dst = out.mutable_data<std::byte>();
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t d = 0; d < depth; ++d)
            for (int64_t i = 0; i < inner; ++i) {
                const bool hot = indices[o * inner + i] == d;  // out-of-range (and negative) indices are all off
                std::memcpy(dst, (hot ? in[2] : in[3]).bytes(), esize);
                dst += esize;
            }
    return {out};
}

// ---- Range ----------------------------------------------------------------------------------

// Range-4 values in the output type's accumulation type: integer outputs truncate the inputs
// first, float outputs compute in double.
struct RangeParams {
    double start, stop, step;
};

RangeParams range_params(const Node& n, ElementType out, double start, double stop, double step) {
    if (is_integral(out)) {
        start = std::trunc(start);
        stop = std::trunc(stop);
        step = std::trunc(step);
    }
    if (step == 0) fail(n, "the step is 0");
    if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step)) fail(n, "start, stop and step must be finite");
    return {start, stop, step};
}

// An integer range's length, exact: the bounds are read as int64, not through a double, which
// holds integers exactly only up to 2^53.
int64_t integer_range_length(int64_t start, int64_t stop, int64_t step) {
    const __int128 span = __int128{stop} - start;
    if (step > 0) return span > 0 ? fit_int64((span + step - 1) / step, "the range's length") : 0;
    return span < 0 ? fit_int64((span + step + 1) / step, "the range's length") : 0;
}

int64_t range_length(const Node& n, const RangeParams& p) {
    const double count = std::ceil((p.stop - p.start) / p.step);  // infinite when stop - start is
    if (!(count < 0x1p63)) fail(n, "the range has more elements than int64 counts");
    return count > 0 ? static_cast<int64_t>(count) : 0;
}

ElementType range_type(const Node& n) {
    const auto t = n.attr<ElementType>("output_type");
    if (!is_integral(t) && !is_float(t)) fail(n, "output_type must be a numeric type, it is " + std::string(ir_name(t)));
    return t;
}

void infer_range(InferContext& c) {
    const ElementType t = range_type(c.node);
    for (size_t i = 0; i < 3; ++i) {
        const PartialShape& s = c.in_shape(i);
        if (s.rank_is_static() && (s.rank() > 1 || (s.rank() == 1 && s[0] != Dimension(1))))
            c.fail("start, stop and step must be scalars");
    }
    const Tensor *start = c.in_value(0), *stop = c.in_value(1), *step = c.in_value(2);
    if (start && stop && step && start->size() == 1 && stop->size() == 1 && step->size() == 1) {
        auto p = range_params(c.node, t, start->to_f64()[0], stop->to_f64()[0], step->to_f64()[0]);
        c.set_output(0, t, PartialShape{is_integral(t) ? integer_range_length(start->to_i64()[0], stop->to_i64()[0], step->to_i64()[0])
                                                       : range_length(c.node, p)});
        return;
    }
    // Range(0, ShapeOf(x)[1], 1) (position ids): the length follows the bounds of stop.
    auto start_b = input_bounds(c, 0), stop_b = input_bounds(c, 1), step_b = input_bounds(c, 2);
    if (start_b && stop_b && step_b && start_b->size() == 1 && stop_b->size() == 1 && step_b->size() == 1 &&
        (*start_b)[0].is_static() && (*step_b)[0].is_static() && (*step_b)[0].get_length() > 0) {
        const int64_t first = (*start_b)[0].get_length(), step = (*step_b)[0].get_length();
        const Dimension& stop = (*stop_b)[0];
        auto length = [&](int64_t end) {
            const __int128 count = (__int128{end} - first + step - 1) / step;
            return count > 0 ? fit_int64(count, "the range's length") : 0;
        };
        c.set_output(0, t, PartialShape{Dimension(length(stop.min()), stop.max() == Dimension::kUnbounded ? Dimension::kUnbounded : length(stop.max()))});
        return;
    }
    c.set_output(0, t, PartialShape{Dimension::dynamic()});
}

std::vector<Tensor> eval_range(const Node& n, const std::vector<Tensor>& in) {
    const ElementType t = range_type(n);
    for (size_t i = 0; i < 3; ++i)
        if (in[i].size() != 1) fail(n, "start, stop and step must be scalars");
    auto p = range_params(n, t, in[0].to_f64()[0], in[1].to_f64()[0], in[2].to_f64()[0]);
    const int64_t start = in[0].to_i64()[0], step = in[2].to_i64()[0];
    const int64_t len = is_integral(t) ? integer_range_length(start, in[1].to_i64()[0], step) : range_length(n, p);
    if (len > (int64_t{1} << 31)) fail(n, "the range has " + std::to_string(len) + " elements: too many to evaluate");
    if (is_integral(t)) {
        std::vector<int64_t> v(static_cast<size_t>(len));
        for (int64_t i = 0; i < len; ++i) v[i] = static_cast<int64_t>(start + __int128{i} * step);  // within [start, stop)
        return {Tensor::from_vector<int64_t>(v, {len}).convert(t)};
    }
    std::vector<double> v(static_cast<size_t>(len));
    for (int64_t i = 0; i < len; ++i) v[i] = p.start + static_cast<double>(i) * p.step;
    return {Tensor::from_vector<double>(v, {len}).convert(t)};
}

// ---- ReverseSequence ------------------------------------------------------------------------

void infer_reverse_sequence(InferContext& c) {
    check_index_type(c, 1);
    const PartialShape& in = c.in_shape(0);
    if (in.rank_is_static()) {
        if (in.rank() < 2) c.fail("the data must have rank 2 or more, it is " + in.to_string());
        axis_of(c.node, c.attr<int64_t>("batch_axis"), static_cast<int64_t>(in.rank()));
        axis_of(c.node, c.attr<int64_t>("seq_axis"), static_cast<int64_t>(in.rank()));
    }
    c.set_output(0, c.in_type(0), in);
}

std::vector<Tensor> eval_reverse_sequence(const Node& n, const std::vector<Tensor>& in) {
    const Shape& s = in[0].shape();
    if (s.size() < 2) fail(n, "the data must have rank 2 or more");
    const auto batch_axis = static_cast<size_t>(axis_of(n, n.attr<int64_t>("batch_axis"), static_cast<int64_t>(s.size())));
    const auto seq_axis = static_cast<size_t>(axis_of(n, n.attr<int64_t>("seq_axis"), static_cast<int64_t>(s.size())));
    const auto lengths = in[1].to_i64();
    if (static_cast<int64_t>(lengths.size()) != s[batch_axis]) fail(n, "seq_lengths must have one value per batch");
    const auto strides = row_major_strides(s);
    std::vector<int64_t> map(static_cast<size_t>(shape_size(s)));
    for (size_t k = 0; k < map.size(); ++k) {
        const int64_t b = static_cast<int64_t>(k) / strides[batch_axis] % s[batch_axis];
        const int64_t t = static_cast<int64_t>(k) / strides[seq_axis] % s[seq_axis];
        const int64_t len = lengths[b];
        if (len < 0 || len > s[seq_axis]) fail(n, "seq_lengths value " + std::to_string(len) + " is out of range");
        const int64_t src_t = t < len ? len - 1 - t : t;
        map[k] = static_cast<int64_t>(k) + (src_t - t) * strides[seq_axis];
    }
    Tensor out = Tensor::allocate(in[0].type(), s);
    gather_elements_bytes(out.mutable_data<std::byte>(), in[0].bytes(), element_bytes(in[0].type()), map);
    return {out};
}

}  // namespace

void register_gather_ops(OpRegistry& r) {
    r.add({.type = "Gather", .ir_type = "Gather", .ir_version = "opset8", .min_inputs = 3, .max_inputs = 3,
           .attrs = {{"batch_dims", AttrKind::Int, int64_t{0}}}, .infer = infer_gather, .eval = eval_gather});
    r.add({.type = "GatherElements", .ir_type = "GatherElements", .ir_version = "opset6", .min_inputs = 2, .max_inputs = 2,
           .attrs = {{"axis", AttrKind::Int, {}}}, .infer = infer_gather_elements, .eval = eval_gather_elements});
    r.add({.type = "GatherND", .ir_type = "GatherND", .ir_version = "opset8", .min_inputs = 2, .max_inputs = 2,
           .attrs = {{"batch_dims", AttrKind::Int, int64_t{0}}}, .infer = infer_gather_nd, .eval = eval_gather_nd});
    r.add({.type = "ScatterUpdate", .ir_type = "ScatterUpdate", .ir_version = "opset3", .min_inputs = 4, .max_inputs = 4,
           .infer = infer_same_as_data, .eval = eval_scatter_update});
    r.add({.type = "ScatterElementsUpdate", .ir_type = "ScatterElementsUpdate", .ir_version = "opset12", .min_inputs = 4, .max_inputs = 4,
           .attrs = {{"reduction", AttrKind::String, std::string("none")}, {"use_init_val", AttrKind::Bool, true}},
           .infer = infer_scatter_elements, .eval = eval_scatter_elements});
    r.add({.type = "ScatterNDUpdate", .ir_type = "ScatterNDUpdate", .ir_version = "opset4", .min_inputs = 3, .max_inputs = 3,
           .infer = infer_same_as_data, .eval = eval_scatter_nd_update});
    r.add({.type = "NonZero", .ir_type = "NonZero", .ir_version = "opset3", .min_inputs = 1, .max_inputs = 1,
           .attrs = {{"output_type", AttrKind::Type, ElementType::i64}}, .infer = infer_non_zero, .eval = eval_non_zero});
    r.add({.type = "OneHot", .ir_type = "OneHot", .ir_version = "opset1", .min_inputs = 4, .max_inputs = 4,
           .attrs = {{"axis", AttrKind::Int, {}}}, .infer = infer_one_hot, .eval = eval_one_hot});
    r.add({.type = "Range", .ir_type = "Range", .ir_version = "opset4", .min_inputs = 3, .max_inputs = 3,
           .attrs = {{"output_type", AttrKind::Type, {}}}, .infer = infer_range, .eval = eval_range});
    r.add({.type = "ReverseSequence", .ir_type = "ReverseSequence", .ir_version = "opset1", .min_inputs = 2, .max_inputs = 2,
           .attrs = {{"batch_axis", AttrKind::Int, int64_t{0}}, {"seq_axis", AttrKind::Int, int64_t{1}}},
           .infer = infer_reverse_sequence, .eval = eval_reverse_sequence});
}

}  // namespace mo
