// Shape-manipulation ops, part 1: the shared helpers (partial values, byte-wise data movement)
// and Reshape, Squeeze, Unsqueeze, ShapeOf, Transpose, Concat, Split, VariadicSplit.
// Parts 2 and 3 are shape_ops_slice.cpp and shape_ops_gather.cpp.
#include "ops/ops.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

#include "ops/shape_ops_common.hpp"

namespace mo {
namespace shape_ops {

void fail(const Node& n, const std::string& what, const std::string& hint) { throw Error(what, n.describe(), hint); }

int64_t axis_of(const Node& n, int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= rank)
        fail(n, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

std::optional<std::vector<int64_t>> const_ints(const InferContext& c, size_t i) {
    const Tensor* t = c.in_value(i);
    if (!t) return std::nullopt;
    return t->to_i64();
}

std::optional<int64_t> const_scalar(const InferContext& c, size_t i) {
    auto v = const_ints(c, i);
    if (!v) return std::nullopt;
    if (v->size() != 1) c.fail("input " + std::to_string(i) + " must hold exactly one value, it holds " + std::to_string(v->size()));
    return (*v)[0];
}

namespace {

using Bounds = std::vector<ValueElement>;
constexpr int kMaxBoundsDepth = 10;  // shape sub-graphs are shallow; this also caps fan-out cost
constexpr size_t kMaxBoundsElements = 1024;

std::optional<Bounds> bounds_of(const OutPort& p, int depth);

std::optional<Bounds> input_bounds_at(const Node& n, size_t i, int depth) {
    if (i >= n.input_count() || !n.in(i).connected()) return std::nullopt;
    return bounds_of(n.in(i).src(), depth + 1);
}

std::optional<std::vector<int64_t>> input_consts(const Node& n, size_t i) {
    if (i >= n.input_count() || !n.in(i).connected()) return std::nullopt;
    const Tensor* t = n.in(i).value();
    if (!t) return std::nullopt;
    return t->to_i64();
}

// Element-wise arithmetic on bounds with numpy broadcasting of 1-element operands.
std::optional<Bounds> arithmetic_bounds(const Node& n, int depth) {
    auto a = input_bounds_at(n, 0, depth), b = input_bounds_at(n, 1, depth);
    if (!a || !b) return std::nullopt;
    if (a->size() != b->size() && a->size() != 1 && b->size() != 1) return std::nullopt;
    size_t count = std::max(a->size(), b->size());
    Bounds out;
    for (size_t i = 0; i < count; ++i) {
        const Dimension& x = (*a)[a->size() == 1 ? 0 : i].bounds;
        const Dimension& y = (*b)[b->size() == 1 ? 0 : i].bounds;
        if (n.is("Add")) out.push_back({x + y});
        else if (n.is("Multiply")) out.push_back({x * y});
        else if (x.is_static() && y.is_static()) {
            int64_t u = x.get_length(), v = y.get_length();
            if (n.is("Subtract")) out.push_back({u - v});
            else if (n.is("Divide") && u >= 0 && v > 0) out.push_back({u / v});  // floor == trunc here
            else return std::nullopt;
        } else {
            out.push_back({Dimension::dynamic()});
        }
    }
    return out;
}

std::optional<Bounds> gather_bounds(const Node& n, int depth) {
    auto data = input_bounds_at(n, 0, depth);
    auto indices = input_consts(n, 1);
    auto axis = input_consts(n, 2);
    if (!data || !indices || !axis || axis->size() != 1) return std::nullopt;
    if (((*axis)[0] != 0 && (*axis)[0] != -1) || n.attr<int64_t>("batch_dims") != 0) return std::nullopt;
    if (n.in(0).shape().rank_is_static() && n.in(0).shape().rank() != 1) return std::nullopt;
    Bounds out;
    const auto size = static_cast<int64_t>(data->size());
    for (int64_t i : *indices) {
        if (i < -size || i >= size) return std::nullopt;
        out.push_back((*data)[i < 0 ? i + size : i]);
    }
    return out;
}

// Slice / StridedSlice of a 1-D tensor with constant parameters (no new/shrink/ellipsis axes).
std::optional<Bounds> slice_bounds(const Node& n, int depth) {
    auto data = input_bounds_at(n, 0, depth);
    auto start = input_consts(n, 1), stop = input_consts(n, 2);
    if (!data || !start || !stop || start->size() != 1 || stop->size() != 1) return std::nullopt;
    int64_t step = 1;
    bool ignore_begin = false, ignore_end = false;
    if (n.is("Slice")) {
        auto s = input_consts(n, 3);
        if (!s || s->size() != 1) return std::nullopt;
        step = (*s)[0];
        if (auto axes = input_consts(n, 4); axes && (axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1)))
            return std::nullopt;
    } else {
        if (n.input_count() > 3 && n.in(3).connected()) {
            auto s = input_consts(n, 3);
            if (!s || s->size() != 1) return std::nullopt;
            step = (*s)[0];
        }
        auto flag = [&](const char* name) {
            auto m = n.attr<std::vector<int64_t>>(name);
            return !m.empty() && m[0] != 0;
        };
        if (flag("new_axis_mask") || flag("ellipsis_mask")) return std::nullopt;
        if (flag("shrink_axis_mask")) {  // tf.shape(x)[i]: one element
            const auto size = static_cast<int64_t>(data->size());
            const int64_t i = (*start)[0] < 0 ? (*start)[0] + size : (*start)[0];
            if (i < 0 || i >= size) return std::nullopt;
            return Bounds{(*data)[i]};
        }
        ignore_begin = flag("begin_mask");
        ignore_end = flag("end_mask");
    }
    if (step == 0) return std::nullopt;
    const auto size = static_cast<int64_t>(data->size());
    int64_t first = (*start)[0], last = (*stop)[0];
    if (step > 0) {
        if (ignore_begin) first = 0;
        if (ignore_end) last = size;
        if (first < 0) first += size;
        if (last < 0) last += size;
        first = std::clamp<int64_t>(first, 0, size);
        last = std::clamp<int64_t>(last, 0, size);
    } else {
        if (ignore_begin) first = size - 1;
        if (ignore_end) last = -1;
        else if (last < 0) last = std::max<int64_t>(last + size, -1);
        if (first < 0) first += size;
        first = std::clamp<int64_t>(first, -1, size - 1);
        last = std::clamp<int64_t>(last, -1, size - 1);
    }
    Bounds out;
    for (int64_t i = first; step > 0 ? i < last : i > last; i += step) out.push_back((*data)[i]);
    return out;
}

std::optional<Bounds> bounds_of(const OutPort& p, int depth) {
    if (const Tensor* t = p.value()) {
        // Shape-like tensors are small; a large constant is data, not a shape.
        if (!is_integral(t->type()) || t->shape().size() > 1 || t->size() > kMaxBoundsElements) return std::nullopt;
        Bounds out;
        for (int64_t v : t->to_i64()) out.push_back({v});
        return out;
    }
    if (depth > kMaxBoundsDepth) return std::nullopt;
    const Node n = p.node();
    if (n.is("ShapeOf")) {
        const PartialShape& s = n.in(0).shape();
        if (!s.rank_is_static()) return std::nullopt;
        Bounds out;
        for (size_t i = 0; i < s.rank(); ++i) out.push_back({s[i], n.in(0).src(), i});
        return out;
    }
    if (n.is("Convert") || n.is("Squeeze") || n.is("Unsqueeze") || n.is("Reshape")) return input_bounds_at(n, 0, depth);
    if (n.is("Concat")) {
        Bounds out;
        for (size_t i = 0; i < n.input_count(); ++i) {
            auto b = input_bounds_at(n, i, depth);
            if (!b) return std::nullopt;
            out.insert(out.end(), b->begin(), b->end());
        }
        return out;
    }
    if (n.is("Gather")) return gather_bounds(n, depth);
    if (n.is("Slice") || n.is("StridedSlice")) return slice_bounds(n, depth);
    if (n.is("Add") || n.is("Multiply") || n.is("Subtract") || n.is("Divide")) return arithmetic_bounds(n, depth);
    return std::nullopt;
}

}  // namespace

std::optional<std::vector<ValueElement>> value_elements(const OutPort& p) { return bounds_of(p, 0); }

std::optional<std::vector<Dimension>> value_bounds(const OutPort& p) {
    auto elements = bounds_of(p, 0);
    if (!elements) return std::nullopt;
    std::vector<Dimension> dims;
    for (const auto& e : *elements) dims.push_back(e.bounds);
    return dims;
}

std::optional<std::vector<Dimension>> input_bounds(const InferContext& c, size_t i) {
    if (!c.has_input(i)) return std::nullopt;
    return value_bounds(c.node.in(i).src());
}

PartialShape shape_from_input(const InferContext& c, size_t i) {
    if (auto b = input_bounds(c, i)) {
        for (auto& d : *b) {
            if (d.is_static() && d.get_length() < 0)
                c.fail("input " + std::to_string(i) + " gives a negative dimension " + std::to_string(d.get_length()));
            if (d.min() < 0) d = Dimension(0, d.max());
        }
        return PartialShape(*b);
    }
    const PartialShape& s = c.in_shape(i);
    if (s.rank_is_static() && s.rank() == 1 && s[0].is_static()) return PartialShape::dynamic(s[0].get_length());
    if (s.rank_is_static() && s.rank() == 0) return PartialShape::dynamic(1);
    return PartialShape::dynamic_rank();
}

size_t element_bytes(ElementType t) {
    size_t bits = bit_width(t);
    if (bits == 0 || bits % 8 != 0)
        throw Error("evaluation of " + std::string(ir_name(t)) + " tensors is not supported by shape ops");
    return bits / 8;
}

namespace {

// The copy loop with the element size known at compile time; contiguous innermost runs are
// copied in one memcpy.
template <size_t Size>
void strided_copy_fixed(std::byte* out, const std::byte* in, size_t esize, const Shape& out_shape,
                        const std::vector<int64_t>& in_strides, int64_t base) {
    const size_t rank = out_shape.size();
    const int64_t inner = rank ? out_shape.back() : 1, inner_stride = rank ? in_strides.back() : 0;
    const int64_t rows = inner ? shape_size(out_shape) / inner : 0;
    const auto width = static_cast<int64_t>(Size ? Size : esize);
    std::vector<int64_t> idx(rank ? rank - 1 : 0, 0);
    int64_t offset = base;
    for (int64_t r = 0; r < rows; ++r) {
        if (inner_stride == 1) {
            std::memcpy(out, in + offset * width, static_cast<size_t>(inner * width));
            out += inner * width;
        } else {
            for (int64_t k = 0; k < inner; ++k, out += width)
                std::memcpy(out, in + (offset + k * inner_stride) * width, Size ? Size : esize);
        }
        for (size_t d = idx.size(); d-- > 0;) {
            if (++idx[d] < out_shape[d]) {
                offset += in_strides[d];
                break;
            }
            offset -= in_strides[d] * (out_shape[d] - 1);
            idx[d] = 0;
        }
    }
}

}  // namespace

void strided_copy(std::byte* out, const std::byte* in, size_t esize, const Shape& out_shape,
                  const std::vector<int64_t>& in_strides, int64_t base) {
    if (shape_size(out_shape) == 0) return;
    switch (esize) {
    case 1: return strided_copy_fixed<1>(out, in, esize, out_shape, in_strides, base);
    case 2: return strided_copy_fixed<2>(out, in, esize, out_shape, in_strides, base);
    case 4: return strided_copy_fixed<4>(out, in, esize, out_shape, in_strides, base);
    case 8: return strided_copy_fixed<8>(out, in, esize, out_shape, in_strides, base);
    default: return strided_copy_fixed<0>(out, in, esize, out_shape, in_strides, base);
    }
}

void gather_elements_bytes(std::byte* out, const std::byte* in, size_t esize, const std::vector<int64_t>& map) {
    for (size_t i = 0; i < map.size(); ++i) std::memcpy(out + i * esize, in + map[i] * static_cast<int64_t>(esize), esize);
}

}  // namespace shape_ops

using namespace shape_ops;

namespace {

// ---- Reshape --------------------------------------------------------------------------------

// Output shape of Reshape-1: 0 copies the input dim when special_zero, one -1 is inferred.
// `data` is the data input's source: target elements that are ShapeOf(data)[k] cancel dim k
// when -1 is inferred, so a dynamic dim on both sides does not make -1 dynamic.
PartialShape reshape_shape(const Node& n, const PartialShape& in, const std::vector<ValueElement>& target, bool special_zero,
                           const std::optional<OutPort>& data = std::nullopt) {
    const size_t in_rank = in.rank_is_static() ? in.rank() : 0;
    std::vector<Dimension> out(target.size());
    std::vector<bool> in_cancelled(in_rank, false), out_cancelled(target.size(), false);
    auto cancel = [&](size_t in_dim, size_t out_dim) {
        if (in_dim >= in_rank || in_cancelled[in_dim]) return;
        in_cancelled[in_dim] = out_cancelled[out_dim] = true;
    };
    int64_t minus_one = -1;
    for (size_t i = 0; i < target.size(); ++i) {
        const Dimension& t = target[i].bounds;
        if (!t.is_static()) {
            out[i] = Dimension(std::max<int64_t>(t.min(), 0), t.max());
            if (data && target[i].dim_of && *target[i].dim_of == *data && in.rank_is_static() && target[i].dim < in_rank) {
                out[i] = in[target[i].dim];
                cancel(target[i].dim, i);
            }
            continue;
        }
        int64_t v = t.get_length();
        if (v == -1) {
            if (minus_one >= 0) fail(n, "the target shape has more than one -1");
            minus_one = static_cast<int64_t>(i);
        } else if (v == 0 && special_zero) {
            if (!in.rank_is_static()) continue;  // stays dynamic
            if (i >= in.rank()) fail(n, "special_zero copies dimension " + std::to_string(i) + " of an input of rank " + std::to_string(in.rank()));
            out[i] = in[i];
            cancel(i, i);
        } else if (v < 0) {
            fail(n, "the target shape has the invalid value " + std::to_string(v));
        } else {
            out[i] = v;
        }
    }
    if (minus_one >= 0) {
        // -1 = (input dims not cancelled) / (other output dims not cancelled): static when both are.
        bool known = in.rank_is_static();
        Shape in_dims, out_dims;
        for (size_t i = 0; i < in_rank && known; ++i) {
            if (in_cancelled[i]) continue;
            if (in[i].is_dynamic()) known = false;
            else in_dims.push_back(in[i].get_length());
        }
        for (size_t i = 0; i < out.size() && known; ++i) {
            if (static_cast<int64_t>(i) == minus_one || out_cancelled[i]) continue;
            if (out[i].is_dynamic()) known = false;
            else out_dims.push_back(out[i].get_length());
        }
        if (known) {
            int64_t in_size = 0, out_size = 0;
            try {
                in_size = shape_size(in_dims);
                out_size = shape_size(out_dims);
            } catch (const Error& e) {  // dims whose product overflows 64 bits
                fail(n, e.what_part(), e.hint());
            }
            if (out_size == 0) {
                if (in_size != 0) fail(n, "cannot infer -1: the other target dims multiply to 0");
                out[minus_one] = 0;
            } else {
                if (in_size % out_size != 0)
                    fail(n, "cannot reshape " + in.to_string() + " to " + PartialShape(out).to_string(),
                         "the element counts do not match");
                out[minus_one] = in_size / out_size;
            }
        } else {
            out[minus_one] = Dimension::dynamic();
        }
    }
    PartialShape result(out);
    if (in.is_static() && result.is_static() && shape_size(in.to_shape()) != shape_size(result.to_shape()))
        fail(n, "cannot reshape " + in.to_string() + " to " + result.to_string(), "the element counts do not match");
    return result;
}

std::vector<ValueElement> as_elements(const std::vector<int64_t>& v) {
    std::vector<ValueElement> out;
    for (int64_t x : v) out.push_back({x});
    return out;
}

void infer_reshape(InferContext& c) {
    const bool special_zero = c.attr<bool>("special_zero");
    if (auto elements = c.has_input(1) ? value_elements(c.node.in(1).src()) : std::nullopt) {
        c.set_output(0, c.in_type(0), reshape_shape(c.node, c.in_shape(0), *elements, special_zero, c.node.in(0).src()));
        return;
    }
    const PartialShape& s = c.in_shape(1);
    if (s.rank_is_static() && s.rank() > 1) c.fail("the target shape must be 1-D, it is " + s.to_string());
    if (s.rank_is_static() && s.rank() == 1 && s[0].is_static()) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic(s[0].get_length()));
        return;
    }
    c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
}

