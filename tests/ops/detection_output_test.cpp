// DetectionOutput-8 against values worked by hand from the spec (three priors, background 0).
#include <gtest/gtest.h>

#include <cmath>

#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::f32;

// Priors A [0, 0, .5, .5], B [.05, .05, .55, .55] (IoU with A = .2025 / .2975 = .68) and
// C [.5, .5, 1, 1], then the variances .1 .1 .2 .2.
Tensor priors() {
    std::vector<float> v{0, 0, .5f, .5f, .05f, .05f, .55f, .55f, .5f, .5f, 1, 1};
    for (int p = 0; p < 3; ++p) v.insert(v.end(), {.1f, .1f, .2f, .2f});
    return f32(v, {1, 2, 12});
}
// Scores per prior for classes 0, 1, 2.
Tensor scores() { return f32({.1f, .7f, .2f, .1f, .6f, .3f, .2f, .3f, .5f}, {1, 9}); }
// A and B decode to themselves; C moves right by .1 * 1 * .5 (-> [.55, .5, 1.05, 1], clipped to 1).
Tensor codes() { return f32({0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, {1, 12}); }

AttrMap attrs(std::vector<int64_t> keep_top_k) {
    return {{"keep_top_k", AttrValue(keep_top_k)},
            {"code_type", AttrValue(std::string("caffe.PriorBoxParameter.CENTER_SIZE"))},
            {"nms_threshold", AttrValue(.5)},
            {"confidence_threshold", AttrValue(.25)},
            {"clip_before_nms", AttrValue(true)},
            {"normalized", AttrValue(true)}};
}

void expect_rows(const Tensor& out, const std::vector<std::vector<float>>& rows) {
    auto v = test::values<float>(out);
    for (size_t r = 0; r < rows.size(); ++r)
        for (size_t k = 0; k < 7; ++k) EXPECT_NEAR(v[r * 7 + k], rows[r][k], 1e-6) << "row " << r << " column " << k;
}

TEST(DetectionOutput, PerClassThresholdAndNmsThenRowsByLabel) {
    auto out = test::run_op("DetectionOutput", {codes(), scores(), priors()}, attrs({10}));
    ASSERT_EQ(out[0].shape(), (Shape{1, 1, 10, 7}));
    // Class 1: A .7, B .6 suppressed by A, C .3 kept. Class 2: C .5, B .3 (touches C: IoU 0), A below .25.
    expect_rows(out[0], {{0, 1, .7f, 0, 0, .5f, .5f},
                         {0, 1, .3f, .55f, .5f, 1, 1},
                         {0, 2, .5f, .55f, .5f, 1, 1},
                         {0, 2, .3f, .05f, .05f, .55f, .55f},
                         {-1, 0, 0, 0, 0, 0, 0}});
}

TEST(DetectionOutput, KeepTopKAcrossClassesBreaksTiesByPrior) {
    auto out = test::run_op("DetectionOutput", {codes(), scores(), priors()}, attrs({3}));
    ASSERT_EQ(out[0].shape(), (Shape{1, 1, 3, 7}));
    // .7 (1, A), .5 (2, C), then the tie at .3: B (prior 1) before C (prior 2).
    expect_rows(out[0], {{0, 1, .7f, 0, 0, .5f, .5f}, {0, 2, .5f, .55f, .5f, 1, 1}, {0, 2, .3f, .05f, .05f, .55f, .55f}});
}

TEST(DetectionOutput, OutputRowsFollowKeepTopKThenTopK) {
    test::GraphBuilder b;
    auto param = [&](const char*, PartialShape s) { return b.input(ElementType::f32, std::move(s)); };
    AttrMap a = attrs({-1});
    a["top_k"] = AttrValue(int64_t{5});
    Node n = b.node("DetectionOutput", {param("b", {2, 40}), param("c", {2, 30}), param("p", {1, 2, 40})}, a);
    EXPECT_EQ(test::inferred(n), (PartialShape{1, 1, 2 * 5 * 3, 7}));  // N * top_k * classes
    Node bad = b.node("DetectionOutput", {param("b2", {2, 40}), param("c2", {2, 31}), param("p2", {1, 2, 40})}, a);
    EXPECT_THROW(test::infer(bad), Error);
}

// Found by an audit of mo-run: with shapes unknown at inference, evaluation divided by zero
// priors (SIGFPE) and read variances past a proposals tensor without its second row.
TEST(DetectionOutput, EvaluationChecksTheShapesInferenceCouldNot) {
    test::GraphBuilder b;
    auto any = [&] { return b.input(ElementType::f32, PartialShape::dynamic_rank()); };
    Node n = b.node("DetectionOutput", {any(), any(), any()}, attrs({10}));
    test::infer(n);
    auto eval = [&](std::vector<Tensor> in) { return n.op().eval(n, in); };
    EXPECT_NO_THROW(eval({codes(), scores(), priors()}));
    test::expect_error([&] { eval({f32({}, {1, 0}), f32({0, 0, 0}, {1, 3}), f32({}, {1, 2, 0})}); },
                       "at least one prior");
    std::vector<float> no_variances = test::values<float>(priors());
    no_variances.resize(12);
    test::expect_error([&] { eval({codes(), scores(), f32(no_variances, {1, 1, 12})}); }, "the proposals must be");
    test::expect_error([&] { eval({codes(), f32({.1f, .7f, .2f, .3f}, {1, 4}), priors()}); }, "one score per image, prior and class");
    test::expect_error([&] { eval({codes(), f32(std::vector<float>(18), {2, 9}), priors()}); }, "one score per image, prior and class");
    test::expect_error([&] { eval({codes(), scores(), f32(test::values<float>(priors()), {2, 12})}); }, "must be 2-D");
    // Inference refuses the same when the shapes are known.
    test::expect_error([&] { test::run_op("DetectionOutput", {codes(), scores(), f32(no_variances, {1, 1, 12})}, attrs({10})); },
                       "second dimension must be 2");
}

}  // namespace
}  // namespace mo
