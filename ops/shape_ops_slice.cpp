// Shape-manipulation ops, part 2: StridedSlice, Slice, Pad, Tile, Broadcast, DepthToSpace,
// SpaceToDepth. Slices are planned once per node (start, step and length per output axis) and
// executed as one strided copy.
#include <algorithm>
#include <cstring>
#include <set>

#include "ops/shape_ops_common.hpp"

namespace mo {

using namespace shape_ops;

namespace {

// ---- Slicing plans --------------------------------------------------------------------------

// One output axis of a slice: the input axis it walks (-1: a new axis of length 1), its first
// index and step, and its length.
struct SliceAxis {
    int64_t input_axis = -1;
    int64_t start = 0;
    int64_t step = 1;
    Dimension length = 1;
};

struct SlicePlan {
    std::vector<SliceAxis> axes;                         // output axes in order
    std::vector<std::pair<int64_t, int64_t>> shrunk;    // (input axis, index) taken by shrink_axis_mask
};

constexpr int64_t kHugeDim = int64_t{1} << 40;  // stands for "unbounded" when bounding slice lengths

// Python-style clamping of [start, stop) with `step` on a static dim (Slice-8 / StridedSlice-1).
// Returns the normalised first index and the length.
std::pair<int64_t, int64_t> slice_static(int64_t dim, int64_t start, int64_t stop, int64_t step, bool whole_start, bool whole_stop) {
    if (step > 0) {
        if (whole_start) start = 0;
        else if (start < 0) start += dim;
        if (whole_stop) stop = dim;
        else if (stop < 0) stop += dim;
        start = std::clamp<int64_t>(start, 0, dim);
        stop = std::clamp<int64_t>(stop, 0, dim);
        return {start, stop > start ? (stop - start - 1) / step + 1 : 0};  // no overflow for a huge step
    }
    if (whole_start) start = dim - 1;
    else if (start < 0) start += dim;
    if (whole_stop) stop = -1;
    else if (stop < 0) stop = std::max<int64_t>(stop + dim, -1);
    start = std::clamp<int64_t>(start, -1, dim - 1);
    stop = std::clamp<int64_t>(stop, -1, dim - 1);
    // |step| of INT64_MIN does not fit int64, and exceeds any dim: one element.
    const int64_t magnitude = step == INT64_MIN ? INT64_MAX : -step;
    return {start, start > stop ? (start - stop - 1) / magnitude + 1 : 0};
}

// Slice length on a possibly dynamic dim: static when the dim is, else an interval when the
// length grows with the dim (it does unless one bound counts from the front and the other
// from the back in the "wrong" order).
Dimension slice_length(const Dimension& dim, int64_t start, int64_t stop, int64_t step, bool whole_start, bool whole_stop) {
    if (dim.is_static()) return slice_static(dim.get_length(), start, stop, step, whole_start, whole_stop).second;
    bool start_front = !whole_start && start >= 0, stop_front = !whole_stop && stop >= 0;
    bool start_back = !whole_start && start < 0, stop_back = !whole_stop && stop < 0;
    if ((step > 0 && start_back && stop_front) || (step < 0 && start_front && stop_back)) return Dimension::dynamic();
    int64_t lo = slice_static(dim.min(), start, stop, step, whole_start, whole_stop).second;
    if (dim.max() != Dimension::kUnbounded)
        return Dimension(lo, slice_static(dim.max(), start, stop, step, whole_start, whole_stop).second);
    int64_t hi = slice_static(kHugeDim, start, stop, step, whole_start, whole_stop).second;
    return hi >= kHugeDim / 2 ? Dimension(lo, Dimension::kUnbounded) : Dimension(lo, hi);
}

SliceAxis slice_axis(const Node& n, const PartialShape& in, int64_t axis, int64_t start, int64_t stop, int64_t step,
                     bool whole_start, bool whole_stop, bool values_known) {
    if (values_known && step == 0) fail(n, "the slice step is 0");
    SliceAxis a{.input_axis = axis, .start = 0, .step = step};
    if (!values_known) {
        a.length = Dimension::dynamic();
        if (in[axis].max() != Dimension::kUnbounded) a.length = Dimension(0, in[axis].max());
        return a;
    }
    a.length = slice_length(in[axis], start, stop, step, whole_start, whole_stop);
    if (in[axis].is_static()) a.start = slice_static(in[axis].get_length(), start, stop, step, whole_start, whole_stop).first;
    return a;
}

bool mask_bit(const std::vector<int64_t>& mask, size_t i) { return i < mask.size() && mask[i] != 0; }

// StridedSlice-1: begin/end/stride (nullopt when unknown, with their length) and the masks.
SlicePlan strided_slice_plan(const Node& n, const PartialShape& in, const std::optional<std::vector<int64_t>>& begin,
                             const std::optional<std::vector<int64_t>>& end, const std::optional<std::vector<int64_t>>& stride,
                             size_t count) {
    const auto begin_mask = n.attr<std::vector<int64_t>>("begin_mask");
    const auto end_mask = n.attr<std::vector<int64_t>>("end_mask");
    const auto new_axis_mask = n.attr<std::vector<int64_t>>("new_axis_mask");
    const auto shrink_mask = n.attr<std::vector<int64_t>>("shrink_axis_mask");
    const auto ellipsis_mask = n.attr<std::vector<int64_t>>("ellipsis_mask");
    const bool known = begin && end && stride;
    const auto rank = static_cast<int64_t>(in.rank());
    int64_t consuming = 0, ellipses = 0;
    for (size_t i = 0; i < count; ++i) {
        if (mask_bit(ellipsis_mask, i)) ++ellipses;
        else if (!mask_bit(new_axis_mask, i)) ++consuming;
    }
    if (ellipses > 1) fail(n, "ellipsis_mask has more than one bit set");
    SlicePlan plan;
    int64_t axis = 0;
    auto whole = [&](int64_t ax) { plan.axes.push_back({.input_axis = ax, .start = 0, .step = 1, .length = in[ax]}); };
    for (size_t i = 0; i < count; ++i) {
        if (mask_bit(ellipsis_mask, i)) {
            const int64_t covered = rank - consuming;
            if (covered < 0) fail(n, "the slice has more entries than the input " + in.to_string() + " has axes");
            for (int64_t k = 0; k < covered; ++k) whole(axis++);
            continue;
        }
        if (mask_bit(new_axis_mask, i)) {
            plan.axes.push_back({.input_axis = -1, .start = 0, .step = 0, .length = 1});
            continue;
        }
        if (axis >= rank) fail(n, "the slice has more entries than the input " + in.to_string() + " has axes");
        if (mask_bit(shrink_mask, i)) {
            int64_t index = known ? (*begin)[i] : 0;
            if (known && in[axis].is_static()) {
                const int64_t dim = in[axis].get_length();
                if (index < -dim || index >= dim)
                    fail(n, "shrink index " + std::to_string(index) + " is out of range for axis " + std::to_string(axis) + " of " + in.to_string());
                if (index < 0) index += dim;
            }
            plan.shrunk.emplace_back(axis++, index);
            continue;
        }
        plan.axes.push_back(slice_axis(n, in, axis, known ? (*begin)[i] : 0, known ? (*end)[i] : 0, known ? (*stride)[i] : 1,
                                       mask_bit(begin_mask, i), mask_bit(end_mask, i), known));
        ++axis;
    }
    while (axis < rank) whole(axis++);
    return plan;
}

PartialShape plan_shape(const SlicePlan& plan) {
    std::vector<Dimension> dims;
    for (const auto& a : plan.axes) dims.push_back(a.length);
    return dims;
}

Tensor execute_plan(const Tensor& data, const SlicePlan& plan) {
    const auto strides = row_major_strides(data.shape());
    Shape out_shape;
    std::vector<int64_t> out_strides;
    int64_t base = 0;
    for (const auto& a : plan.axes) {
        out_shape.push_back(a.length.get_length());
        if (a.input_axis < 0) {
            out_strides.push_back(0);
        } else {
            out_strides.push_back(a.step * strides[a.input_axis]);
            base += a.start * strides[a.input_axis];
        }
    }
    for (const auto& [axis, index] : plan.shrunk) base += index * strides[axis];
    Tensor out = Tensor::allocate(data.type(), out_shape);
    strided_copy(out.mutable_data<std::byte>(), data.bytes(), element_bytes(data.type()), out_shape, out_strides, base);
    return out;
}

// Length of a 1-D parameter input when static.
std::optional<size_t> static_length(const InferContext& c, size_t i) {
    const PartialShape& s = c.in_shape(i);
    if (s.rank_is_static() && s.rank() == 1 && s[0].is_static()) return static_cast<size_t>(s[0].get_length());
    return std::nullopt;
}

void infer_strided_slice(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    auto begin = const_ints(c, 1), end = const_ints(c, 2);
    std::optional<std::vector<int64_t>> stride;
    auto count = begin ? std::optional<size_t>(begin->size()) : static_length(c, 1);
    if (!count) count = end ? std::optional<size_t>(end->size()) : static_length(c, 2);
    if (!in.rank_is_static() || !count) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
        return;
    }
    if (c.has_input(3)) stride = const_ints(c, 3);
    else stride = std::vector<int64_t>(*count, 1);
    for (const auto* v : {&begin, &end, &stride})
        if (*v && (*v)->size() != *count) c.fail("begin, end and stride must have the same length");
    c.set_output(0, c.in_type(0), plan_shape(strided_slice_plan(c.node, in, begin, end, stride, *count)));
}

std::vector<Tensor> eval_strided_slice(const Node& n, const std::vector<Tensor>& in) {
    auto begin = in[1].to_i64(), end = in[2].to_i64();
    auto stride = in.size() > 3 && !in[3].empty() ? in[3].to_i64() : std::vector<int64_t>(begin.size(), 1);
    if (end.size() != begin.size() || stride.size() != begin.size()) fail(n, "begin, end and stride must have the same length");
    return {execute_plan(in[0], strided_slice_plan(n, in[0].shape(), begin, end, stride, begin.size()))};
}

// Slice-8: start/stop/step per listed axis (all axes in order when `axes` is absent).
// start/stop/step are bounds: a stop known only as an interval (Slice(x, 0, ShapeOf(y)[1]))
// still gives an interval length.
using Values = std::optional<std::vector<Dimension>>;

Values to_values(const std::optional<std::vector<int64_t>>& v) {
    if (!v) return std::nullopt;
    return std::vector<Dimension>(v->begin(), v->end());
}

SlicePlan slice8_plan(const Node& n, const PartialShape& in, const Values& start, const Values& stop, const Values& step,
                      std::optional<std::vector<int64_t>> axes, bool axes_given) {
    const auto rank = static_cast<int64_t>(in.rank());
    SlicePlan plan;
    for (int64_t a = 0; a < rank; ++a) plan.axes.push_back({.input_axis = a, .start = 0, .step = 1, .length = in[a]});
    if (axes_given && !axes) {  // unknown axes: any axis may be sliced
        for (auto& a : plan.axes) a.length = slice_axis(n, in, a.input_axis, 0, 0, 1, false, false, false).length;
        return plan;
    }
    const bool known = start && stop && step;
    size_t count = start ? start->size() : stop ? stop->size() : step ? step->size() : axes ? axes->size() : 0;
    if (!axes) {
        if (!known && !start && !stop && !step) {  // nothing known: every axis may be sliced
            for (auto& a : plan.axes) a.length = slice_axis(n, in, a.input_axis, 0, 0, 1, false, false, false).length;
            return plan;
        }
        axes = std::vector<int64_t>(count);
        for (size_t i = 0; i < count; ++i) (*axes)[i] = static_cast<int64_t>(i);
    }
    count = axes->size();
    for (const auto* v : {&start, &stop, &step})
        if (*v && (*v)->size() != count) fail(n, "start, stop, step and axes must have the same length");
    std::set<int64_t> seen;
    for (size_t i = 0; i < count; ++i) {
        const int64_t a = axis_of(n, (*axes)[i], rank);
        if (!seen.insert(a).second) fail(n, "axes repeat axis " + std::to_string(a));
        const bool all_static = known && (*start)[i].is_static() && (*stop)[i].is_static() && (*step)[i].is_static();
        if (all_static) {
            plan.axes[a] = slice_axis(n, in, a, (*start)[i].get_length(), (*stop)[i].get_length(), (*step)[i].get_length(), false, false, true);
        } else if (known && (*start)[i].is_static() && (*step)[i].is_static() && (*start)[i].get_length() >= 0 &&
                   (*step)[i].get_length() > 0 && (*stop)[i].min() >= 0) {
            // Counting from the front with a positive step, the length grows with stop.
            const int64_t first = (*start)[i].get_length(), by = (*step)[i].get_length();
            const Dimension& last = (*stop)[i];
            const Dimension lo = slice_length(in[a], first, last.min(), by, false, false);
            const Dimension hi = slice_length(in[a], first, last.max() == Dimension::kUnbounded ? INT64_MAX : last.max(), by, false, false);
            plan.axes[a] = {.input_axis = a, .start = first, .step = by, .length = Dimension(lo.min(), hi.max())};
        } else {
            plan.axes[a] = slice_axis(n, in, a, 0, 0, 1, false, false, false);
        }
    }
    return plan;
}

void infer_slice(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    if (!in.rank_is_static()) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
        return;
    }
    if (in.rank() == 0) c.fail("cannot slice a scalar");
    c.set_output(0, c.in_type(0),
                 plan_shape(slice8_plan(c.node, in, input_bounds(c, 1), input_bounds(c, 2), input_bounds(c, 3),
                                        const_ints(c, 4), c.has_input(4))));
}

