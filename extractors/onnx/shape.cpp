// Shape and data-movement ops: Reshape, Transpose, Concat, Split, Slice, Squeeze, Unsqueeze,
// Flatten, Shape, Expand, Tile, Pad, Gather*, Compress, Scatter*, DepthToSpace, SpaceToDepth.
#include <numeric>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

void reshape(ExtractContext& c) {
    // ONNX 0 copies the input dim (special_zero) unless allowzero=1 (opset 14).
    c.become("Reshape", {{"special_zero", c.i("allowzero", 0) == 0}});
}

void transpose(ExtractContext& c) {
    OutPort x = c.input(0);
    std::vector<int64_t> perm = c.ints("perm");
    if (!c.has("perm")) {
        // Absent perm reverses the axes; an empty order means the same to Transpose.
        int64_t rank = ExtractContext::rank_of(x);
        for (int64_t a = rank - 1; a >= 0; --a) perm.push_back(a);
    }
    c.set_output(0, c.op("Transpose", "", {x, c.i64s("order", perm)}));
}

void concat(ExtractContext& c) { c.become("Concat", {{"axis", c.i("axis", c.opset() < 4 ? 1 : 0)}}); }

void split(ExtractContext& c) {
    OutPort x = c.input(0);
    int64_t axis = c.i("axis", 0);
    auto parts = static_cast<int64_t>(c.output_count());
    OutPort lengths;
    bool has_lengths = false;
    if (c.opset() < 13 && c.has("split")) {
        lengths = c.i64s("split_lengths", c.ints("split"));
        has_lengths = true;
    } else if (c.opset() >= 13 && c.has_input(1)) {
        lengths = c.input(1);
        has_lengths = true;
    }
    Node n = has_lengths ? c.add("VariadicSplit", "", {x, c.i64("axis", axis), lengths})
                         : c.add("Split", "", {x, c.i64("axis", axis)}, {{"num_splits", parts}});
    n.set_output_count(static_cast<size_t>(parts));
    for (size_t j = 0; j < c.output_count(); ++j) c.set_output(j, n.out(j));
}

// Slice-1: starts/ends/axes attributes; Slice-10+: inputs starts, ends, axes, steps.
void slice(ExtractContext& c) {
    OutPort x = c.input(0);
    std::vector<OutPort> in{x};
    if (c.opset() < 10) {
        std::vector<int64_t> starts = c.ints("starts"), ends = c.ints("ends");
        if (starts.size() != ends.size()) c.fail("starts and ends differ in length", "fix the model");
        in.push_back(c.i64s("start", starts));
        in.push_back(c.i64s("stop", ends));
        in.push_back(c.i64s("step", std::vector<int64_t>(starts.size(), 1)));
        if (c.has("axes")) in.push_back(c.i64s("axes", c.ints("axes")));
    } else {
        OutPort starts = c.input(1);
        in.push_back(starts);
        in.push_back(c.input(2));
        OutPort steps;
        if (c.has_input(4)) {
            steps = c.input(4);
        } else if (const Tensor* v = starts.value()) {
            steps = c.i64s("step", std::vector<int64_t>(v->size(), 1));
        } else {
            // ones shaped like starts
            OutPort len = c.op("ShapeOf", "step/len", {starts}, {{"output_type", ElementType::i64}});
            steps = c.op("Broadcast", "step", {c.i64("step/one", 1), len}, {{"mode", std::string("numpy")}});
        }
        in.push_back(steps);
        if (c.has_input(3)) in.push_back(c.input(3));
    }
    c.set_output(0, c.op("Slice", "", in));
}

// Squeeze / Unsqueeze: axes attribute before opset 13, input from 13.
void squeeze(ExtractContext& c, const char* type) {
    OutPort x = c.input(0);
    std::vector<OutPort> in{x};
    if (c.opset() < 13) {
        if (c.has("axes")) in.push_back(c.i64s("axes", c.ints("axes")));
    } else if (c.has_input(1)) {
        in.push_back(c.input(1));
    }
    if (in.size() == 1 && std::string(type) == "Unsqueeze") c.fail("Unsqueeze needs axes", "fix the model");
    c.set_output(0, c.op(type, "", in));
}

void shape(ExtractContext& c) {
    OutPort x = c.input(0);
    bool sliced = c.has("start") || c.has("end");
    OutPort s = c.op("ShapeOf", sliced ? "shape" : "", {x}, {{"output_type", ElementType::i64}});
    if (sliced) {
        int64_t end = c.i("end", INT64_MAX);
        s = c.op("Slice", "", {s, c.i64s("start", {c.i("start", 0)}), c.i64s("end", {end}), c.i64s("step", {1})});
    }
    c.set_output(0, s);
}