std::vector<Tensor> eval_reshape(const Node& n, const std::vector<Tensor>& in) {
    auto out = reshape_shape(n, in[0].shape(), as_elements(in[1].to_i64()), n.attr<bool>("special_zero"));
    return {in[0].reshaped(out.to_shape())};
}

// ---- Squeeze / Unsqueeze --------------------------------------------------------------------

// Squeeze-1: without axes every dim of 1 goes (a dynamic dim that may be 1 makes the rank
// unknown); listed axes go when they are 1 or dynamic (taken to be 1), others stay.
PartialShape squeeze_shape(const Node& n, const PartialShape& in, const std::optional<std::vector<int64_t>>& axes) {
    if (!in.rank_is_static()) return PartialShape::dynamic_rank();
    const auto rank = static_cast<int64_t>(in.rank());
    std::vector<bool> drop(in.rank(), false);
    if (!axes || axes->empty()) {
        for (size_t i = 0; i < in.rank(); ++i) {
            const Dimension& d = in[i];
            if (d.is_static()) drop[i] = d.get_length() == 1;
            else if (d.min() <= 1 && (d.max() == Dimension::kUnbounded || d.max() >= 1)) return PartialShape::dynamic_rank();
        }
    } else {
        for (int64_t a : *axes) {
            auto i = static_cast<size_t>(axis_of(n, a, rank));
            const Dimension& d = in[i];
            drop[i] = !d.is_static() || d.get_length() == 1;  // a dim that is not 1 stays (spec since 2024.3)
        }
    }
    std::vector<Dimension> out;
    for (size_t i = 0; i < in.rank(); ++i)
        if (!drop[i]) out.push_back(in[i]);
    return out;
}

