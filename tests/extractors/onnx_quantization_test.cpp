// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger and ConvInteger
// decompositions evaluated with the ops' eval, against values worked by hand from the ONNX
// operator definitions (round half to even, saturation to the zero point's type).
#include <gtest/gtest.h>

#include <cstring>

#include "extractors/onnx_test_support.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using namespace test;

// scale 2, zp 128 (uint8): x / 2 = 2.5 -> 2, -2.5 -> -2, 1.5 -> 2, 0.5 -> 0, 300 and -300
// saturate after adding 128.
TEST(OnnxQuantization, QuantizeLinearUint8TiesToEvenAndSaturates) {
    OnnxModelBuilder m(13);
    m.input("x", {6});
    m.initializer("scale", {2.0f}, {});
    m.initializer(u8s("zp", {128}, {}));
    m.node("QuantizeLinear", {"x", "scale", "zp"}, {"y"});
    m.output("y", onnx::TensorProto::UINT8);
    auto g = convert_onnx(m, "q_u8.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({5, -5, 3, 1, 600, -600}, {6})}});
    expect_values(out.at(0), ElementType::u8, {130, 126, 130, 128, 255, 0});
}

// int8 with zp 0, scale 1: 2.5 -> 2, -2.5 -> -2, 0.5 -> 0, -0.5 -> 0, 127.5 -> 128 -> 127,
// -128.5 -> -128, -129 -> -128.
TEST(OnnxQuantization, QuantizeLinearInt8TiesToEvenAndSaturates) {
    OnnxModelBuilder m(10);
    m.input("x", {7});
    m.initializer("scale", {1.0f}, {});
    m.initializer(i8s("zp", {0}, {}));
    m.node("QuantizeLinear", {"x", "scale", "zp"}, {"y"});
    m.output("y", onnx::TensorProto::INT8);
    auto g = convert_onnx(m, "q_i8.onnx");
    auto out =
        evaluate(*g, {{"x", Tensor::from_vector<float>({2.5f, -2.5f, 0.5f, -0.5f, 127.5f, -128.5f, -129}, {7})}});
    expect_values(out.at(0), ElementType::i8, {2, -2, 0, 0, 127, -128, -128});
}

// int8 with a non-zero zp: -3 / 0.5 = -6, -6 + (-125) = -131 -> -128; 5 / 0.5 + (-125) = -115.
TEST(OnnxQuantization, QuantizeLinearInt8ZeroPointShifts) {
    OnnxModelBuilder m(13);
    m.input("x", {2});
    m.initializer("scale", {0.5f}, {});
    m.initializer(i8s("zp", {-125}, {}));
    m.node("QuantizeLinear", {"x", "scale", "zp"}, {"y"});
    m.output("y", onnx::TensorProto::INT8);
    auto g = convert_onnx(m, "q_i8_zp.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({-3, 5}, {2})}});
    expect_values(out.at(0), ElementType::i8, {-128, -115});
}

// Without a zero point the output is uint8: -1 -> 0, 1.5 -> 2, 254.5 -> 254, 300 -> 255.
TEST(OnnxQuantization, QuantizeLinearDefaultsToUint8) {
    OnnxModelBuilder m(13);
    m.input("x", {4});
    m.initializer("scale", {1.0f}, {});
    m.node("QuantizeLinear", {"x", "scale"}, {"y"});
    m.output("y", onnx::TensorProto::UINT8);
    auto g = convert_onnx(m, "q_default.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({-1, 1.5f, 254.5f, 300}, {4})}});
    expect_values(out.at(0), ElementType::u8, {0, 2, 254, 255});
}

// Per-axis along axis 0 of [2, 2, 2]: the first half uses scale 1 / zp 0, the second scale 4 / zp 10.
TEST(OnnxQuantization, QuantizeLinearPerAxisZero) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 2, 2});
    m.initializer("scale", {1.0f, 4.0f}, {2});
    m.initializer(u8s("zp", {0, 10}, {2}));
    m.node("QuantizeLinear", {"x", "scale", "zp"}, {"y"}, {{"axis", 0}});
    m.output("y", onnx::TensorProto::UINT8);
    auto g = convert_onnx(m, "q_axis0.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 2, 3, 4, 2, 6, 10, -100}, {2, 2, 2})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 2, 2}));
    // 2/4 = 0.5 -> 0, 6/4 = 1.5 -> 2, 10/4 = 2.5 -> 2, -100/4 = -25 -> -15 -> 0.
    expect_values(out.at(0), ElementType::u8, {1, 2, 3, 4, 10, 12, 12, 0});
}

// A 1D scale before opset 13 is refused rather than guessed.
TEST(OnnxQuantization, QuantizeLinearPerAxisNeedsOpset13) {
    OnnxModelBuilder m(10);
    m.input("x", {2, 2});
    m.initializer("scale", {1.0f, 2.0f}, {2});
    m.node("QuantizeLinear", {"x", "scale"}, {"y"});
    m.output("y", onnx::TensorProto::UINT8);
    EXPECT_THROW(convert_onnx(m, "q_axis_opset10.onnx"), Error);
}

// int32 x (allowed by opsets 10-18) would divide in a wider type than f32: refused.
TEST(OnnxQuantization, QuantizeLinearInt32InputIsRefused) {
    OnnxModelBuilder m(13);
    m.input("x", {2}, onnx::TensorProto::INT32);
    m.initializer("scale", {1.0f}, {});
    m.node("QuantizeLinear", {"x", "scale"}, {"y"});
    m.output("y", onnx::TensorProto::UINT8);
    expect_error([&] { convert_onnx(m, "q_i32.onnx"); }, "i32");
}

// (x - zp) * scale with int8: (-128 + 1) * 0.5 = -63.5, (127 + 1) * 0.5 = 64, (0 + 1) * 0.5 = 0.5.
TEST(OnnxQuantization, DequantizeLinearInt8) {
    OnnxModelBuilder m(13);
    m.input("x", {3}, onnx::TensorProto::INT8);
    m.initializer("scale", {0.5f}, {});
    m.initializer(i8s("zp", {-1}, {}));
    m.node("DequantizeLinear", {"x", "scale", "zp"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "dq_i8.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<int8_t>({-128, 127, 0}, {3})}});
    expect_values(out.at(0), ElementType::f32, {-63.5, 64, 0.5});
}

// PyTorch's quantized exports dequantize the int32 bias with a 1-element scale and a zero point
// Cast(ConstantOfShape([1])) and the default axis 1 on a rank-1 input: per tensor, as ONNX
// Runtime reads it. (x - 2) * 0.5.
TEST(OnnxQuantization, DequantizeLinearOneElementScaleIsPerTensorWhateverTheAxis) {
    OnnxModelBuilder m(13);
    m.input("x", {3}, onnx::TensorProto::INT32);
    m.initializer("scale", {0.5f}, {1});
    m.initializer(int_tensor<int64_t>("shape", onnx::TensorProto::INT64, {1}, {1}));
    m.node("ConstantOfShape", {"shape"}, {"zeros"});
    m.node("Add", {"zeros", "two"}, {"zp_f"});
    m.initializer("two", {2.0f}, {});
    m.node("Cast", {"zp_f"}, {"zp"}, {{"to", int64_t{onnx::TensorProto::INT32}}});
    m.node("DequantizeLinear", {"x", "scale", "zp"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "dq_bias.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<int32_t>({-4, 2, 10}, {3})}});
    expect_values(out.at(0), ElementType::f32, {-3, 0, 4});
}

// Per-axis along axis 1 of [2, 2] uint8: column 0 (zp 10, scale 2), column 1 (zp 0, scale 0.25).
TEST(OnnxQuantization, DequantizeLinearPerAxis) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 2}, onnx::TensorProto::UINT8);
    m.initializer("scale", {2.0f, 0.25f}, {2});
    m.initializer(u8s("zp", {10, 0}, {2}));
    m.node("DequantizeLinear", {"x", "scale", "zp"}, {"y"}, {{"axis", 1}});
    m.output("y");
    auto g = convert_onnx(m, "dq_axis.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<uint8_t>({0, 255, 12, 4}, {2, 2})}});
    expect_values(out.at(0), ElementType::f32, {-20, 63.75, 4, 1});
}

// int32 input without a zero point (the bias case): x * scale.
TEST(OnnxQuantization, DequantizeLinearInt32) {
    OnnxModelBuilder m(13);
    m.input("x", {2}, onnx::TensorProto::INT32);
    m.initializer("scale", {2.0f}, {});
    m.node("DequantizeLinear", {"x", "scale"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "dq_i32.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<int32_t>({-100000, 3}, {2})}});
    expect_values(out.at(0), ElementType::f32, {-200000, 6});
}

struct Dynamic {
    Tensor y, scale, zp;
};

Dynamic dynamic_quantize(const std::vector<float>& x, const std::string& file) {
    OnnxModelBuilder m(11);
    m.input("x", {static_cast<int64_t>(x.size())});
    m.node("DynamicQuantizeLinear", {"x"}, {"y", "y_scale", "y_zero_point"});
    m.output("y", onnx::TensorProto::UINT8);
    m.output("y_scale");
    m.output("y_zero_point", onnx::TensorProto::UINT8);
    auto g = convert_onnx(m, file);
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>(x, {static_cast<int64_t>(x.size())})}});
    return {out.at(0), out.at(1), out.at(2)};
}

// min -1.25, max 126.25: scale = 127.5 / 255 = 0.5 exactly; zp = round(1.25 / 0.5 = 2.5) = 2.
// x / 0.5 = -2.5 -> -2, 0, 0.5 -> 0, 1.5 -> 2, 252.5 -> 252, 2.5 -> 2; plus 2.
TEST(OnnxQuantization, DynamicQuantizeLinearTiesToEven) {
    auto r = dynamic_quantize({-1.25f, 0, 0.25f, 0.75f, 126.25f, 1.25f}, "dql.onnx");
    EXPECT_EQ(r.scale.shape(), Shape{});
    EXPECT_EQ(r.zp.shape(), Shape{});
    expect_values(r.scale, ElementType::f32, {0.5});
    expect_values(r.zp, ElementType::u8, {2});
    expect_values(r.y, ElementType::u8, {0, 2, 2, 4, 254, 4});
}

// All negative: max is raised to 0, scale = 51 / 255 = 0.2 (as f32), zp = round(51 / 0.2) = 255;
// y = round(x / 0.2) + 255: -51 -> 0, -2 -> 245.
TEST(OnnxQuantization, DynamicQuantizeLinearAllNegative) {
    auto r = dynamic_quantize({-51, -2}, "dql_neg.onnx");
    expect_values(r.scale, ElementType::f32, {static_cast<double>(51.0f / 255.0f)});
    expect_values(r.zp, ElementType::u8, {255});
    expect_values(r.y, ElementType::u8, {0, 245});
}

// All positive: min is lowered to 0, zp = 0, scale = 0.2 (f32): 2 -> 10, 51 -> 255.
TEST(OnnxQuantization, DynamicQuantizeLinearAllPositive) {
    auto r = dynamic_quantize({2, 51}, "dql_pos.onnx");
    expect_values(r.zp, ElementType::u8, {0});
    expect_values(r.y, ElementType::u8, {10, 255});
}

// A uint8 [2, 3] with per-row zero points [1, 3], B int8 [3, 2] with per-column zero points [0, -1]:
// A - a_zp = [[0, 1, 2], [1, 2, 3]], B - b_zp = [[1, 0], [2, 1], [-3, 2]].
TEST(OnnxQuantization, MatMulIntegerPerRowAndColumnZeroPoints) {
    OnnxModelBuilder m(10);
    m.input("a", {2, 3}, onnx::TensorProto::UINT8);
    m.initializer(i8s("b", {1, -1, 2, 0, -3, 1}, {3, 2}));
    m.initializer(u8s("a_zp", {1, 3}, {2}));
    m.initializer(i8s("b_zp", {0, -1}, {2}));
    m.node("MatMulInteger", {"a", "b", "a_zp", "b_zp"}, {"y"});
    m.output("y", onnx::TensorProto::INT32);
    auto g = convert_onnx(m, "matmulinteger.onnx");
    auto out = evaluate(*g, {{"a", Tensor::from_vector<uint8_t>({1, 2, 3, 4, 5, 6}, {2, 3})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 2}));
    expect_values(out.at(0), ElementType::i32, {-4, 5, -4, 8});
}

// x = 1..9 (3x3) minus zp 1 = [[0,1,2],[3,4,5],[6,7,8]]; channel 0: all 3 minus zp 2 (ones),
// channel 1: [[1,2],[3,4]] with zp 0. 2x2 windows: ones give 8, 12, 20, 24; [[1,2],[3,4]] gives
// 0+2+9+16 = 27, 1+4+12+20 = 37, 3+8+18+28 = 57, 4+10+21+32 = 67.
TEST(OnnxQuantization, ConvIntegerPerChannelWeightZeroPoint) {
    OnnxModelBuilder m(10);
    m.input("x", {1, 1, 3, 3}, onnx::TensorProto::UINT8);
    m.initializer(u8s("w", {3, 3, 3, 3, 1, 2, 3, 4}, {2, 1, 2, 2}));
    m.initializer(u8s("x_zp", {1}, {}));
    m.initializer(u8s("w_zp", {2, 0}, {2}));
    m.node("ConvInteger", {"x", "w", "x_zp", "w_zp"}, {"y"});
    m.output("y", onnx::TensorProto::INT32);
    auto g = convert_onnx(m, "convinteger.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<uint8_t>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{1, 2, 2, 2}));
    expect_values(out.at(0), ElementType::i32, {8, 12, 20, 24, 27, 37, 57, 67});
}

// group 2 on int8, with padding 1 on the end of each axis: each channel is convolved with its
// own 1x1 kernel (2 and -1) and the zero point 5 is subtracted first, so the pad reads as 0.
TEST(OnnxQuantization, ConvIntegerGroupedPadsWithTheZeroPoint) {
    OnnxModelBuilder m(10);
    m.input("x", {1, 2, 1, 1}, onnx::TensorProto::INT8);
    m.initializer(i8s("w", {2, -1}, {2, 1, 1, 1}));
    m.initializer(i8s("x_zp", {5}, {}));
    m.node("ConvInteger", {"x", "w", "x_zp"}, {"y"}, {{"group", 2}, {"pads", {0, 0, 0, 1}}});
    m.output("y", onnx::TensorProto::INT32);
    auto g = convert_onnx(m, "convinteger_group.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<int8_t>({8, -3}, {1, 2, 1, 1})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{1, 2, 1, 2}));
    // channel 0: (8 - 5) * 2 = 6, pad 0; channel 1: (-3 - 5) * -1 = 8, pad 0.
    expect_values(out.at(0), ElementType::i32, {6, 0, 8, 0});
}

}  // namespace
}  // namespace mo
