#include "transforms/middle/convolution_multiply_fusion.hpp"
#include "transforms/middle/constant_chain_merge.hpp"
#include "transforms/middle/pad_fusion.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "transforms/middle/fuse_batch_norm_into_convolution.hpp"
#include "transforms/support/fusion_test_util.hpp"

namespace mo {
namespace {

using test::TestGraph;

// PyTorch's Conv2d(2 -> 2, 1x1, bias) as mo extracts it: Convolution + Add([1, C, 1, 1]).
OutPort conv_with_bias(TestGraph& t, OutPort x) {
    auto conv = t.op("Convolution", {x, t.constant<float>({1, 2, -1, 3}, {2, 2, 1, 1}, "w")}, test::conv2d_attrs(), "conv");
    return t.op("Add", {conv, t.constant<float>({0.5f, -1}, {1, 2, 1, 1}, "b")}, {}, "conv_bias");
}

TEST(ConvolutionMultiplyFusion, ScaleAfterBiasIsFoldedIntoWeightsAndBias) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 2, 2}, "x");
    // A TensorFlow-style per-channel scale of shape [C, 1, 1], constant on the left.
    auto mul = t.op("Multiply", {t.constant<float>({2, -3}, {2, 1, 1}, "s"), conv_with_bias(t, x)}, {}, "scale");
    mul.names().push_back("y");
    t.output(mul, "out");
    ConvolutionMultiplyFusion pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({1, 2, 2, 2}, -1.f, 1.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);

    // W' = W * s per output channel, b' = b * s: worked by hand.
    TestGraph e;
    auto ex = e.input(ElementType::f32, {1, 2, 2, 2}, "x");
    auto econv = e.op("Convolution", {ex, e.constant<float>({2, 4, 3, -9}, {2, 2, 1, 1}, "w/scaled")}, test::conv2d_attrs(), "conv");
    auto add = e.op("Add", {econv, e.constant<float>({1, 3}, {1, 2, 1, 1}, "scale/bias")}, {}, "scale");
    add.names().push_back("y");
    e.output(add, "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
}

TEST(ConvolutionMultiplyFusion, ScalarScaleWithoutBiasOnGroupConvolution) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 3, 3}, "x");
    // Depthwise: [G=2, 1, 1, 2, 2].
    auto conv = t.op("GroupConvolution", {x, t.constant<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 1, 1, 2, 2}, "w")},
                     test::conv2d_attrs(), "dw");
    t.output(t.op("Multiply", {conv, t.constant<float>({0.5f}, {}, "half")}, {}, "scale"), "out");
    ConvolutionMultiplyFusion pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({1, 2, 3, 3}, -2.f, 2.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types, (std::map<std::string, int>{{"GroupConvolution", 1}, {"Parameter", 1}, {"Result", 1}}));
    EXPECT_EQ(t->find_by_name("scale").in(1).value()->to_f64(), (std::vector<double>{0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4}));
}

TEST(ConvolutionMultiplyFusion, NearMissesStayUnfused) {
    // A scale that varies along a spatial axis, a conv output used twice, a non-constant scale.
    for (int variant = 0; variant < 3; ++variant) {
        TestGraph t;
        auto x = t.input(ElementType::f32, {1, 2, 2, 2}, "x");
        auto biased = conv_with_bias(t, x);
        OutPort scale = variant == 0   ? t.constant<float>({1, 2}, {1, 1, 1, 2}, "s")
                        : variant == 2 ? t.input(ElementType::f32, {1, 2, 1, 1}, "s")
                                       : t.constant<float>({1, 2}, {1, 2, 1, 1}, "s");
        t.output(t.op("Multiply", {biased, scale}, {}, "scale"), "out");
        if (variant == 1) t.output(biased, "second_use");
        std::map<std::string, Tensor> inputs{{"x", test::ramp({1, 2, 2, 2}, -1.f, 1.f)}};
        if (variant == 2) inputs["s"] = test::ramp({1, 2, 1, 1}, 1.f, 2.f);
        ConvolutionMultiplyFusion pass;
        auto r = test::run_fusion(pass, t, inputs);
        EXPECT_FALSE(r.changed) << "variant " << variant;
        EXPECT_EQ(r.types["Multiply"], 1) << "variant " << variant;
    }
}

TEST(ConvolutionMultiplyFusion, ConvolutionWithoutOutputChannelsStaysUnfused) {
    // W [0, 3, 1, 1]: a scalar scale has no channel to go to (and used to divide by zero).
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 3, 2, 2}, "x");
    auto conv = t.op("Convolution", {x, t.constant<float>({}, {0, 3, 1, 1}, "w")}, test::conv2d_attrs(), "conv");
    t.output(t.op("Multiply", {conv, t.constant<float>({2}, {}, "two")}, {}, "scale"), "out");
    test::infer(t.graph());
    const std::string before = test::dump(t.graph());
    ConvolutionMultiplyFusion pass;
    EXPECT_FALSE(test::run_pass(pass, t.graph()));
    EXPECT_EQ(test::dump(t.graph()), before);
}

