// NonMaxSuppression-9: selections worked by hand from the OpenVINO spec (IoU of [y1, x1, y2, x2]
// boxes, strict iou/score thresholds, equal scores taken in box order, soft-NMS decay
// exp(-0.5 * iou^2 / sigma)), and shape inference with the data-dependent interval bound.
#include <gtest/gtest.h>

#include <cmath>

#include "core/graph.hpp"
#include "ops/ops.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::f32;
using test::GraphBuilder;
using test::expect_error;
using test::values;
using ET = ElementType;
using I64s = std::vector<int64_t>;

Tensor f32(float v) { return Tensor::scalar<float>(v); }
Tensor i64(int64_t v) { return Tensor::from_vector<int64_t>({v}, {1}); }

std::vector<Tensor> nms(const std::vector<Tensor>& in, const AttrMap& attrs = {}) {
    return test::run_op("NonMaxSuppression", in, attrs);
}

// Expects the [k, 3] triplets, the scores column of selected_scores and valid_outputs == k.
void expect_selected(const std::vector<Tensor>& out, const I64s& triplets, const std::vector<float>& scores) {
    ASSERT_EQ(out.size(), 3u);
    const int64_t k = int64_t(scores.size());
    EXPECT_EQ(out[0].shape(), (Shape{k, 3}));
    EXPECT_EQ(out[0].to_i64(), triplets);
    ASSERT_EQ(out[1].shape(), (Shape{k, 3}));
    EXPECT_EQ(out[1].type(), ET::f32);
    const auto s = values<float>(out[1]);
    for (int64_t i = 0; i < k; ++i) {
        EXPECT_EQ(s[size_t(i * 3)], float(triplets[size_t(i * 3)])) << "batch of " << i;
        EXPECT_EQ(s[size_t(i * 3 + 1)], float(triplets[size_t(i * 3 + 1)])) << "class of " << i;
        EXPECT_NEAR(s[size_t(i * 3 + 2)], scores[size_t(i)], 1e-6) << "score of " << i;
    }
    EXPECT_EQ(out[2].shape(), (Shape{1}));
    EXPECT_EQ(out[2].to_i64(), (I64s{k}));
}

// One batch, one class. IoU with box 0: box 1 0.9/1.1 = 0.82, box 2 none, box 3 0.5/1.5 = 0.33;
// boxes 2 and 3 do not overlap.
const Tensor kBoxes = f32({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3, 0, 0.5f, 1, 1.5f}, {1, 4, 4});
const Tensor kScores = f32({0.9f, 0.85f, 0.75f, 0.8f}, {1, 1, 4});

TEST(NonMaxSuppression, HardSuppressionInScoreOrder) {
    expect_selected(nms({kBoxes, kScores, i64(10), f32(0.5f)}), {0, 0, 0, 0, 0, 3, 0, 0, 2}, {0.9f, 0.8f, 0.75f});
}

TEST(NonMaxSuppression, LimitsThePerClassCount) {
    expect_selected(nms({kBoxes, kScores, i64(2), f32(0.5f)}), {0, 0, 0, 0, 0, 3}, {0.9f, 0.8f});
    expect_selected(nms({kBoxes, kScores, i64(0), f32(0.5f)}), {}, {});
    expect_selected(nms({kBoxes, kScores, i64(-3), f32(0.5f)}), {}, {});
    // absent: no boxes
    expect_selected(nms({kBoxes, kScores}), {}, {});
}

// 0.33 > 0.3: box 3 goes too.
TEST(NonMaxSuppression, LowerIouThresholdSuppressesMore) {
    expect_selected(nms({kBoxes, kScores, i64(10), f32(0.3f)}), {0, 0, 0, 0, 0, 2}, {0.9f, 0.75f});
}

// Only scores strictly above the threshold are candidates: 0.8 is not, 0.85 is (then suppressed).
TEST(NonMaxSuppression, ScoreThresholdIsStrict) {
    expect_selected(nms({kBoxes, kScores, i64(10), f32(0.5f), f32(0.8f)}), {0, 0, 0}, {0.9f});
    // absent: threshold 0, so a zero or negative score is never selected
    Tensor scores = f32({0.9f, 0.0f, -0.5f, 0.1f}, {1, 1, 4});
    expect_selected(nms({kBoxes, scores, i64(10), f32(1.0f)}), {0, 0, 0, 0, 0, 3}, {0.9f, 0.1f});
}

// IoU exactly 0.5 ([0,0,1,2] vs [0,0,1,1]: 1 / 2) is kept at threshold 0.5; equal scores go in
// box order; corners may come in any diagonal order.
TEST(NonMaxSuppression, IouEqualToThresholdIsKeptAndTiesGoByIndex) {
    Tensor boxes = f32({1, 1, 0, 0, 0, 0, 1, 2}, {1, 2, 4});
    Tensor scores = f32({0.5f, 0.5f}, {1, 1, 2});
    expect_selected(nms({boxes, scores, i64(5), f32(0.5f)}), {0, 0, 0, 0, 0, 1}, {0.5f, 0.5f});
    expect_selected(nms({boxes, scores, i64(5), f32(0.49f)}), {0, 0, 0}, {0.5f});
}

