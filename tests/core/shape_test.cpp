#include "core/shape.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mo
