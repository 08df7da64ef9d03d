#include "transforms/middle/stacked_upsampling.hpp"

#include <gtest/gtest.h>

#include "transforms/support/fusion_test_util.hpp"

namespace mo {
namespace {

using test::TestGraph;

// ops.nearest_neighbor_upsampling of the TF Object Detection API, as the TF extractors leave it:
// tf.stack([x] * w, axis=3) -> tf.stack([.] * h, axis=2) -> tf.reshape([N, H*h, W*w, C]), each
// stack an Unsqueeze per copy and a Concat.
OutPort stack(TestGraph& t, OutPort x, int64_t copies, int64_t axis, const std::string& name) {
    std::vector<OutPort> parts;
    for (int64_t i = 0; i < copies; ++i)
        parts.push_back(t.op("Unsqueeze", {x, t.constant<int64_t>({axis}, {1}, name + "/axis" + std::to_string(i))}, {},
                             name + "/unsqueeze" + std::to_string(i)));
    return t.op("Concat", parts, {{"axis", axis}}, name);
}

OutPort upsampled(TestGraph& t, OutPort x, int64_t h, int64_t w, const std::vector<int64_t>& target) {
    auto rows = stack(t, stack(t, x, w, 3, "stack"), h, 2, "stack_1");
    return t.op("Reshape", {rows, t.constant<int64_t>(target, {4}, "shape")}, {{"special_zero", false}}, "reshape");
}

TEST(StackedCopiesToInterpolate, TheTfObjectDetectionUpsamplingIsANearestInterpolate) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 3, 2}, "x");
    t.output(upsampled(t, x, 2, 3, {-1, 4, 9, 2}), "out");
    StackedCopiesToInterpolate pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({1, 2, 3, 2}, -1.f, 1.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_EQ(r.max_abs_diff, 0);
    EXPECT_EQ(r.types["Interpolate"], 1);
    EXPECT_EQ(r.types["Concat"], 0);
    EXPECT_EQ(r.types["Reshape"], 0);
}

TEST(StackedCopiesToInterpolate, AnotherReshapeOfTheStacksStays) {
    // The same stacks read back as [1, 2, 27, 2]: not an upsampling of H and W.
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 3, 2}, "x");
    t.output(upsampled(t, x, 3, 3, {1, 2, 27, 2}), "out");
    StackedCopiesToInterpolate pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({1, 2, 3, 2}, -1.f, 1.f)}});
    EXPECT_FALSE(r.changed);
    EXPECT_EQ(r.types["Reshape"], 1);
}

}  // namespace
}  // namespace mo
