// QLinearMatMul and QLinearConv decompositions evaluated with the ops' eval, against values
// worked by hand: i32 accumulation with the zero points subtracted, then
// y = saturate(round_half_even(f32(acc) * f32(a_scale * b_scale / y_scale)) + y_zp).
#include <gtest/gtest.h>

#include <cstring>

#include "core/graph.hpp"
#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

// a - 10 = [[2, 4], [0, 10]]; b minus its per-column zero points (0, 4) = [[1, 4], [3, 8]];
// acc = [[14, 40], [30, 80]]; multipliers 0.5 * 1 / 2 = 0.25 and 0.5 * 0.25 / 2 = 0.0625 per
// column: 3.5 -> 4, 2.5 -> 2, 7.5 -> 8, 5 -> 5, then + 100.
TEST(OnnxQLinear, MatMulPerColumnBTiesToEven) {
    OnnxModelBuilder m(10);
    m.input("a", {2, 2}, onnx::TensorProto::UINT8);
    m.initializer("a_scale", {0.5f}, {});
    m.initializer(u8s("a_zp", {10}, {}));
    m.initializer(u8s("b", {1, 8, 3, 12}, {2, 2}));
    m.initializer("b_scale", {1.0f, 0.25f}, {2});
    m.initializer(u8s("b_zp", {0, 4}, {2}));
    m.initializer("y_scale", {2.0f}, {});
    m.initializer(u8s("y_zp", {100}, {}));
    m.node("QLinearMatMul", {"a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "y_scale", "y_zp"}, {"y"});
    m.output("y", onnx::TensorProto::UINT8);
    auto g = convert_onnx(m, "qlinearmatmul.onnx");
    auto out = evaluate(*g, {{"a", Tensor::from_vector<uint8_t>({12, 14, 10, 20}, {2, 2})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 2}));
    expect_values(out.at(0), ElementType::u8, {104, 102, 108, 105});
}

// int8 saturation: a = [-128, 127], b = [[127, -128, 1], [-128, 127, 1]], scales 1, y_zp 10:
// acc = [-32512, 32513, -1] -> -32502 -> -128, 32523 -> 127, 9.
TEST(OnnxQLinear, MatMulInt8Saturates) {
    OnnxModelBuilder m(10);
    m.input("a", {1, 2}, onnx::TensorProto::INT8);
    m.initializer("a_scale", {1.0f}, {});
    m.initializer(i8s("a_zp", {0}, {}));
    m.initializer(i8s("b", {127, -128, 1, -128, 127, 1}, {2, 3}));
    m.initializer("b_scale", {1.0f}, {});
    m.initializer(i8s("b_zp", {0}, {}));
    m.initializer("y_scale", {1.0f}, {});
    m.initializer(i8s("y_zp", {10}, {}));
    m.node("QLinearMatMul", {"a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "y_scale", "y_zp"}, {"y"});
    m.output("y", onnx::TensorProto::INT8);
    auto g = convert_onnx(m, "qlinearmatmul_i8.onnx");
    auto out = evaluate(*g, {{"a", Tensor::from_vector<int8_t>({-128, 127}, {1, 2})}});
    expect_values(out.at(0), ElementType::i8, {-128, 127, 9});
}

// The requantization is f32 as in ONNX Runtime: 0.1f = 0.100000001490116..., so acc 5 gives
// 0.5000000075 in exact arithmetic (-> 1) but exactly 0.5 in f32 (-> 0, to even); acc 25 gives
// 2.5000000373 (-> 3) but 2.5 in f32 (-> 2). The f32 steps stay out of f16 compression.
TEST(OnnxQLinear, MatMulRequantizesInF32) {
    OnnxModelBuilder m(10);
    m.input("a", {2, 1}, onnx::TensorProto::UINT8);
    m.initializer("a_scale", {0.1f}, {});
    m.initializer(u8s("a_zp", {0}, {}));
    m.initializer(u8s("b", {1}, {1, 1}));
    m.initializer("b_scale", {1.0f}, {});
    m.initializer(u8s("b_zp", {0}, {}));
    m.initializer("y_scale", {1.0f}, {});
    m.initializer(u8s("y_zp", {0}, {}));
    m.node("QLinearMatMul", {"a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "y_scale", "y_zp"}, {"y"}, {}, "qmm");
    m.output("y", onnx::TensorProto::UINT8);
    auto g = convert_onnx(m, "qlinearmatmul_f32.onnx");
    auto out = evaluate(*g, {{"a", Tensor::from_vector<uint8_t>({5, 25}, {2, 1})}});
    expect_values(out.at(0), ElementType::u8, {0, 2});
    size_t marked = 0;
    for (const Node& n : g->topological_order())
        if (n.name() == "qmm/multiplier/product" || n.name() == "qmm/multiplier" || n.name() == "qmm/scaled") {
            EXPECT_TRUE(n.rt_info().count(kDisableFp16Compression)) << n.name();
            ++marked;
        }
    EXPECT_EQ(marked, 3u);
}

// Per-row a quantization has two readings (the spec's rows, numpy's broadcast over the last
// axis): refused.
TEST(OnnxQLinear, MatMulRefusesPerRowA) {
    OnnxModelBuilder m(10);
    m.input("a", {2, 2}, onnx::TensorProto::UINT8);
    m.initializer("a_scale", {1.0f, 2.0f}, {2});
    m.initializer(u8s("a_zp", {0}, {}));
    m.initializer(u8s("b", {1, 2, 3, 4}, {2, 2}));
    m.initializer("b_scale", {1.0f}, {});
    m.initializer(u8s("b_zp", {0}, {}));
    m.initializer("y_scale", {1.0f}, {});
    m.initializer(u8s("y_zp", {0}, {}));
    m.node("QLinearMatMul", {"a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "y_scale", "y_zp"}, {"y"});
    m.output("y", onnx::TensorProto::UINT8);
    EXPECT_NE(extract_error(m, "qlinearmatmul_per_row.onnx").find("not supported"), std::string::npos);
}

// x - 2 = [[0, 2], [4, 7]] padded by 1 with the zero point (so the border accumulates 0); 1x1
// kernels minus their per-channel zero points: 3 - 1 = 2 and 6 - 4 = 2; biases 1 and -3.
// Channel 0: acc [1, 5, 9, 15] (border 1), multiplier 0.5 * 1 / 1: 0.5 -> 0, 2.5 -> 2, 4.5 -> 4,
// 7.5 -> 8, border 0.5 -> 0. Channel 1: acc [-3, 1, 5, 11] (border -3), multiplier 0.25:
// -0.75 -> -1, 0.25 -> 0, 1.25 -> 1, 2.75 -> 3, border -1. Then + 5.
TEST(OnnxQLinear, ConvPerChannelWithBiasAndZeroPointPadding) {
    OnnxModelBuilder m(10);
    m.input("x", {1, 1, 2, 2}, onnx::TensorProto::UINT8);
    m.initializer("x_scale", {0.5f}, {});
    m.initializer(u8s("x_zp", {2}, {}));
    m.initializer(u8s("w", {3, 6}, {2, 1, 1, 1}));
    m.initializer("w_scale", {1.0f, 0.5f}, {2});
    m.initializer(u8s("w_zp", {1, 4}, {2}));
    m.initializer("y_scale", {1.0f}, {});
    m.initializer(u8s("y_zp", {5}, {}));
    m.initializer(int_tensor<int32_t>("B", onnx::TensorProto::INT32, {1, -3}, {2}));
    m.node("QLinearConv", {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp", "B"}, {"y"},
           {{"pads", {1, 1, 1, 1}}});
    m.output("y", onnx::TensorProto::UINT8);
    auto g = convert_onnx(m, "qlinearconv.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<uint8_t>({2, 4, 6, 9}, {1, 1, 2, 2})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{1, 2, 4, 4}));
    expect_values(out.at(0), ElementType::u8,
                  {5, 5, 5, 5, 5, 5, 7, 5, 5, 9, 13, 5, 5, 5, 5, 5,    // channel 0
                   4, 4, 4, 4, 4, 4, 5, 4, 4, 6, 8, 4, 4, 4, 4, 4});  // channel 1
}

// A per-tensor-only input given per channel is refused.
TEST(OnnxQLinear, ConvRefusesPerChannelYScale) {
    OnnxModelBuilder m(10);
    m.input("x", {1, 1, 2, 2}, onnx::TensorProto::UINT8);
    m.initializer("x_scale", {0.5f}, {});
    m.initializer(u8s("x_zp", {2}, {}));
    m.initializer(u8s("w", {3, 6}, {2, 1, 1, 1}));
    m.initializer("w_scale", {1.0f}, {});
    m.initializer(u8s("w_zp", {1}, {}));
    m.initializer("y_scale", {1.0f, 2.0f}, {2});
    m.initializer(u8s("y_zp", {5}, {}));
    m.node("QLinearConv", {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"}, {"y"});
    m.output("y", onnx::TensorProto::UINT8);
    EXPECT_NE(extract_error(m, "qlinearconv_y_per_channel.onnx").find("not supported"), std::string::npos);
}

}  // namespace
}  // namespace mo
