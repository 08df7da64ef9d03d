// LRN-1 and BitwiseLeftShift-15 / BitwiseRightShift-15: values worked by hand from the OpenVINO
// specs (LRN window and alpha / size^len(axes) scaling as in OpenVINO's reference), shapes and
// type checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/graph.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::run_op;
using test::values;

AttrMap lrn_attrs(double alpha, double beta, double bias, int64_t size) {
    return {{"alpha", alpha}, {"beta", beta}, {"bias", bias}, {"size", size}};
}

void expect_near(const std::vector<float>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

// axes [1], size 3, alpha 3 -> scale alpha / 3 = 1: x / (1 + sum of squares of c-1..c+1).
TEST(LrnOp, ChannelWindowClippedAtTheEdges) {
    auto out = run_op("LRN", {Tensor::from_vector<float>({1, 2, 3}, {1, 3, 1, 1}), Tensor::from_vector<int64_t>({1}, {1})},
                      lrn_attrs(3, 1, 1, 3));
    EXPECT_EQ(out[0].shape(), (Shape{1, 3, 1, 1}));
    expect_near(values<float>(out[0]), {1.0 / 6, 2.0 / 15, 3.0 / 14});
}

// Last axis, bias 2: sums 1+4, 1+4+9, 4+9+16, 9+16.
TEST(LrnOp, NegativeAxis) {
    auto out = run_op("LRN", {Tensor::from_vector<float>({1, 2, 3, 4}, {1, 1, 1, 4}), Tensor::from_vector<int64_t>({-1}, {1})},
                      lrn_attrs(3, 1, 2, 3));
    expect_near(values<float>(out[0]), {1.0 / 7, 2.0 / 16, 3.0 / 31, 4.0 / 27});
}

// Two axes: alpha is divided by size^2 = 9, so alpha 9 gives x / (number of window elements)
// for x = 1 everywhere: 4 at the corners, 6 on the edges, 9 in the centre.
TEST(LrnOp, TwoAxesScaleAlphaBySizeSquared) {
    auto out = run_op("LRN", {Tensor::from_vector<float>(std::vector<float>(9, 1.0f), {1, 1, 3, 3}),
                              Tensor::from_vector<int64_t>({2, 3}, {2})},
                      lrn_attrs(9, 1, 0, 3));
    expect_near(values<float>(out[0]), {1.0 / 4, 1.0 / 6, 1.0 / 4, 1.0 / 6, 1.0 / 9, 1.0 / 6, 1.0 / 4, 1.0 / 6, 1.0 / 4});
}

// beta is an exponent: x / (1 + x^2)^0.5 with size 1, alpha 1.
TEST(LrnOp, BetaIsThePower) {
    auto out = run_op("LRN", {Tensor::from_vector<float>({3, 0, -4}, {1, 3}), Tensor::from_vector<int64_t>({1}, {1})},
                      lrn_attrs(1, 0.5, 1, 1));
    expect_near(values<float>(out[0]), {3 / std::sqrt(10.0), 0, -4 / std::sqrt(17.0)});
}

// Even sizes: the window is c - (size-1)/2 .. c + (size-1)/2 (OpenVINO's reference), so size 2
// covers the element alone; alpha 2 / 2 = 1.
TEST(LrnOp, EvenSizeWindowIsSymmetric) {
    auto out = run_op("LRN", {Tensor::from_vector<float>({1, 2, 3}, {1, 3}), Tensor::from_vector<int64_t>({1}, {1})},
                      lrn_attrs(2, 1, 1, 2));
    expect_near(values<float>(out[0]), {1.0 / 2, 2.0 / 5, 3.0 / 10});
}

TEST(LrnOp, InferenceKeepsShapeAndRejectsBadInputs) {
    test::GraphBuilder b;
    auto axes = b.graph().add_constant("axes", Tensor::from_vector<int64_t>({1}, {1})).out(0);
    Node ok = b.node("LRN", {b.input(ElementType::f16, {Dimension(), 8, Dimension(2, 4)}), axes}, lrn_attrs(1e-4, 0.75, 1, 5));
    test::infer(ok);
    EXPECT_EQ(ok.out(0).shape().to_string(), "?,8,2..4");
    EXPECT_EQ(ok.out(0).type(), ElementType::f16);
    Node int_data = b.node("LRN", {b.input(ElementType::i32, {1, 8}), axes}, lrn_attrs(1e-4, 0.75, 1, 5));
    EXPECT_THROW(test::infer(int_data), Error);
    auto axis_5 = b.graph().add_constant("axis5", Tensor::from_vector<int64_t>({5}, {1})).out(0);
    Node bad_axis = b.node("LRN", {b.input(ElementType::f32, {1, 8}), axis_5}, lrn_attrs(1e-4, 0.75, 1, 5));
    EXPECT_THROW(test::infer(bad_axis), Error);
    Node zero_size = b.node("LRN", {b.input(ElementType::f32, {1, 8}), axes}, lrn_attrs(1e-4, 0.75, 1, 0));
    EXPECT_THROW(test::infer(zero_size), Error);
}

TEST(LrnOp, SchemaIsOpset1WithSpecAttributes) {
    const OpSchema& s = test::builtin_ops().get("LRN");
    EXPECT_EQ(s.ir_version, "opset1");
    ASSERT_EQ(s.attrs.size(), 4u);
    EXPECT_EQ(s.attrs[0].name, "alpha");
    EXPECT_EQ(s.attrs[3].name, "size");
    EXPECT_EQ(s.min_inputs, 2u);
}

// ---- Bitwise shifts --------------------------------------------------------------------------

template <typename T>
Tensor vec(std::vector<T> v) {
    const auto n = static_cast<int64_t>(v.size());
    return Tensor::from_vector<T>(std::move(v), {n});
}

// u8: 3 << 7 = 384 wraps to 128; a count of 8 (the bit width) shifts everything out.
TEST(BitwiseShiftOp, LeftShiftU8WrapsAndOversizedCountsGiveZero) {
    auto out = run_op("BitwiseLeftShift", {vec<uint8_t>({1, 255, 3, 7, 5}), vec<uint8_t>({1, 1, 7, 8, 200})});
    EXPECT_EQ(out[0].type(), ElementType::u8);
    EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<uint8_t>{2, 254, 128, 0, 0}));
}