void pad(ExtractContext& c) {
    OutPort x = c.input(0);
    std::string mode = c.s("mode", "constant");
    if (mode != "constant" && mode != "reflect" && mode != "edge") c.unsupported("Pad mode '" + mode + "'");
    OutPort begin, end;
    std::optional<OutPort> value;
    if (!c.has_input(1)) {  // before opset 11: pads and value are attributes
        std::vector<int64_t> pads = c.ints("pads");
        if (pads.size() % 2) c.fail("pads must have an even length", "fix the model");
        auto half = static_cast<long>(pads.size() / 2);
        begin = c.i64s("pads_begin", {pads.begin(), pads.begin() + half});
        end = c.i64s("pads_end", {pads.begin() + half, pads.end()});
        if (mode == "constant") value = c.scalar_like("value", c.f("value", 0.0), x);
    } else {
        if (c.has_input(3)) c.unsupported("Pad with axes");
        OutPort pads = c.input(1);
        if (const Tensor* v = pads.value()) {
            std::vector<int64_t> p = v->to_i64();
            if (p.size() % 2) c.fail("pads must have an even length", "fix the model");
            auto half = static_cast<long>(p.size() / 2);
            begin = c.i64s("pads_begin", {p.begin(), p.begin() + half});
            end = c.i64s("pads_end", {p.begin() + half, p.end()});
        } else {
            // com.microsoft's Pad also takes pads as [1, 2·rank].
            OutPort flat = c.op("Reshape", "pads/flat", {pads, c.i64s("pads/flat_shape", {-1})}, {{"special_zero", false}});
            Node halves = c.add("Split", "pads", {flat, c.i64("pads/axis", 0)}, {{"num_splits", int64_t{2}}});
            halves.set_output_count(2);
            begin = halves.out(0);
            end = halves.out(1);
        }
        if (mode == "constant" && c.has_input(2)) value = c.input(2);
    }
    std::vector<OutPort> in{x, begin, end};
    if (value) in.push_back(*value);
    c.set_output(0, c.op("Pad", "", in, {{"pad_mode", mode}}));
}

void depth_to_space(ExtractContext& c, bool to_space) {
    // ONNX DCR (default) = depth-column-row = OpenVINO blocks_first; CRD = depth_first.
    std::string mode = to_space ? c.s("mode", "DCR") : "DCR";
    if (mode != "DCR" && mode != "CRD") c.fail("unknown mode '" + mode + "'", "use DCR or CRD");
    c.become(to_space ? "DepthToSpace" : "SpaceToDepth",
             {{"block_size", c.i("blocksize")}, {"mode", std::string(mode == "DCR" ? "blocks_first" : "depth_first")}});
}

void gather(ExtractContext& c) {
    c.set_output(0, c.op("Gather", "", {c.input(0), c.input(1), c.i64("axis", c.i("axis", 0))},
                         {{"batch_dims", int64_t{0}}}));
}

void scatter_elements(ExtractContext& c) {
    std::string reduction = c.s("reduction", "none");
    if (reduction == "add") reduction = "sum";
    else if (reduction == "mul") reduction = "prod";
    else if (reduction != "none" && reduction != "max" && reduction != "min") c.unsupported("reduction '" + reduction + "'");
    c.set_output(0, c.op("ScatterElementsUpdate", "", {c.input(0), c.input(1), c.input(2), c.i64("axis", c.i("axis", 0))},
                         {{"reduction", reduction}, {"use_init_val", true}}));
}