void infer_squeeze(InferContext& c) {
    if (c.has_input(1)) {
        if (auto axes = const_ints(c, 1)) {
            c.set_output(0, c.in_type(0), squeeze_shape(c.node, c.in_shape(0), axes));
            return;
        }
        c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
        return;
    }
    c.set_output(0, c.in_type(0), squeeze_shape(c.node, c.in_shape(0), std::nullopt));
}

std::vector<Tensor> eval_squeeze(const Node& n, const std::vector<Tensor>& in) {
    std::optional<std::vector<int64_t>> axes;
    if (in.size() > 1 && !in[1].empty()) axes = in[1].to_i64();
    return {in[0].reshaped(squeeze_shape(n, in[0].shape(), axes).to_shape())};
}

PartialShape unsqueeze_shape(const Node& n, const PartialShape& in, const std::vector<int64_t>& axes) {
    if (!in.rank_is_static()) return PartialShape::dynamic_rank();
    std::set<int64_t> unique;
    const auto rank = static_cast<int64_t>(in.rank() + axes.size());
    for (int64_t a : axes)
        if (!unique.insert(axis_of(n, a, rank)).second) fail(n, "the axes repeat axis " + std::to_string(a));
    std::vector<Dimension> out;
    size_t next = 0;
    for (int64_t i = 0; i < rank; ++i) out.push_back(unique.count(i) ? Dimension(1) : in[next++]);
    return out;
}