// Center [0,0,2,2] and [1,1,2,2]: IoU 1/7 = 0.14. Read as corners they would be [0,0,2,2] and
// [1,1,2,2] with IoU 1/4, suppressed at 0.2.
TEST(NonMaxSuppression, CenterBoxEncoding) {
    Tensor boxes = f32({0, 0, 2, 2, 1, 1, 2, 2}, {1, 2, 4});
    Tensor scores = f32({0.9f, 0.8f}, {1, 1, 2});
    expect_selected(nms({boxes, scores, i64(5), f32(0.2f)}, {{"box_encoding", std::string("center")}}),
                    {0, 0, 0, 0, 0, 1}, {0.9f, 0.8f});
    expect_selected(nms({boxes, scores, i64(5), f32(0.2f)}), {0, 0, 0}, {0.9f});
}

// sigma 0.5: box 1 (IoU 0.5 with box 0) decays to 0.8 * exp(-0.25) and is re-queued behind box 2
// (no overlap, 0.7); the iou threshold 0 plays no part.
TEST(NonMaxSuppression, SoftNmsDecaysAndReorders) {
    Tensor boxes = f32({0, 0, 1, 1, 0, 0, 1, 2, 0, 3, 1, 4}, {1, 3, 4});
    Tensor scores = f32({0.9f, 0.8f, 0.7f}, {1, 1, 3});
    const float decayed = 0.8f * std::exp(-0.25f);
    expect_selected(nms({boxes, scores, i64(10), f32(0.0f), f32(0.0f), f32(0.5f)}), {0, 0, 0, 0, 0, 2, 0, 0, 1},
                    {0.9f, 0.7f, decayed});
    // A decayed score at or below the score threshold drops the box.
    expect_selected(nms({boxes, scores, i64(10), f32(0.0f), f32(0.65f), f32(0.5f)}), {0, 0, 0, 0, 0, 2},
                    {0.9f, 0.7f});
}

// Two batches, non-overlapping boxes: batch-major order, or by score with ties by batch.
TEST(NonMaxSuppression, SortResultDescendingSortsAcrossBatches) {
    Tensor boxes = f32({0, 0, 1, 1, 0, 2, 1, 3, 0, 0, 1, 1, 0, 2, 1, 3}, {2, 2, 4});
    Tensor scores = f32({0.6f, 0.3f, 0.7f, 0.6f}, {2, 1, 2});
    expect_selected(nms({boxes, scores, i64(5), f32(0.5f)}, {{"sort_result_descending", false}}),
                    {0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1}, {0.6f, 0.3f, 0.7f, 0.6f});
    expect_selected(nms({boxes, scores, i64(5), f32(0.5f)}), {1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1},
                    {0.7f, 0.6f, 0.6f, 0.3f});
}

// Classes share the boxes but are suppressed independently.
TEST(NonMaxSuppression, ClassesAreIndependent) {
    Tensor scores = f32({0.9f, 0.85f, 0.75f, 0.8f, 0.1f, 0.95f, 0.2f, 0.3f}, {1, 2, 4});
    // class 1: box 1 (0.95), box 3 (IoU 0.6/1.4 with box 1) kept, box 2, box 0 suppressed by box 1
    expect_selected(nms({kBoxes, scores, i64(10), f32(0.5f)}, {{"sort_result_descending", false}}),
                    {0, 0, 0, 0, 0, 3, 0, 0, 2, 0, 1, 1, 0, 1, 3, 0, 1, 2}, {0.9f, 0.8f, 0.75f, 0.95f, 0.3f, 0.2f});
}

TEST(NonMaxSuppression, OutputTypeAndHalfInputs) {
    auto out = nms({kBoxes.convert(ET::f16), kScores.convert(ET::f16), Tensor::scalar<int32_t>(1), f32(0.5f)},
                   {{"output_type", ET::i32}});
    EXPECT_EQ(out[0].type(), ET::i32);
    EXPECT_EQ(out[2].type(), ET::i32);
    EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{0, 0, 0}));
    EXPECT_EQ(values<int32_t>(out[2]), (std::vector<int32_t>{1}));
    EXPECT_EQ(out[1].type(), ET::f32);
}

// ---- Shape inference ---------------------------------------------------------------------------

