// Reductions (axes attribute, or input from ReduceSum-13 and every reduction from opset 18),
// ArgMax/ArgMin, TopK, CumSum.
#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

// The axes input of a reduction: from the attribute (or input for ReduceSum-13 and, from opset
// 18, every reduction); all axes when absent. Returns false when the op is a no-op
// (noop_with_empty_axes).
bool reduction_axes(ExtractContext& c, OutPort& axes) {
    const std::string& type = c.node().framework().type;
    const bool axes_is_input = (type == "ReduceSum" && c.opset() >= 13) || c.opset() >= 18;
    if (axes_is_input && c.has_input(1)) {
        // An empty axes tensor means "all axes" (or a no-op): decide it here, since OpenVINO
        // reduces nothing over empty axes. That needs the length known at conversion time.
        const Tensor* v = c.input_value(1);
        const PartialShape& s = c.input(1).shape();
        const bool empty = v ? v->size() == 0 : s.is_static() && shape_size(s.to_shape()) == 0;
        if (!v && !s.is_static())
            c.fail(type + " axes computed at run time with a length unknown at conversion time are not supported",
                   "give the axes input a static shape (or a constant value)");
        if (!empty) {
            axes = c.input(1);
            return true;
        }
    } else if (!axes_is_input && c.has("axes")) {
        axes = c.i64s("axes", c.ints("axes"));
        return true;
    }
    if (c.i("noop_with_empty_axes", 0)) return false;
    axes = c.axes_from("axes", c.input(0), 0);
    return true;
}

void reduce(ExtractContext& c, const char* type, const char* pre, const char* post) {
    OutPort x = c.input(0), axes;
    if (!reduction_axes(c, axes)) {
        c.set_output(0, x);
        return;
    }
    bool keep = c.i("keepdims", 1) != 0;
    if (pre) x = std::string(pre) == "Square" ? c.op("Multiply", "square", {x, x}) : c.op(pre, "pre", {x});
    OutPort y = c.op(type, post ? "reduce" : "", {x, axes}, {{"keep_dims", keep}});
    if (post) y = c.op(post, "", {y});
    c.set_output(0, y);
}

struct Reduction {
    const char* onnx;
    const char* canonical;
    const char* pre = nullptr;   // element-wise op before the reduction
    const char* post = nullptr;  // element-wise op after it
};

constexpr Reduction kReductions[] = {
    {"ReduceMean", "ReduceMean"}, {"ReduceSum", "ReduceSum"},   {"ReduceMax", "ReduceMax"},
    {"ReduceMin", "ReduceMin"},   {"ReduceProd", "ReduceProd"}, {"ReduceL1", "ReduceL1"},
    {"ReduceL2", "ReduceL2"},     {"ReduceLogSumExp", "ReduceSum", "Exp", "Log"},
    {"ReduceLogSum", "ReduceSum", nullptr, "Log"}, {"ReduceSumSquare", "ReduceSum", "Square"},
};

// ArgMax / ArgMin = TopK(k=1) indices, squeezed unless keepdims. A stable value sort keeps
// the first of equal values; select_last_index runs it on the input reversed along the axis
// and maps the index back (dim - 1 - index).
void arg_extreme(ExtractContext& c, const char* mode) {
    int64_t axis = c.i("axis", 0);
    bool keep = c.i("keepdims", 1) != 0, last = c.i("select_last_index", 0) != 0;
    OutPort x = c.input(0);
    if (last)
        x = c.op("Slice", "reversed", {x, c.i64s("reversed/start", {-1}), c.i64s("reversed/stop", {INT64_MIN}),
                                       c.i64s("reversed/step", {-1}), c.i64s("reversed/axes", {axis})});
    Node topk = c.add("TopK", keep && !last ? "" : "topk", {x, c.i64("k", 1)},
                      {{"axis", axis}, {"mode", std::string(mode)}, {"sort", std::string("value")},
                       {"stable", true}, {"index_element_type", ElementType::i64}});
    OutPort y = topk.out(1);
    if (last) {
        OutPort shape = c.op("ShapeOf", "shape", {c.input(0)}, {{"output_type", ElementType::i64}});
        OutPort dim = c.op("Gather", "dim", {shape, c.i64("dim/index", axis), c.i64("dim/axis", 0)},
                           {{"batch_dims", int64_t{0}}});
        OutPort last_index = c.op("Subtract", "last_index", {dim, c.i64("one", 1)});
        y = c.op("Subtract", keep ? "" : "index", {last_index, y});
    }
    if (!keep) y = c.op("Squeeze", "", {y, c.i64s("squeeze_axis", {axis})});
    c.set_output(0, y);
}

void topk(ExtractContext& c) {
    OutPort k;
    if (c.opset() < 10) {
        k = c.i64("k", c.i("k"));
    } else {
        // ONNX k is a 1-element 1D tensor; TopK wants a scalar.
        k = c.op("Squeeze", "k", {c.input(1), c.i64s("k/axis", {0})});
    }
    bool largest = c.i("largest", 1) != 0, sorted = c.i("sorted", 1) != 0;
    Node n = c.add("TopK", "", {c.input(0), k},
                   {{"axis", c.i("axis", -1)}, {"mode", std::string(largest ? "max" : "min")},
                    {"sort", std::string(sorted ? "value" : "none")}, {"index_element_type", ElementType::i64}});
    c.set_output(0, n.out(0));
    if (c.output_count() > 1) c.set_output(1, n.out(1));
}

void cum_sum(ExtractContext& c) {
    c.become("CumSum", {{"exclusive", c.i("exclusive", 0) != 0}, {"reverse", c.i("reverse", 0) != 0}});
}

}  // namespace

void register_onnx_reduction(ExtractorRegistry& r) {
    for (const Reduction& m : kReductions) {
        Reduction red = m;
        r.add({"onnx", "", m.onnx, since(1), [red](ExtractContext& c) { reduce(c, red.canonical, red.pre, red.post); }});
    }
    r.add({"onnx", "", "ArgMax", since(1), [](ExtractContext& c) { arg_extreme(c, "max"); }});
    r.add({"onnx", "", "ArgMin", since(1), [](ExtractContext& c) { arg_extreme(c, "min"); }});
    r.add({"onnx", "", "TopK", since(1), topk});
    r.add({"onnx", "", "CumSum", since(11), cum_sum});
}

}  // namespace mo
