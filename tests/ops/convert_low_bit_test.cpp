// Convert-1 from and to the packed types u1, u4 and i4: exact reads of the packed layouts, and
// the wrap (integers) / saturate (floats) / non-zero (u1) rules worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/float16.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using ET = ElementType;
using test::bytes_of;
using test::packed;
using test::values;

Tensor convert(const Tensor& x, ET to) {
    auto out = test::run_op("Convert", {x}, {{"destination_type", to}});
    EXPECT_EQ(out.at(0).type(), to);
    return out.at(0);
}

TEST(ConvertLowBit, U4ToF32) {
    EXPECT_EQ(values<float>(convert(packed(ET::u4, {0x12, 0x3a, 0x0c}, 5), ET::f32)),
              (std::vector<float>{2, 1, 10, 3, 12}));
}

TEST(ConvertLowBit, I4ToF32AndF16) {
    EXPECT_EQ(values<float>(convert(packed(ET::i4, {0x12, 0x3a, 0xcf}, 6), ET::f32)),
              (std::vector<float>{2, 1, -6, 3, -1, -4}));
    Tensor h = convert(packed(ET::i4, {0x8f}, 2), ET::f16);  // -1, -8
    EXPECT_EQ(values<uint16_t>(h), (std::vector<uint16_t>{0xBC00, 0xC800}));  // f16 -1.0, -8.0
}

TEST(ConvertLowBit, I4ToIntegersWraps) {
    Tensor x = packed(ET::i4, {0xcf, 0x07}, 3);  // -1, -4, 7
    EXPECT_EQ(values<uint8_t>(convert(x, ET::u8)), (std::vector<uint8_t>{255, 252, 7}));
    EXPECT_EQ(values<uint32_t>(convert(x, ET::u32)), (std::vector<uint32_t>{0xFFFFFFFFu, 0xFFFFFFFCu, 7}));
    EXPECT_EQ(values<int64_t>(convert(x, ET::i64)), (std::vector<int64_t>{-1, -4, 7}));
}

TEST(ConvertLowBit, U1ToOtherTypes) {
    Tensor x = packed(ET::u1, {0x21, 0x80}, 9);  // 0,0,1,0,0,0,0,1,1
    EXPECT_EQ(values<float>(convert(x, ET::f32)), (std::vector<float>{0, 0, 1, 0, 0, 0, 0, 1, 1}));
    EXPECT_EQ(values<uint8_t>(convert(x, ET::boolean)), (std::vector<uint8_t>{0, 0, 1, 0, 0, 0, 0, 1, 1}));
    EXPECT_EQ(bytes_of(convert(x, ET::u4)), (std::vector<uint8_t>{0x00, 0x01, 0x00, 0x10, 0x01}));
}

TEST(ConvertLowBit, IntegersToU4WrapModulo16) {
    // -1 -> 15, 16 -> 0, 17 -> 1, 31 -> 15, 7 -> 7; packed low nibble first.
    Tensor y = convert(Tensor::from_vector<int32_t>({-1, 16, 17, 31, 7}, {5}), ET::u4);
    EXPECT_EQ(bytes_of(y), (std::vector<uint8_t>{0x0F, 0xF1, 0x07}));
    Tensor big = convert(Tensor::from_vector<uint64_t>({0xFFFFFFFFFFFFFFF3ull}, {1}), ET::u4);
    EXPECT_EQ(bytes_of(big), (std::vector<uint8_t>{0x03}));
}

TEST(ConvertLowBit, IntegersToI4WrapToTheNibble) {
    // 8 -> -8, -9 -> 7, 15 -> -1, 23 (0x17) -> 7, -8 -> -8, 7 -> 7
    Tensor y = convert(Tensor::from_vector<int32_t>({8, -9, 15, 23, -8, 7}, {6}), ET::i4);
    EXPECT_EQ(bytes_of(y), (std::vector<uint8_t>{0x78, 0x7F, 0x78}));
    EXPECT_EQ(values<int8_t>(convert(y, ET::i8)), (std::vector<int8_t>{-8, 7, -1, 7, -8, 7}));
}

TEST(ConvertLowBit, FloatsToU4TruncateAndSaturate) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // -3.5 -> 0, 0.9 -> 0, 15.99 -> 15, 16 -> 15, 1e9 -> 15, NaN -> 0, 7.5 -> 7
    Tensor y = convert(Tensor::from_vector<float>({-3.5f, 0.9f, 15.99f, 16.f, 1e9f, nan, 7.5f}, {7}), ET::u4);
    EXPECT_EQ(bytes_of(y), (std::vector<uint8_t>{0x00, 0xFF, 0x0F, 0x07}));
}

TEST(ConvertLowBit, FloatsToI4TruncateAndSaturate) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // -8.9 -> -8, -7.9 -> -7, 7.9 -> 7, 8 -> 7, -1e9 -> -8, NaN -> 0, -0.5 -> 0
    Tensor y = convert(Tensor::from_vector<float>({-8.9f, -7.9f, 7.9f, 8.f, -1e9f, nan, -0.5f}, {7}), ET::i4);
    EXPECT_EQ(bytes_of(y), (std::vector<uint8_t>{0x98, 0x77, 0x08, 0x00}));
}

TEST(ConvertLowBit, F16ToU4GoesThroughF32) {
    Tensor h = Tensor::allocate(ET::f16, {3});
    uint16_t* p = h.mutable_data<uint16_t>();
    p[0] = 0x4380;  // 3.75
    p[1] = 0xC000;  // -2
    p[2] = 0x4D00;  // 20
    EXPECT_EQ(bytes_of(convert(h, ET::u4)), (std::vector<uint8_t>{0x03, 0x0F}));  // 3, 0, 15
}

TEST(ConvertLowBit, NonZeroBecomesOneInU1) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // 0, -0, 0.25, -3, NaN -> 0,0,1,1,1 = 0b00111000
    EXPECT_EQ(bytes_of(convert(Tensor::from_vector<float>({0.f, -0.f, 0.25f, -3.f, nan}, {5}), ET::u1)),
              (std::vector<uint8_t>{0x38}));
    // 0,2,-1,0,0,0,0,0 | 5 -> 0b01100000, 0b10000000 (2 does not wrap to 0)
    EXPECT_EQ(bytes_of(convert(Tensor::from_vector<int64_t>({0, 2, -1, 0, 0, 0, 0, 0, 5}, {9}), ET::u1)),
              (std::vector<uint8_t>{0x60, 0x80}));
}

TEST(ConvertLowBit, BetweenPackedTypesKeepsTheNibble) {
    // u4 8, 15 and i4 -8, -1 share the byte 0xF8.
    Tensor as_i4 = convert(packed(ET::u4, {0xF8}, 2), ET::i4);
    EXPECT_EQ(bytes_of(as_i4), (std::vector<uint8_t>{0xF8}));
    EXPECT_EQ(bytes_of(convert(as_i4, ET::u4)), (std::vector<uint8_t>{0xF8}));
    EXPECT_EQ(bytes_of(convert(Tensor::from_vector<bool>({true, false, true}, {3}), ET::u4)),
              (std::vector<uint8_t>{0x01, 0x01}));
}

TEST(ConvertLowBit, KeepsTheShape) {
    Tensor x(ET::u4, Shape{2, 3}, packed(ET::u4, {0x21, 0x43, 0x65}, 6).buffer());
    Tensor y = convert(x, ET::f32);
    EXPECT_EQ(y.shape(), (Shape{2, 3}));
    EXPECT_EQ(values<float>(y), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace mo