std::vector<Tensor> eval_slice(const Node& n, const std::vector<Tensor>& in) {
    if (in[0].shape().empty()) fail(n, "cannot slice a scalar");
    std::optional<std::vector<int64_t>> axes;
    const bool axes_given = in.size() > 4 && !in[4].empty();
    if (axes_given) axes = in[4].to_i64();
    return {execute_plan(in[0], slice8_plan(n, in[0].shape(), to_values(in[1].to_i64()), to_values(in[2].to_i64()), to_values(in[3].to_i64()), axes, axes_given))};
}

// ---- Pad ------------------------------------------------------------------------------------

void check_pads(const Node& n, size_t rank, const std::vector<int64_t>& begin, const std::vector<int64_t>& end) {
    if (begin.size() != rank || end.size() != rank)
        fail(n, "pads_begin and pads_end must have one value per data axis (" + std::to_string(rank) + ")");
}

// The largest pad `mode` allows on a dim of `dim`: reflect mirrors without the edge, symmetric
// with it, edge repeats an element there must be.
int64_t max_pad(const std::string& mode, int64_t dim) {
    if (mode == "reflect") return dim - 1;
    if (mode == "symmetric") return dim;
    if (mode == "edge") return dim > 0 ? INT64_MAX : 0;
    return INT64_MAX;
}

