// BatchNormInference-5 and MVN-6: shapes, and values against the spec formulas.
#include <gtest/gtest.h>

#include <cmath>

#include "core/graph.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
constexpr auto f32 = ElementType::f32;

using test::inferred;

std::vector<float> values(const Tensor& t) {
    const float* d = t.data<float>();
    return {d, d + t.size()};
}

TEST(NormalizationOps, BatchNormShapes) {
    GraphBuilder b;
    auto c = b.input(f32, {Dimension()});
    Node bn = b.node("BatchNormInference", {b.input(f32, PartialShape{Dimension(), Dimension(), 7, 7}), c, c, c,
                                            b.input(f32, {64})},
                     {{"epsilon", 1e-5}});
    EXPECT_EQ(inferred(bn).to_string(), "?,64,7,7");  // channels learnt from variance
    Node bad = b.node("BatchNormInference", {b.input(f32, {1, 32, 7, 7}), c, c, c, b.input(f32, {64})},
                      {{"epsilon", 1e-5}});
    EXPECT_THROW(inferred(bad), Error);
}

TEST(NormalizationOps, BatchNormMatchesFormula) {
    GraphBuilder b;
    auto p = b.input(f32, {2});
    Node bn = b.node("BatchNormInference", {b.input(f32, {1, 2, 1, 2}), p, p, p, p}, {{"epsilon", 0.0}});
    auto t = [](std::vector<float> v) { return Tensor::from_vector<float>(v, {static_cast<int64_t>(v.size())}); };
    Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}, {1, 2, 1, 2});
    // channel 0: 2 * (x - 1) / sqrt(4) + 0; channel 1: 1 * (x - 2) / sqrt(0.25) + 1
    auto out = bn.op().eval(bn, {x, t({2, 1}), t({0, 1}), t({1, 2}), t({4, 0.25f})})[0];
    EXPECT_EQ(values(out), (std::vector<float>{0, 1, 3, 5}));
    Node with_eps = b.node("BatchNormInference", {b.input(f32, {1, 2, 1, 2}), p, p, p, p}, {{"epsilon", 1.0}});
    auto out2 = values(with_eps.op().eval(with_eps, {x, t({1, 1}), t({0, 0}), t({0, 0}), t({3, 0})})[0]);
    EXPECT_FLOAT_EQ(out2[0], 0.5f);  // 1 / sqrt(3 + 1)
    EXPECT_FLOAT_EQ(out2[3], 4.0f);  // 4 / sqrt(0 + 1)
}

TEST(NormalizationOps, MvnKeepsShapeAndChecksAxes) {
    GraphBuilder b;
    AttrMap attrs{{"eps", 1e-9}, {"normalize_variance", true}, {"eps_mode", std::string("INSIDE_SQRT")}};
    auto x = b.input(f32, PartialShape{Dimension(), 197, 768});
    Node mvn = b.node("MVN", {x, b.constant<int64_t>({-1}, {1})}, attrs);
    EXPECT_EQ(inferred(mvn).to_string(), "?,197,768");
    Node bad = b.node("MVN", {x, b.constant<int64_t>({3}, {1})}, attrs);
    EXPECT_THROW(inferred(bad), Error);
    attrs["eps_mode"] = std::string("sideways");
    Node bad_mode = b.node("MVN", {x, b.constant<int64_t>({2}, {1})}, attrs);
    EXPECT_THROW(inferred(bad_mode), Error);
}

TEST(NormalizationOps, MvnInsideAndOutsideSqrt) {
    GraphBuilder b;
    Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 10, 10, 10, 10}, {2, 4});
    Tensor axes = Tensor::from_vector<int64_t>({1}, {1});
    auto run = [&](AttrMap attrs) {
        Node n = b.node("MVN", {b.input(f32, {2, 4}), b.input(ElementType::i64, {1})}, attrs);
        return values(n.op().eval(n, {x, axes})[0]);
    };
    // Row 0: mean 2.5, variance 1.25. Row 1 is constant: zero after centring.
    auto inside = run({{"eps", 0.75}, {"normalize_variance", true}, {"eps_mode", std::string("INSIDE_SQRT")}});
    auto outside = run({{"eps", 0.75}, {"normalize_variance", true}, {"eps_mode", std::string("OUTSIDE_SQRT")}});
    auto centred = run({{"eps", 0.75}, {"normalize_variance", false}, {"eps_mode", std::string("INSIDE_SQRT")}});
    EXPECT_FLOAT_EQ(inside[0], -1.5f / std::sqrt(2.0f));
    EXPECT_FLOAT_EQ(inside[3], 1.5f / std::sqrt(2.0f));
    EXPECT_FLOAT_EQ(outside[1], -0.5f / (std::sqrt(1.25f) + 0.75f));
    EXPECT_EQ(centred, (std::vector<float>{-1.5f, -0.5f, 0.5f, 1.5f, 0, 0, 0, 0}));
    EXPECT_EQ(inside[5], 0.0f);
}

TEST(NormalizationOps, MvnOverSeveralAxes) {
    GraphBuilder b;
    // [1, 2, 2]: normalise over axes 0 and 2 -> groups {1, 3} and {5, 7} per middle index.
    Tensor x = Tensor::from_vector<float>({1, 3, 5, 7}, {1, 2, 2});
    Node n = b.node("MVN", {b.input(f32, {1, 2, 2}), b.input(ElementType::i64, {2})},
                    {{"eps", 0.0}, {"normalize_variance", true}, {"eps_mode", std::string("OUTSIDE_SQRT")}});
    auto out = values(n.op().eval(n, {x, Tensor::from_vector<int64_t>({0, 2}, {2})})[0]);
    EXPECT_EQ(out, (std::vector<float>{-1, 1, -1, 1}));
}

}  // namespace
}  // namespace mo