void infer_unsqueeze(InferContext& c) {
    if (auto axes = const_ints(c, 1)) {
        c.set_output(0, c.in_type(0), unsqueeze_shape(c.node, c.in_shape(0), *axes));
        return;
    }
    const PartialShape& in = c.in_shape(0);
    const PartialShape& a = c.in_shape(1);
    if (in.rank_is_static() && a.rank_is_static() && (a.rank() == 0 || a[0].is_static()))
        c.set_output(0, c.in_type(0), PartialShape::dynamic(in.rank() + (a.rank() == 0 ? 1 : a[0].get_length())));
    else
        c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
}

std::vector<Tensor> eval_unsqueeze(const Node& n, const std::vector<Tensor>& in) {
    return {in[0].reshaped(unsqueeze_shape(n, in[0].shape(), in[1].to_i64()).to_shape())};
}

// ---- ShapeOf --------------------------------------------------------------------------------

ElementType index_output_type(const Node& n) {
    auto t = n.attr<ElementType>("output_type");
    if (t != ElementType::i64 && t != ElementType::i32)
        fail(n, "output_type must be i64 or i32, it is " + std::string(ir_name(t)));
    return t;
}

void infer_shape_of(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    c.set_output(0, index_output_type(c.node), in.rank_is_static() ? PartialShape{static_cast<int64_t>(in.rank())}
                                                                    : PartialShape{Dimension::dynamic()});
}

