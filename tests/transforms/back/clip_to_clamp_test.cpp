#include "transforms/back/clip_to_clamp.hpp"

#include <gtest/gtest.h>

#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

TEST(ClipToClamp, ConstantBoundsBecomeClampAttributes) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {3}, "x");
    auto clip = t.op("Clip", {x, t.constant<float>({-1}, {}, "lo"), t.constant<float>({6}, {}, "hi")}, {}, "clip");
    clip.names().push_back("y");
    t.output(clip, "out");
    t.output(t.op("Clip", {x, t.constant<float>({0}, {}, "zero")}, {}, "relu_like"), "out2");
    test::infer(t.graph());
    ClipToClamp pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));
    t->remove_dead_nodes();

    TestGraph e;
    auto ex = e.input(ElementType::f32, {3}, "x");
    auto clamp = e.op("Clamp", {ex}, {{"min", AttrValue(-1.0)}, {"max", AttrValue(6.0)}}, "clip");
    clamp.names().push_back("y");
    e.output(clamp, "out");
    e.output(e.op("Clamp", {ex}, {{"min", AttrValue(0.0)}, {"max", AttrValue(3.4028234663852886e38)}}, "relu_like"), "out2");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));

    auto y = test::evaluate(t.graph(), {{"x", Tensor::from_vector<float>({-5, 2, 9}, {3})}});
    EXPECT_EQ(y.at(0).to_f64(), (std::vector<double>{-1, 2, 6}));
    EXPECT_EQ(y.at(1).to_f64(), (std::vector<double>{0, 2, 9}));
}

TEST(ClipToClamp, VariableBoundsBecomeMaximumMinimum) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {3}, "x");
    auto lo = t.input(ElementType::f32, {}, "lo");
    auto hi = t.input(ElementType::f32, {}, "hi");
    t.output(t.op("Clip", {x, lo, hi}, {}, "clip"), "out");
    test::infer(t.graph());
    ClipToClamp pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));

    TestGraph e;
    auto ex = e.input(ElementType::f32, {3}, "x");
    auto elo = e.input(ElementType::f32, {}, "lo");
    auto ehi = e.input(ElementType::f32, {}, "hi");
    auto mx = e.op("Maximum", {ex, elo}, {}, "clip/Maximum");
    e.output(e.op("Minimum", {mx, ehi}, {}, "clip"), "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
    auto y = test::evaluate(t.graph(), {{"x", Tensor::from_vector<float>({-5, 2, 9}, {3})},
                                        {"lo", Tensor::scalar<float>(0)}, {"hi", Tensor::scalar<float>(4)}});
    EXPECT_EQ(y.at(0).to_f64(), (std::vector<double>{0, 2, 4}));
}

}  // namespace
}  // namespace mo
