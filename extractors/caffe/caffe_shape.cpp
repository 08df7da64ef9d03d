// Concat, Slice (slice points or equal parts), Flatten (axis, end_axis), Reshape (0 copies, -1
// infers, axis / num_axes replace a range of axes), Permute (SSD; a partial order is completed
// in increasing order), Crop (to the second bottom's shape from axis on, with offsets), ArgMax
// (per image over the flattened rest, or along an axis; out_max_val) and Tile; the data layers of
// a training net are refused with a hint.
#include <algorithm>

#include "extractors/caffe/caffe_extractors.hpp"

namespace mo {

namespace {

// A target shape for Reshape (special_zero): x's dims [0, begin) copied, `middle` (0 copies the
// input's dim at the same position, -1 infers one dim), then x's dims [end, rank).
OutPort target_shape(ExtractContext& c, const OutPort& x, int64_t begin, const std::vector<int64_t>& middle, int64_t end,
                     int64_t rank) {
    std::vector<int64_t> head(static_cast<size_t>(begin), 0);
    head.insert(head.end(), middle.begin(), middle.end());
    const PartialShape& xs = x.shape();
    bool tail_static = true;
    for (int64_t a = end; a < rank; ++a) tail_static &= xs[static_cast<size_t>(a)].is_static();
    if (tail_static) {
        for (int64_t a = end; a < rank; ++a) head.push_back(xs[static_cast<size_t>(a)].get_length());
        return c.i64s("shape", head);
    }
    OutPort shape = c.op("ShapeOf", "shape/input", {x}, {{"output_type", ElementType::i64}});
    OutPort tail = c.op("Slice", "shape/tail", {shape, c.i64s("shape/tail/start", {end}), c.i64s("shape/tail/stop", {rank}),
                                                 c.i64s("shape/tail/step", {1}), c.i64s("shape/tail/axes", {0})});
    return c.op("Concat", "shape", {c.i64s("shape/head", head), tail}, {{"axis", int64_t{0}}});
}

void reshape_to(ExtractContext& c, int64_t begin, const std::vector<int64_t>& middle, int64_t end, int64_t rank) {
    OutPort shape = target_shape(c, c.input(0), begin, middle, end, rank);
    c.set_output(0, c.op("Reshape", "", {c.input(0), shape}, {{"special_zero", true}}));
}

void concat(ExtractContext& c) {
    const std::string p = "concat_param.";
    const int64_t axis = !c.has(p + "axis") && c.has(p + "concat_dim") ? c.i(p + "concat_dim") : c.i(p + "axis", 1);
    std::vector<OutPort> inputs;
    for (size_t i = 0; i < c.input_count(); ++i) inputs.push_back(c.input(i));
    if (inputs.empty()) c.fail("Concat needs a bottom");
    if (inputs.size() == 1) return c.set_output(0, inputs[0]);
    c.set_output(0, c.op("Concat", "", inputs, {{"axis", axis}}));
}

void slice(ExtractContext& c) {
    const std::string p = "slice_param.";
    const int64_t axis = !c.has(p + "axis") && c.has(p + "slice_dim") ? c.i(p + "slice_dim") : c.i(p + "axis", 1);
    const std::vector<int64_t> points = c.ints(p + "slice_point");
    const size_t tops = c.output_count();
    Node n;
    if (points.empty()) {
        n = c.add("Split", "", {c.input(0), c.i64("axis", axis)}, {{"num_splits", static_cast<int64_t>(tops)}});
    } else {
        if (points.size() + 1 != tops)
            c.fail(std::to_string(points.size()) + " slice points make " + std::to_string(points.size() + 1) + " parts, the layer has " +
                   std::to_string(tops) + " tops");
        std::vector<int64_t> lengths;
        int64_t prev = 0;
        for (int64_t point : points) {
            if (point <= prev) c.fail("slice points must increase and be positive");
            lengths.push_back(point - prev);
            prev = point;
        }
        lengths.push_back(-1);
        n = c.add("VariadicSplit", "", {c.input(0), c.i64("axis", axis), c.i64s("lengths", lengths)});
    }
    n.set_output_count(tops);
    for (size_t j = 0; j < tops; ++j) c.set_output(j, n.out(j));
}

void flatten(ExtractContext& c) {
    const std::string p = "flatten_param.";
    const int64_t first = c.i(p + "axis", 1), last = c.i(p + "end_axis", -1);
    if (first >= 0 && last == -1) return reshape_to(c, first, {-1}, 0, 0);
    const int64_t rank = caffe::input_rank(c, 0, "Flatten's axes count from it");
    const int64_t a = caffe::axis(c, first, rank, "axis"), b = caffe::axis(c, last, rank, "end_axis");
    if (b < a) c.fail("end_axis comes before axis");
    reshape_to(c, a, {-1}, b + 1, rank);
}

// Caffe's Reshape: axis -1 means after the last axis (start = rank + axis + 1).
void reshape(ExtractContext& c) {
    const std::string p = "reshape_param.";
    const std::vector<int64_t> shape = c.ints(p + "shape");
    if (std::count(shape.begin(), shape.end(), -1) > 1) c.fail("the shape infers more than one dimension (-1)");
    for (int64_t d : shape)
        if (d < -1) c.fail("the shape has a dimension " + std::to_string(d));
    const int64_t axis = c.i(p + "axis", 0), num_axes = c.i(p + "num_axes", -1);
    if (axis == 0 && num_axes == -1) {
        c.set_output(0, c.op("Reshape", "", {c.input(0), c.i64s("shape", shape)}, {{"special_zero", true}}));
        return;
    }
    const int64_t rank = caffe::input_rank(c, 0, "Reshape's axis and num_axes count from it");
    const int64_t start = axis >= 0 ? axis : rank + axis + 1;
    if (start < 0 || start > rank) c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    const int64_t end = num_axes == -1 ? rank : start + num_axes;
    if (num_axes < -1 || end > rank) c.fail("num_axes " + std::to_string(num_axes) + " reaches beyond the input's rank");
    reshape_to(c, start, shape, end, rank);
}

void permute(ExtractContext& c) {
    const std::vector<int64_t> given = c.ints("permute_param.order");
    const int64_t rank = caffe::input_rank(c, 0, "Permute completes its order with it");
    std::vector<int64_t> order;
    for (int64_t a : given) {
        if (a < 0 || a >= rank || std::find(order.begin(), order.end(), a) != order.end())
            c.fail("order repeats an axis or names one beyond rank " + std::to_string(rank));
        order.push_back(a);
    }
    for (int64_t a = 0; a < rank; ++a)
        if (std::find(order.begin(), order.end(), a) == order.end()) order.push_back(a);
    c.set_output(0, c.op("Transpose", "", {c.input(0), c.i64s("order", order)}));
}

// The first bottom cut to the second's dims on axes [axis, rank), starting at the offsets.
void crop(ExtractContext& c) {
    const std::string p = "crop_param.";
    if (c.input_count() != 2) c.fail("Crop needs two bottoms: the blob and the reference");
    const int64_t rank = caffe::input_rank(c, 0, "Crop's axis counts from it");
    const int64_t axis = caffe::axis(c, c.i(p + "axis", 2), rank, "axis");
    std::vector<int64_t> offsets = c.ints(p + "offset");
    const size_t cropped = static_cast<size_t>(rank - axis);
    if (offsets.empty()) offsets.assign(cropped, 0);
    else if (offsets.size() == 1) offsets.assign(cropped, offsets[0]);
    else if (offsets.size() != cropped)
        c.fail(std::to_string(offsets.size()) + " offsets for " + std::to_string(cropped) + " cropped axes", "give one, or one per axis");
    std::vector<int64_t> axes;
    for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
    const PartialShape &xs = c.input(0).shape(), &ref = c.input(1).shape();
    if (ref.rank_is_static() && static_cast<int64_t>(ref.rank()) != rank) c.fail("the reference has another rank");
    bool ref_static = ref.rank_is_static();
    for (int64_t a : axes) ref_static = ref_static && ref[static_cast<size_t>(a)].is_static();
    OutPort stop;
    if (ref_static) {
        std::vector<int64_t> ends;
        for (size_t i = 0; i < axes.size(); ++i) {
            const int64_t want = ref[static_cast<size_t>(axes[i])].get_length();
            const Dimension& have = xs[static_cast<size_t>(axes[i])];
            if (have.is_static() && offsets[i] + want > have.get_length())
                c.fail("cropping " + std::to_string(want) + " from offset " + std::to_string(offsets[i]) + " of axis " +
                       std::to_string(axes[i]) + " (" + std::to_string(have.get_length()) + ") reaches beyond it");
            ends.push_back(offsets[i] + want);
        }
        stop = c.i64s("stop", ends);
    } else {
        OutPort shape = c.op("ShapeOf", "reference/shape", {c.input(1)}, {{"output_type", ElementType::i64}});
        OutPort dims = c.op("Gather", "reference/dims", {shape, c.i64s("reference/axes", axes), c.i64("reference/axis", 0)},
                            {{"batch_dims", int64_t{0}}});
        stop = c.op("Add", "stop", {dims, c.i64s("offsets", offsets)});
    }
    std::vector<int64_t> ones(axes.size(), 1);
    c.set_output(0, c.op("Slice", "", {c.input(0), c.i64s("start", offsets), stop, c.i64s("step", ones), c.i64s("axes", axes)}));
}

// Without axis: per image over the flattened rest, [N, 1, top_k] indices or [N, 2, top_k]
// indices then values. With axis: the indices, or the values with out_max_val, along it.
void arg_max(ExtractContext& c) {
    const std::string p = "argmax_param.";
    const int64_t k = c.i(p + "top_k", 1);
    if (k < 1) c.fail("top_k must be positive");
    const bool values = c.i(p + "out_max_val", 0) != 0;
    AttrMap attrs{{"mode", std::string("max")}, {"sort", std::string("value")}, {"index_element_type", ElementType::i32}};
    if (c.has(p + "axis")) {
        attrs["axis"] = c.i(p + "axis");
        Node top = c.add("TopK", "topk", {c.input(0), c.i64("k", k)}, attrs);
        c.set_output(0, values ? top.out(0) : c.op("Convert", "", {top.out(1)}, {{"destination_type", ElementType::f32}}));
        return;
    }
    OutPort flat = c.op("Reshape", "flatten", {c.input(0), c.i64s("flatten/shape", {0, -1})}, {{"special_zero", true}});
    attrs["axis"] = int64_t{1};
    Node top = c.add("TopK", "topk", {flat, c.i64("k", k)}, attrs);
    OutPort index = c.op("Convert", "indices", {top.out(1)}, {{"destination_type", ElementType::f32}});
    OutPort axis1 = c.i64s("unsqueeze_axis", {1});
    index = c.op("Unsqueeze", values ? "indices/unsqueeze" : "", {index, axis1});
    if (values) index = c.op("Concat", "", {index, c.op("Unsqueeze", "values/unsqueeze", {top.out(0), axis1})}, {{"axis", int64_t{1}}});
    c.set_output(0, index);
}

void tile(ExtractContext& c) {
    const int64_t rank = caffe::input_rank(c, 0, "Tile's axis counts from it");
    const int64_t axis = caffe::axis(c, c.i("tile_param.axis", 1), rank, "axis");
    const int64_t tiles = c.i("tile_param.tiles");
    if (tiles < 1) c.fail("tiles must be positive");
    std::vector<int64_t> repeats(static_cast<size_t>(rank), 1);
    repeats[static_cast<size_t>(axis)] = tiles;
    c.set_output(0, c.op("Tile", "", {c.input(0), c.i64s("repeats", repeats)}));
}

void data_layer(ExtractContext& c) {
    c.fail("the layer reads training data; mo converts deploy nets, whose inputs are `input` fields or Input layers",
           "pass the model's deploy.prototxt with --input_proto (or replace the data layer with an Input layer)");
}

}  // namespace

void register_caffe_shape(ExtractorRegistry& r) {
    caffe::add(r, "Concat", concat);
    caffe::add(r, "Slice", slice);
    caffe::add(r, "Flatten", flatten);
    caffe::add(r, "Reshape", reshape);
    caffe::add(r, "Permute", permute);
    caffe::add(r, "Crop", crop);
    caffe::add(r, "ArgMax", arg_max);
    caffe::add(r, "Tile", tile);
    for (const char* type : {"Data", "ImageData", "HDF5Data", "MemoryData", "DummyData", "WindowData", "AnnotatedData"})
        r.add({"caffe", "", type, 1, INT64_MAX, data_layer});
}

}  // namespace mo
