#include "core/shape.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/float16.hpp"

namespace mo {
namespace {

TEST(Shape, IrSpellingRoundTrips) {
    for (std::string s : {"1,3,224,224", "?,3,1..512,1..512", "1,?,..200,120..", "...", ""})
        EXPECT_EQ(PartialShape::parse(s).to_string(), s);
    EXPECT_EQ(PartialShape::parse("[1, -1, 3]").to_string(), "1,?,3");
}

TEST(Shape, MalformedShapesAreErrors) {
    for (std::string s : {"1s,2", "1..g,2", "1,,2", "1,", "5..2"}) EXPECT_THROW(PartialShape::parse(s), Error) << s;
}

TEST(Shape, NumpyBroadcast) {
    EXPECT_EQ(broadcast_numpy(PartialShape{8, 1, 6, 1}, PartialShape{7, 1, 5}).to_string(), "8,7,6,5");
    // '?' is 1 or 4 at run time: either way the result is 4
    EXPECT_EQ(broadcast_numpy(PartialShape{Dimension(), 3}, PartialShape{4, 3}).to_string(), "4,3");
    EXPECT_EQ(broadcast_numpy(PartialShape{Dimension(), 3}, PartialShape{1, 3}).to_string(), "?,3");
    EXPECT_THROW(broadcast_numpy(PartialShape{2, 3}, PartialShape{4, 3}), Error);
}

TEST(Shape, DimensionArithmetic) {
    EXPECT_EQ((Dimension(2, 4) + Dimension(3)).to_string(), "5..7");
    EXPECT_EQ((Dimension(2, 4) * Dimension()).to_string(), "?");
    EXPECT_EQ(normalize_axis(-1, 4), 3);
    EXPECT_THROW(normalize_axis(4, 4), Error);
}

TEST(Float16, KnownBitPatterns) {
    // Values from the IEEE 754 binary16 definition.
    EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
    EXPECT_EQ(f32_to_f16(-2.0f), 0xc000);
    EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);
    EXPECT_EQ(f32_to_f16(1e6f), 0x7c00);           // overflow -> inf
    EXPECT_EQ(f32_to_f16(5.9604645e-08f), 0x0001);  // smallest subnormal
    EXPECT_EQ(f32_to_f16(1.0f + 1.0f / 2048), 0x3c00);  // tie rounds to even
    EXPECT_FLOAT_EQ(f16_to_f32(0x3555), 0.333251953125f);
    EXPECT_FLOAT_EQ(f16_to_f32(0x0001), 5.9604645e-08f);
}

}  // namespace
}  // namespace mo
