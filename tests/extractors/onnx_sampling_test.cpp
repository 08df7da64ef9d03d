// ONNX RoiAlign and GridSample: the OpenVINO attributes each becomes, refused modes, and values
// worked by hand from the ONNX operator definitions on the map v(y, x) = 4y + x (where bilinear
// interpolation is exact): RoiAlign's output_half_pixel scales boxes as they are with a 1 x 1
// minimum, its half_pixel shifts them by -0.5 without one.
#include <gtest/gtest.h>

#include "extractors/onnx_test_support.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using namespace test;

std::unique_ptr<Graph> roi_align_model(int64_t opset, const std::vector<OnnxAttr>& attrs) {
    OnnxModelBuilder m(opset);
    m.input("x", {1, 1, 4, 4});
    m.input("rois", {"R", 4});
    m.input("batch", {"R"}, onnx::TensorProto::INT64);
    m.node("RoiAlign", {"x", "rois", "batch"}, {"y"}, attrs);
    m.output("y");
    return convert_onnx(m, "roi_align_" + std::to_string(opset) + ".onnx");
}

std::vector<double> run_roi_align(const Graph& g, std::vector<float> box) {
    auto out = evaluate(g, {{"x", Tensor::from_vector<float>(iota(16, 0), {1, 1, 4, 4})},
                            {"rois", Tensor::from_vector<float>(box, {1, 4})},
                            {"batch", Tensor::from_vector<int64_t>({0}, {1})}});
    return out.at(0).to_f64();
}

TEST(OnnxRoiAlign, Opset10IsOutputHalfPixel) {
    auto g = roi_align_model(10, {{"output_height", 2}, {"output_width", 3}, {"sampling_ratio", 2},
                                  {"spatial_scale", 0.25f}});
    Node n = output_node(*g);
    ASSERT_TRUE(n.is("ROIAlign")) << n.describe();
    EXPECT_EQ(n.attr<int64_t>("pooled_h"), 2);
    EXPECT_EQ(n.attr<int64_t>("pooled_w"), 3);
    EXPECT_EQ(n.attr<int64_t>("sampling_ratio"), 2);
    EXPECT_DOUBLE_EQ(n.attr<double>("spatial_scale"), 0.25);
    EXPECT_EQ(n.attr<std::string>("mode"), "avg");
    EXPECT_EQ(n.attr<std::string>("aligned_mode"), "asymmetric");
    EXPECT_EQ(n.out(0).shape(), (PartialShape{Dimension(), 1, 2, 3}));
}

TEST(OnnxRoiAlign, CoordinateTransformationModes) {
    auto half_pixel = roi_align_model(16, {{"output_height", 2}, {"output_width", 2}, {"sampling_ratio", 1}});
    EXPECT_EQ(output_node(*half_pixel).attr<std::string>("aligned_mode"), "half_pixel_for_nn");
    // [0, 2] -> [-0.5, 1.5]: bin centres 0 and 1 per axis
    expect_near(run_roi_align(*half_pixel, {0, 0, 2, 2}), {0, 1, 4, 5});

    auto output_half_pixel = roi_align_model(16, {{"sampling_ratio", 1},
                                                  {"coordinate_transformation_mode", "output_half_pixel"}});
    EXPECT_EQ(output_node(*output_half_pixel).attr<std::string>("aligned_mode"), "asymmetric");
    // a degenerate box is 1 x 1: one sample at (1.5, 1.5)
    expect_near(run_roi_align(*output_half_pixel, {1, 1, 1, 1}), {7.5});
    // defaults: 1 x 1 output, adaptive sampling (2 x 2 samples at 0.5, 1.5)
    auto defaults = roi_align_model(10, {});
    expect_near(run_roi_align(*defaults, {0, 0, 2, 2}), {5});
}

TEST(OnnxRoiAlign, RefusesWhatDiffers) {
    auto error = [](int64_t opset, const std::vector<OnnxAttr>& attrs) {
        OnnxModelBuilder m(opset);
        m.input("x", {1, 1, 4, 4});
        m.input("rois", {1, 4});
        m.input("batch", {1}, onnx::TensorProto::INT64);
        m.node("RoiAlign", {"x", "rois", "batch"}, {"y"}, attrs);
        m.output("y");
        return extract_error(m, "roi_align_error.onnx");
    };
    EXPECT_NE(error(16, {{"mode", "max"}}).find("RoiAlign mode 'max'"), std::string::npos);
    EXPECT_NE(error(10, {{"mode", "max"}}).find("RoiAlign mode 'max'"), std::string::npos);
    EXPECT_NE(error(16, {{"coordinate_transformation_mode", "align_corners"}}).find("coordinate_transformation_mode"),
              std::string::npos);
    EXPECT_NE(error(16, {{"sampling_ratio", -1}}).find("sampling_ratio must not be negative"), std::string::npos);
}

std::unique_ptr<Graph> grid_sample_model(const std::vector<OnnxAttr>& attrs) {
    OnnxModelBuilder m(16);
    m.input("x", {1, 1, 3, 4});
    m.input("grid", {1, 1, 2, 2});
    m.node("GridSample", {"x", "grid"}, {"y"}, attrs);
    m.output("y");
    return convert_onnx(m, "grid_sample.onnx");
}

TEST(OnnxGridSample, Attributes) {
    auto plain = grid_sample_model({});
    Node defaults = output_node(*plain);
    ASSERT_TRUE(defaults.is("GridSample")) << defaults.describe();
    EXPECT_FALSE(defaults.attr<bool>("align_corners"));
    EXPECT_EQ(defaults.attr<std::string>("mode"), "bilinear");
    EXPECT_EQ(defaults.attr<std::string>("padding_mode"), "zeros");
    EXPECT_EQ(defaults.out(0).shape(), (PartialShape{1, 1, 1, 2}));

    auto g = grid_sample_model({{"align_corners", 1}, {"mode", "nearest"}, {"padding_mode", "border"}});
    Node n = output_node(*g);
    EXPECT_TRUE(n.attr<bool>("align_corners"));
    EXPECT_EQ(n.attr<std::string>("mode"), "nearest");
    EXPECT_EQ(n.attr<std::string>("padding_mode"), "border");
    // align_corners: (0, 0) -> (1.5, 1) rounds to x = 2; (2, 0) -> x = 4.5 -> 4, border 3
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>(iota(12, 0), {1, 1, 3, 4})},
                             {"grid", Tensor::from_vector<float>({0, 0, 2, 0}, {1, 1, 2, 2})}});
    expect_near(out.at(0).to_f64(), {6, 7});
}

TEST(OnnxGridSample, RefusesUnknownModes) {
    auto error = [](const std::vector<OnnxAttr>& attrs) {
        OnnxModelBuilder m(16);
        m.input("x", {1, 1, 3, 4});
        m.input("grid", {1, 1, 2, 2});
        m.node("GridSample", {"x", "grid"}, {"y"}, attrs);
        m.output("y");
        return extract_error(m, "grid_sample_error.onnx");
    };
    EXPECT_NE(error({{"mode", "linear"}}).find("unknown GridSample mode 'linear'"), std::string::npos);
    EXPECT_NE(error({{"padding_mode", "wrap"}}).find("unknown GridSample padding_mode 'wrap'"), std::string::npos);
}

}  // namespace
}  // namespace mo
