#include "transforms/middle/fuse_batch_norm_into_convolution.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "transforms/middle/batch_norm_to_batch_norm_inference.hpp"
#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

// BN constants with k = scale / sqrt(var + 1) = [2, 3].
struct BnConstants {
    OutPort scale, beta, mean, var;
};
BnConstants bn_constants(TestGraph& t) {
    return {t.constant<float>({4, 3}, {2}, "scale"), t.constant<float>({0.5f, -1}, {2}, "beta"),
            t.constant<float>({1, 2}, {2}, "mean"), t.constant<float>({3, 0}, {2}, "var")};
}
OutPort batch_norm(TestGraph& t, OutPort x, const BnConstants& c) {
    return t.op("BatchNormalization", {x, c.scale, c.beta, c.mean, c.var}, {{"epsilon", AttrValue(1.0)}}, "bn");
}

TEST(FuseBatchNormIntoConvolution, ScalesWeightsAndAddsBias) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 1, 2, 2}, "x");
    auto conv = t.op("Convolution", {x, t.constant<float>({1, -1}, {2, 1, 1, 1}, "w")}, test::conv2d_attrs(), "conv");
    auto bn = batch_norm(t, conv, bn_constants(t));
    bn.names().push_back("bn_out");
    t.output(bn, "out");
    test::infer(t.graph());
    FuseBatchNormIntoConvolution pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));

    TestGraph e;
    auto ex = e.input(ElementType::f32, {1, 1, 2, 2}, "x");
    auto econv = e.op("Convolution", {ex, e.constant<float>({2, -3}, {2, 1, 1, 1}, "w/fused_bn")}, test::conv2d_attrs(), "conv");
    // bias = (0 - mean) * k + beta
    auto add = e.op("Add", {econv, e.constant<float>({-1.5f, -7}, {1, 2, 1, 1}, "bn/bias")}, {}, "bn");
    add.names().push_back("bn_out");
    e.output(add, "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
    EXPECT_EQ(t->find_by_name("bn").fused_names(), std::vector<std::string>{"bn"});
}

TEST(FuseBatchNormIntoConvolution, FoldsAnExistingBias) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 1, 2, 2}, "x");
    auto conv = t.op("Convolution", {x, t.constant<float>({1, -1}, {2, 1, 1, 1}, "w")}, test::conv2d_attrs(), "conv");
    auto biased = t.op("Add", {conv, t.constant<float>({1, 1}, {2, 1, 1}, "b")}, {}, "conv_bias");
    t.output(batch_norm(t, biased, bn_constants(t)), "out");
    test::infer(t.graph());
    FuseBatchNormIntoConvolution pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));

    TestGraph e;
    auto ex = e.input(ElementType::f32, {1, 1, 2, 2}, "x");
    auto econv = e.op("Convolution", {ex, e.constant<float>({2, -3}, {2, 1, 1, 1}, "w/fused_bn")}, test::conv2d_attrs(), "conv");
    // bias = (b - mean) * k + beta
    e.output(e.op("Add", {econv, e.constant<float>({0.5f, -4}, {1, 2, 1, 1}, "bn/bias")}, {}, "bn"), "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
    auto fused = t->find_by_name("bn").fused_names();
    EXPECT_NE(std::find(fused.begin(), fused.end(), "conv_bias"), fused.end());
}

// Numbers: conv + BN before and the fused conv after give the same outputs.
void expect_same_numbers(bool grouped) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 3, 3}, "x");
    std::vector<float> w(16);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(i) - 1.5f;
    Shape ws = grouped ? Shape{2, 1, 1, 2, 2} : Shape{2, 2, 2, 2};
    if (grouped) w.resize(8);
    auto conv = t.op(grouped ? "GroupConvolution" : "Convolution", {x, t.constant<float>(w, ws, "w")}, test::conv2d_attrs(), "conv");
    t.output(batch_norm(t, conv, bn_constants(t)), "out");
    test::infer(t.graph());
    std::vector<float> xv(18);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(static_cast<float>(i));
    std::map<std::string, Tensor> in{{"x", Tensor::from_vector<float>(xv, {1, 2, 3, 3})}};
    auto before = test::evaluate(t.graph(), in).at(0).to_f64();
    FuseBatchNormIntoConvolution pass;
    ASSERT_TRUE(test::run_pass(pass, t.graph()));
    EXPECT_FALSE(t->find_by_name("bn").is("BatchNormalization"));
    auto after = test::evaluate(t.graph(), in).at(0).to_f64();
    ASSERT_EQ(before.size(), 8u);
    ASSERT_EQ(after.size(), before.size());
    for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-5) << i;
}