std::vector<Tensor> eval_shape_of(const Node& n, const std::vector<Tensor>& in) {
    const Shape& s = in[0].shape();
    Tensor t = Tensor::from_vector<int64_t>(s, {static_cast<int64_t>(s.size())});
    return {t.convert(index_output_type(n))};
}

// ---- Transpose ------------------------------------------------------------------------------

// The axis order: empty reverses the axes; otherwise a permutation of 0..rank-1.
std::vector<int64_t> transpose_order(const Node& n, std::vector<int64_t> order, size_t rank) {
    if (order.empty()) {
        order.resize(rank);
        std::iota(order.rbegin(), order.rend(), 0);
        return order;
    }
    if (order.size() != rank)
        fail(n, "the order has " + std::to_string(order.size()) + " values for an input of rank " + std::to_string(rank));
    std::vector<bool> seen(rank, false);
    for (int64_t& a : order) {
        a = axis_of(n, a, static_cast<int64_t>(rank));
        if (seen[a]) fail(n, "the order repeats axis " + std::to_string(a));
        seen[a] = true;
    }
    return order;
}

void infer_transpose(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    auto order = const_ints(c, 1);
    if (in.rank_is_static() && order) {
        auto perm = transpose_order(c.node, *order, in.rank());
        std::vector<Dimension> out;
        for (int64_t a : perm) out.push_back(in[a]);
        c.set_output(0, c.in_type(0), out);
    } else if (in.rank_is_static()) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic(in.rank()));
    } else {
        const PartialShape& o = c.in_shape(1);
        bool len_known = o.rank_is_static() && o.rank() == 1 && o[0].is_static() && o[0].get_length() > 0;
        c.set_output(0, c.in_type(0), len_known ? PartialShape::dynamic(o[0].get_length()) : PartialShape::dynamic_rank());
    }
}