void infer_pad(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    const auto mode = c.attr<std::string>("pad_mode");
    if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "symmetric")
        c.fail("unknown pad_mode '" + mode + "'", "use constant, edge, reflect or symmetric");
    if (c.has_input(3) && mode == "constant" && c.in_shape(3).rank_is_static() && c.in_shape(3).rank() != 0)
        c.fail("pad_value must be a scalar");
    auto begin = input_bounds(c, 1), end = input_bounds(c, 2);
    if (!in.rank_is_static()) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
        return;
    }
    std::vector<Dimension> out(in.rank());
    if (begin && end) {
        if (begin->size() != in.rank() || end->size() != in.rank())
            c.fail("pads_begin and pads_end must have one value per data axis (" + std::to_string(in.rank()) + ")");
        for (size_t i = 0; i < in.rank(); ++i) {
            const Dimension &b = (*begin)[i], &e = (*end)[i];
            if (in[i].is_static() && b.is_static() && e.is_static()) {
                const int64_t limit = max_pad(mode, in[i].get_length());
                if (b.get_length() > limit || e.get_length() > limit)
                    c.fail("pads of axis " + std::to_string(i) + " are too large for pad_mode " + mode + " on a dim of " +
                           std::to_string(in[i].get_length()));
                const int64_t d = fit_int64(__int128{in[i].get_length()} + b.get_length() + e.get_length(), "the padded axis");
                if (d < 0) c.fail("pads crop axis " + std::to_string(i) + " of " + in.to_string() + " below zero");
                out[i] = d;
            } else if (b.is_static() && e.is_static() && b.get_length() >= 0 && e.get_length() >= 0) {
                out[i] = in[i] + Dimension(b.get_length()) + Dimension(e.get_length());
            }
        }
    }
    c.set_output(0, c.in_type(0), out);
}

