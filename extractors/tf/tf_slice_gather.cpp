// StridedSlice, Slice, Split, SplitV, Unpack, GatherV2, GatherNd, Tile, Fill, ArgMax / ArgMin, TopKV2,
// DepthToSpace / SpaceToDepth, FloorDiv, Select / SelectV2.
#include "extractors/tensorflow_family.hpp"
#include "extractors/tf/tf_extractors.hpp"

namespace mo {

namespace {

void outputs_of(ExtractContext& c, Node n) {
    n.set_output_count(c.output_count());
    for (size_t j = 0; j < c.output_count(); ++j) c.set_output(j, n.out(j));
}

// output_type DT_INT32 (3) or DT_INT64.
void arg_extreme(ExtractContext& c, const char* mode) {
    tf_family::arg_extreme(c, mode, c.i("output_type", 9) == 3 ? ElementType::i32 : ElementType::i64);
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

}  // namespace

void register_tf_slice_gather(ExtractorRegistry& r) {
    r.add({"tf", "", "StridedSlice", 1, INT64_MAX, [](ExtractContext& c) { tf_family::strided_slice(c, c.input(2)); }});
    r.add({"tf", "", "Slice", 1, INT64_MAX, tf_family::slice_begin_size});
    r.add({"tf", "", "Split", 1, INT64_MAX, [](ExtractContext& c) {
               outputs_of(c, c.add("Split", "", {c.input(1), c.input(0)}, {{"num_splits", c.i("num_split")}}));
           }});
    r.add({"tf", "", "SplitV", 1, INT64_MAX, [](ExtractContext& c) {
               outputs_of(c, c.add("VariadicSplit", "", {c.input(0), c.input(2), c.input(1)}));
           }});
    r.add({"tf", "", "Unpack", 1, INT64_MAX,
           [](ExtractContext& c) { tf_family::unpack(c, c.i("axis", 0), c.i("num")); }});
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
