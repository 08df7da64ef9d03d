#include "core/shape.hpp"

#include <gtest/gtest.h>

#include "core/element_type.hpp"
#include "core/error.hpp"

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

// Dims come from the model: a product or sum beyond int64 is an error for a lower bound, and no
// bound for an upper one.
TEST(Shape, DimensionArithmeticThatOverflowsIsCaught) {
    const int64_t big = int64_t{1} << 62;
    EXPECT_THROW(Dimension(3) * Dimension(big), Error);
    EXPECT_THROW(Dimension(big) + Dimension(big) + Dimension(big), Error);
    EXPECT_EQ((Dimension(1, big) * Dimension(1, 4)).to_string(), "1..");
    EXPECT_EQ((Dimension(1, big - 1) * Dimension(1, 2)).to_string(), "1..9223372036854775806");
}

// shape_size bounds the element count; byte_size bounds count x bits (2^59 f32 elements wrapped
// to a few bytes).
TEST(Shape, ByteSizesBeyond64BitsAreErrors) {
    EXPECT_EQ(byte_size(ElementType::f32, 3), 12u);
    EXPECT_EQ(byte_size(ElementType::u4, 3), 2u);
    EXPECT_THROW(byte_size(ElementType::f32, (size_t{1} << 59) + 1), Error);
    EXPECT_THROW(byte_size(ElementType::u8, (size_t{1} << 61) + 4), Error);
}

}  // namespace
}  // namespace mo
