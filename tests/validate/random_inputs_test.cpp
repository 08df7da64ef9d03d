// Seeded random inputs: deterministic, in the documented ranges, one stream per parameter.
#include "validate/random_inputs.hpp"

#include <gtest/gtest.h>

#include <set>

#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::values;

TEST(RandomInputs, FollowsTheSplitMix64ReferenceStream) {
    // SplitMix64 seeded with 0 first yields 0xE220A8397B1DCDAF (the published reference
    // output); its top 53 bits scaled to [-1, 1) give 0.7666216164272852, and mod 10 gives 5.
    Tensor f = random_tensor(ElementType::f64, {1}, 0);
    EXPECT_DOUBLE_EQ(values<double>(f)[0], 0.7666216164272852);
    EXPECT_EQ(values<int64_t>(random_tensor(ElementType::i64, {1}, 0))[0], 5);
}

TEST(RandomInputs, SameSeedSameBytesOtherSeedOtherBytes) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::i32, ElementType::u8, ElementType::boolean}) {
        SCOPED_TRACE(std::string(ir_name(t)));
        Tensor a = random_tensor(t, {4, 25}, 42), b = random_tensor(t, {4, 25}, 42), c = random_tensor(t, {4, 25}, 43);
        EXPECT_EQ(a.shape(), (Shape{4, 25}));
        EXPECT_EQ(a.type(), t);
        EXPECT_TRUE(a.same_as(b));
        EXPECT_FALSE(a.same_as(c));
    }
}

TEST(RandomInputs, ValuesStayInTheirRanges) {
    auto floats = random_tensor(ElementType::f32, {10000}, 7).to_f64();
    double sum = 0, lo = 1, hi = -1;
    for (double v : floats) sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
    EXPECT_GE(lo, -1.0);
    EXPECT_LE(hi, 1.0);
    EXPECT_LT(lo, -0.99);  // the whole interval is used
    EXPECT_GT(hi, 0.99);
    EXPECT_NEAR(sum / floats.size(), 0.0, 0.05);

    auto ints = random_tensor(ElementType::i8, {1000}, 7).to_i64();
    std::set<int64_t> seen(ints.begin(), ints.end());
    EXPECT_EQ(seen, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));

    auto bools = values<uint8_t>(random_tensor(ElementType::boolean, {1000}, 7));
    std::set<uint8_t> bits(bools.begin(), bools.end());
    EXPECT_EQ(bits, (std::set<uint8_t>{0, 1}));

    for (double v : random_tensor(ElementType::f16, {1000}, 7).to_f64()) ASSERT_LE(std::abs(v), 1.0);
    EXPECT_THROW(random_tensor(ElementType::string, {1}, 0), Error);
}

TEST(RandomInputs, OneTensorPerParameter) {
    test::GraphBuilder b;
    auto x = b.input(ElementType::f32, {2, 3}, "x");
    auto y = b.input(ElementType::f32, {2, 3}, "y");
    b.output(b.op("Add", {x, y}));
    auto inputs = random_inputs(b.graph(), 1);
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs[0].shape(), (Shape{2, 3}));
    EXPECT_FALSE(inputs[0].same_as(inputs[1]));  // distinct streams
    EXPECT_TRUE(inputs[1].same_as(random_inputs(b.graph(), 1)[1]));
}

TEST(RandomInputs, DynamicShapeIsAnErrorNamingTheParameter) {
    test::GraphBuilder b;
    auto x = b.input(ElementType::f32, {Dimension::dynamic(), 3}, "images");
    b.output(b.op("Relu", {x}));
    try {
        random_inputs(b.graph(), 1);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(e.where().find("images"), std::string::npos);
    }
}

}  // namespace
}  // namespace mo