std::vector<Tensor> eval_transpose(const Node& n, const std::vector<Tensor>& in) {
    const Shape& s = in[0].shape();
    auto perm = transpose_order(n, in[1].to_i64(), s.size());
    auto strides = row_major_strides(s);
    Shape out_shape;
    std::vector<int64_t> in_strides;
    for (int64_t a : perm) {
        out_shape.push_back(s[a]);
        in_strides.push_back(strides[a]);
    }
    Tensor out = Tensor::allocate(in[0].type(), out_shape);
    strided_copy(out.mutable_data<std::byte>(), in[0].bytes(), element_bytes(in[0].type()), out_shape, in_strides, 0);
    return {out};
}

// ---- Concat ---------------------------------------------------------------------------------

void infer_concat(InferContext& c) {
    ElementType type = ElementType::dynamic;
    std::optional<PartialShape> out;
    int64_t axis = c.attr<int64_t>("axis");
    for (size_t i = 0; i < c.input_count(); ++i) {
        if (type == ElementType::dynamic) type = c.in_type(i);
        else if (c.in_type(i) != ElementType::dynamic && c.in_type(i) != type)
            c.fail("inputs have different element types (" + std::string(ir_name(type)) + ", " + std::string(ir_name(c.in_type(i))) + ")");
        const PartialShape& s = c.in_shape(i);
        if (!s.rank_is_static()) continue;
        if (s.rank() == 0) c.fail("cannot concatenate scalars", "unsqueeze them to 1-D first");
        const auto a = static_cast<size_t>(axis_of(c.node, axis, static_cast<int64_t>(s.rank())));
        if (!out) {
            out = s;
            continue;
        }
        if (out->rank() != s.rank()) c.fail("inputs have different ranks: " + out->to_string() + " and " + s.to_string());
        for (size_t d = 0; d < s.rank(); ++d) {
            if (d == a) (*out)[d] = (*out)[d] + s[d];
            else if (!(*out)[d].compatible(s[d]))
                c.fail("input shapes " + out->to_string() + " and " + s.to_string() + " differ outside the concat axis");
            else (*out)[d] = Dimension::merge((*out)[d], s[d]);
        }
    }
    if (!out) {
        c.set_output(0, type, PartialShape::dynamic_rank());
        return;
    }
    // An input of unknown rank adds an unknown length on the axis.
    for (size_t i = 0; i < c.input_count(); ++i)
        if (!c.in_shape(i).rank_is_static()) (*out)[axis_of(c.node, axis, static_cast<int64_t>(out->rank()))] = Dimension::dynamic();
    c.set_output(0, type, *out);
}

std::vector<Tensor> eval_concat(const Node& n, const std::vector<Tensor>& in) {
    Shape out_shape = in[0].shape();
    if (out_shape.empty()) fail(n, "cannot concatenate scalars");
    const auto a = static_cast<size_t>(axis_of(n, n.attr<int64_t>("axis"), static_cast<int64_t>(out_shape.size())));
    out_shape[a] = 0;
    for (const Tensor& t : in) {
        if (t.shape().size() != out_shape.size() || t.type() != in[0].type()) fail(n, "inputs differ in rank or type");
        for (size_t d = 0; d < out_shape.size(); ++d)
            if (d != a && t.shape()[d] != out_shape[d]) fail(n, "input shapes differ outside the concat axis");
        out_shape[a] += t.shape()[a];
    }
    const size_t esize = element_bytes(in[0].type());
    const int64_t outer = shape_size(Shape(out_shape.begin(), out_shape.begin() + a));
    const int64_t inner = shape_size(Shape(out_shape.begin() + a + 1, out_shape.end()));
    Tensor out = Tensor::allocate(in[0].type(), out_shape);
    std::byte* dst = out.mutable_data<std::byte>();
    const size_t out_row = static_cast<size_t>(out_shape[a] * inner) * esize;
    size_t column = 0;
    for (const Tensor& t : in) {
        const size_t row = static_cast<size_t>(t.shape()[a] * inner) * esize;
        for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + o * out_row + column, t.bytes() + o * row, row);
        column += row;
    }
    return {out};
}

// ---- Split / VariadicSplit ------------------------------------------------------------------