// ScatterND with reduction add / mul as ScatterElementsUpdate-12 (sum / prod) on the flattened
// data: each updates element goes to the flat offset of its index tuple plus its place in the
// slice, so duplicate tuples accumulate in order as ONNX defines. This keeps the IR readable by
// runtimes older than ScatterNDUpdate-15.
void scatter_nd(ExtractContext& c) {
    const std::string reduction = c.s("reduction", "none");
    if (reduction == "none") {
        c.become("ScatterNDUpdate");
        return;
    }
    if (reduction != "add" && reduction != "mul") c.unsupported("ScatterND reduction '" + reduction + "'");
    OutPort data = c.input(0), indices = c.input(1), updates = c.input(2);
    const PartialShape& is = indices.shape();
    if (!data.shape().is_static() || !is.rank_is_static() || is.rank() == 0 || !is[is.rank() - 1].is_static())
        c.unsupported("ScatterND with a reduction on data of unknown shape or indices of unknown last dim");
    const Shape ds = data.shape().to_shape();
    shape_size(ds);  // throws if the dims overflow: their products below then cannot
    const int64_t k = is[is.rank() - 1].get_length();
    if (k < 1 || k > static_cast<int64_t>(ds.size()))
        c.fail("the last dim of indices (" + std::to_string(k) + ") must be in [1, data rank]", "fix the model");
    std::vector<int64_t> dims(ds.begin(), ds.begin() + k), strides(ds.size());
    int64_t running = 1;
    for (size_t d = ds.size(); d-- > 0;) {
        strides[d] = running;
        running *= ds[d];
    }
    const int64_t slice = strides[static_cast<size_t>(k) - 1];  // elements one index tuple addresses
    strides.resize(static_cast<size_t>(k));
    // Negative indices count from the end of their dim.
    OutPort idx = indices.type() == ElementType::i64
                      ? indices
                      : c.op("Convert", "indices/i64", {indices}, {{"destination_type", ElementType::i64}});
    OutPort wrapped = c.op("Add", "indices/wrapped", {idx, c.i64s("dims", dims)});
    idx = c.op("Select", "indices/normalized",
               {c.op("Less", "indices/negative", {idx, c.i64("zero", 0)}), wrapped, idx},
               {{"auto_broadcast", std::string("numpy")}});
    OutPort terms = c.op("Multiply", "offsets/terms", {idx, c.i64s("strides", strides)});
    OutPort base = c.op("ReduceSum", "offsets", {terms, c.i64s("offsets/axis", {-1})}, {{"keep_dims", true}});
    OutPort within = c.op("Range", "slice_offsets",
                          {c.i64("slice/start", 0), c.i64("slice/stop", slice), c.i64("slice/step", 1)},
                          {{"output_type", ElementType::i64}});
    auto flat = [&](const std::string& name, const OutPort& p) {
        return c.op("Reshape", name, {p, c.i64s(name + "/shape", {-1})}, {{"special_zero", false}});
    };
    OutPort flat_idx = flat("flat_indices", c.op("Add", "element_offsets", {base, within}));
    OutPort flat_data = flat("flat_data", data), flat_upd = flat("flat_updates", updates);
    OutPort scattered = c.op("ScatterElementsUpdate", "scattered", {flat_data, flat_idx, flat_upd, c.i64("axis", 0)},
                             {{"reduction", std::string(reduction == "add" ? "sum" : "prod")}, {"use_init_val", true}});
    c.set_output(0, c.op("Reshape", "", {scattered, c.i64s("shape", std::vector<int64_t>(ds.begin(), ds.end()))},
                         {{"special_zero", false}}));
}

// Compress = Gather(x, NonZero(condition), axis), x flattened without an axis. A condition shorter
// than the axis drops the rest; a longer one is cut to the axis length first (ONNX Runtime ignores
// its extra entries, so a true one there selects nothing).
void compress(ExtractContext& c) {
    OutPort x = c.input(0), condition = c.input(1);
    int64_t axis = 0;
    if (c.has("axis")) {
        axis = c.i("axis");
        const int64_t rank = ExtractContext::rank_of(x);
        if (rank < 0) c.unsupported("Compress with an axis on an input of unknown rank");
        if (axis < -rank || axis >= rank)
            c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank),
                   "fix the model");
        if (axis < 0) axis += rank;
    } else {
        x = c.op("Reshape", "flat", {x, c.i64s("flat/shape", {-1})}, {{"special_zero", false}});
    }
    if (ExtractContext::rank_of(condition) != 1 && ExtractContext::rank_of(condition) != -1)
        c.fail("the condition must be 1D", "fix the model");
    OutPort shape = c.op("ShapeOf", "shape", {x}, {{"output_type", ElementType::i64}});
    OutPort length = c.op("Gather", "length", {shape, c.i64s("length/index", {axis}), c.i64("length/axis", 0)},
                          {{"batch_dims", int64_t{0}}});
    OutPort cut = c.op("Slice", "condition/cut",
                       {condition, c.i64s("condition/start", {0}), length, c.i64s("condition/step", {1})});
    OutPort positions = c.op("NonZero", "positions", {cut}, {{"output_type", ElementType::i64}});
    OutPort indices = c.op("Reshape", "indices", {positions, c.i64s("indices/shape", {-1})}, {{"special_zero", false}});
    c.set_output(0, c.op("Gather", "", {x, indices, c.i64("axis", axis)}, {{"batch_dims", int64_t{0}}}));
}

