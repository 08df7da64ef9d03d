// SLICE, STRIDED_SLICE, SPLIT, SPLIT_V, GATHER, GATHER_ND, PACK, UNPACK, TILE, BATCH_MATMUL,
// ARG_MAX, ARG_MIN, LOG_SOFTMAX, CAST, DEPTH_TO_SPACE, SPACE_TO_DEPTH (NHWC, between Transposes).
#include <algorithm>

#include "extractors/tensorflow_family.hpp"
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

// The begin TFLite's kernel resolves for each axis of `x` and the given begin: 0 or the last
// index under begin_mask, from the end when negative, clamped to the axis (as an end it may be
// one before the first index when the stride is negative).
std::vector<int64_t> resolved_begin(ExtractContext& c, const Shape& x) {
    const std::vector<int64_t> begin = c.input_ints(1), strides = c.input_ints(3);
    if (begin.size() != x.size() || strides.size() != x.size())
        c.unsupported("STRIDED_SLICE with offset and a begin of another length than the input's rank");
    const int64_t begin_mask = c.i("begin_mask", 0);
    std::vector<int64_t> out(begin.size());
    for (size_t i = 0; i < begin.size(); ++i) {
        const int64_t dim = x[i];
        const bool forwards = strides[i] > 0;
        int64_t b = begin[i];
        if (i < 64 && (begin_mask >> i) & 1) b = forwards ? 0 : dim - 1;
        else if (b < 0) b += dim;
        out[i] = forwards ? std::clamp<int64_t>(b, 0, dim) : std::clamp<int64_t>(b, -1, dim - 1);
    }
    return out;
}

// STRIDED_SLICE; with `offset` the end is relative to the begin as the kernel resolves it, which
// needs a constant begin and a static input without ellipsis or new axes.
void strided_slice(ExtractContext& c) {
    if (!c.i("offset", 0)) return tf_family::strided_slice(c, c.input(2));
    const PartialShape& x = c.input(0).shape();
    if (!x.is_static() || !c.input_value(1) || !c.input_value(3) || c.i("ellipsis_mask", 0) || c.i("new_axis_mask", 0))
        c.unsupported("STRIDED_SLICE with offset on a begin, strides or input shape not known at conversion, or with "
                      "ellipsis or new axes");
    const std::vector<int64_t> begin = resolved_begin(c, x.to_shape());
    OutPort start = c.i64s("end/begin", begin);
    if (c.input(2).type() != ElementType::i64)
        start = c.op("Convert", "end/begin/typed", {start}, {{"destination_type", c.input(2).type()}});
    tf_family::strided_slice(c, c.op("Add", "end", {start, c.input(2)}));
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


// ARG_MAX / ARG_MIN: output_type INT32 (2) or INT64 (4).
void arg_extreme(ExtractContext& c, const char* mode) {
    const int64_t type = c.i("output_type", 4);
    if (type != 2 && type != 4)
        c.fail("output_type is " + std::to_string(type) + "; it must be INT32 (2) or INT64 (4)",
               "the model is corrupt; re-export it");
    tf_family::arg_extreme(c, mode, type == 2 ? ElementType::i32 : ElementType::i64);
}

// UNPACK into `num` outputs, as many as the operator lists (0, flatbuffers' default, means unset;
// the loader refuses an operator without outputs, so a matching num is positive).
void unpack(ExtractContext& c) {
    const auto outputs = static_cast<int64_t>(c.output_count());
    int64_t num = c.i("num", 0);
    if (num == 0) num = outputs;
    if (num != outputs)
        c.fail("num is " + std::to_string(num) + " but the operator has " + std::to_string(outputs) + " outputs",
               "the model is corrupt; re-export it");
    tf_family::unpack(c, c.i("axis", 0), num);
}

}  // namespace

void register_tflite_slice_gather(ExtractorRegistry& r) {
    r.add({"tflite", "", "SLICE", all_versions, tf_family::slice_begin_size});
    r.add({"tflite", "", "STRIDED_SLICE", all_versions, strided_slice});
    r.add({"tflite", "", "SPLIT", all_versions, [](ExtractContext& c) { split(c, false); }});
    r.add({"tflite", "", "SPLIT_V", all_versions, [](ExtractContext& c) { split(c, true); }});
    r.add({"tflite", "", "GATHER", all_versions, gather});
    r.add({"tflite", "", "PACK", all_versions, [](ExtractContext& c) { tf_family::pack(c, c.i("axis", 0)); }});
    r.add({"tflite", "", "UNPACK", all_versions, unpack});
    r.add({"tflite", "", "TILE", all_versions,
           [](ExtractContext& c) { c.set_output(0, c.op("Tile", "", {c.input(0), c.input(1)})); }});
    r.add({"tflite", "", "BATCH_MATMUL", all_versions, [](ExtractContext& c) {
               c.set_output(0, c.op("MatMul", "", {c.input(0), c.input(1)},
                                    {{"transpose_a", c.i("adj_x", 0) != 0}, {"transpose_b", c.i("adj_y", 0) != 0}}));
           }});
    r.add({"tflite", "", "ARG_MAX", all_versions, [](ExtractContext& c) { arg_extreme(c, "max"); }});
    r.add({"tflite", "", "ARG_MIN", all_versions, [](ExtractContext& c) { arg_extreme(c, "min"); }});
    r.add({"tflite", "", "LOG_SOFTMAX", all_versions,
           [](ExtractContext& c) { c.set_output(0, c.op("LogSoftmax", "", {c.input(0)}, {{"axis", int64_t{-1}}})); }});
    r.add({"tflite", "", "GATHER_ND", all_versions,
           [](ExtractContext& c) { c.set_output(0, c.op("GatherND", "", {c.input(0), c.input(1)}, {{"batch_dims", int64_t{0}}})); }});
    r.add({"tflite", "", "CAST", all_versions, [](ExtractContext& c) {
               // The output tensor's declared type (the options are optional).
               const ElementType to = c.node().out(0).type();
               if (to == ElementType::dynamic) c.unsupported("CAST to an unknown type");
               c.set_output(0, c.op("Convert", "", {c.input(0)}, {{"destination_type", to}}));
           }});
    r.add({"tflite", "", "DEPTH_TO_SPACE", all_versions, [](ExtractContext& c) { tf_family::depth_space(c, "DepthToSpace", true); }});
    r.add({"tflite", "", "SPACE_TO_DEPTH", all_versions, [](ExtractContext& c) { tf_family::depth_space(c, "SpaceToDepth", true); }});
}

}  // namespace mo