TEST(BitwiseShiftOp, RightShiftU8) {
    auto out = run_op("BitwiseRightShift", {vec<uint8_t>({255, 128, 7, 9}), vec<uint8_t>({1, 7, 8, 0})});
    EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<uint8_t>{127, 1, 0, 9}));
}

TEST(BitwiseShiftOp, WideUnsignedTypes) {
    auto l64 = run_op("BitwiseLeftShift", {vec<uint64_t>({1, 3, 1}), vec<uint64_t>({63, 62, 64})});
    EXPECT_EQ(values<uint64_t>(l64[0]), (std::vector<uint64_t>{uint64_t{1} << 63, uint64_t{3} << 62, 0}));
    auto r32 = run_op("BitwiseRightShift", {vec<uint32_t>({0xFFFFFFFFu, 0x80000000u, 5}), vec<uint32_t>({31, 31, 32})});
    EXPECT_EQ(values<uint32_t>(r32[0]), (std::vector<uint32_t>{1, 1, 0}));
    auto l16 = run_op("BitwiseLeftShift", {vec<uint16_t>({0xFFFF, 1}), vec<uint16_t>({15, 15})});
    EXPECT_EQ(values<uint16_t>(l16[0]), (std::vector<uint16_t>{0x8000, 0x8000}));
}

// Signed: right shifts are arithmetic (sign fill), also past the width; left shifts wrap.
TEST(BitwiseShiftOp, SignedShifts) {
    auto r = run_op("BitwiseRightShift", {vec<int32_t>({-8, -8, 8, -1}), vec<int32_t>({1, 40, 40, 31})});
    EXPECT_EQ(values<int32_t>(r[0]), (std::vector<int32_t>{-4, -1, 0, -1}));
    auto l = run_op("BitwiseLeftShift", {vec<int8_t>({1, -1, 64}), vec<int8_t>({7, 1, 1})});
    EXPECT_EQ(values<int8_t>(l[0]), (std::vector<int8_t>{-128, -2, -128}));
}

// numpy broadcast: [2, 1] << [3] -> [2, 3].
TEST(BitwiseShiftOp, Broadcasts) {
    auto out = run_op("BitwiseLeftShift", {Tensor::from_vector<uint32_t>({1, 3}, {2, 1}), vec<uint32_t>({0, 1, 2})});
    EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
    EXPECT_EQ(values<uint32_t>(out[0]), (std::vector<uint32_t>{1, 2, 4, 3, 6, 12}));
}

TEST(BitwiseShiftOp, RejectsNonIntegerTypesAndIsOpset15) {
    test::GraphBuilder b;
    Node f = b.node("BitwiseLeftShift", {b.input(ElementType::f32, {2}), b.input(ElementType::f32, {2})});
    EXPECT_THROW(test::infer(f), Error);
    Node mixed = b.node("BitwiseRightShift", {b.input(ElementType::u8, {2}), b.input(ElementType::u16, {2})});
    EXPECT_THROW(test::infer(mixed), Error);
    for (const char* type : {"BitwiseLeftShift", "BitwiseRightShift"}) {
        const OpSchema& s = test::builtin_ops().get(type);
        EXPECT_EQ(s.ir_version, "opset15") << type;
        EXPECT_EQ(s.ir_type, type);
        EXPECT_EQ(s.find_attr("auto_broadcast")->default_value, AttrValue(std::string("numpy")));
    }
}

}  // namespace
}  // namespace mo