TEST(ConstantChainMerge, AddsAndMultipliesMergeWithBroadcast) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2, 3}, "x");
    auto a1 = t.op("Add", {x, t.constant<float>({1, 2, 3}, {3}, "c1")}, {}, "a1");
    auto a2 = t.op("Add", {t.constant<float>({10, 20}, {2, 1}, "c2"), a1}, {}, "a2");
    auto m1 = t.op("Multiply", {a2, t.constant<float>({2}, {}, "c3")}, {}, "m1");
    auto m2 = t.op("Multiply", {m1, t.constant<float>({-1, 1, 0.5f}, {1, 3}, "c4")}, {}, "m2");
    m2.names().push_back("y");
    t.output(m2, "out");
    ConstantChainMerge pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({2, 3}, -1.f, 1.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);

    TestGraph e;
    auto ex = e.input(ElementType::f32, {2, 3}, "x");
    // c1 + c2 = [[11, 12, 13], [21, 22, 23]]; c3 * c4 = [[-2, 2, 1]].
    auto add = e.op("Add", {ex, e.constant<float>({11, 12, 13, 21, 22, 23}, {2, 3}, "a2/merged")}, {}, "a2");
    auto mul = e.op("Multiply", {add, e.constant<float>({-2, 2, 1}, {1, 3}, "m2/merged")}, {}, "m2");
    mul.names().push_back("y");
    e.output(mul, "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
}

TEST(ConstantChainMerge, MixedOrSharedChainsStayUnmerged) {
    // Add then Multiply is not one chain; an inner result used elsewhere must stay.
    TestGraph t;
    auto x = t.input(ElementType::f32, {3}, "x");
    auto a = t.op("Add", {x, t.constant<float>({1}, {}, "c1")}, {}, "a");
    t.output(t.op("Multiply", {a, t.constant<float>({2}, {}, "c2")}, {}, "m"), "out");
    auto b = t.op("Add", {x, t.constant<float>({3}, {}, "c3")}, {}, "b");
    t.output(t.op("Add", {b, t.constant<float>({4}, {}, "c4")}, {}, "bb"), "out2");
    t.output(b, "b_too");
    ConstantChainMerge pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({3}, -1.f, 1.f)}});
    EXPECT_FALSE(r.changed);
    EXPECT_EQ(r.types["Add"], 3);
}

TEST(ConstantChainMerge, MatchesASecondOutputOfItsInput) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {4}, "x");
    Node split = t->add_op("Split", "split", {x, t.constant<int64_t>({0}, {}, "axis")}, {{"num_splits", int64_t{2}}});
    split.set_output_count(2);
    auto a1 = t.op("Add", {split.out(1), t.constant<float>({1}, {}, "c1")}, {}, "a1");
    t.output(t.op("Add", {a1, t.constant<float>({2}, {}, "c2")}, {}, "a2"), "out");
    t.output(split.out(0), "first");
    ConstantChainMerge pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({4}, -1.f, 1.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_EQ(r.max_abs_diff, 0);
    EXPECT_EQ(t->find_by_name("a2").in(0).src(), split.out(1));
}

// Pad(x) -> consumer, with the pads ONNX exports of PyTorch's F.pad / TF's explicit padding use.
struct PadCase {
    std::string consumer;
    float value = 0;
    bool exclude_pad = false;
    std::vector<int64_t> begin{0, 0, 1, 2}, end{0, 0, 1, 0};
};

AttrMap pool_attrs(bool avg, bool exclude_pad) {
    std::vector<int64_t> k{3, 3}, ones{1, 1}, zeros{0, 0};
    AttrMap a{{"kernel", AttrValue(k)}, {"strides", AttrValue(ones)}, {"pads_begin", AttrValue(zeros)},
              {"pads_end", AttrValue(zeros)}};
    if (avg) a["exclude-pad"] = AttrValue(exclude_pad);
    return a;
}

test::FusionOutcome run_pad_case(TestGraph& t, const PadCase& c) {
    auto x = t.input(ElementType::f32, {1, 2, 4, 4}, "x");
    auto pad = t.op("Pad", {x, t.constant<int64_t>(c.begin, {4}, "pb"), t.constant<int64_t>(c.end, {4}, "pe"),
                            t.constant<float>({c.value}, {}, "pv")},
                    {}, "pad");
    OutPort out;
    if (c.consumer == "Convolution") {
        auto w = std::vector<float>(2 * 2 * 3 * 3);
        for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) - 2;
        out = t.op("Convolution", {pad, t.constant<float>(w, {2, 2, 3, 3}, "w")}, test::conv2d_attrs(), "consumer");
    } else {
        out = t.op(c.consumer, {pad}, pool_attrs(c.consumer == "AvgPool", c.exclude_pad), "consumer");
    }
    t.output(out, "out");
    PadFusion pass;
    return test::run_fusion(pass, t, {{"x", test::ramp({1, 2, 4, 4}, -3.f, 5.f)}});
}

