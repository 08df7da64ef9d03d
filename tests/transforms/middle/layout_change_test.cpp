#include "transforms/middle/layout_change.hpp"

#include <gtest/gtest.h>

#include "transforms/support/fusion_test_util.hpp"

namespace mo {
namespace {

using test::TestGraph;

const std::vector<int64_t> kToNchw{0, 3, 1, 2}, kToNhwc{0, 2, 3, 1};

OutPort transpose(TestGraph& t, OutPort x, const std::vector<int64_t>& perm, const std::string& name) {
    return t.op("Transpose", {x, t.constant<int64_t>(perm, {4}, name + "/order")}, {}, name);
}

int count(const Graph& g, const char* type) {
    int n = 0;
    for (const Node& node : g.nodes()) n += node.is(type);
    return n;
}

test::FusionOutcome run(TestGraph& t, const std::map<std::string, Tensor>& inputs) {
    t->source_layout = "NHWC";
    LayoutChange pass;
    return test::run_fusion(pass, t, inputs);
}

TEST(LayoutChange, TransposesCancelThroughActivationsConstantsAndAxes) {
    // NHWC x -> [to NCHW] Relu [to NHWC] + c[C] -> [to NCHW] Softmax(axis 1 = C) [to NHWC] -> y
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 3, 4}, "x");
    auto relu = t.op("Relu", {transpose(t, x, kToNchw, "t1")}, {}, "relu");
    auto add = t.op("Add", {transpose(t, relu, kToNhwc, "t2"), t.constant<float>({1, -2, 3, -4}, {4}, "c")}, {}, "add");
    auto softmax = t.op("Softmax", {transpose(t, add, kToNchw, "t3")}, {{"axis", int64_t{1}}}, "softmax");
    auto y = transpose(t, softmax, kToNhwc, "t4");
    y.names().push_back("y");
    t.output(y, "out");
    auto r = run(t, {{"x", test::ramp({1, 2, 3, 4}, -3.f, 3.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(count(t.graph(), "Transpose"), 0);
    EXPECT_EQ(t->find_by_name("softmax").attr<int64_t>("axis"), 3);
    // The output tensor keeps its name.
    EXPECT_EQ(t->results()[0].in(0).src().names(), std::vector<std::string>{"y"});
}

TEST(LayoutChange, TransposesMoveThroughFakeQuantizeWithSingleOrPerChannelRanges) {
    // NHWC x -> [to NCHW] Relu [to NHWC] -> FakeQuantize(single range) -> FakeQuantize(ranges [C])
    // -> [to NCHW] Sigmoid [to NHWC] -> y
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 3, 4}, "x");
    auto relu = t.op("Relu", {transpose(t, x, kToNchw, "t1")}, {}, "relu");
    auto lo = t.constant<float>({-1.f}, {}, "lo"), hi = t.constant<float>({2.f}, {}, "hi");
    auto fq1 = t.op("FakeQuantize", {transpose(t, relu, kToNhwc, "t2"), lo, hi, lo, hi}, {{"levels", int64_t{7}}}, "fq1");
    auto los = t.constant<float>({0.f, -1.f, 0.f, -2.f}, {4}, "los"), his = t.constant<float>({1.f, 2.f, 3.f, 4.f}, {4}, "his");
    auto fq2 = t.op("FakeQuantize", {fq1, los, his, los, his}, {{"levels", int64_t{5}}}, "fq2");
    auto sigmoid = t.op("Sigmoid", {transpose(t, fq2, kToNchw, "t3")}, {}, "sigmoid");
    t.output(transpose(t, sigmoid, kToNhwc, "t4"), "out");
    auto r = run(t, {{"x", test::ramp({1, 2, 3, 4}, -3.f, 3.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(count(t.graph(), "Transpose"), 0);
}

TEST(LayoutChange, ConcatPadAndReduceTakeThePermutedAxes) {
    // NCHW a, b -> [to NHWC] -> Concat(axis 3) -> Pad(H and W) -> ReduceMean(H, W) -> y [1, 6]
    TestGraph t;
    auto a = t.input(ElementType::f32, {1, 3, 2, 2}, "a");
    auto b = t.input(ElementType::f32, {1, 3, 2, 2}, "b");
    auto concat = t.op("Concat", {transpose(t, a, kToNhwc, "ta"), transpose(t, b, kToNhwc, "tb")}, {{"axis", int64_t{3}}},
                       "concat");
    auto pad = t.op("Pad", {concat, t.constant<int64_t>({0, 1, 0, 0}, {4}, "pb"), t.constant<int64_t>({0, 0, 2, 0}, {4}, "pe")},
                    {}, "pad");
    auto mean = t.op("ReduceMean", {pad, t.constant<int64_t>({1, 2}, {2}, "axes")}, {{"keep_dims", false}}, "mean");
    t.output(mean, "out");
    auto r = run(t, {{"a", test::ramp({1, 3, 2, 2}, -1.f, 1.f)}, {"b", test::ramp({1, 3, 2, 2}, 2.f, 5.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(count(t.graph(), "Transpose"), 0);
    EXPECT_EQ(t->find_by_name("concat").attr<int64_t>("axis"), 1);
    EXPECT_EQ(t->find_by_name("pad").in(1).value()->to_i64(), (std::vector<int64_t>{0, 0, 1, 0}));
    EXPECT_EQ(t->find_by_name("pad").in(2).value()->to_i64(), (std::vector<int64_t>{0, 0, 0, 2}));
}

TEST(LayoutChange, AReductionKeepsOnlyTheTransposeItsOutputOrderNeeds) {
    // NHWC [1, 2, 3, 4] summed over H -> [1, 3, 4] (N, W, C); the NCHW sum gives (N, C, W).
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 4, 2, 3}, "x");
    auto sum = t.op("ReduceSum", {transpose(t, x, kToNhwc, "t"), t.constant<int64_t>({1}, {1}, "axes")},
                    {{"keep_dims", false}}, "sum");
    t.output(sum, "out");
    auto r = run(t, {{"x", test::ramp({1, 4, 2, 3}, -1.f, 2.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    ASSERT_EQ(count(t.graph(), "Transpose"), 1);
    const Node last = t->results()[0].in(0).src().node();
    ASSERT_TRUE(last.is("Transpose"));
    EXPECT_EQ(last.in(1).value()->to_i64(), (std::vector<int64_t>{0, 2, 1}));
}

TEST(LayoutChange, ShapeOfReadsTheSourceOrderThroughAGather) {
    // A Reshape to the NHWC shape of a tensor computed in NCHW: ShapeOf must still give N, H, W, C.
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 3, 4, 5}, "x");  // NCHW
    auto nhwc = transpose(t, x, kToNhwc, "t");
    auto shape = t.op("ShapeOf", {nhwc}, {{"output_type", ElementType::i64}}, "shape");
    t.output(shape, "out");
    t.output(t.op("Relu", {nhwc}, {}, "relu"), "out2");
    auto r = run(t, {{"x", test::ramp({1, 3, 4, 5}, -1.f, 1.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_EQ(r.max_abs_diff, 0);
    EXPECT_TRUE(t->find_by_name("shape").in(0).src().node().is("Parameter"));
    EXPECT_EQ(r.types["Gather"], 1);
}

// The body of MediaPipe's palm detector and face landmark model (BlazeBlocks), as the TFLite
// extractors leave it: Conv -> PRelu with a slope per channel on the last axis (TFLite's alpha
// [1, 1, C], padded to the rank), a residual Add of two paths (the block's convolution and its
// input through the PRelu), a MaxPool shortcut whose channels are padded, and an upsampling
// Interpolate over H and W. Only the Transposes at the boundary stay.
TEST(LayoutChange, BlazeBlocksKeepNoTransposeInside) {
    TestGraph t;
    const std::vector<int64_t> s{1, 4, 4, 2};
    auto x = t.input(ElementType::f32, s, "x");  // NHWC
    auto conv = [&](OutPort in, const std::string& name) {  // a 1x1 convolution, NCHW between Transposes
        auto w = t.constant<float>({0.5f, -1.f, 0.25f, 2.f}, {2, 2, 1, 1}, name + "/w");
        auto c = t.op("Convolution", {transpose(t, in, kToNchw, name + "/to_nchw"), w},
                      {{"strides", std::vector<int64_t>{1, 1}}, {"dilations", std::vector<int64_t>{1, 1}},
                       {"pads_begin", std::vector<int64_t>{0, 0}}, {"pads_end", std::vector<int64_t>{0, 0}}},
                      name);
        return transpose(t, c, kToNhwc, name + "/to_nhwc");
    };
    auto slope = t.constant<float>({0.1f, 0.3f}, {1, 1, 1, 2}, "slope");  // per channel, last axis
    auto a = t.op("PRelu", {conv(x, "conv1"), slope}, {}, "prelu1");
    auto residual = t.op("Add", {conv(a, "conv2"), a}, {}, "residual");
    auto b = t.op("PRelu", {residual, slope}, {}, "prelu2");
    auto pooled = t.op("MaxPool", {transpose(t, b, kToNchw, "pool/to_nchw")},
                       {{"strides", std::vector<int64_t>{2, 2}}, {"kernel", std::vector<int64_t>{2, 2}},
                        {"pads_begin", std::vector<int64_t>{0, 0}}, {"pads_end", std::vector<int64_t>{0, 0}}},
                       "pool");
    auto padded = t.op("Pad", {transpose(t, pooled, kToNhwc, "pool/to_nhwc"), t.constant<int64_t>({0, 0, 0, 0}, {4}, "pb"),
                               t.constant<int64_t>({0, 0, 0, 2}, {4}, "pe")},
                       {{"pad_mode", std::string("constant")}}, "pad_channels");
    auto up = t.op("Interpolate", {padded, t.constant<int64_t>({4, 4}, {2}, "sizes"), t.constant<int64_t>({1, 2}, {2}, "axes")},
                   {{"mode", std::string("nearest")}, {"shape_calculation_mode", std::string("sizes")}}, "upsample");
    t.output(up, "out");
    auto r = run(t, {{"x", test::ramp(s, -2.f, 2.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(count(t.graph(), "Transpose"), 2);  // after x, before the output
    EXPECT_EQ(t->find_by_name("prelu2").in(1).src().value()->shape(), (Shape{1, 2, 1, 1}));
}

TEST(LayoutChange, ATransposeOfAxesOfExtentOneBecomesAReshape) {
    // NCHW [1, 3, 1, 1] -> [to NHWC] -> y: the element order is kept; [1, 3, 2, 1] is transposed.
    TestGraph t;
    auto a = t.input(ElementType::f32, {1, 3, 1, 1}, "a");
    auto b = t.input(ElementType::f32, {1, 3, 2, 1}, "b");
    t.output(transpose(t, t.op("Relu", {a}, {}, "relu_a"), kToNhwc, "ta"), "out_a");
    t.output(transpose(t, t.op("Relu", {b}, {}, "relu_b"), kToNhwc, "tb"), "out_b");
    auto r = run(t, {{"a", test::ramp({1, 3, 1, 1}, -1.f, 1.f)}, {"b", test::ramp({1, 3, 2, 1}, -1.f, 1.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_EQ(r.max_abs_diff, 0);
    EXPECT_TRUE(t->results()[0].in(0).src().node().is("Reshape"));
    EXPECT_TRUE(t->results()[1].in(0).src().node().is("Transpose"));
}

TEST(LayoutChange, OpsWithoutARowAndUnknownOperandsStopTheMove) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 2, 3}, "x");
    auto y = t.input(ElementType::f32, {1, 3, 2, 2}, "y");
    // + a model input in the other layout: moving would need a Transpose of y.
    t.output(t.op("Add", {transpose(t, x, kToNchw, "t1"), y}, {}, "add"), "out1");
    // A Reshape reads the element order: the Transpose stays in front of it.
    t.output(t.op("Reshape", {transpose(t, x, kToNchw, "t2"), t.constant<int64_t>({1, 12}, {2}, "shape")},
                  {{"special_zero", false}}, "reshape"),
             "out2");
    auto r = run(t, {{"x", test::ramp({1, 2, 2, 3}, -1.f, 1.f)}, {"y", test::ramp({1, 3, 2, 2}, 0.f, 1.f)}});
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types["Transpose"], 1);  // t1 and t2 merged: one transpose of x by one order
    EXPECT_TRUE(t->find_by_name("add").in(0).src().node().is("Transpose"));
    EXPECT_TRUE(t->find_by_name("reshape").in(0).src().node().is("Transpose"));
}

}  // namespace
}  // namespace mo
