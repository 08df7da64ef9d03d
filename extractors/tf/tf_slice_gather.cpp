// StridedSlice, Slice, Split, SplitV, Unpack, GatherV2, GatherNd, Tile, Fill, ArgMax / ArgMin, TopKV2,
// DepthToSpace / SpaceToDepth, FloorDiv, Select / SelectV2, Where, Range.
#include "extractors/tensorflow_family.hpp"
#include "extractors/tf/tf_extractors.hpp"
#include "loaders/tf/tf_loader.hpp"
#include "loaders/tf/tf_tensor.hpp"

namespace mo {

namespace {

// The parts `n` a Split, SplitV or Unpack makes (its attribute `attr`), checked: positive, at most
// kMaxTfOutputs, and at least the node's outputs (the loader made as many as the graph reads).
int64_t parts(ExtractContext& c, const char* attr, int64_t n) {
    if (n < 1 || n > kMaxTfOutputs)
        c.fail(std::string(attr) + " is " + std::to_string(n) + "; it must be between 1 and " +
                   std::to_string(kMaxTfOutputs),
               "the model is corrupt; re-export it");
    if (c.output_count() > static_cast<uint64_t>(n))
        c.fail("the graph reads output " + std::to_string(c.output_count() - 1) + " but " + attr + " is " +
                   std::to_string(n),
               "the model is corrupt; re-export it");
    return n;
}

// A split `n` into `count` parts, the graph reading the first outputs or all of them.
void outputs_of(ExtractContext& c, Node n, int64_t count) {
    n.set_output_count(static_cast<size_t>(count));
    for (size_t j = 0; j < c.output_count(); ++j) c.set_output(j, n.out(j));
}

void arg_extreme(ExtractContext& c, const char* mode) {
    tf_family::arg_extreme(c, mode, tf_index_type(c, "output_type", mo_tf::DT_INT64));
}

// FloorDiv: floor(a / b) for floats; integers divide with Python's rounding toward -inf.
void floor_div(ExtractContext& c) {
    if (is_float(c.input(0).type())) {
        c.set_output(0, c.op("Floor", "", {c.op("Divide", "divide", {c.input(0), c.input(1)})}));
        return;
    }
    c.set_output(0, c.op("Divide", "", {c.input(0), c.input(1)}, {{"m_pythondiv", true}}));
}

// SelectV2 broadcasts like numpy; Select (v1) too when the condition has the data's rank.
void select(ExtractContext& c, bool v1) {
    if (v1) {
        const PartialShape &cond = c.input(0).shape(), &x = c.input(1).shape();
        if (!cond.rank_is_static() || !x.rank_is_static() || (cond.rank() != x.rank() && cond.rank() != 0))
            c.unsupported("Select with a condition of another rank than its values (use SelectV2)");
    }
    c.set_output(0, c.op("Select", "", {c.input(0), c.input(1), c.input(2)}, {{"auto_broadcast", std::string("numpy")}}));
}

// Slice(x, begin, size): size -1 takes the rest of the axis. begin and size may be computed at
// run time (sizes read from shapes in detection post-processing): then stop is
// Select(size < 0, INT64_MAX, begin + size), over as many axes as begin's static length.
void slice(ExtractContext& c) {
    if (c.input_value(1) && c.input_value(2)) {
        tf_family::slice_begin_size(c);
        return;
    }
    const PartialShape& b = c.input(1).shape();
    if (!b.rank_is_static() || b.rank() != 1 || !b[0].is_static())
        c.unsupported("Slice whose begin has no static length");
    const int64_t n = b[0].get_length();
    auto i64 = [&](size_t i, const std::string& name) {
        return c.op("Convert", name, {c.input(i)}, {{"destination_type", ElementType::i64}});
    };
    OutPort begin = i64(1, "begin"), size = i64(2, "size");
    OutPort stop = c.op("Select", "stop",
                        {c.op("Less", "to_end", {size, c.i64("zero", 0)}), c.i64("end", INT64_MAX),
                         c.op("Add", "begin_plus_size", {begin, size})},
                        {{"auto_broadcast", std::string("numpy")}});
    std::vector<int64_t> axes(static_cast<size_t>(n));
    for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
    c.set_output(0, c.op("Slice", "", {c.input(0), begin, stop, c.i64s("step", std::vector<int64_t>(axes.size(), 1)),
                                       c.i64s("axes", axes)}));
}

// Where(condition): the coordinates of the non-zero elements, [count, rank] int64 in row-major
// order; NonZero gives them as [rank, count].
void where(ExtractContext& c) {
    if (c.input_count() != 1) c.unsupported("Where with x and y (use SelectV2)");
    OutPort nz = c.op("NonZero", "coordinates", {c.input(0)}, {{"output_type", ElementType::i64}});
    c.set_output(0, c.op("Transpose", "", {nz, c.i64s("order", {1, 0})}));
}

}  // namespace

void register_tf_slice_gather(ExtractorRegistry& r) {
    r.add({"tf", "", "StridedSlice", 1, INT64_MAX, [](ExtractContext& c) { tf_family::strided_slice(c, c.input(2)); }});
    r.add({"tf", "", "Slice", 1, INT64_MAX, slice});
    r.add({"tf", "", "Where", 1, INT64_MAX, where});
    r.add({"tf", "", "Range", 1, INT64_MAX, [](ExtractContext& c) {
               const ElementType t = tf_element_type(c.i("Tidx", mo_tf::DT_INT32), c.where());
               c.set_output(0, c.op("Range", "", {c.input(0), c.input(1), c.input(2)}, {{"output_type", t}}));
           }});
    r.add({"tf", "", "Split", 1, INT64_MAX, [](ExtractContext& c) {
               const int64_t n = parts(c, "num_split", c.i("num_split"));
               outputs_of(c, c.add("Split", "", {c.input(1), c.input(0)}, {{"num_splits", n}}), n);
           }});
    r.add({"tf", "", "SplitV", 1, INT64_MAX, [](ExtractContext& c) {
               const int64_t n = parts(c, "num_split", c.i("num_split", static_cast<int64_t>(c.output_count())));
               outputs_of(c, c.add("VariadicSplit", "", {c.input(0), c.input(2), c.input(1)}), n);
           }});
    r.add({"tf", "", "Unpack", 1, INT64_MAX,
           [](ExtractContext& c) { tf_family::unpack(c, c.i("axis", 0), parts(c, "num", c.i("num"))); }});
    r.add({"tf", "", "GatherV2", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("Gather", "", {c.input(0), c.input(1), c.input(2)}, {{"batch_dims", c.i("batch_dims", 0)}}));
           }});
    r.add({"tf", "", "GatherNd", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("GatherND", "", {c.input(0), c.input(1)}, {{"batch_dims", int64_t{0}}}));
           }});
    r.add({"tf", "", "Tile", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Tile", "", {c.input(0), c.input(1)})); }});
    r.add({"tf", "", "Fill", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("Broadcast", "", {c.input(1), c.input(0)}, {{"mode", std::string("numpy")}}));
           }});
    r.add({"tf", "", "ArgMax", 1, INT64_MAX, [](ExtractContext& c) { arg_extreme(c, "max"); }});
    r.add({"tf", "", "ArgMin", 1, INT64_MAX, [](ExtractContext& c) { arg_extreme(c, "min"); }});
    r.add({"tf", "", "TopKV2", 1, INT64_MAX, [](ExtractContext& c) {
               Node t = c.add("TopK", "", {c.input(0), c.input(1)},
                              {{"axis", int64_t{-1}}, {"mode", std::string("max")},
                               {"sort", std::string(c.i("sorted", 1) ? "value" : "none")}, {"stable", true},
                               {"index_element_type", ElementType::i32}});
               for (size_t j = 0; j < c.output_count() && j < 2; ++j) c.set_output(j, t.out(j));
           }});
    r.add({"tf", "", "DepthToSpace", 1, INT64_MAX, [](ExtractContext& c) { tf_family::depth_space(c, "DepthToSpace", tf_nhwc(c)); }});
    r.add({"tf", "", "SpaceToDepth", 1, INT64_MAX, [](ExtractContext& c) { tf_family::depth_space(c, "SpaceToDepth", tf_nhwc(c)); }});
    r.add({"tf", "", "FloorDiv", 1, INT64_MAX, floor_div});
    r.add({"tf", "", "Select", 1, INT64_MAX, [](ExtractContext& c) { select(c, true); }});
    r.add({"tf", "", "SelectV2", 1, INT64_MAX, [](ExtractContext& c) { select(c, false); }});
}

}  // namespace mo
