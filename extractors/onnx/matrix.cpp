// Matrix-pattern and element tests: Trilu, EyeLike (masks from row/column index
// differences), Hardmax (one-hot of the first maximum), Shrink, IsInf, IsNaN.
#include <limits>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"
#include "loaders/onnx/onnx_tensor.hpp"

namespace mo {

namespace {

// col - row for the last two dimensions of `x`: an i64 [M, N] matrix.
OutPort diagonal_offsets(ExtractContext& c, const OutPort& x) {
    OutPort zero = c.i64("range/start", 0), one = c.i64("range/step", 1);
    OutPort rows = c.op("Range", "rows", {zero, c.dim("rows/count", x, -2), one}, {{"output_type", ElementType::i64}});
    OutPort cols = c.op("Range", "cols", {zero, c.dim("cols/count", x, -1), one}, {{"output_type", ElementType::i64}});
    rows = c.op("Unsqueeze", "rows/column", {rows, c.i64s("rows/axis", {1})});
    return c.op("Subtract", "offsets", {cols, rows});
}

// Trilu keeps the elements on and above (upper) or on and below (lower) diagonal k.
void trilu(ExtractContext& c) {
    OutPort x = c.input(0);
    if (int64_t r = ExtractContext::rank_of(x); r >= 0 && r < 2) c.fail("Trilu needs an input of rank 2 or more");
    OutPort k = c.has_input(1) ? c.op("Convert", "k", {c.input(1)}, {{"destination_type", ElementType::i64}})
                               : c.i64("k", 0);
    const bool upper = c.i("upper", 1) != 0;
    OutPort keep = c.op(upper ? "GreaterEqual" : "LessEqual", "keep", {diagonal_offsets(c, x), k});
    c.set_output(0, c.op("Select", "", {keep, x, c.scalar_like("zero", 0.0, x)}));
}

// EyeLike: ones on diagonal k of a 2D tensor shaped like the input, of type `dtype`
// (default: the input's type).
void eye_like(ExtractContext& c) {
    OutPort x = c.input(0);
    if (int64_t r = ExtractContext::rank_of(x); r >= 0 && r != 2) c.fail("EyeLike needs a 2D input");
    ElementType type = c.has("dtype") ? onnx_element_type(static_cast<int32_t>(c.i("dtype")), c.where()) : x.type();
    if (type == ElementType::dynamic) c.fail("EyeLike output type is unknown", "set the dtype attribute");
    OutPort on_diagonal = c.op("Equal", "on_diagonal", {diagonal_offsets(c, x), c.i64("k", c.i("k", 0))});
    c.set_output(0, c.op("Convert", "", {on_diagonal}, {{"destination_type", type}}));
}

// Hardmax-13: 1 at the first maximum along `axis`, 0 elsewhere.
void hardmax(ExtractContext& c) {
    OutPort x = c.input(0);
    const int64_t axis = c.i("axis", -1);
    Node top = c.add("TopK", "argmax", {x, c.i64("argmax/k", 1)},
                     {{"axis", axis}, {"mode", std::string("max")}, {"sort", std::string("value")},
                      {"stable", true}, {"index_element_type", ElementType::i64}});
    OutPort index = c.op("Squeeze", "argmax/squeezed", {top.out(1), c.i64s("argmax/axis", {axis})});
    c.set_output(0, c.op("OneHot", "", {index, c.dim("depth", x, axis), c.scalar_like("on", 1.0, x),
                                        c.scalar_like("off", 0.0, x)},
                         {{"axis", axis}}));
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
void shrink(ExtractContext& c) {
    OutPort x = c.input(0);
    const double bias = c.f("bias", 0.0), lambd = c.f("lambd", 0.5);
    OutPort below = c.op("Less", "below", {x, c.scalar_like("neg_lambd", -lambd, x)});
    OutPort above = c.op("Greater", "above", {x, c.scalar_like("lambd", lambd, x)});
    OutPort bias_v = c.scalar_like("bias", bias, x);
    OutPort upper = c.op("Select", "upper", {above, c.op("Subtract", "minus_bias", {x, bias_v}),
                                             c.scalar_like("zero", 0.0, x)});
    c.set_output(0, c.op("Select", "", {below, c.op("Add", "plus_bias", {x, bias_v}), upper}));
}

void is_inf(ExtractContext& c) {
    OutPort x = c.input(0);
    const bool neg = c.i("detect_negative", 1) != 0, pos = c.i("detect_positive", 1) != 0;
    const double inf = std::numeric_limits<double>::infinity();
    if (!neg && !pos) {
        // Nothing equals NaN: all false, with the input's shape.
        c.set_output(0, c.op("Equal", "", {x, c.scalar_like("nan", std::numeric_limits<double>::quiet_NaN(), x)}));
    } else if (neg && pos) {
        c.set_output(0, c.op("Equal", "", {c.op("Abs", "abs", {x}), c.scalar_like("inf", inf, x)}));
    } else {
        c.set_output(0, c.op("Equal", "", {x, c.scalar_like("inf", pos ? inf : -inf, x)}));
    }
}

// NaN is the only value not equal to itself.
void is_nan(ExtractContext& c) { c.set_output(0, c.op("NotEqual", "", {c.input(0), c.input(0)})); }

}  // namespace

void register_onnx_matrix(ExtractorRegistry& r) {
    r.add({"onnx", "", "Trilu", since(14), trilu});
    r.add({"onnx", "", "EyeLike", since(9), eye_like});
    r.add({"onnx", "", "Hardmax", since(13), hardmax});
    r.add({"onnx", "", "Shrink", since(9), shrink});
    r.add({"onnx", "", "IsInf", since(10), is_inf});
    r.add({"onnx", "", "IsNaN", since(9), is_nan});
}

}  // namespace mo
