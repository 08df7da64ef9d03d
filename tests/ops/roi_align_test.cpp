// ROIAlign-9 worked by hand from the OpenVINO spec: on the map v(y, x) = 4y + x bilinear
// interpolation is exact, so every sample's value is 4y + x at its (clamped) coordinate. Covers
// the three aligned modes, adaptive and fixed sampling, the 1 x 1 minimum of asymmetric boxes,
// edge clamping, samples beyond the map (0), max pooling from 0, batch indices and inference.
#include <gtest/gtest.h>

#include "core/graph.hpp"
#include "ops/ops.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::expect_error;
using test::values;
using ET = ElementType;
using Floats = std::vector<float>;

// [1, 1, 4, 4] with v(y, x) = 4y + x.
Tensor ramp() { return Tensor::from_vector<float>(test::iota(16, 0), {1, 1, 4, 4}); }

Tensor boxes(Floats v) {
    const int64_t r = static_cast<int64_t>(v.size() / 4);
    return Tensor::from_vector<float>(v, {r, 4});
}

Tensor batch(std::vector<int64_t> v) {
    const int64_t r = static_cast<int64_t>(v.size());
    return Tensor::from_vector<int64_t>(v, {r});
}

AttrMap attrs(int64_t pooled, int64_t sampling_ratio, const std::string& aligned = "asymmetric",
              const std::string& mode = "avg", double scale = 1.0) {
    return {{"pooled_h", pooled},          {"pooled_w", pooled}, {"sampling_ratio", sampling_ratio},
            {"spatial_scale", scale},      {"mode", mode},       {"aligned_mode", aligned}};
}

Floats roi_align(const Tensor& data, Floats rois, const AttrMap& a, std::vector<int64_t> indices = {0}) {
    auto out = test::run_op("ROIAlign", {data, boxes(std::move(rois)), batch(std::move(indices))}, a);
    return values<float>(out.at(0));
}

// Box [0, 0, 2, 2], one bin, 2 x 2 samples at 0.5 and 1.5: 2.5, 3.5, 6.5, 7.5.
TEST(ROIAlign, AverageAndMaxOfFixedSamples) {
    EXPECT_EQ(roi_align(ramp(), {0, 0, 2, 2}, attrs(1, 2)), Floats{5.0f});
    EXPECT_EQ(roi_align(ramp(), {0, 0, 2, 2}, attrs(1, 2, "asymmetric", "max")), Floats{7.5f});
}

// sampling_ratio 0: ceil(bin size) = 1 sample per axis in each 1 x 1 bin, at its centre.
TEST(ROIAlign, AdaptiveSamplingRatio) {
    auto out = test::run_op("ROIAlign", {ramp(), boxes({0, 0, 2, 2}), batch({0})}, attrs(2, 0));
    EXPECT_EQ(out.at(0).shape(), (Shape{1, 1, 2, 2}));
    EXPECT_EQ(values<float>(out.at(0)), (Floats{2.5f, 3.5f, 6.5f, 7.5f}));
}

// half_pixel_for_nn: [0, 2] -> [-0.5, 1.5]; bin centres at 0 and 1.
// half_pixel with scale 0.5: [0, 4] -> [(0 + 0.5) * 0.5 - 0.5, 4.5 * 0.5 - 0.5] = [-0.25, 1.75].
TEST(ROIAlign, AlignedModes) {
    EXPECT_EQ(roi_align(ramp(), {0, 0, 2, 2}, attrs(2, 1, "half_pixel_for_nn")), (Floats{0, 1, 4, 5}));
    EXPECT_EQ(roi_align(ramp(), {0, 0, 4, 4}, attrs(2, 1, "half_pixel", "avg", 0.5)),
              (Floats{1.25f, 2.25f, 5.25f, 6.25f}));
    // asymmetric with scale 0.5: [0, 4] -> [0, 2]
    EXPECT_EQ(roi_align(ramp(), {0, 0, 4, 4}, attrs(2, 1, "asymmetric", "avg", 0.5)),
              (Floats{2.5f, 3.5f, 6.5f, 7.5f}));
}

// A degenerate box is 1 x 1 only in asymmetric mode.
TEST(ROIAlign, DegenerateBoxes) {
    EXPECT_EQ(roi_align(ramp(), {1, 1, 1, 1}, attrs(1, 1)), Floats{7.5f});  // sample at (1.5, 1.5)
    // half_pixel_for_nn: [0.5, 0.5], size 0; one sample at its start
    EXPECT_EQ(roi_align(ramp(), {1, 1, 1, 1}, attrs(1, 1, "half_pixel_for_nn")), Floats{2.5f});
    // adaptive: ceil(0) = 0 samples, nothing pooled
    EXPECT_EQ(roi_align(ramp(), {1, 1, 1, 1}, attrs(1, 0, "half_pixel_for_nn")), Floats{0.0f});
}