// Splits `t` along `axis` into pieces of the given lengths.
std::vector<Tensor> split_tensor(const Tensor& t, size_t axis, const std::vector<int64_t>& lengths) {
    const Shape& s = t.shape();
    const size_t esize = element_bytes(t.type());
    const int64_t outer = shape_size(Shape(s.begin(), s.begin() + axis));
    const int64_t inner = shape_size(Shape(s.begin() + axis + 1, s.end()));
    const size_t in_row = static_cast<size_t>(s[axis] * inner) * esize;
    std::vector<Tensor> outs;
    size_t column = 0;
    for (int64_t len : lengths) {
        Shape piece = s;
        piece[axis] = len;
        Tensor out = Tensor::allocate(t.type(), piece);
        const size_t row = static_cast<size_t>(len * inner) * esize;
        for (int64_t o = 0; o < outer; ++o) std::memcpy(out.mutable_data<std::byte>() + o * row, t.bytes() + o * in_row + column, row);
        column += row;
        outs.push_back(out);
    }
    return outs;
}

std::optional<size_t> split_axis(const InferContext& c, const PartialShape& in) {
    auto axis = const_scalar(c, 1);
    if (!axis || !in.rank_is_static()) return std::nullopt;
    return static_cast<size_t>(axis_of(c.node, *axis, static_cast<int64_t>(in.rank())));
}

void infer_split(InferContext& c) {
    const int64_t parts = c.attr<int64_t>("num_splits");
    if (parts <= 0) c.fail("num_splits must be positive, it is " + std::to_string(parts));
    if (c.node.output_count() != static_cast<size_t>(parts))
        c.fail("the node has " + std::to_string(c.node.output_count()) + " outputs but num_splits is " + std::to_string(parts));
    const PartialShape& in = c.in_shape(0);
    PartialShape out = in.rank_is_static() ? in : PartialShape::dynamic_rank();
    if (auto axis = split_axis(c, in)) {
        const Dimension& d = in[*axis];
        if (d.is_static()) {
            if (d.get_length() % parts != 0)
                c.fail("dimension " + std::to_string(d.get_length()) + " cannot be split into " + std::to_string(parts) + " equal parts");
            out[*axis] = d.get_length() / parts;
        } else {
            out[*axis] = Dimension(d.min() / parts, d.max() == Dimension::kUnbounded ? d.max() : d.max() / parts);
        }
    } else if (in.rank_is_static()) {
        out = PartialShape::dynamic(in.rank());  // the axis is unknown: any dim may be split
    }
    for (size_t j = 0; j < static_cast<size_t>(parts); ++j) c.set_output(j, c.in_type(0), out);
}

std::vector<Tensor> eval_split(const Node& n, const std::vector<Tensor>& in) {
    const int64_t parts = n.attr<int64_t>("num_splits");
    const Shape& s = in[0].shape();
    if (in[1].size() != 1) fail(n, "the axis must be a single value");
    const auto axis = static_cast<size_t>(axis_of(n, in[1].to_i64()[0], static_cast<int64_t>(s.size())));
    if (parts <= 0 || s[axis] % parts != 0) fail(n, "dimension " + std::to_string(s[axis]) + " cannot be split into " + std::to_string(parts) + " equal parts");
    return split_tensor(in[0], axis, std::vector<int64_t>(static_cast<size_t>(parts), s[axis] / parts));
}

// Resolves the one -1 of split_lengths against the axis dim (dynamic when the dim is).
std::vector<Dimension> variadic_lengths(const Node& n, const std::vector<int64_t>& lengths, const Dimension& dim) {
    std::vector<Dimension> out;
    int64_t sum = 0, minus_one = -1;
    for (size_t i = 0; i < lengths.size(); ++i) {
        if (lengths[i] == -1) {
            if (minus_one >= 0) fail(n, "split_lengths has more than one -1");
            minus_one = static_cast<int64_t>(i);
            out.emplace_back();
        } else if (lengths[i] < 0) {
            fail(n, "split_lengths has the invalid value " + std::to_string(lengths[i]));
        } else {
            if (__builtin_add_overflow(sum, lengths[i], &sum)) fail(n, "split_lengths add up to more than int64 holds");
            out.emplace_back(lengths[i]);
        }
    }
    if (dim.is_static()) {
        if (minus_one >= 0) {
            if (sum > dim.get_length()) fail(n, "split_lengths add up to more than the dimension " + std::to_string(dim.get_length()));
            out[minus_one] = dim.get_length() - sum;
        } else if (sum != dim.get_length()) {
            fail(n, "split_lengths add up to " + std::to_string(sum) + ", not to the dimension " + std::to_string(dim.get_length()));
        }
    }
    return out;
}

