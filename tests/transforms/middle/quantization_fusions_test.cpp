#include "transforms/middle/quantization_fusions.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "core/infer.hpp"
#include "transforms/support/fusion_test_util.hpp"

namespace mo {
namespace {

using test::TestGraph;

// QuantizeLinear(x, s, zp = 128) -> DequantizeLinear(s, zp) to u8, as the ONNX extractors
// decompose it; `s` of `scale_shape` holds `scale`.
void qdq(TestGraph& t, const Shape& x_shape, std::vector<float> scale, const Shape& scale_shape) {
    auto x = t.input(ElementType::f32, x_shape, "x");
    auto s = t.constant<float>(scale, scale_shape, "s");
    auto zp = t.constant<float>({128}, {}, "zp");
    auto divide = t.op("Divide", {x, s}, {}, "q/divide");
    auto add = t.op("Add", {t.op("Round", {divide}, {}, "q/round"), zp}, {}, "q/add");
    auto clamp = t.op("Clamp", {add}, {{"min", AttrValue(0.0)}, {"max", AttrValue(255.0)}}, "q/clamp");
    auto q = t.op("Convert", {clamp}, {{"destination_type", ElementType::u8}}, "q");
    auto f = t.op("Convert", {q}, {{"destination_type", ElementType::f32}}, "dq/f32");
    auto sub = t.op("Subtract", {f, zp}, {}, "dq/sub");
    t.output(t.op("Multiply", {sub, s}, {}, "dq"), "out");
}

TEST(QuantizeDequantizeToFakeQuantize, PositiveScaleBecomesFakeQuantize) {
    TestGraph t;
    qdq(t, {1, 2, 2, 2}, {0.1f, 0.2f}, {1, 2, 1, 1});
    QuantizeDequantizeToFakeQuantize pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({1, 2, 2, 2}, -13.01f, 12.99f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-5);
    EXPECT_EQ(r.types, (std::map<std::string, int>{{"FakeQuantize", 1}, {"Parameter", 1}, {"Result", 1}}));
}

TEST(QuantizeDequantizeToFakeQuantize, NonPositiveOrNonFiniteScaleStaysUnfused) {
    // A negative scale would give a FakeQuantize with low > high, which computes something else.
    for (float bad : {-0.1f, 0.f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        TestGraph t;
        qdq(t, {1, 2, 2, 2}, {0.1f, bad}, {1, 2, 1, 1});
        test::infer(t.graph());
        const std::string before = test::dump(t.graph());
        QuantizeDequantizeToFakeQuantize pass;
        EXPECT_FALSE(test::run_pass(pass, t.graph())) << "scale " << bad;
        EXPECT_EQ(test::dump(t.graph()), before) << "scale " << bad;
    }
}

TEST(QuantizeDequantizeToFakeQuantize, BoundsThatDoNotFoldStayUnfused) {
    // Per-channel bounds of 16 f32 (64 bytes) above --max_constant_size 32: no FakeQuantize
    // without constant bounds (this used to dereference the missing value).
    TestGraph t;
    std::vector<float> scale(16, 0.5f);
    qdq(t, {1, 16, 1, 1}, scale, {1, 16, 1, 1});
    t.graph().max_constant_bytes = 32;
    test::infer(t.graph());
    const std::string before = test::dump(t.graph());
    QuantizeDequantizeToFakeQuantize pass;
    EXPECT_FALSE(test::run_pass(pass, t.graph()));
    EXPECT_EQ(test::dump(t.graph()), before);
}

}  // namespace
}  // namespace mo