TEST(FuseBatchNormIntoConvolution, SameNumbers) { expect_same_numbers(false); }
TEST(FuseBatchNormIntoConvolution, SameNumbersGrouped) { expect_same_numbers(true); }

TEST(FuseBatchNormIntoConvolution, NegativeCases) {
    auto unchanged = [](auto&& build) {
        TestGraph t;
        build(t);
        t->remove_dead_nodes();
        test::infer(t.graph());
        std::string before = test::dump(t.graph());
        FuseBatchNormIntoConvolution pass;
        EXPECT_FALSE(test::run_pass(pass, t.graph()));
        EXPECT_EQ(test::dump(t.graph()), before);
    };
    // weights are not constant
    unchanged([](TestGraph& t) {
        auto x = t.input(ElementType::f32, {1, 1, 2, 2}, "x");
        auto w = t.input(ElementType::f32, {2, 1, 1, 1}, "w");
        t.output(batch_norm(t, t.op("Convolution", {x, w}, test::conv2d_attrs(), "conv"), bn_constants(t)), "out");
    });
    // the conv output is used elsewhere too
    unchanged([](TestGraph& t) {
        auto x = t.input(ElementType::f32, {1, 1, 2, 2}, "x");
        auto conv = t.op("Convolution", {x, t.constant<float>({1, -1}, {2, 1, 1, 1}, "w")}, test::conv2d_attrs(), "conv");
        t.output(batch_norm(t, conv, bn_constants(t)), "out");
        t.output(conv, "out2");
    });
    // BN statistics are not constant
    unchanged([](TestGraph& t) {
        auto x = t.input(ElementType::f32, {1, 1, 2, 2}, "x");
        auto conv = t.op("Convolution", {x, t.constant<float>({1, -1}, {2, 1, 1, 1}, "w")}, test::conv2d_attrs(), "conv");
        auto c = bn_constants(t);
        c.mean = t.input(ElementType::f32, {2}, "mean_in");
        t.output(batch_norm(t, conv, c), "out");
    });
    // BN on a non-convolution
    unchanged([](TestGraph& t) {
        auto x = t.input(ElementType::f32, {1, 2, 2, 2}, "x");
        t.output(batch_norm(t, t.op("Relu", {x}, {}, "relu"), bn_constants(t)), "out");
    });
    // a conv without output channels (W [0, 3, 1, 1]) and a BN over those zero channels
    unchanged([](TestGraph& t) {
        auto x = t.input(ElementType::f32, {1, 3, 2, 2}, "x");
        auto conv = t.op("Convolution", {x, t.constant<float>({}, {0, 3, 1, 1}, "w")}, test::conv2d_attrs(), "conv");
        BnConstants c{t.constant<float>({}, {0}, "scale"), t.constant<float>({}, {0}, "beta"),
                      t.constant<float>({}, {0}, "mean"), t.constant<float>({}, {0}, "var")};
        t.output(batch_norm(t, conv, c), "out");
    });
}

TEST(BatchNormToBatchNormInference, ReplacesWithOpset5) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 2, 2}, "x");
    auto bn = batch_norm(t, t.op("Relu", {x}, {}, "relu"), bn_constants(t));
    bn.names().push_back("y");
    t.output(bn, "out");
    test::infer(t.graph());
    BatchNormToBatchNormInference pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));

    TestGraph e;
    auto ex = e.input(ElementType::f32, {1, 2, 2, 2}, "x");
    auto c = bn_constants(e);
    auto r = e.op("BatchNormInference", {e.op("Relu", {ex}, {}, "relu"), c.scale, c.beta, c.mean, c.var},
                  {{"epsilon", AttrValue(1.0)}}, "bn");
    r.names().push_back("y");
    e.output(r, "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
    EXPECT_EQ(t->find_by_name("bn").out(0).shape(), (PartialShape{1, 2, 2, 2}));
    EXPECT_EQ(pass.run_after(), std::vector<std::string>{"FuseBatchNormIntoConvolution"});
}

}  // namespace
}  // namespace mo