// Source index along one axis for output index `i` (-1: the pad value).
int64_t pad_source(int64_t i, int64_t before, int64_t dim, const std::string& mode) {
    int64_t s = i - before;
    if (s >= 0 && s < dim) return s;
    if (mode == "constant") return -1;
    if (mode == "edge") return s < 0 ? 0 : dim - 1;
    if (mode == "reflect") return s < 0 ? -s : 2 * (dim - 1) - s;
    return s < 0 ? -s - 1 : 2 * dim - 1 - s;  // symmetric
}

std::vector<Tensor> eval_pad(const Node& n, const std::vector<Tensor>& in) {
    const Tensor& data = in[0];
    const Shape& s = data.shape();
    const auto begin = in[1].to_i64(), end = in[2].to_i64();
    const auto mode = n.attr<std::string>("pad_mode");
    check_pads(n, s.size(), begin, end);
    const size_t esize = element_bytes(data.type());
    std::vector<std::byte> pad_value(esize, std::byte{0});
    if (mode == "constant" && in.size() > 3 && !in[3].empty()) {
        if (in[3].size() != 1 || in[3].type() != data.type()) fail(n, "pad_value must be a scalar of the data type");
        std::memcpy(pad_value.data(), in[3].bytes(), esize);
    }
    Shape out_shape(s.size());
    std::vector<std::vector<int64_t>> source(s.size());  // per axis: output index -> input index or -1
    for (size_t a = 0; a < s.size(); ++a) {
        out_shape[a] = s[a] + begin[a] + end[a];
        if (out_shape[a] < 0) fail(n, "pads crop axis " + std::to_string(a) + " below zero");
        const int64_t limit = max_pad(mode, s[a]);
        if (begin[a] > limit || end[a] > limit)
            fail(n, "pads of axis " + std::to_string(a) + " are too large for pad_mode " + mode + " on a dim of " + std::to_string(s[a]));
        for (int64_t i = 0; i < out_shape[a]; ++i) source[a].push_back(pad_source(i, begin[a], s[a], mode));
    }
    Tensor out = Tensor::allocate(data.type(), out_shape);
    std::byte* dst = out.mutable_data<std::byte>();
    const auto strides = row_major_strides(s);
    const int64_t total = shape_size(out_shape);
    std::vector<int64_t> idx(out_shape.size(), 0);
    for (int64_t k = 0; k < total; ++k) {
        int64_t offset = 0;
        bool padded = false;
        for (size_t a = 0; a < idx.size() && !padded; ++a) {
            const int64_t src = source[a][idx[a]];
            if (src < 0) padded = true;
            else offset += src * strides[a];
        }
        std::memcpy(dst + k * esize, padded ? pad_value.data() : data.bytes() + offset * esize, esize);
        for (size_t a = idx.size(); a-- > 0;) {
            if (++idx[a] < out_shape[a]) break;
            idx[a] = 0;
        }
    }
    return {out};
}