std::vector<PartialShape> infer_over(PartialShape boxes, PartialShape scores, std::optional<int64_t> max_boxes,
                                     const AttrMap& attrs = {}, bool max_is_parameter = false) {
    GraphBuilder b;
    std::vector<OutPort> in{b.input(ET::f32, std::move(boxes)), b.input(ET::f32, std::move(scores))};
    if (max_is_parameter) in.push_back(b.input(ET::i64, PartialShape{}));
    else if (max_boxes) in.push_back(b.constant<int64_t>({*max_boxes}, {}));
    Node n = b.node("NonMaxSuppression", in, attrs);
    test::infer(n);
    EXPECT_EQ(n.out(1).type(), ET::f32);
    return {n.out(0).shape(), n.out(1).shape(), n.out(2).shape()};
}

// The spec's example: min(100, 10) * 3 * 5 = 150 at most.
TEST(NonMaxSuppression, InfersAnIntervalUpToTheBound) {
    const PartialShape upto150{Dimension(0, 150), 3};
    EXPECT_EQ(infer_over({3, 100, 4}, {3, 5, 100}, 10), (std::vector<PartialShape>{upto150, upto150, {1}}));
    // a count above the number of boxes: the boxes bound it
    EXPECT_EQ(infer_over({3, 4, 4}, {3, 5, 4}, 10)[0], (PartialShape{Dimension(0, 60), 3}));
    // count unknown: every box of every class
    EXPECT_EQ(infer_over({3, 100, 4}, {3, 5, 100}, std::nullopt, {}, true)[0], (PartialShape{Dimension(0, 1500), 3}));
    // a huge count over unknown batches and boxes: no bound, not an overflow
    EXPECT_EQ(infer_over({Dimension(), Dimension(), 4}, {Dimension(), 3, Dimension()}, INT64_MAX)[0],
              (PartialShape{Dimension(), 3}));
    EXPECT_EQ(infer_over({2, Dimension(), 4}, {2, 3, Dimension()}, INT64_MAX / 2)[0], (PartialShape{Dimension(), 3}));
    // count absent: nothing
    EXPECT_EQ(infer_over({3, 100, 4}, {3, 5, 100}, std::nullopt)[0], (PartialShape{0, 3}));
}

TEST(NonMaxSuppression, InfersDynamicDims) {
    // unknown number of boxes, known count: the count bounds it
    EXPECT_EQ(infer_over({1, Dimension(), 4}, {1, 2, Dimension()}, 5)[0], (PartialShape{Dimension(0, 10), 3}));
    // the tighter of boxes and scores: N <= 3
    EXPECT_EQ(infer_over({Dimension(1, 2), Dimension(0, 3), 4}, {2, 2, Dimension()}, 7)[0],
              (PartialShape{Dimension(0, 12), 3}));
    EXPECT_EQ(infer_over({Dimension(), 10, 4}, {Dimension(), 2, 10}, 5)[0], (PartialShape{Dimension(), 3}));
    EXPECT_EQ(infer_over(PartialShape::dynamic_rank(), PartialShape::dynamic_rank(), 5)[0], (PartialShape{Dimension(), 3}));
    auto i32 = [] {
        GraphBuilder b;
        Node n = b.node("NonMaxSuppression", {b.input(ET::f32, {1, 2, 4}), b.input(ET::f32, {1, 1, 2})},
                        {{"output_type", ET::i32}});
        test::infer(n);
        return std::vector<ET>{n.out(0).type(), n.out(1).type(), n.out(2).type()};
    };
    EXPECT_EQ(i32(), (std::vector<ET>{ET::i32, ET::f32, ET::i32}));
}

TEST(NonMaxSuppression, RefusesBadShapesTypesAndAttributes) {
    expect_error([] { infer_over({1, 10, 5}, {1, 2, 10}, 5); }, "last dimension of boxes must be 4");
    expect_error([] { infer_over({1, 10, 4}, {1, 2, 9}, 5); }, "disagree");
    expect_error([] { infer_over({2, 10, 4}, {1, 2, 10}, 5); }, "disagree");
    expect_error([] { infer_over({10, 4}, {1, 2, 10}, 5); }, "boxes must be 3D");
    expect_error([] { infer_over({1, 10, 4}, {1, 2, 10}, 5, {{"output_type", ET::f32}}); }, "output_type");
    expect_error([] { infer_over({1, 10, 4}, {1, 2, 10}, 5, {{"box_encoding", std::string("xywh")}}); },
                 "box_encoding");
    GraphBuilder b;
    Node n = b.node("NonMaxSuppression", {b.input(ET::f32, {1, 2, 4}), b.input(ET::f32, {1, 1, 2}),
                                          b.constant<int64_t>({1}, {}), b.constant<float>({0.5f, 0.5f}, {2})});
    expect_error([&] { test::infer(n); }, "scalar or a 1D tensor of one element");
    Node m = b.node("NonMaxSuppression", {b.input(ET::f32, {1, 2, 4}), b.input(ET::f32, {1, 1, 2}),
                                          b.constant<float>({1}, {})});
    expect_error([&] { test::infer(m); }, "max_output_boxes_per_class input must be an integer");
}

}  // namespace
}  // namespace mo