void one_hot(ExtractContext& c) {
    // values = [off, on]
    OutPort values = c.input(2);
    if (values.shape().is_static() && values.shape().to_shape() != Shape{2})
        c.fail("values must be [off, on], its shape is [" + values.shape().to_string() + "]", "fix the model");
    OutPort off = c.op("Gather", "off", {values, c.i64("off/index", 0), c.i64("off/axis", 0)}, {{"batch_dims", int64_t{0}}});
    OutPort on = c.op("Gather", "on", {values, c.i64("on/index", 1), c.i64("on/axis", 0)}, {{"batch_dims", int64_t{0}}});
    auto to_i64 = [&](const std::string& suffix, const OutPort& p) {
        return p.type() == ElementType::i64 ? p : c.op("Convert", suffix, {p}, {{"destination_type", ElementType::i64}});
    };
    OutPort depth = c.op("Squeeze", "depth", {to_i64("depth/i64", c.input(1))});
    // ONNX counts negative indices from the end (index + depth); OpenVINO's OneHot treats them as
    // out of range, so wrap them first. Indices still out of range stay so (all "off").
    OutPort indices = to_i64("indices", c.input(0));
    OutPort negative = c.op("Less", "indices/negative", {indices, c.i64("indices/zero", 0)});
    OutPort wrapped = c.op("Add", "indices/wrapped", {indices, depth});
    indices = c.op("Select", "indices/normalized", {negative, wrapped, indices});
    c.set_output(0, c.op("OneHot", "", {indices, depth, on, off}, {{"axis", c.i("axis", -1)}}));
}

}  // namespace

void register_onnx_shape(ExtractorRegistry& r) {
    r.add({"onnx", "", "Reshape", since(5), reshape});
    r.add({"onnx", "", "Transpose", since(1), transpose});
    r.add({"onnx", "", "Concat", since(1), concat});
    r.add({"onnx", "", "Split", opsets(1, 17), split});
    r.add({"onnx", "", "Slice", since(1), slice});
    r.add({"onnx", "", "Squeeze", since(1), [](ExtractContext& c) { squeeze(c, "Squeeze"); }});
    r.add({"onnx", "", "Unsqueeze", since(1), [](ExtractContext& c) { squeeze(c, "Unsqueeze"); }});
    r.add({"onnx", "", "Flatten", since(1), [](ExtractContext& c) { c.become("Flatten", {{"axis", c.i("axis", 1)}}); }});
    r.add({"onnx", "", "Shape", since(1), shape});
    r.add({"onnx", "", "Expand", since(8),
           [](ExtractContext& c) { c.become("Broadcast", {{"mode", std::string("bidirectional")}}); }});
    r.add({"onnx", "", "Tile", since(6), [](ExtractContext& c) { c.become("Tile"); }});
    r.add({"onnx", "", "Pad", since(2), pad});
    // ONNX Runtime's contrib Pad: opset 11's inputs (pads may be [1, 2·rank]) and modes.
    r.add({"onnx", "com.microsoft", "Pad", since(1), pad});
    r.add({"onnx", "", "Gather", since(1), gather});
    r.add({"onnx", "", "GatherElements", since(11),
           [](ExtractContext& c) { c.become("GatherElements", {{"axis", c.i("axis", 0)}}); }});
    r.add({"onnx", "", "GatherND", since(11),
           [](ExtractContext& c) { c.become("GatherND", {{"batch_dims", c.i("batch_dims", 0)}}); }});
    r.add({"onnx", "", "ScatterElements", since(11), scatter_elements});
    r.add({"onnx", "", "ScatterND", since(11), scatter_nd});
    r.add({"onnx", "", "Compress", since(9), compress});
    r.add({"onnx", "", "ReverseSequence", since(10), [](ExtractContext& c) {
               c.become("ReverseSequence", {{"batch_axis", c.i("batch_axis", 1)}, {"seq_axis", c.i("time_axis", 0)}});
           }});
    r.add({"onnx", "", "DepthToSpace", since(1), [](ExtractContext& c) { depth_to_space(c, true); }});
    r.add({"onnx", "", "SpaceToDepth", since(1), [](ExtractContext& c) { depth_to_space(c, false); }});
    r.add({"onnx", "", "OneHot", since(9), one_hot});
    r.add({"onnx", "", "NonZero", since(9),
           [](ExtractContext& c) { c.become("NonZero", {{"output_type", ElementType::i64}}); }});
    // Einsum: no Einsum-7 schema in ops/ yet, so it is reported as an unsupported op.
}

}  // namespace mo