// ---- Tile -----------------------------------------------------------------------------------

void infer_tile(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    auto repeats = input_bounds(c, 1);
    if (!in.rank_is_static()) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
        return;
    }
    if (!repeats) {
        auto len = static_length(c, 1);
        c.set_output(0, c.in_type(0), len ? PartialShape::dynamic(std::max(in.rank(), *len)) : PartialShape::dynamic_rank());
        return;
    }
    const size_t rank = std::max(in.rank(), repeats->size());
    std::vector<Dimension> out(rank);
    for (size_t i = 0; i < rank; ++i) {
        const size_t di = i + in.rank(), ri = i + repeats->size();
        Dimension d = di >= rank ? in[di - rank] : Dimension(1);
        Dimension r = ri >= rank ? (*repeats)[ri - rank] : Dimension(1);
        if (r.is_static() && r.get_length() < 0) c.fail("repeats must not be negative");
        out[i] = d * r;
    }
    c.set_output(0, c.in_type(0), out);
}

std::vector<Tensor> eval_tile(const Node& n, const std::vector<Tensor>& in) {
    Shape s = in[0].shape();
    auto repeats = in[1].to_i64();
    const size_t rank = std::max(s.size(), repeats.size());
    s.insert(s.begin(), rank - s.size(), 1);
    repeats.insert(repeats.begin(), rank - repeats.size(), 1);
    // The output [r0*d0, r1*d1, ...] is the input broadcast to [r0, d0, r1, d1, ...].
    const auto strides = row_major_strides(s);
    Shape view, out_shape;
    std::vector<int64_t> view_strides;
    for (size_t i = 0; i < rank; ++i) {
        if (repeats[i] < 0) fail(n, "repeats must not be negative");
        view.insert(view.end(), {repeats[i], s[i]});
        view_strides.insert(view_strides.end(), {0, strides[i]});
        out_shape.push_back(repeats[i] * s[i]);
    }
    Tensor out = Tensor::allocate(in[0].type(), out_shape);
    strided_copy(out.mutable_data<std::byte>(), in[0].bytes(), element_bytes(in[0].type()), view, view_strides, 0);
    return {out};
}

// ---- Broadcast ------------------------------------------------------------------------------

