#include "emit/attr_format.hpp"

#include <gtest/gtest.h>

namespace mo {
namespace {

TEST(AttrFormat, ValuesUseTheIrSpelling) {
    EXPECT_EQ(format_attr(true), "true");
    EXPECT_EQ(format_attr(false), "false");
    EXPECT_EQ(format_attr(int64_t{-3}), "-3");
    EXPECT_EQ(format_attr(std::string("same_upper")), "same_upper");
    EXPECT_EQ(format_attr(std::vector<int64_t>{64, 3, 7, 7}), "64, 3, 7, 7");
    EXPECT_EQ(format_attr(std::vector<int64_t>{}), "");
    EXPECT_EQ(format_attr(ElementType::boolean), "boolean");
    EXPECT_EQ(format_attr(ElementType::f16), "f16");
    EXPECT_EQ(format_attr(PartialShape{1, Dimension(), Dimension(0, 10), Dimension(2, -1)}), "1,?,..10,2..");
    EXPECT_EQ(format_attr(PartialShape{}), "");
}

TEST(AttrFormat, FloatsArePrintedLikeOpenVino) {
    // %.17g, as in the serializer output quoted in ir-format.md §6.
    EXPECT_EQ(format_attr(0.5), "0.5");
    EXPECT_EQ(format_attr(static_cast<double>(0.02f)), "0.019999999552965164");
    EXPECT_EQ(format_attr(static_cast<double>(0.45f)), "0.44999998807907104");
    EXPECT_EQ(format_attr(std::vector<double>{1.0, 0.25}), "1, 0.25");
}

TEST(AttrFormat, TensorNames) {
    EXPECT_EQ(format_tensor_names({"b", "a", "b"}), "a,b");
    EXPECT_EQ(format_tensor_names({"x,y"}), "x\\,y");
    EXPECT_EQ(format_tensor_names({}), "");
}

}  // namespace
}  // namespace mo