TEST(ROIAlign, ClampsAtTheEdges) {
    // samples 2.5 and 3.5 per axis; 3.5 is past the last row/column and reads it (3):
    // (12.5 + 13 + 14.5 + 15) / 4
    EXPECT_EQ(roi_align(ramp(), {2, 2, 4, 4}, attrs(1, 2)), Floats{13.75f});
    // samples -0.5 and 0.5 per axis; -0.5 in [-1, 0) reads 0: (0 + 0.5 + 2 + 2.5) / 4
    EXPECT_EQ(roi_align(ramp(), {-1, -1, 1, 1}, attrs(1, 2)), Floats{1.25f});
    // sample at (11, 11), beyond [-1, 4]: 0
    EXPECT_EQ(roi_align(ramp(), {10, 10, 12, 12}, attrs(1, 1)), Floats{0.0f});
}

// OpenVINO's max pooling starts from 0: an all-negative bin gives 0.
TEST(ROIAlign, MaxStartsFromZero) {
    Tensor negative = Tensor::from_vector<float>(test::iota(16, -20), {1, 1, 4, 4});  // 4y + x - 20
    EXPECT_EQ(roi_align(negative, {0, 0, 2, 2}, attrs(1, 2, "asymmetric", "max")), Floats{0.0f});
    EXPECT_EQ(roi_align(negative, {0, 0, 2, 2}, attrs(1, 2)), Floats{-15.0f});
}

// data[n, c] = 100n + 50c + 4y + x; box [0, 0, 2, 2] averages to base + 5.
TEST(ROIAlign, BatchIndicesPickTheImage) {
    Floats v;
    for (int n = 0; n < 2; ++n)
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < 16; ++i) v.push_back(float(100 * n + 50 * c + i));
    Tensor data = Tensor::from_vector<float>(v, {2, 2, 4, 4});
    auto out = test::run_op("ROIAlign", {data, boxes({0, 0, 2, 2, 0, 0, 2, 2}), batch({1, 0})}, attrs(1, 2));
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 2, 1, 1}));
    EXPECT_EQ(values<float>(out.at(0)), (Floats{105, 155, 5, 55}));
    // i32 batch indices work the same
    auto i32 = test::run_op("ROIAlign", {data, boxes({0, 0, 2, 2}), Tensor::from_vector<int32_t>({1}, {1})},
                            attrs(1, 2));
    EXPECT_EQ(values<float>(i32.at(0)), (Floats{105, 155}));
}

TEST(ROIAlign, F64) {
    Tensor data = Tensor::from_vector<double>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {1, 1, 4, 4});
    auto out = test::run_op("ROIAlign",
                            {data, Tensor::from_vector<double>({0, 0, 2, 2}, {1, 4}), batch({0})}, attrs(1, 2));
    EXPECT_EQ(values<double>(out.at(0)), std::vector<double>{5.0});
}

TEST(ROIAlign, Errors) {
    expect_error([] { roi_align(ramp(), {0, 0, 2, 2}, attrs(1, 2), {1}); }, "batch index 1 of ROI 0");
    expect_error([] { roi_align(ramp(), {0, 0, 2, 2}, attrs(1, 2, "asymmetric", "sum")); }, "unknown mode 'sum'");
    expect_error([] { roi_align(ramp(), {0, 0, 2, 2}, attrs(1, 2, "tf_half_pixel")); }, "unknown aligned_mode");
    expect_error([] { roi_align(ramp(), {0, 0, 2, 2}, attrs(0, 2)); }, "must be positive");
    expect_error([] { roi_align(ramp(), {0, 0, 2, 2}, attrs(1, -1)); }, "must not be negative");
}

TEST(ROIAlign, ShapeInference) {
    test::GraphBuilder b;
    auto x = b.input(ET::f32, PartialShape{2, 8, Dimension(), Dimension()});
    auto rois = b.input(ET::f32, PartialShape{Dimension(), 4});
    auto idx = b.input(ET::i64, PartialShape{Dimension(1, 10)});
    Node n = b.node("ROIAlign", {x, rois, idx}, attrs(3, 2));
    test::infer(n);
    EXPECT_EQ(n.out(0).shape(), (PartialShape{Dimension(1, 10), 8, 3, 3}));
    EXPECT_EQ(n.out(0).type(), ET::f32);

    auto bad_rois = b.input(ET::f32, PartialShape{5, 5});
    Node bad = b.node("ROIAlign", {x, bad_rois, idx}, attrs(3, 2));
    expect_error([&] { test::infer(bad); }, "rois must be [NUM_ROIS, 4]");
    auto f_idx = b.input(ET::f32, PartialShape{5});
    Node bad_type = b.node("ROIAlign", {x, rois, f_idx}, attrs(3, 2));
    expect_error([&] { test::infer(bad_type); }, "batch_indices must be integers");
}

}  // namespace
}  // namespace mo