// For each output axis, the data axis it reads (-1: none, i.e. replicated).
std::vector<int64_t> broadcast_axis_map(const Node& n, size_t data_rank, size_t out_rank, const std::string& mode,
                                        const std::vector<int64_t>& axes_mapping) {
    std::vector<int64_t> map(out_rank, -1);
    if (mode == "explicit") {
        if (axes_mapping.size() != data_rank) fail(n, "axes_mapping must have one value per data axis (" + std::to_string(data_rank) + ")");
        int64_t previous = -1;
        for (size_t i = 0; i < data_rank; ++i) {
            const int64_t a = axes_mapping[i];
            if (a < 0 || a >= static_cast<int64_t>(out_rank) || a <= previous)
                fail(n, "axes_mapping must be increasing output axes, got " + std::to_string(a) + " at position " + std::to_string(i));
            map[a] = static_cast<int64_t>(i);
            previous = a;
        }
    } else {
        if (data_rank > out_rank) fail(n, "the data rank " + std::to_string(data_rank) + " exceeds the target rank " + std::to_string(out_rank));
        for (size_t i = 0; i < data_rank; ++i) map[out_rank - data_rank + i] = static_cast<int64_t>(i);
    }
    return map;
}

const std::string& broadcast_mode(const Node& n) {
    static const std::string modes[] = {"numpy", "explicit", "bidirectional"};
    const auto mode = n.attr<std::string>("mode");
    for (const auto& m : modes)
        if (m == mode) return m;
    fail(n, "unknown broadcast mode '" + mode + "'", "use numpy, explicit or bidirectional");
}

PartialShape broadcast_shape(const Node& n, const PartialShape& data, const PartialShape& target,
                             const std::optional<std::vector<int64_t>>& axes_mapping) {
    const std::string& mode = broadcast_mode(n);
    if (mode == "bidirectional") return broadcast_numpy(data, target);
    if (!target.rank_is_static()) return PartialShape::dynamic_rank();
    if (!data.rank_is_static() || (mode == "explicit" && !axes_mapping)) return PartialShape::dynamic(target.rank());
    auto map = broadcast_axis_map(n, data.rank(), target.rank(), mode, axes_mapping ? *axes_mapping : std::vector<int64_t>{});
    PartialShape out = target;
    for (size_t i = 0; i < map.size(); ++i) {
        if (map[i] < 0) continue;
        const Dimension& d = data[map[i]];
        if (d.is_static() && d.get_length() == 1) continue;
        if (!d.compatible(out[i]))
            fail(n, "cannot broadcast " + data.to_string() + " to " + target.to_string() + " (mode " + mode + ")");
        out[i] = Dimension::merge(d, out[i]);
    }
    return out;
}

void infer_broadcast(InferContext& c) {
    const std::string& mode = broadcast_mode(c.node);
    if (mode == "explicit" && !c.has_input(2)) c.fail("mode explicit needs the axes_mapping input");
    std::optional<std::vector<int64_t>> axes;
    if (mode == "explicit") axes = const_ints(c, 2);
    c.set_output(0, c.in_type(0), broadcast_shape(c.node, c.in_shape(0), shape_from_input(c, 1), axes));
}

std::vector<Tensor> eval_broadcast(const Node& n, const std::vector<Tensor>& in) {
    const std::string& mode = broadcast_mode(n);
    const Shape& s = in[0].shape();
    auto target_values = in[1].to_i64();
    for (int64_t v : target_values)
        if (v < 0) fail(n, "target_shape has the negative value " + std::to_string(v));
    Shape target(target_values.begin(), target_values.end());
    std::optional<std::vector<int64_t>> axes;
    if (mode == "explicit") {
        if (in.size() < 3 || in[2].empty()) fail(n, "mode explicit needs the axes_mapping input");
        axes = in[2].to_i64();
    }
    const Shape out_shape = broadcast_shape(n, s, target, axes).to_shape();
    auto map = broadcast_axis_map(n, s.size(), out_shape.size(), mode == "explicit" ? mode : "numpy", axes ? *axes : std::vector<int64_t>{});
    const auto strides = row_major_strides(s);
    std::vector<int64_t> out_strides(out_shape.size(), 0);
    for (size_t i = 0; i < map.size(); ++i)
        if (map[i] >= 0 && s[map[i]] != 1) out_strides[i] = strides[map[i]];
    Tensor out = Tensor::allocate(in[0].type(), out_shape);
    strided_copy(out.mutable_data<std::byte>(), in[0].bytes(), element_bytes(in[0].type()), out_shape, out_strides, 0);
    return {out};
}

