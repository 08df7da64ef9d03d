// Element-wise ops as ONNX: most are one ONNX op of the same meaning; those ONNX lacks are
// decomposed into ops that compute the same (OpenVINO's definitions, ops/eltwise.cpp).
#include <cmath>
#include <numbers>

#include "emit/onnx/onnx_rules.hpp"

namespace mo::onnx_emit {

namespace {

// ONNX opset 14 added 8- and 16-bit integers to Add, Sub, Mul, Div and Relu.
int arithmetic_opset(ElementType t) {
    switch (t) {
    case ElementType::i8:
    case ElementType::u8:
    case ElementType::i16:
    case ElementType::u16: return 14;
    default: return 13;
    }
}

void check_broadcast(OnnxNodeContext& c) {
    if (!c.node.op().find_attr("auto_broadcast")) return;
    const auto mode = c.attr<std::string>("auto_broadcast");
    if (mode != "numpy" && mode != "none")
        c.fail("auto_broadcast '" + mode + "' has no ONNX form (ONNX broadcasts as numpy)");
}

// A binary op with numpy broadcasting.
EmitFn binary(std::string onnx_type, bool arithmetic = false) {
    return [onnx_type, arithmetic](OnnxNodeContext& c) {
        check_broadcast(c);
        if (arithmetic) c.need_opset(arithmetic_opset(c.in_type(0)));
        c.add(onnx_type, {c.in(0), c.in(1)}, {c.out(0)});
    };
}

// A unary op that ONNX defines on floats only and OpenVINO leaves unchanged on integers.
EmitFn float_or_identity(std::string onnx_type) {
    return [onnx_type](OnnxNodeContext& c) {
        c.add(is_integral(c.in_type(0)) ? "Identity" : onnx_type, {c.in(0)}, {c.out(0)});
    };
}

// r = x mod y with the sign of y (Python's %), from C's fmod: r += y where r and y differ in sign.
std::string floor_mod(OnnxNodeContext& c, const std::string& x, const std::string& y, ElementType t) {
    const std::string r = c.add_tmp("Mod", {x, y}, {a_int("fmod", 1)});
    const std::string zero = c.scalar(0, t, "zero");
    const std::string nonzero = c.add_tmp("Not", {c.add_tmp("Equal", {r, zero})});
    const std::string signs_differ = c.add_tmp("Xor", {c.add_tmp("Less", {r, zero}), c.add_tmp("Less", {y, zero})});
    const std::string adjust = c.add_tmp("And", {nonzero, signs_differ});
    return c.add_tmp("Where", {adjust, c.add_tmp("Add", {r, y}), r});
}

void emit_divide(OnnxNodeContext& c) {
    check_broadcast(c);
    const ElementType t = c.in_type(0);
    c.need_opset(arithmetic_opset(t));
    if (!is_integral(t) || !c.attr<bool>("m_pythondiv") || is_unsigned_int(t)) {
        c.add("Div", {c.in(0), c.in(1)}, {c.out(0)});  // ONNX truncates integers, as Divide without pythondiv
        return;
    }
    // Floor division: the truncated quotient, less one where the remainder and divisor differ in sign.
    const std::string a = c.in(0), b = c.in(1), zero = c.scalar(0, t, "zero");
    const std::string q = c.add_tmp("Div", {a, b});
    const std::string r = c.add_tmp("Sub", {a, c.add_tmp("Mul", {q, b})});
    const std::string nonzero = c.add_tmp("Not", {c.add_tmp("Equal", {r, zero})});
    const std::string signs_differ = c.add_tmp("Xor", {c.add_tmp("Less", {r, zero}), c.add_tmp("Less", {b, zero})});
    const std::string adjust = c.add_tmp("And", {nonzero, signs_differ});
    c.add("Where", {adjust, c.add_tmp("Sub", {q, c.scalar(1, t, "one")}), q}, {c.out(0)});
}

void emit_floor_mod(OnnxNodeContext& c) {
    check_broadcast(c);
    const ElementType t = c.in_type(0);
    if (is_integral(t)) {
        c.add("Mod", {c.in(0), c.in(1)}, {c.out(0)}, {a_int("fmod", 0)});
        return;
    }
    c.add("Identity", {floor_mod(c, c.in(0), c.in(1), t)}, {c.out(0)});
}

void emit_mod(OnnxNodeContext& c) {
    check_broadcast(c);
    c.add("Mod", {c.in(0), c.in(1)}, {c.out(0)}, {a_int("fmod", 1)});
}

void emit_squared_difference(OnnxNodeContext& c) {
    check_broadcast(c);
    c.need_opset(arithmetic_opset(c.in_type(0)));
    const std::string d = c.add_tmp("Sub", {c.in(0), c.in(1)});
    c.add("Mul", {d, d}, {c.out(0)});
}

void emit_bit_shift(OnnxNodeContext& c, const char* direction) {
    check_broadcast(c);
    if (!is_unsigned_int(c.in_type(0)))
        c.fail("ONNX's BitShift takes unsigned integers only, this shift is on " + std::string(ir_name(c.in_type(0))));
    c.add("BitShift", {c.in(0), c.in(1)}, {c.out(0)}, {a_str("direction", direction)});
}

void emit_convert(OnnxNodeContext& c) {
    const ElementType to = c.attr<ElementType>("destination_type");
    if (to == ElementType::i4 || to == ElementType::u4 || to == ElementType::u1)
        c.fail("a Convert to " + std::string(ir_name(to)) + " (ONNX 1.12 has no 4-bit or 1-bit tensors)");
    c.add("Cast", {c.in(0)}, {c.out(0)}, {a_int("to", onnx_type(to, c.node.describe()))});
}

void emit_clamp(OnnxNodeContext& c) {
    const ElementType t = c.in_type(0);
    double lo = c.attr<double>("min"), hi = c.attr<double>("max");
    if (is_integral(t)) lo = std::ceil(lo), hi = std::floor(hi);  // Clamp-1 on integers
    c.add("Clip", {c.in(0), c.scalar(lo, t, "min"), c.scalar(hi, t, "max")}, {c.out(0)});
}

void emit_round(OnnxNodeContext& c) {
    if (is_integral(c.in_type(0))) {
        c.add("Identity", {c.in(0)}, {c.out(0)});
    } else if (c.attr<std::string>("mode") == "half_to_even") {
        c.add("Round", {c.in(0)}, {c.out(0)});
    } else {  // half away from zero: sign(x) * floor(|x| + 0.5)
        const std::string x = c.in(0);
        const std::string up = c.add_tmp("Floor", {c.add_tmp("Add", {c.add_tmp("Abs", {x}), c.scalar(0.5, c.in_type(0), "half")})});
        c.add("Mul", {c.add_tmp("Sign", {x}), up}, {c.out(0)});
    }
}

void emit_gelu(OnnxNodeContext& c) {
    const ElementType t = c.in_type(0);
    const std::string x = c.in(0);
    const std::string mode = c.attr<std::string>("approximation_mode");
    std::string inner;
    if (mode == "TANH" || mode == "tanh") {  // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
        const std::string cube = c.add_tmp("Mul", {c.add_tmp("Mul", {x, x}), x});
        const std::string sum = c.add_tmp("Add", {x, c.add_tmp("Mul", {cube, c.scalar(0.044715, t, "k")})});
        inner = c.add_tmp("Tanh", {c.add_tmp("Mul", {sum, c.scalar(std::sqrt(2.0 / std::numbers::pi), t, "sqrt_2_pi")})});
    } else {  // erf(x / sqrt(2))
        inner = c.add_tmp("Erf", {c.add_tmp("Mul", {x, c.scalar(1.0 / std::numbers::sqrt2, t, "rsqrt2")})});
    }
    const std::string half_x = c.add_tmp("Mul", {x, c.scalar(0.5, t, "half")});
    c.add("Mul", {half_x, c.add_tmp("Add", {inner, c.scalar(1.0, t, "one")})}, {c.out(0)});
}

void emit_swish(OnnxNodeContext& c) {
    const std::string x = c.in(0);
    const std::string arg = c.has_in(1) ? c.add_tmp("Mul", {x, c.in(1)}) : x;
    c.add("Mul", {x, c.add_tmp("Sigmoid", {arg})}, {c.out(0)});
}

void emit_mish(OnnxNodeContext& c) {
    const std::string x = c.in(0);
    c.add("Mul", {x, c.add_tmp("Tanh", {c.add_tmp("Softplus", {x})})}, {c.out(0)});
}

void emit_hard_sigmoid(OnnxNodeContext& c) {
    const double alpha = c.const_floats(1, "alpha").at(0), beta = c.const_floats(2, "beta").at(0);
    c.add("HardSigmoid", {c.in(0)}, {c.out(0)}, {a_float("alpha", alpha), a_float("beta", beta)});
}

void emit_selu(OnnxNodeContext& c) {
    const double alpha = c.const_floats(1, "alpha").at(0), lambda = c.const_floats(2, "lambda").at(0);
    c.add("Selu", {c.in(0)}, {c.out(0)}, {a_float("alpha", alpha), a_float("gamma", lambda)});
}

// OpenVINO's 1-D slope of the channel count applies on axis 1; ONNX broadcasts from the right.
void emit_prelu(OnnxNodeContext& c) {
    const PartialShape& data = c.in_shape(0);
    const PartialShape& slope = c.in_shape(1);
    std::string s = c.in(1);
    if (data.rank_is_static() && slope.rank_is_static() && slope.rank() == 1 && data.rank() > 2 &&
        slope[0].is_static() && slope[0].get_length() != 1 && data[1].compatible(slope[0])) {
        std::vector<int64_t> shape(data.rank() - 1, 1);
        shape[0] = slope[0].get_length();
        s = c.add_tmp("Reshape", {s, c.ints(shape, "slope_shape")});
    }
    c.need_opset(is_integral(c.in_type(0)) ? 16 : 13);
    c.add("PRelu", {c.in(0), s}, {c.out(0)});
}

void emit_relu(OnnxNodeContext& c) {
    if (is_integral(c.in_type(0))) c.need_opset(14);
    c.add("Relu", {c.in(0)}, {c.out(0)});
}

void emit_not_equal(OnnxNodeContext& c) {
    check_broadcast(c);
    c.add("Not", {c.add_tmp("Equal", {c.in(0), c.in(1)})}, {c.out(0)});
}

void emit_select(OnnxNodeContext& c) {
    check_broadcast(c);
    if (c.in_type(1) == ElementType::bf16) c.need_opset(16);
    c.add("Where", {c.in(0), c.in(1), c.in(2)}, {c.out(0)});
}

}  // namespace

std::vector<OnnxRule> eltwise_rules() {
    return {
        {"Abs", 13, same_as("Abs"), "Abs"},
        {"Negative", 13, same_as("Neg"), "Neg"},
        {"Sign", 13, same_as("Sign"), "Sign"},
        {"Ceiling", 13, float_or_identity("Ceil"), "Ceil"},
        {"Floor", 13, float_or_identity("Floor"), "Floor"},
        {"Relu", 13, emit_relu, "Relu (opset 14 for integers)"},
        {"LogicalNot", 13, same_as("Not"), "Not"},
        {"Round", 13, emit_round, "Round; half_away_from_zero: sign(x) * floor(abs(x) + 0.5)"},
        {"Clamp", 13, emit_clamp, "Clip"},
        {"Sqrt", 13, same_as("Sqrt"), "Sqrt"},
        {"Exp", 13, same_as("Exp"), "Exp"},
        {"Log", 13, same_as("Log"), "Log"},
        {"Sin", 13, same_as("Sin"), "Sin"},
        {"Cos", 13, same_as("Cos"), "Cos"},
        {"Tan", 13, same_as("Tan"), "Tan"},
        {"Asin", 13, same_as("Asin"), "Asin"},
        {"Acos", 13, same_as("Acos"), "Acos"},
        {"Atan", 13, same_as("Atan"), "Atan"},
        {"Sinh", 13, same_as("Sinh"), "Sinh"},
        {"Cosh", 13, same_as("Cosh"), "Cosh"},
        {"Tanh", 13, same_as("Tanh"), "Tanh"},
        {"Asinh", 13, same_as("Asinh"), "Asinh"},
        {"Acosh", 13, same_as("Acosh"), "Acosh"},
        {"Atanh", 13, same_as("Atanh"), "Atanh"},
        {"Erf", 13, same_as("Erf"), "Erf"},
        {"Sigmoid", 13, same_as("Sigmoid"), "Sigmoid"},
        {"SoftPlus", 13, same_as("Softplus"), "Softplus"},
        {"Elu", 13, [](OnnxNodeContext& c) { c.add("Elu", {c.in(0)}, {c.out(0)}, {a_float("alpha", c.attr<double>("alpha"))}); }, "Elu"},
        {"Gelu", 13, emit_gelu, "decomposed: 0.5 x (1 + erf(x / sqrt 2)), or the tanh form (ONNX Gelu is opset 20)"},
        {"Swish", 13, emit_swish, "decomposed: x * Sigmoid(beta x)"},
        {"HSwish", 14, same_as("HardSwish"), "HardSwish"},
        {"HSigmoid", 13, same_as("HardSigmoid", {a_float("alpha", 1.0 / 6.0), a_float("beta", 0.5)}), "HardSigmoid(1/6, 1/2)"},
        {"Mish", 13, emit_mish, "decomposed: x * Tanh(Softplus(x)) (ONNX Mish is opset 18)"},
        {"HardSigmoid", 13, emit_hard_sigmoid, "HardSigmoid (alpha, beta constant)"},
        {"Selu", 13, emit_selu, "Selu (alpha, lambda constant)"},
        {"PRelu", 13, emit_prelu, "PRelu (a 1-D slope reshaped to [C, 1, ...])"},
        {"Convert", 13, emit_convert, "Cast"},
        {"Add", 13, binary("Add", true), "Add"},
        {"Subtract", 13, binary("Sub", true), "Sub"},
        {"Multiply", 13, binary("Mul", true), "Mul"},
        {"Divide", 13, emit_divide, "Div; signed integers with m_pythondiv: floor division decomposed"},
        {"Power", 13, binary("Pow"), "Pow"},
        {"Maximum", 13, binary("Max"), "Max"},
        {"Minimum", 13, binary("Min"), "Min"},
        {"SquaredDifference", 13, emit_squared_difference, "decomposed: (a - b) * (a - b)"},
        {"FloorMod", 13, emit_floor_mod, "Mod(fmod=0) for integers, decomposed from Mod(fmod=1) for floats"},
        {"Mod", 13, emit_mod, "Mod(fmod=1): C's fmod, the sign of the dividend"},
        {"Equal", 13, binary("Equal"), "Equal"},
        {"NotEqual", 13, emit_not_equal, "Not(Equal)"},
        {"Less", 13, binary("Less"), "Less"},
        {"Greater", 13, binary("Greater"), "Greater"},
        {"LessEqual", 13, binary("LessOrEqual"), "LessOrEqual"},
        {"GreaterEqual", 13, binary("GreaterOrEqual"), "GreaterOrEqual"},
        {"LogicalAnd", 13, binary("And"), "And"},
        {"LogicalOr", 13, binary("Or"), "Or"},
        {"LogicalXor", 13, binary("Xor"), "Xor"},
        {"BitwiseLeftShift", 13, [](OnnxNodeContext& c) { emit_bit_shift(c, "LEFT"); }, "BitShift (unsigned only)"},
        {"BitwiseRightShift", 13, [](OnnxNodeContext& c) { emit_bit_shift(c, "RIGHT"); }, "BitShift (unsigned only)"},
        {"Select", 13, emit_select, "Where"},
    };
}

}  // namespace mo::onnx_emit