TEST(PadFusion, ZeroPadIntoConvolutionAndAvgPool) {
    for (const char* consumer : {"Convolution", "AvgPool"}) {
        for (bool exclude_pad : {false, true}) {
            if (std::string(consumer) == "Convolution" && exclude_pad) continue;
            TestGraph t;
            auto r = run_pad_case(t, {consumer, 0.f, exclude_pad});
            EXPECT_TRUE(r.changed) << consumer;
            EXPECT_LE(r.max_abs_diff, 1e-5) << consumer;
            EXPECT_EQ(r.types.count("Pad"), 0u) << consumer;
            Node n = t->find_by_name("consumer");
            EXPECT_EQ(n.attr<std::vector<int64_t>>("pads_begin"), (std::vector<int64_t>{1, 2}));
            EXPECT_EQ(n.attr<std::vector<int64_t>>("pads_end"), (std::vector<int64_t>{1, 0}));
            if (n.is("AvgPool")) EXPECT_FALSE(n.attr<bool>("exclude-pad"));
        }
    }
}

TEST(PadFusion, MinusInfinityPadIntoMaxPool) {
    TestGraph t;
    auto r = run_pad_case(t, {"MaxPool", -std::numeric_limits<float>::infinity()});
    EXPECT_TRUE(r.changed);
    EXPECT_EQ(r.max_abs_diff, 0);
    EXPECT_EQ(r.types.count("Pad"), 0u);
}

TEST(PadFusion, NearMissesKeepThePad) {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<PadCase> misses{
        {"Convolution", 1.f},                                     // a non-zero fill
        {"MaxPool", 0.f},                                         // zeros can win a max
        {"AvgPool", 0.f, false, {0, 1, 1, 1}, {0, 0, 1, 1}},      // pads the channels
        {"Convolution", 0.f, false, {0, 0, -1, 0}, {0, 0, 0, 0}}, // a crop
        {"MaxPool", -inf, false, {0, 0, 3, 0}, {0, 0, 0, 0}},     // a window entirely in the padding
    };
    for (size_t i = 0; i < misses.size(); ++i) {
        TestGraph t;
        auto r = run_pad_case(t, misses[i]);
        EXPECT_FALSE(r.changed) << "case " << i;
        EXPECT_EQ(r.types["Pad"], 1) << "case " << i;
    }
}

TEST(PadFusion, AvgPoolExcludingItsOwnPadsKeepsThePad) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 1, 4, 4}, "x");
    auto pad = t.op("Pad", {x, t.constant<int64_t>({0, 0, 1, 1}, {4}, "pb"), t.constant<int64_t>({0, 0, 1, 1}, {4}, "pe")},
                    {}, "pad");
    AttrMap a = pool_attrs(true, true);
    a["pads_begin"] = AttrValue(std::vector<int64_t>{1, 1});
    a["pads_end"] = AttrValue(std::vector<int64_t>{1, 1});
    t.output(t.op("AvgPool", {pad}, a, "pool"), "out");
    PadFusion pass;
    auto r = test::run_fusion(pass, t, {{"x", test::ramp({1, 1, 4, 4}, 1.f, 2.f)}});
    EXPECT_FALSE(r.changed);
}

TEST(LinearFusions, BatchNormThenScaleEndsAsOneConvolutionAndAdd) {
    // Conv -> BatchNorm -> Multiply, as exported from a Keras Conv + BN + per-channel scale.
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 2, 2}, "x");
    auto conv = t.op("Convolution", {x, t.constant<float>({1, 2, -1, 3}, {2, 2, 1, 1}, "w")}, test::conv2d_attrs(), "conv");
    auto bn = t.op("BatchNormalization",
                   {conv, t.constant<float>({1, 2}, {2}, "g"), t.constant<float>({0, 1}, {2}, "be"),
                    t.constant<float>({0.5f, 0}, {2}, "m"), t.constant<float>({3, 0}, {2}, "v")},
                   {{"epsilon", AttrValue(1.0)}}, "bn");
    t.output(t.op("Multiply", {bn, t.constant<float>({3, 4}, {1, 2, 1, 1}, "s")}, {}, "scale"), "out");
    std::map<std::string, Tensor> inputs{{"x", test::ramp({1, 2, 2, 2}, -1.f, 1.f)}};
    test::infer(t.graph());
    auto before = test::evaluate(t.graph(), inputs);
    FuseBatchNormIntoConvolution bn_pass;
    ConvolutionMultiplyFusion mul_pass;
    EXPECT_TRUE(test::run_pass(bn_pass, t.graph()));
    EXPECT_TRUE(test::run_pass(mul_pass, t.graph()));
    t->remove_dead_nodes();
    std::map<std::string, int> types;
    for (const Node& n : t->nodes()) ++types[n.type()];
    EXPECT_EQ(types, (std::map<std::string, int>{{"Add", 1}, {"Constant", 2}, {"Convolution", 1}, {"Parameter", 1}, {"Result", 1}}));
    auto after = test::evaluate(t.graph(), inputs);
    auto a = before.at(0).to_f64(), b = after.at(0).to_f64();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5);
}

}  // namespace
}  // namespace mo
