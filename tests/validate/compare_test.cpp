// compare(): tolerances as documented in compare.hpp, NaN/Inf positions, exact integers.
#include "validate/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/float16.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

using test::f32;

TEST(Compare, EqualFloatsPass) {
    auto c = compare(f32({1, -2, 0}), f32({1, -2, 0}), {}, "y");
    EXPECT_TRUE(c.ok);
    EXPECT_EQ(c.elements, 3u);
    EXPECT_EQ(c.mismatches, 0u);
    EXPECT_EQ(c.max_abs_error, 0.0);
    EXPECT_EQ(format_comparison(c), "OK   y: 3 elements");
}

TEST(Compare, ErrorsAreMeasuredAsDocumented) {
    // |1.5 - 1| = 0.5, rel 0.5; |100 - 104| = 4, rel 4/104; |1e-7 - 0| = 1e-7, rel 1e-7/1e-6 = 0.1.
    auto c = compare(f32({1.5f, 100, 1e-7f}), f32({1, 104, 0}), {0.01, 0.01});
    EXPECT_FALSE(c.ok);
    EXPECT_NEAR(c.max_abs_error, 4.0, 1e-12);
    EXPECT_NEAR(c.max_rel_error, 0.5, 1e-12);
    // Relative to the range: the largest error 4 over the largest reference magnitude 104.
    EXPECT_NEAR(c.max_abs_expected, 104.0, 1e-12);
    EXPECT_NEAR(c.range_rel_error(), 4.0 / 104.0, 1e-12);
    EXPECT_EQ(format_comparison(c), "FAIL output: 2 of 3 elements differ (first at 0), max abs 4, max rel 0.5, "
                                    "max abs/max|ref| 0.0385");
    // Element 2 passes on atol (1e-7 <= 0.01) although its rel error 0.1 exceeds rtol.
    EXPECT_EQ(c.mismatches, 2u);
    EXPECT_EQ(c.first_mismatch, 0u);
    // Passing on either tolerance: rtol 0.5 admits elements 0 and 1.
    EXPECT_TRUE(compare(f32({1.5f, 100}), f32({1, 104}), {1e-9, 0.5}).ok);
    EXPECT_TRUE(compare(f32({1.5f, 100}), f32({1, 104}), {4.0, 1e-9}).ok);
    EXPECT_FALSE(compare(f32({1.5f, 100}), f32({1, 104}), {3.9, 0.03}).ok);
}

TEST(Compare, NanAndInfPositionsMustMatch) {
    EXPECT_TRUE(compare(f32({kNaN, kInf, -kInf, 1}), f32({kNaN, kInf, -kInf, 1})).ok);
    auto c = compare(f32({kNaN, 1, kInf, 2}), f32({1, kNaN, -kInf, 2}));
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.mismatches, 3u);
    EXPECT_EQ(c.special_mismatches, 3u);
    EXPECT_EQ(c.max_abs_error, 0.0);  // no finite pair differs
    EXPECT_EQ(format_comparison(c), "FAIL output: 3 of 4 elements differ (first at 0), 3 NaN/Inf positions differ");
}

TEST(Compare, IntegersAreExact) {
    auto a = Tensor::from_vector<int64_t>({1, 2, 3, 4}, {2, 2});
    auto b = Tensor::from_vector<int64_t>({1, 5, 3, 7}, {2, 2});
    auto c = compare(a, b, {100, 100}, "idx");  // tolerances do not apply to integers
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.mismatches, 2u);
    EXPECT_EQ(c.first_mismatch, 1u);
    EXPECT_EQ(format_comparison(c), "FAIL idx: 2 of 4 elements differ (first at 1)");
    auto t = Tensor::from_vector<bool>({true, false}, {2});
    EXPECT_TRUE(compare(t, t).ok);
    EXPECT_EQ(compare(t, Tensor::from_vector<bool>({true, true}, {2})).mismatches, 1u);
    EXPECT_TRUE(compare(Tensor::from_vector<uint64_t>({UINT64_MAX}, {1}), Tensor::from_vector<uint64_t>({UINT64_MAX}, {1})).ok);
}

TEST(Compare, ShapeAndTypeMismatchesAreProblems) {
    auto c = compare(f32({1, 2}), Tensor::from_vector<float>({1, 2}, {1, 2}), {}, "y");
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(format_comparison(c), "FAIL y: shape [2] differs from the expected [1,2]");
    auto t = compare(Tensor::from_vector<int32_t>({1}, {1}), Tensor::from_vector<int64_t>({1}, {1}));
    EXPECT_FALSE(t.ok);
    EXPECT_NE(t.problem.find("i32"), std::string::npos);
    EXPECT_FALSE(compare(Tensor(), f32({1})).ok);
}

TEST(Compare, HalfOutputAgainstFloatReference) {
    Tensor half(ElementType::f16, {2}, Tensor::from_vector<uint16_t>({f32_to_f16(0.5f), f32_to_f16(1.f / 3)}, {2}).buffer());
    auto c = compare(half, f32({0.5f, 1.f / 3}), {0, 1e-3});
    EXPECT_TRUE(c.ok) << format_comparison(c);
    EXPECT_GT(c.max_rel_error, 0.0);  // 1/3 is not exact in half precision
    EXPECT_FALSE(compare(half, f32({0.5f, 1.f / 3}), {0, 1e-5}).ok);
}

}  // namespace
}  // namespace mo
