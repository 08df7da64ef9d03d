// Element-wise ONNX ops: unary math, binary arithmetic/comparison/logic, activations.
#include <cfloat>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

// ONNX op type -> canonical op with the same inputs and no attributes.
struct Rename {
    const char* onnx;
    const char* canonical;
    int64_t since = 1;
};

constexpr Rename kRenames[] = {
    // unary
    {"Relu", "Relu"}, {"Sigmoid", "Sigmoid"}, {"Tanh", "Tanh"}, {"Erf", "Erf", 9}, {"Exp", "Exp"}, {"Log", "Log"},
    {"Sqrt", "Sqrt"}, {"Neg", "Negative"}, {"Abs", "Abs"}, {"Floor", "Floor"}, {"Ceiling", "Ceiling"},
    {"Ceil", "Ceiling"}, {"Sin", "Sin"}, {"Cos", "Cos"}, {"Tan", "Tan"}, {"Asin", "Asin"}, {"Acos", "Acos"},
    {"Atan", "Atan"}, {"Sinh", "Sinh", 9}, {"Cosh", "Cosh", 9}, {"Asinh", "Asinh", 9}, {"Acosh", "Acosh", 9},
    {"Atanh", "Atanh", 9}, {"Sign", "Sign", 9}, {"Not", "LogicalNot"}, {"Softplus", "SoftPlus"},
    {"HardSwish", "HSwish", 14},
    // binary, numpy broadcasting from opset 7 (before: the legacy `broadcast` attribute)
    {"Add", "Add", 7}, {"Sub", "Subtract", 7}, {"Mul", "Multiply", 7}, {"Div", "Divide", 7},
    {"Equal", "Equal", 7}, {"Less", "Less", 7}, {"Greater", "Greater", 7}, {"LessOrEqual", "LessEqual", 12},
    {"GreaterOrEqual", "GreaterEqual", 12}, {"And", "LogicalAnd", 7}, {"Or", "LogicalOr", 7},
    {"Xor", "LogicalXor", 7}, {"PRelu", "PRelu", 7}, {"Where", "Select", 9}, {"MatMul", "MatMul"},
};

void rename(ExtractContext& c, const char* canonical) { c.become(canonical); }

// Sum / Max / Min / Mean: variadic in ONNX, a chain of binary ops here.
void variadic(ExtractContext& c, const char* binary, bool mean) {
    size_t n = c.input_count();
    if (n == 0) c.fail("has no inputs", "fix the model");
    OutPort acc = c.input(0);
    for (size_t k = 1; k < n; ++k) {
        bool last = k + 1 == n && !mean;
        acc = c.op(binary, last ? "" : "acc" + std::to_string(k), {acc, c.input(k)});
    }
    if (mean && n > 1)
        acc = c.op("Divide", "", {acc, c.scalar_like("count", static_cast<double>(n), c.input(0))});
    c.set_output(0, acc);
}

// Clip before opset 11: min/max attributes (defaults: the float range).
void clip_attrs(ExtractContext& c) {
    c.become("Clamp", {{"min", c.f("min", -FLT_MAX)}, {"max", c.f("max", FLT_MAX)}});
}

void leaky_relu(ExtractContext& c) {
    OutPort x = c.input(0);
    c.set_output(0, c.op("PRelu", "", {x, c.scalar_like("slope", c.f("alpha", 0.01), x)}));
}

void hard_sigmoid(ExtractContext& c) {
    OutPort x = c.input(0);
    c.set_output(0, c.op("HardSigmoid", "", {x, c.scalar_like("alpha", c.f("alpha", 0.2), x),
                                              c.scalar_like("beta", c.f("beta", 0.5), x)}));
}

void selu(ExtractContext& c) {
    OutPort x = c.input(0);
    c.set_output(0, c.op("Selu", "", {x, c.scalar_like("alpha", c.f("alpha", 1.67326319217681884765625), x),
                                       c.scalar_like("lambda", c.f("gamma", 1.05070102214813232421875), x)}));
}

void mod(ExtractContext& c) {
    // fmod=1 keeps the dividend's sign (C fmod): Mod; fmod=0 the divisor's: FloorMod.
    c.become(c.i("fmod", 0) ? "Mod" : "FloorMod");
}

