#include "transforms/back/move_layout_into_compressed_weights.hpp"

#include <gtest/gtest.h>

#include "transforms/support/fusion_test_util.hpp"

namespace mo {
namespace {

using test::TestGraph;

std::vector<int8_t> stored_values(size_t n) {
    std::vector<int8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
    return v;
}

// (f32(q) - zp) · scale with the Convert marked as decompression.
OutPort compressed(TestGraph& t, const OutPort& q, const OutPort* zp, const OutPort& scale) {
    OutPort x = t.op("Convert", {q}, {{"destination_type", ElementType::f32}}, "w/f32");
    x.node().rt_info()[kDecompression] = "0";
    if (zp) x = t.op("Subtract", {x, *zp}, {}, "w/shifted");
    return t.op("Multiply", {x, scale}, {}, "w");
}

// The one Constant of `type` once the replaced nodes are cleaned up.
const Node* single(Graph& g, ElementType type, std::vector<Node>& keep) {
    g.remove_dead_nodes();
    for (const Node& n : g.nodes())
        if (n.is("Constant") && n.out(0).type() == type) keep.push_back(n);
    return keep.size() == 1 ? &keep[0] : nullptr;
}

TEST(MoveLayoutIntoCompressedWeights, TransposedPerChannelWeightsKeepTheirTypeInTheNewLayout) {
    // TFLite's CONV_2D: OHWI i8 filter, per-channel zero point and scale [O, 1, 1, 1] -> OIHW.
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 3, 4, 4}, "x");
    auto q = t.constant<int8_t>(stored_values(4 * 2 * 2 * 3), {4, 2, 2, 3}, "q");
    auto zp = t.constant<float>({1, -2, 0, 3}, {4, 1, 1, 1}, "zp");
    auto w = compressed(t, q, &zp, t.constant<float>({0.5f, 0.25f, 0.125f, 1}, {4, 1, 1, 1}, "scale"));
    auto oihw = t.op("Transpose", {w, t.constant<int64_t>({0, 3, 1, 2}, {4}, "order")}, {}, "weights");
    t.output(t.op("Convolution", {x, oihw}, test::conv2d_attrs(), "conv"), "out");
    MoveLayoutIntoCompressedWeights pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({1, 3, 4, 4}, -2.f, 2.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_EQ(r.max_abs_diff, 0.0);
    EXPECT_EQ(r.types.count("Transpose"), 0u);
    std::vector<Node> stored;
    ASSERT_NE(single(t.graph(), ElementType::i8, stored), nullptr);
    EXPECT_EQ(stored[0].out(0).shape().to_shape(), (Shape{4, 3, 2, 2}));
    const Node convert = stored[0].out(0).targets()[0].node();
    EXPECT_EQ(convert.rt_info().count(kDecompression), 1u);
}

TEST(MoveLayoutIntoCompressedWeights, DepthwiseReshapesCarryTheChannelScale) {
    // TFLite's DEPTHWISE_CONV_2D: [1, H, W, C] -> [H, W, C, 1] -> [C, 1, H, W] -> [C, 1, 1, H, W].
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 4, 3, 3}, "x");
    auto q = t.constant<int8_t>(stored_values(2 * 2 * 4), {1, 2, 2, 4}, "q");
    auto w = compressed(t, q, nullptr, t.constant<float>({0.5f, 0.25f, 2, 1}, {4}, "scale"));
    auto hwcm = t.op("Reshape", {w, t.constant<int64_t>({2, 2, 4, 1}, {4}, "hwcm")}, {{"special_zero", false}}, "w/hwcm");
    auto cmhw = t.op("Transpose", {hwcm, t.constant<int64_t>({2, 3, 0, 1}, {4}, "order")}, {}, "w/cmhw");
    auto grouped = t.op("Reshape", {cmhw, t.constant<int64_t>({4, 1, 1, 2, 2}, {5}, "shape")}, {{"special_zero", false}},
                        "weights");
    t.output(t.op("GroupConvolution", {x, grouped}, test::conv2d_attrs(), "conv"), "out");
    MoveLayoutIntoCompressedWeights pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({1, 4, 3, 3}, -2.f, 2.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_EQ(r.max_abs_diff, 0.0);
    EXPECT_EQ(r.types.count("Transpose"), 0u);
    EXPECT_EQ(r.types.count("Reshape"), 0u);
}

TEST(MoveLayoutIntoCompressedWeights, AReshapeSplittingTheChannelAxisOrSharedWeightsStay) {
    TestGraph t;
    auto q = t.constant<int8_t>(stored_values(4 * 6), {4, 6}, "q");
    auto w = compressed(t, q, nullptr, t.constant<float>({0.5f, 0.25f, 2, 1}, {4, 1}, "scale"));
    // [4, 6] -> [2, 12]: the 4 channels would be split across rows.
    t.output(t.op("Reshape", {w, t.constant<int64_t>({2, 12}, {2}, "shape")}, {{"special_zero", false}}, "r"), "out");
    auto q2 = t.constant<int8_t>(stored_values(6), {2, 3}, "q2");
    auto shared = compressed(t, q2, nullptr, t.constant<float>({0.5f}, {}, "scale2"));
    t.output(t.op("Transpose", {shared, t.constant<int64_t>({1, 0}, {2}, "order")}, {}, "t"), "out_t");
    t.output(shared, "out_w");
    MoveLayoutIntoCompressedWeights pass;
    auto r = test::run_fusion(pass, t, {});
    EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace mo
