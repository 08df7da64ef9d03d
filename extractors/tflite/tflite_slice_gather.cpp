// SLICE, STRIDED_SLICE, SPLIT, SPLIT_V, GATHER, PACK, UNPACK, TILE, BATCH_MATMUL, ARG_MAX,
// ARG_MIN, LOG_SOFTMAX, DEPTH_TO_SPACE, SPACE_TO_DEPTH (NHWC, between Transposes).
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

using tflite_layout::kToNchw;
using tflite_layout::kToNhwc;

// A TensorFlow bit mask as OpenVINO's per-axis list of 0 / 1.
std::vector<int64_t> bits(int64_t mask, size_t n) {
    std::vector<int64_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = (mask >> i) & 1;
    return v;
}

// SLICE(x, begin, size): size -1 runs to the end.
void slice(ExtractContext& c) {
    const auto begin = c.input_ints(1), size = c.input_ints(2);
    if (begin.size() != size.size()) c.fail("begin and size differ in length");
    std::vector<int64_t> stop(begin.size()), axes(begin.size());
    for (size_t i = 0; i < begin.size(); ++i) {
        stop[i] = size[i] < 0 ? INT64_MAX : begin[i] + size[i];
        axes[i] = static_cast<int64_t>(i);
    }
    c.set_output(0, c.op("Slice", "", {c.input(0), c.i64s("start", begin), c.i64s("stop", stop),
                                       c.i64s("step", std::vector<int64_t>(begin.size(), 1)), c.i64s("axes", axes)}));
}

void strided_slice(ExtractContext& c) {
    const auto begin = c.input_ints(1);
    const size_t n = begin.size();
    OutPort end = c.input(2);
    if (c.i("offset", 0)) end = c.op("Add", "end", {c.input(1), c.input(2)});  // end is relative to begin
    c.set_output(0, c.op("StridedSlice", "", {c.input(0), c.input(1), end, c.input(3)},
                         {{"begin_mask", bits(c.i("begin_mask", 0), n)},
                          {"end_mask", bits(c.i("end_mask", 0), n)},
                          {"new_axis_mask", bits(c.i("new_axis_mask", 0), n)},
                          {"shrink_axis_mask", bits(c.i("shrink_axis_mask", 0), n)},
                          {"ellipsis_mask", bits(c.i("ellipsis_mask", 0), n)}}));
}

// SPLIT(axis, x; num_splits), SPLIT_V(x, size_splits, axis)
void split(ExtractContext& c, bool variadic) {
    const int64_t parts = static_cast<int64_t>(c.output_count());
    Node n = variadic ? c.add("VariadicSplit", "", {c.input(0), c.input(2), c.input(1)})
                      : c.add("Split", "", {c.input(1), c.input(0)}, {{"num_splits", c.i("num_splits", parts)}});
    n.set_output_count(c.output_count());
    for (size_t j = 0; j < c.output_count(); ++j) c.set_output(j, n.out(j));
}

void gather(ExtractContext& c) {
    c.set_output(0, c.op("Gather", "", {c.input(0), c.input(1), c.i64("axis", c.i("axis", 0))},
                         {{"batch_dims", c.i("batch_dims", 0)}}));
}

// PACK: Unsqueeze each value at axis, then Concat.
void pack(ExtractContext& c) {
    const int64_t axis = c.i("axis", 0);
    std::vector<OutPort> parts;
    for (size_t i = 0; i < c.input_count(); ++i)
        parts.push_back(c.op("Unsqueeze", "unsqueeze" + std::to_string(i), {c.input(i), c.i64s("axis" + std::to_string(i), {axis})}));
    c.set_output(0, c.op("Concat", "", parts, {{"axis", axis}}));
}