// ---- DepthToSpace / SpaceToDepth --------------------------------------------------------------

// Both ops are reshape -> transpose -> reshape. For DepthToSpace with K spatial axes and block
// size b, the input [N, C, D1..DK] is viewed as [N, b,..,b, C', D1..DK] (blocks_first) or
// [N, C', b,..,b, D1..DK] (depth_first), and read in the order [N, C', D1, b, D2, b, ...].
struct SpaceDepthView {
    Shape view;                  // the input viewed with the block axes split out
    std::vector<int64_t> order;  // view axes in output order
    Shape out_shape;
};

int64_t block_size(const Node& n) {
    const auto b = n.attr<int64_t>("block_size");
    if (b <= 0) fail(n, "block_size must be positive, it is " + std::to_string(b));
    return b;
}

// block_size^k: the block's volume over k spatial axes.
int64_t block_volume(const Node& n, size_t k) {
    const int64_t b = block_size(n);
    int64_t volume = 1;
    for (size_t i = 0; i < k; ++i)
        if (__builtin_mul_overflow(volume, b, &volume))
            fail(n, "block_size " + std::to_string(b) + " to the power " + std::to_string(k) + " overflows int64");
    return volume;
}

bool blocks_first(const Node& n) {
    const auto mode = n.attr<std::string>("mode");
    if (mode != "blocks_first" && mode != "depth_first") fail(n, "unknown mode '" + mode + "'", "use blocks_first or depth_first");
    return mode == "blocks_first";
}

SpaceDepthView depth_to_space_view(const Node& n, const Shape& s) {
    const int64_t b = block_size(n);
    const size_t k = s.size() - 2;
    const int64_t bk = block_volume(n, k);
    if (s[1] % bk != 0) fail(n, "channels " + std::to_string(s[1]) + " are not divisible by block_size^" + std::to_string(k));
    const int64_t c = s[1] / bk;
    SpaceDepthView v;
    v.view.push_back(s[0]);
    const bool bf = blocks_first(n);
    if (!bf) v.view.push_back(c);
    for (size_t i = 0; i < k; ++i) v.view.push_back(b);
    if (bf) v.view.push_back(c);
    for (size_t i = 0; i < k; ++i) v.view.push_back(s[2 + i]);
    const int64_t c_axis = bf ? static_cast<int64_t>(k) + 1 : 1, first_block = bf ? 1 : 2;
    v.order = {0, c_axis};
    v.out_shape = {s[0], c};
    for (size_t i = 0; i < k; ++i) {
        v.order.push_back(static_cast<int64_t>(k + 2 + i));
        v.order.push_back(first_block + static_cast<int64_t>(i));
        v.out_shape.push_back(s[2 + i] * b);
    }
    return v;
}

// SpaceToDepth: [N, C, D1*b, .., DK*b] viewed as [N, C, D1, b, .., DK, b], read as
// [N, b,..,b, C, D1..DK] (blocks_first) or [N, C, b,..,b, D1..DK] (depth_first).
SpaceDepthView space_to_depth_view(const Node& n, const Shape& s) {
    const int64_t b = block_size(n);
    const size_t k = s.size() - 2;
    SpaceDepthView v;
    v.view = {s[0], s[1]};
    const int64_t bk = block_volume(n, k);
    for (size_t i = 0; i < k; ++i) {
        if (s[2 + i] % b != 0) fail(n, "spatial dim " + std::to_string(s[2 + i]) + " is not divisible by block_size " + std::to_string(b));
        v.view.push_back(s[2 + i] / b);
        v.view.push_back(b);
    }
    const bool bf = blocks_first(n);
    v.order = {0};
    if (!bf) v.order.push_back(1);
    for (size_t i = 0; i < k; ++i) v.order.push_back(static_cast<int64_t>(3 + 2 * i));
    if (bf) v.order.push_back(1);
    for (size_t i = 0; i < k; ++i) v.order.push_back(static_cast<int64_t>(2 + 2 * i));
    v.out_shape = {s[0], s[1] * bk};
    for (size_t i = 0; i < k; ++i) v.out_shape.push_back(s[2 + i] / b);
    return v;
}