// ONNX Pow may raise to an exponent of another type; Power needs one type.
void pow(ExtractContext& c) {
    OutPort base = c.input(0), exponent = c.input(1);
    ElementType tb = base.type(), te = exponent.type();
    if (tb != te && tb != ElementType::dynamic && te != ElementType::dynamic)
        exponent = c.op("Convert", "exponent", {exponent}, {{"destination_type", tb}});
    else if (tb != te && c.graph().ops().find("ConvertLike"))
        exponent = c.op("ConvertLike", "exponent", {exponent, base});
    c.set_output(0, c.op("Power", "", {base, exponent}));
}

// y = x > alpha ? x : 0
void thresholded_relu(ExtractContext& c) {
    OutPort x = c.input(0);
    OutPort above = c.op("Greater", "above", {x, c.scalar_like("alpha", c.f("alpha", 1.0), x)});
    c.set_output(0, c.op("Select", "", {above, x, c.scalar_like("zero", 0.0, x)}));
}

// SoftSign when registered, else x / (1 + |x|).
void softsign(ExtractContext& c) {
    if (c.graph().ops().find("SoftSign")) {
        c.become("SoftSign");
        return;
    }
    OutPort x = c.input(0);
    OutPort denominator = c.op("Add", "denominator", {c.op("Abs", "abs", {x}), c.scalar_like("one", 1.0, x)});
    c.set_output(0, c.op("Divide", "", {x, denominator}));
}

void cast_like(ExtractContext& c) {
    ElementType t = c.input(1).type();
    if (t != ElementType::dynamic) c.set_output(0, c.op("Convert", "", {c.input(0)}, {{"destination_type", t}}));
    else if (c.graph().ops().find("ConvertLike")) c.set_output(0, c.op("ConvertLike", "", {c.input(0), c.input(1)}));
    else c.fail("the target type is unknown at conversion time", "give the model's inputs element types");
}

void reciprocal(ExtractContext& c) {
    OutPort x = c.input(0);
    c.set_output(0, c.op("Divide", "", {c.scalar_like("one", 1.0, x), x}));
}

}  // namespace

void register_onnx_eltwise(ExtractorRegistry& r) {
    for (const Rename& m : kRenames) {
        const char* canonical = m.canonical;
        r.add({"onnx", "", m.onnx, since(m.since), [canonical](ExtractContext& c) { rename(c, canonical); }});
    }
    r.add({"onnx", "", "Sum", since(1), [](ExtractContext& c) { variadic(c, "Add", false); }});
    r.add({"onnx", "", "Max", since(1), [](ExtractContext& c) { variadic(c, "Maximum", false); }});
    r.add({"onnx", "", "Min", since(1), [](ExtractContext& c) { variadic(c, "Minimum", false); }});
    r.add({"onnx", "", "Mean", since(1), [](ExtractContext& c) { variadic(c, "Add", true); }});
    r.add({"onnx", "", "Clip", opsets(1, 10), clip_attrs});
    r.add({"onnx", "", "Clip", since(11), [](ExtractContext& c) { c.become("Clip"); }});
    r.add({"onnx", "", "LeakyRelu", since(1), leaky_relu});
    r.add({"onnx", "", "HardSigmoid", since(1), hard_sigmoid});
    r.add({"onnx", "", "Selu", since(1), selu});
    r.add({"onnx", "", "Elu", since(1), [](ExtractContext& c) { c.become("Elu", {{"alpha", c.f("alpha", 1.0)}}); }});
    r.add({"onnx", "", "Mod", since(10), mod});
    r.add({"onnx", "", "Reciprocal", since(1), reciprocal});
    r.add({"onnx", "", "Pow", since(7), pow});
    r.add({"onnx", "", "Softsign", since(1), softsign});
    r.add({"onnx", "", "ThresholdedRelu", since(10), thresholded_relu});
    r.add({"onnx", "", "CastLike", since(15), cast_like});
    r.add({"onnx", "", "Round", since(11),
           [](ExtractContext& c) { c.become("Round", {{"mode", std::string("half_to_even")}}); }});
    r.add({"onnx", "", "Gemm", since(7), [](ExtractContext& c) {
               c.become("Gemm", {{"alpha", c.f("alpha", 1.0)}, {"beta", c.f("beta", 1.0)},
                                 {"transA", c.i("transA", 0) != 0}, {"transB", c.i("transB", 0) != 0}});
           }});
}

}  // namespace mo
