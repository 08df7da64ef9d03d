// ONNX Runtime's QLinear* contrib ops (domain com.microsoft), which its static quantization
// (QOperator format) writes around the ops that have no integer kernel in ONNX: each dequantizes
// its inputs, computes the float op, and quantizes the result (semantics: ONNX Runtime's
// docs/ContribOperators.md). They become exactly that: DequantizeLinear arithmetic -> the opset
// op -> QuantizeLinear arithmetic, per-tensor scales and zero points (quantization_common.hpp).
// QLinearConv and QLinearMatMul are the ONNX ops (quantization.cpp).
#include "extractors/onnx/conv_common.hpp"
#include "extractors/onnx/onnx_extractors.hpp"
#include "extractors/onnx/quantization_common.hpp"

namespace mo {

namespace {

constexpr const char* kDomain = "com.microsoft";

// QLinearAdd(A, A_scale, A_zero_point?, B, B_scale, B_zero_point?, C_scale, C_zero_point?)
void qlinear_add(ExtractContext& c) {
    OutPort a = dequantize_input(c, "A", 0, 1, 2), b = dequantize_input(c, "B", 3, 4, 5);
    quantize_output(c, c.op("Add", "float", {a, b}), 6, 7);
}

// QLinearMul, same inputs: the integer product (A - A_zp)·(B - B_zp) requantized by
// A_scale·B_scale / C_scale, ONNX Runtime's order (dequantizing first rounds differently).
void qlinear_mul(ExtractContext& c) {
    if (!c.has_input(7)) {  // no output zero point: uint8, zero
        quantize_output(
            c, c.op("Multiply", "float", {dequantize_input(c, "A", 0, 1, 2), dequantize_input(c, "B", 3, 4, 5)}), 6, 7);
        return;
    }
    requantize_product(c, c.op("Multiply", "product", {integer_input(c, "A", 0, 2), integer_input(c, "B", 3, 5)}), 1, 4,
                       6, 7);
}

// QLinearSigmoid / QLinearLeakyRelu(X, X_scale, X_zero_point?, Y_scale, Y_zero_point?)
void qlinear_unary(ExtractContext& c, const std::string& op) {
    OutPort x = dequantize_input(c, "X", 0, 1, 2);
    OutPort y;
    if (op == "LeakyRelu")  // PRelu with a scalar slope
        y = c.op("PRelu", "float", {x, c.scalar_like("alpha", c.f("alpha", 0.01), x)});
    else
        y = c.op(op, "float", {x});
    quantize_output(c, y, 3, 4);
}

// QLinearConcat(Y_scale, Y_zero_point, X0, X0_scale, X0_zero_point, X1, ...; axis)
void qlinear_concat(ExtractContext& c) {
    if (c.input_count() < 5 || (c.input_count() - 2) % 3 != 0)
        c.fail("needs Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) for each input");
    std::vector<OutPort> parts;
    for (size_t i = 2; i + 2 < c.input_count(); i += 3)
        parts.push_back(dequantize_input(c, std::string("X").append(std::to_string(parts.size())), i, i + 1, i + 2));
    quantize_output(c, c.op("Concat", "float", parts, {{"axis", c.i("axis")}}), 0, 1);
}

void refuse_channels_last(ExtractContext& c) {
    if (c.i("channels_last", 0) != 0) c.unsupported("channels_last=1 (NHWC input)");
}

// QLinearGlobalAveragePool(X, x_scale, x_zero_point, y_scale, y_zero_point; channels_last)
void qlinear_global_average_pool(ExtractContext& c) {
    refuse_channels_last(c);
    OutPort x = dequantize_input(c, "X", 0, 1, 2);
    OutPort mean = c.op("ReduceMean", "float", {x, c.axes_from("axes", x, 2)}, {{"keep_dims", true}});
    quantize_output(c, mean, 3, 4);
}

// QLinearAveragePool(X, x_scale, x_zero_point?, y_scale, y_zero_point?): AveragePool's attributes.
void qlinear_average_pool(ExtractContext& c) {
    refuse_channels_last(c);
    const AttrMap attrs = onnx_average_pool_attrs(c);
    quantize_output(c, c.op("AvgPool", "float", {dequantize_input(c, "X", 0, 1, 2)}, attrs), 3, 4);
}

// QLinearSoftmax(X, X_scale, x_zero_point?, y_scale, y_zero_point; axis, opset): the softmax of
// ONNX opset `opset`; only opset 13's (over `axis` alone) is converted.
void qlinear_softmax(ExtractContext& c) {
    if (c.i("opset", 13) < 13)
        c.unsupported("opset=" + std::to_string(c.i("opset", 13)) + " (softmax over flattened axes)");
    OutPort x = dequantize_input(c, "X", 0, 1, 2);
    quantize_output(c, c.op("Softmax", "float", {x}, {{"axis", c.i("axis", -1)}}), 3, 4);
}

}  // namespace

void register_onnx_microsoft_qlinear(ExtractorRegistry& r) {
    r.add({"onnx", kDomain, "QLinearAdd", since(1), qlinear_add});
    r.add({"onnx", kDomain, "QLinearMul", since(1), qlinear_mul});
    r.add({"onnx", kDomain, "QLinearSigmoid", since(1), [](ExtractContext& c) { qlinear_unary(c, "Sigmoid"); }});
    r.add(
        {"onnx", kDomain, "QLinearLeakyRelu", since(1), [](ExtractContext& c) { qlinear_unary(c, "LeakyRelu"); }});
    r.add({"onnx", kDomain, "QLinearConcat", since(1), qlinear_concat});
    r.add({"onnx", kDomain, "QLinearGlobalAveragePool", since(1), qlinear_global_average_pool});
    r.add({"onnx", kDomain, "QLinearAveragePool", since(1), qlinear_average_pool});
    r.add({"onnx", kDomain, "QLinearSoftmax", since(1), qlinear_softmax});
}

}  // namespace mo
