// Shape and data-movement ops as ONNX. ONNX takes shapes, axes and indices as int64 inputs
// where OpenVINO accepts i32 too (they are cast), and some attributes only as constants.
#include <algorithm>
#include <climits>

#include "emit/onnx/onnx_rules.hpp"

namespace mo::onnx_emit {

namespace {

std::string as_i64(OnnxNodeContext& c, size_t i) { return c.cast(c.in(i), c.in_type(i), ElementType::i64); }

int64_t static_rank(OnnxNodeContext& c, size_t i, const std::string& what) {
    if (!c.in_shape(i).rank_is_static()) c.fail(what + " needs the rank of input " + std::to_string(i) + ", which is dynamic");
    return static_cast<int64_t>(c.in_shape(i).rank());
}

int64_t normalized_axis(OnnxNodeContext& c, int64_t axis, int64_t rank) {
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return axis;
}

void emit_reshape(OnnxNodeContext& c) {
    const bool special_zero = c.attr<bool>("special_zero");
    std::vector<onnx::AttributeProto> attrs;
    bool zero_is_literal = !special_zero;
    if (zero_is_literal) {
        if (const Tensor* v = c.in_value(1)) {
            const auto dims = v->to_i64();
            zero_is_literal = std::find(dims.begin(), dims.end(), 0) != dims.end();
        }
    }
    if (zero_is_literal) {  // a 0 in the shape means a dim of 0 (allowzero, opset 14)
        c.need_opset(14);
        attrs.push_back(a_int("allowzero", 1));
    }
    c.add("Reshape", {c.in(0), as_i64(c, 1)}, {c.out(0)}, attrs);
}

// Axes as a 1-D int64 list (OpenVINO also takes a scalar).
std::string axes_list(OnnxNodeContext& c, size_t i) {
    if (const Tensor* v = c.in_value(i)) return c.ints(v->to_i64(), "axes");
    return c.add_tmp("Reshape", {as_i64(c, i), c.ints({-1}, "flat")});
}

void emit_squeeze(OnnxNodeContext& c) {
    if (c.has_in(1)) c.add("Squeeze", {c.in(0), axes_list(c, 1)}, {c.out(0)});
    else c.add("Squeeze", {c.in(0)}, {c.out(0)});
}

void emit_unsqueeze(OnnxNodeContext& c) { c.add("Unsqueeze", {c.in(0), axes_list(c, 1)}, {c.out(0)}); }

void emit_shape_of(OnnxNodeContext& c) {
    if (c.out_type(0) == ElementType::i64) {
        c.add("Shape", {c.in(0)}, {c.out(0)});
        return;
    }
    c.add("Cast", {c.add_tmp("Shape", {c.in(0)})}, {c.out(0)}, {a_int("to", onnx_type(c.out_type(0), c.node.describe()))});
}

void emit_transpose(OnnxNodeContext& c) {
    std::vector<int64_t> perm = c.const_ints(1, "the permutation");
    if (perm.empty()) {
        c.add("Transpose", {c.in(0)}, {c.out(0)});  // reversed axes, as ONNX's default
        return;
    }
    const auto rank = static_cast<int64_t>(perm.size());
    for (auto& p : perm) p = normalized_axis(c, p, rank);
    // Moving only axes of length 1 keeps the data's order: a Reshape (the layout change leaves
    // such Transposes where a feature map is 1 x 1).
    const PartialShape& in = c.in_shape(0);
    if (in.is_static() && static_cast<int64_t>(in.rank()) == rank) {
        std::vector<int64_t> kept, out;
        for (int64_t p : perm) {
            out.push_back(in[p].get_length());
            if (in[p].get_length() != 1) kept.push_back(p);
        }
        if (std::is_sorted(kept.begin(), kept.end())) {
            c.add("Reshape", {c.in(0), c.ints(out, "shape")}, {c.out(0)});
            return;
        }
    }
    c.add("Transpose", {c.in(0)}, {c.out(0)}, {a_ints("perm", perm)});
}

void emit_concat(OnnxNodeContext& c) {
    std::vector<std::string> inputs;
    for (size_t i = 0; i < c.node.input_count(); ++i) inputs.push_back(c.in(i));
    c.add("Concat", inputs, {c.out(0)}, {a_int("axis", c.attr<int64_t>("axis"))});
}

std::vector<std::string> outputs_of(OnnxNodeContext& c) {
    std::vector<std::string> outs;
    for (size_t j = 0; j < c.node.output_count(); ++j) outs.push_back(c.out(j));
    return outs;
}

void emit_split(OnnxNodeContext& c) {
    const int64_t axis = c.const_ints(1, "the axis").at(0);
    c.add("Split", {c.in(0)}, outputs_of(c), {a_int("axis", axis)});
}

void emit_variadic_split(OnnxNodeContext& c) {
    const int64_t axis = c.const_ints(1, "the axis").at(0);
    if (!c.in_value(2)) {  // lengths computed at run time: ONNX's split input, which has no -1
        c.add("Split", {c.in(0), as_i64(c, 2)}, outputs_of(c), {a_int("axis", axis)});
        return;
    }
    std::vector<int64_t> lengths = c.const_ints(2, "the split lengths");
    auto unknown = std::find(lengths.begin(), lengths.end(), -1);
    if (unknown != lengths.end()) {  // -1: the rest of the axis
        const int64_t rank = static_rank(c, 0, "a split length of -1");
        const Dimension& dim = c.in_shape(0)[normalized_axis(c, axis, rank)];
        if (!dim.is_static()) c.fail("a split length of -1 on a dynamic axis");
        int64_t known = 0;
        for (int64_t l : lengths) known += l == -1 ? 0 : l;
        *unknown = dim.get_length() - known;
    }
    c.add("Split", {c.in(0), c.ints(lengths, "split")}, outputs_of(c), {a_int("axis", axis)});
}

// Gather with batch_dims b on axis b is GatherND over the indices as 1-tuples with the same
// batch dims; on a later axis, the same on the axis moved to b, and the gathered dims moved back.
void emit_gather(OnnxNodeContext& c) {
    int64_t axis = c.const_ints(2, "the axis").at(0);
    int64_t batch_dims = c.attr<int64_t>("batch_dims");
    if (batch_dims == 0) {
        c.add("Gather", {c.in(0), c.in(1)}, {c.out(0)}, {a_int("axis", axis)});
        return;
    }
    const int64_t rank = static_rank(c, 0, "Gather with batch_dims");
    if (axis < 0) axis += rank;
    if (batch_dims < 0) batch_dims += static_rank(c, 1, "Gather with batch_dims");
    const int64_t b = batch_dims, m = static_rank(c, 1, "Gather with batch_dims") - b;
    const std::string tuples = c.add_tmp("Unsqueeze", {as_i64(c, 1), c.ints({-1}, "last")});
    if (axis == b) {
        c.add("GatherND", {c.in(0), tuples}, {c.out(0)}, {a_int("batch_dims", b)});
        return;
    }
    std::vector<int64_t> to_front, back;
    for (int64_t d = 0; d < b; ++d) to_front.push_back(d), back.push_back(d);
    to_front.push_back(axis);
    for (int64_t d = b; d < rank; ++d)
        if (d != axis) to_front.push_back(d);
    // GatherND gives [batch, gathered (m), data b..axis-1, data after axis]: the gathered dims go after b..axis-1.
    for (int64_t d = 0; d < axis - b; ++d) back.push_back(b + m + d);
    for (int64_t d = 0; d < m; ++d) back.push_back(b + d);
    for (int64_t d = b + m + (axis - b); d < m + rank - 1; ++d) back.push_back(d);
    const std::string moved = c.add_tmp("Transpose", {c.in(0)}, {a_ints("perm", to_front)});
    const std::string gathered = c.add_tmp("GatherND", {moved, tuples}, {a_int("batch_dims", b)});
    c.add("Transpose", {gathered}, {c.out(0)}, {a_ints("perm", back)});
}

void emit_gather_nd(OnnxNodeContext& c) {
    c.add("GatherND", {c.in(0), as_i64(c, 1)}, {c.out(0)}, {a_int("batch_dims", c.attr<int64_t>("batch_dims"))});
}

// data[..., indices, ...] = updates along `axis`: ScatterND on the axis moved to the front.
void emit_scatter_update(OnnxNodeContext& c) {
    const int64_t rank = static_rank(c, 0, "ScatterUpdate");
    const int64_t index_rank = static_rank(c, 1, "ScatterUpdate");
    const int64_t axis = normalized_axis(c, c.const_ints(3, "the axis").at(0), rank);
    const std::string indices = c.add_tmp("Unsqueeze", {as_i64(c, 1), c.ints({-1}, "last")});
    if (axis == 0) {
        c.add("ScatterND", {c.in(0), indices, c.in(2)}, {c.out(0)});
        return;
    }
    std::vector<int64_t> data_perm{axis}, update_perm, back(rank);
    for (int64_t a = 0; a < rank; ++a)
        if (a != axis) data_perm.push_back(a);
    for (int64_t k = 0; k < index_rank; ++k) update_perm.push_back(axis + k);
    for (int64_t a = 0; a < axis; ++a) update_perm.push_back(a);
    for (int64_t a = axis + index_rank; a < rank - 1 + index_rank; ++a) update_perm.push_back(a);
    for (int64_t a = 0; a < rank; ++a) back[data_perm[a]] = a;
    const std::string data = c.add_tmp("Transpose", {c.in(0)}, {a_ints("perm", data_perm)});
    const std::string updates = c.add_tmp("Transpose", {c.in(2)}, {a_ints("perm", update_perm)});
    const std::string scattered = c.add_tmp("ScatterND", {data, indices, updates});
    c.add("Transpose", {scattered}, {c.out(0)}, {a_ints("perm", back)});
}

void emit_scatter_elements(OnnxNodeContext& c) {
    const int64_t axis = c.const_ints(3, "the axis").at(0);
    const std::string reduction = c.attr<std::string>("reduction");
    std::vector<onnx::AttributeProto> attrs{a_int("axis", axis)};
    if (reduction != "none") {
        if (!c.attr<bool>("use_init_val")) c.fail("use_init_val false has no ONNX form");
        if (reduction == "sum" || reduction == "prod") {
            c.need_opset(16);
            attrs.push_back(a_str("reduction", reduction == "sum" ? "add" : "mul"));
        } else {
            c.fail("reduction '" + reduction + "' (ONNX has add and mul in opset 16, max and min from opset 18)");
        }
    }
    c.add("ScatterElements", {c.in(0), as_i64(c, 1), c.in(2)}, {c.out(0)}, attrs);
}

void emit_non_zero(OnnxNodeContext& c) {
    const std::string nz = c.add_tmp("NonZero", {c.in(0)});
    c.add("Cast", {nz}, {c.out(0)}, {a_int("to", onnx_type(c.out_type(0), c.node.describe()))});
}

void emit_one_hot(OnnxNodeContext& c) {
    const std::string values = c.add_tmp("Concat", {c.add_tmp("Reshape", {c.in(3), c.ints({1}, "one")}),
                                                    c.add_tmp("Reshape", {c.in(2), c.ints({1}, "one")})},
                                         {a_int("axis", 0)});
    c.add("OneHot", {c.in(0), c.in(1), values}, {c.out(0)}, {a_int("axis", c.attr<int64_t>("axis"))});
}

void emit_range(OnnxNodeContext& c) {
    const ElementType t = c.out_type(0);
    if (t != ElementType::f32 && t != ElementType::f64 && t != ElementType::i16 && t != ElementType::i32 && t != ElementType::i64)
        c.fail("a Range of " + std::string(ir_name(t)) + " (ONNX's Range takes float, double, int16, int32 and int64)");
    std::vector<std::string> in;
    for (size_t i = 0; i < 3; ++i) in.push_back(c.cast(c.in(i), c.in_type(i), t));
    c.add("Range", in, {c.out(0)});
}

void emit_reverse_sequence(OnnxNodeContext& c) {
    const int64_t rank = static_rank(c, 0, "ReverseSequence");
    const int64_t batch = normalized_axis(c, c.attr<int64_t>("batch_axis"), rank);
    const int64_t seq = normalized_axis(c, c.attr<int64_t>("seq_axis"), rank);
    if (!((batch == 0 && seq == 1) || (batch == 1 && seq == 0)))
        c.fail("ONNX's ReverseSequence takes batch and time axes 0 and 1 only");
    c.add("ReverseSequence", {c.in(0), as_i64(c, 1)}, {c.out(0)}, {a_int("batch_axis", batch), a_int("time_axis", seq)});
}

bool mask_bit(const std::vector<int64_t>& mask, size_t i) { return i < mask.size() && mask[i] != 0; }

// StridedSlice-1 with constant begin / end / strides: one Slice over the input axes, a Squeeze
// of the shrunk ones, an Unsqueeze of the new ones at their output positions.
void emit_strided_slice(OnnxNodeContext& c) {
    const std::vector<int64_t> begin = c.const_ints(1, "begin"), end = c.const_ints(2, "end");
    const std::vector<int64_t> stride = c.has_in(3) ? c.const_ints(3, "strides") : std::vector<int64_t>(begin.size(), 1);
    const int64_t rank = static_rank(c, 0, "StridedSlice");
    const auto begin_mask = c.attr<std::vector<int64_t>>("begin_mask");
    const auto end_mask = c.attr<std::vector<int64_t>>("end_mask");
    const auto new_axis_mask = c.attr<std::vector<int64_t>>("new_axis_mask");
    const auto shrink_mask = c.attr<std::vector<int64_t>>("shrink_axis_mask");
    const auto ellipsis_mask = c.attr<std::vector<int64_t>>("ellipsis_mask");
    const size_t count = begin.size();
    int64_t consuming = 0;
    for (size_t i = 0; i < count; ++i)
        if (!mask_bit(ellipsis_mask, i) && !mask_bit(new_axis_mask, i)) ++consuming;
    std::vector<int64_t> starts, ends, axes, steps, squeeze, unsqueeze;
    int64_t axis = 0, out_axis = 0;
    for (size_t i = 0; i < count; ++i) {
        if (mask_bit(ellipsis_mask, i)) {
            const int64_t covered = rank - consuming;
            axis += covered, out_axis += covered;
            continue;
        }
        if (mask_bit(new_axis_mask, i)) {
            unsqueeze.push_back(out_axis++);
            continue;
        }
        if (axis >= rank) c.fail("the slice has more entries than the input has axes");
        const int64_t step = i < stride.size() ? stride[i] : 1;
        if (mask_bit(shrink_mask, i)) {
            const int64_t index = begin[i];
            starts.push_back(index), ends.push_back(index == -1 ? INT64_MAX : index + 1), axes.push_back(axis), steps.push_back(1);
            squeeze.push_back(axis++);
            continue;
        }
        if (step == 0) c.fail("the slice step is 0");
        const bool whole_start = mask_bit(begin_mask, i), whole_end = mask_bit(end_mask, i);
        const int64_t s = whole_start ? (step > 0 ? 0 : INT64_MAX) : begin[i];
        const int64_t e = whole_end ? (step > 0 ? INT64_MAX : INT64_MIN) : end[i];
        if (!(whole_start && whole_end && step == 1))
            starts.push_back(s), ends.push_back(e), axes.push_back(axis), steps.push_back(step);
        ++axis, ++out_axis;
    }
    std::string v = c.in(0);
    if (!axes.empty())
        v = c.add_tmp("Slice", {v, c.ints(starts, "starts"), c.ints(ends, "ends"), c.ints(axes, "axes"), c.ints(steps, "steps")});
    if (!squeeze.empty()) v = c.add_tmp("Squeeze", {v, c.ints(squeeze, "squeeze")});
    if (!unsqueeze.empty()) v = c.add_tmp("Unsqueeze", {v, c.ints(unsqueeze, "unsqueeze")});
    c.add("Identity", {v}, {c.out(0)});
}

void emit_slice(OnnxNodeContext& c) {
    c.add("Slice", {c.in(0), as_i64(c, 1), as_i64(c, 2), c.has_in(4) ? as_i64(c, 4) : std::string(), as_i64(c, 3)},
          {c.out(0)});
}

void emit_pad(OnnxNodeContext& c) {
    const std::string mode = c.attr<std::string>("pad_mode");
    if (mode != "constant" && mode != "edge" && mode != "reflect")
        c.fail("pad_mode '" + mode + "' (ONNX pads constant, edge and reflect)");
    const std::string pads = c.add_tmp("Concat", {as_i64(c, 1), as_i64(c, 2)}, {a_int("axis", 0)}, "pads");
    std::string value;
    if (mode == "constant" && c.has_in(3)) value = c.add_tmp("Reshape", {c.in(3), c.ints({}, "scalar")});
    c.add("Pad", {c.in(0), pads, value}, {c.out(0)}, {a_str("mode", mode)});
}

// OpenVINO's repeats may be shorter (leading 1s) or longer (the data gains leading axes).
void emit_tile(OnnxNodeContext& c) {
    const int64_t rank = static_rank(c, 0, "Tile");
    std::string data = c.in(0), repeats = as_i64(c, 1);
    if (const Tensor* r = c.in_value(1)) {
        std::vector<int64_t> reps = r->to_i64();
        const auto n = static_cast<int64_t>(reps.size());
        if (n < rank) reps.insert(reps.begin(), rank - n, 1);
        if (n > rank) {
            std::vector<int64_t> axes;
            for (int64_t a = 0; a < n - rank; ++a) axes.push_back(a);
            data = c.add_tmp("Unsqueeze", {data, c.ints(axes, "axes")});
        }
        repeats = c.ints(reps, "repeats");
    } else if (!c.in_shape(1).rank_is_static() || !c.in_shape(1)[0].compatible(rank)) {
        c.fail("repeats computed at run time whose length may differ from the data's rank");
    }
    c.add("Tile", {data, repeats}, {c.out(0)});
}

void emit_broadcast(OnnxNodeContext& c) {
    const std::string mode = c.attr<std::string>("mode");
    std::string data = c.in(0);
    if (mode == "explicit") {  // data axis i goes to target axis axes_mapping[i]: unsqueeze the others
        const auto mapping = c.const_ints(2, "axes_mapping");
        const PartialShape& target = c.in_shape(1);
        if (!target.rank_is_static() || !target[0].is_static()) c.fail("an explicit Broadcast to a target of unknown rank");
        const int64_t out_rank = target[0].get_length();
        std::vector<int64_t> missing;
        for (int64_t a = 0; a < out_rank; ++a)
            if (std::find(mapping.begin(), mapping.end(), a) == mapping.end()) missing.push_back(a);
        if (!missing.empty()) data = c.add_tmp("Unsqueeze", {data, c.ints(missing, "axes")});
    } else if (mode != "numpy" && mode != "bidirectional") {
        c.fail("Broadcast mode '" + mode + "'");
    }
    c.add("Expand", {data, as_i64(c, 1)}, {c.out(0)});
}

void emit_depth_to_space(OnnxNodeContext& c) {
    const std::string mode = c.attr<std::string>("mode");
    c.add("DepthToSpace", {c.in(0)}, {c.out(0)},
          {a_int("blocksize", c.attr<int64_t>("block_size")), a_str("mode", mode == "blocks_first" ? "DCR" : "CRD")});
}

// ONNX's SpaceToDepth is OpenVINO's blocks_first; depth_first goes through a 6-D transpose.
void emit_space_to_depth(OnnxNodeContext& c) {
    const int64_t bs = c.attr<int64_t>("block_size");
    if (c.attr<std::string>("mode") == "blocks_first") {
        c.add("SpaceToDepth", {c.in(0)}, {c.out(0)}, {a_int("blocksize", bs)});
        return;
    }
    const PartialShape& s = c.in_shape(0);
    if (!s.rank_is_static() || s.rank() != 4 || !s[1].is_static() || !s[2].is_static() || !s[3].is_static())
        c.fail("SpaceToDepth depth_first needs a 4-D input with static C, H and W");
    const int64_t C = s[1].get_length(), H = s[2].get_length(), W = s[3].get_length();
    const std::string split = c.add_tmp("Reshape", {c.in(0), c.ints({0, C, H / bs, bs, W / bs, bs}, "shape6")});
    const std::string moved = c.add_tmp("Transpose", {split}, {a_ints("perm", {0, 1, 3, 5, 2, 4})});
    c.add("Reshape", {moved, c.ints({0, C * bs * bs, H / bs, W / bs}, "shape4")}, {c.out(0)});
}

}  // namespace

std::vector<OnnxRule> shape_rules() {
    return {
        {"Reshape", 13, emit_reshape, "Reshape (allowzero, opset 14, when special_zero is false and the shape has a 0)"},
        {"Squeeze", 13, emit_squeeze, "Squeeze"},
        {"Unsqueeze", 13, emit_unsqueeze, "Unsqueeze"},
        {"ShapeOf", 13, emit_shape_of, "Shape (+ Cast)"},
        {"Transpose", 13, emit_transpose, "Transpose (constant permutation); a Reshape when it moves only axes of length 1"},
        {"Concat", 13, emit_concat, "Concat"},
        {"Split", 13, emit_split, "Split (constant axis)"},
        {"VariadicSplit", 13, emit_variadic_split, "Split (constant axis and lengths)"},
        {"Gather", 13, emit_gather, "Gather; with batch_dims: GatherND (between Transposes when the axis is not the first after them)"},
        {"GatherElements", 13, [](OnnxNodeContext& c) {
             c.add("GatherElements", {c.in(0), c.in(1)}, {c.out(0)}, {a_int("axis", c.attr<int64_t>("axis"))});
         }, "GatherElements"},
        {"GatherND", 13, emit_gather_nd, "GatherND"},
        {"ScatterUpdate", 13, emit_scatter_update, "ScatterND on the axis moved to the front"},
        {"ScatterElementsUpdate", 13, emit_scatter_elements, "ScatterElements (reduction add / mul: opset 16)"},
        {"ScatterNDUpdate", 13, [](OnnxNodeContext& c) { c.add("ScatterND", {c.in(0), as_i64(c, 1), c.in(2)}, {c.out(0)}); }, "ScatterND"},
        {"NonZero", 13, emit_non_zero, "NonZero (+ Cast)"},
        {"OneHot", 13, emit_one_hot, "OneHot (values = [off, on])"},
        {"Range", 13, emit_range, "Range"},
        {"ReverseSequence", 13, emit_reverse_sequence, "ReverseSequence"},
        {"StridedSlice", 13, emit_strided_slice, "Slice + Squeeze + Unsqueeze (constant begin, end, strides)"},
        {"Slice", 13, emit_slice, "Slice"},
        {"Pad", 13, emit_pad, "Pad (constant, edge, reflect)"},
        {"Tile", 13, emit_tile, "Tile"},
        {"Broadcast", 13, emit_broadcast, "Expand (explicit: Unsqueeze first)"},
        {"DepthToSpace", 13, emit_depth_to_space, "DepthToSpace (DCR / CRD)"},
        {"SpaceToDepth", 13, emit_space_to_depth, "SpaceToDepth; depth_first: Reshape, Transpose, Reshape"},
    };
}

}  // namespace mo::onnx_emit