// UNPACK: Split into `num` along axis, each squeezed.
void unpack(ExtractContext& c) {
    const int64_t axis = c.i("axis", 0), num = c.i("num", static_cast<int64_t>(c.output_count()));
    Node s = c.add("Split", "split", {c.input(0), c.i64("split/axis", axis)}, {{"num_splits", num}});
    s.set_output_count(static_cast<size_t>(num));
    for (size_t j = 0; j < c.output_count(); ++j)
        c.set_output(j, c.op("Squeeze", "squeeze" + std::to_string(j), {s.out(j), c.i64s("squeeze" + std::to_string(j) + "/axes", {axis})}));
}

// ARG_MAX / ARG_MIN(x, axis) = TopK(k = 1) indices, squeezed; the first of equal values wins.
void arg_extreme(ExtractContext& c, const char* mode) {
    const auto axis = c.input_ints(1);
    if (axis.size() != 1) c.fail("the axis must hold one value");
    Node topk = c.add("TopK", "topk", {c.input(0), c.i64("k", 1)},
                      {{"axis", axis[0]}, {"mode", std::string(mode)}, {"sort", std::string("value")}, {"stable", true},
                       {"index_element_type", ElementType::i64}});
    OutPort y = c.op("Squeeze", "squeeze", {topk.out(1), c.i64s("squeeze/axes", {axis[0]})});
    const ElementType out = c.i("output_type", 4) == 2 ? ElementType::i32 : ElementType::i64;  // TensorType INT32 / INT64
    c.set_output(0, c.op("Convert", "", {y}, {{"destination_type", out}}));
}

// DEPTH_TO_SPACE / SPACE_TO_DEPTH: TensorFlow's channel order is OpenVINO's blocks_first.
void depth_space(ExtractContext& c, const char* type) {
    OutPort x = tflite_transpose(c, "to_nchw", c.input(0), kToNchw);
    OutPort y = c.op(type, "op", {x}, {{"block_size", c.i("block_size")}, {"mode", std::string("blocks_first")}});
    c.set_output(0, tflite_transpose(c, "", y, kToNhwc));
}

}  // namespace

void register_tflite_slice_gather(ExtractorRegistry& r) {
    r.add({"tflite", "", "SLICE", 1, INT64_MAX, slice});
    r.add({"tflite", "", "STRIDED_SLICE", 1, INT64_MAX, strided_slice});
    r.add({"tflite", "", "SPLIT", 1, INT64_MAX, [](ExtractContext& c) { split(c, false); }});
    r.add({"tflite", "", "SPLIT_V", 1, INT64_MAX, [](ExtractContext& c) { split(c, true); }});
    r.add({"tflite", "", "GATHER", 1, INT64_MAX, gather});
    r.add({"tflite", "", "PACK", 1, INT64_MAX, pack});
    r.add({"tflite", "", "UNPACK", 1, INT64_MAX, unpack});
    r.add({"tflite", "", "TILE", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Tile", "", {c.input(0), c.input(1)})); }});
    r.add({"tflite", "", "BATCH_MATMUL", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("MatMul", "", {c.input(0), c.input(1)},
                                    {{"transpose_a", c.i("adj_x", 0) != 0}, {"transpose_b", c.i("adj_y", 0) != 0}}));
           }});
    r.add({"tflite", "", "ARG_MAX", 1, INT64_MAX, [](ExtractContext& c) { arg_extreme(c, "max"); }});
    r.add({"tflite", "", "ARG_MIN", 1, INT64_MAX, [](ExtractContext& c) { arg_extreme(c, "min"); }});
    r.add({"tflite", "", "LOG_SOFTMAX", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("LogSoftmax", "", {c.input(0)}, {{"axis", int64_t{-1}}})); }});
    r.add({"tflite", "", "DEPTH_TO_SPACE", 1, INT64_MAX, [](ExtractContext& c) { depth_space(c, "DepthToSpace"); }});
    r.add({"tflite", "", "SPACE_TO_DEPTH", 1, INT64_MAX, [](ExtractContext& c) { depth_space(c, "SpaceToDepth"); }});
}

}  // namespace mo