template <bool ToSpace>
void infer_space_depth(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    const int64_t b = block_size(c.node);
    blocks_first(c.node);
    if (!in.rank_is_static()) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
        return;
    }
    if (in.rank() < 3) c.fail("the input must have rank 3 or more, it is " + in.to_string());
    const size_t k = in.rank() - 2;
    const int64_t bk = block_volume(c.node, k);
    PartialShape out = in;
    auto divide = [&](const Dimension& d, int64_t by, const char* what) -> Dimension {
        if (d.is_static()) {
            if (d.get_length() % by != 0) c.fail(std::string(what) + " " + std::to_string(d.get_length()) + " is not divisible by " + std::to_string(by));
            return d.get_length() / by;
        }
        return Dimension(d.min() / by, d.max() == Dimension::kUnbounded ? d.max() : d.max() / by);
    };
    if (ToSpace) {
        out[1] = divide(in[1], bk, "channels");
        for (size_t i = 0; i < k; ++i) out[2 + i] = in[2 + i] * Dimension(b);
    } else {
        out[1] = in[1] * Dimension(bk);
        for (size_t i = 0; i < k; ++i) out[2 + i] = divide(in[2 + i], b, "spatial dim");
    }
    c.set_output(0, c.in_type(0), out);
}

template <bool ToSpace>
std::vector<Tensor> eval_space_depth(const Node& n, const std::vector<Tensor>& in) {
    const Shape& s = in[0].shape();
    if (s.size() < 3) fail(n, "the input must have rank 3 or more");
    SpaceDepthView v = ToSpace ? depth_to_space_view(n, s) : space_to_depth_view(n, s);
    const auto view_strides = row_major_strides(v.view);
    Shape walk;
    std::vector<int64_t> walk_strides;
    for (int64_t a : v.order) {
        walk.push_back(v.view[a]);
        walk_strides.push_back(view_strides[a]);
    }
    Tensor out = Tensor::allocate(in[0].type(), v.out_shape);
    strided_copy(out.mutable_data<std::byte>(), in[0].bytes(), element_bytes(in[0].type()), walk, walk_strides, 0);
    return {out};
}

}  // namespace

void register_slice_ops(OpRegistry& r) {
    r.add({.type = "StridedSlice", .ir_type = "StridedSlice", .ir_version = "opset1", .min_inputs = 3, .max_inputs = 4,
           .attrs = {{"begin_mask", AttrKind::Ints, {}},
                     {"end_mask", AttrKind::Ints, {}},
                     {"new_axis_mask", AttrKind::Ints, std::vector<int64_t>{}},
                     {"shrink_axis_mask", AttrKind::Ints, std::vector<int64_t>{}},
                     {"ellipsis_mask", AttrKind::Ints, std::vector<int64_t>{}}},
           .infer = infer_strided_slice, .eval = eval_strided_slice});
    r.add({.type = "Slice", .ir_type = "Slice", .ir_version = "opset8", .min_inputs = 4, .max_inputs = 5,
           .infer = infer_slice, .eval = eval_slice});
    r.add({.type = "Pad", .ir_type = "Pad", .ir_version = "opset12", .min_inputs = 3, .max_inputs = 4,
           .attrs = {{"pad_mode", AttrKind::String, std::string("constant")}}, .infer = infer_pad, .eval = eval_pad});
    r.add({.type = "Tile", .ir_type = "Tile", .ir_version = "opset1", .min_inputs = 2, .max_inputs = 2,
           .infer = infer_tile, .eval = eval_tile});
    r.add({.type = "Broadcast", .ir_type = "Broadcast", .ir_version = "opset3", .min_inputs = 2, .max_inputs = 3,
           .attrs = {{"mode", AttrKind::String, std::string("numpy")}}, .infer = infer_broadcast, .eval = eval_broadcast});
    r.add({.type = "DepthToSpace", .ir_type = "DepthToSpace", .ir_version = "opset1", .min_inputs = 1, .max_inputs = 1,
           .attrs = {{"block_size", AttrKind::Int, int64_t{1}}, {"mode", AttrKind::String, {}}},
           .infer = infer_space_depth<true>, .eval = eval_space_depth<true>});
    r.add({.type = "SpaceToDepth", .ir_type = "SpaceToDepth", .ir_version = "opset1", .min_inputs = 1, .max_inputs = 1,
           .attrs = {{"block_size", AttrKind::Int, int64_t{1}}, {"mode", AttrKind::String, {}}},
           .infer = infer_space_depth<false>, .eval = eval_space_depth<false>});
}

}  // namespace mo