void infer_variadic_split(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    auto lengths = const_ints(c, 2);
    if (lengths && c.node.output_count() != lengths->size())
        c.fail("the node has " + std::to_string(c.node.output_count()) + " outputs but split_lengths has " + std::to_string(lengths->size()) + " values");
    // Lengths known only at run time still have a known count.
    const PartialShape& ls = c.in_shape(2);
    if (ls.rank_is_static() && ls.rank() == 1 && ls[0].is_static() &&
        static_cast<uint64_t>(ls[0].get_length()) != c.node.output_count())
        c.fail("the node has " + std::to_string(c.node.output_count()) + " outputs but split_lengths holds " +
               std::to_string(ls[0].get_length()) + " values");
    auto axis = split_axis(c, in);
    // Checked even without outputs: lengths that do not add up to the dim are an error.
    const std::vector<Dimension> dims = axis && lengths ? variadic_lengths(c.node, *lengths, in[*axis]) : std::vector<Dimension>{};
    for (size_t j = 0; j < c.node.output_count(); ++j) {
        PartialShape out = in.rank_is_static() ? (axis ? in : PartialShape::dynamic(in.rank())) : PartialShape::dynamic_rank();
        if (axis) out[*axis] = lengths ? dims[j] : Dimension::dynamic();
        c.set_output(j, c.in_type(0), out);
    }
}

std::vector<Tensor> eval_variadic_split(const Node& n, const std::vector<Tensor>& in) {
    const Shape& s = in[0].shape();
    if (in[1].size() != 1) fail(n, "the axis must be a single value");
    const auto axis = static_cast<size_t>(axis_of(n, in[1].to_i64()[0], static_cast<int64_t>(s.size())));
    if (in[2].size() != n.output_count())
        fail(n, "the node has " + std::to_string(n.output_count()) + " outputs but split_lengths holds " +
                    std::to_string(in[2].size()) + " values");
    auto dims = variadic_lengths(n, in[2].to_i64(), s[axis]);
    std::vector<int64_t> lengths;
    for (const auto& d : dims) lengths.push_back(d.get_length());
    return split_tensor(in[0], axis, lengths);
}

}  // namespace

void register_reshape_ops(OpRegistry& r) {
    r.add({.type = "Reshape", .ir_type = "Reshape", .ir_version = "opset1", .min_inputs = 2, .max_inputs = 2,
           .attrs = {{"special_zero", AttrKind::Bool, {}}}, .infer = infer_reshape, .eval = eval_reshape});
    r.add({.type = "Squeeze", .ir_type = "Squeeze", .ir_version = "opset1", .min_inputs = 1, .max_inputs = 2,
           .infer = infer_squeeze, .eval = eval_squeeze});
    r.add({.type = "Unsqueeze", .ir_type = "Unsqueeze", .ir_version = "opset1", .min_inputs = 2, .max_inputs = 2,
           .infer = infer_unsqueeze, .eval = eval_unsqueeze});
    r.add({.type = "ShapeOf", .ir_type = "ShapeOf", .ir_version = "opset3", .min_inputs = 1, .max_inputs = 1,
           .attrs = {{"output_type", AttrKind::Type, ElementType::i64}}, .infer = infer_shape_of, .eval = eval_shape_of});
    r.add({.type = "Transpose", .ir_type = "Transpose", .ir_version = "opset1", .min_inputs = 2, .max_inputs = 2,
           .infer = infer_transpose, .eval = eval_transpose});
    r.add({.type = "Concat", .ir_type = "Concat", .ir_version = "opset1", .min_inputs = 1, .max_inputs = SIZE_MAX,
           .attrs = {{"axis", AttrKind::Int, {}}}, .infer = infer_concat, .eval = eval_concat});
    r.add({.type = "Split", .ir_type = "Split", .ir_version = "opset1", .min_inputs = 2, .max_inputs = 2,
           .num_outputs = SIZE_MAX, .attrs = {{"num_splits", AttrKind::Int, {}}}, .infer = infer_split, .eval = eval_split});
    r.add({.type = "VariadicSplit", .ir_type = "VariadicSplit", .ir_version = "opset1", .min_inputs = 3, .max_inputs = 3,
           .num_outputs = SIZE_MAX, .infer = infer_variadic_split, .eval = eval_variadic_split});
}

void register_shape_ops(OpRegistry& r) {
    register_reshape_ops(r);
    register_slice_ops(r);
    register_gather_ops(r);
}

}  // namespace mo
