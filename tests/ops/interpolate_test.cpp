// Interpolate-11: output shapes and values against the ONNX Resize / OpenVINO spec examples.
#include <gtest/gtest.h>

#include "core/graph.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
using Ints = std::vector<int64_t>;
constexpr auto f32 = ElementType::f32;

AttrMap attrs(std::string mode, std::string calc, std::string transform = "half_pixel",
              std::string nearest = "round_prefer_floor") {
    return {{"mode", mode}, {"shape_calculation_mode", calc}, {"coordinate_transformation_mode", transform},
            {"nearest_mode", nearest}};
}

using test::inferred;

// Resizes the 2x2 image [[1, 2], [3, 4]] by 2 on both spatial axes.
std::vector<float> resize_2x2(AttrMap a, bool sizes = false) {
    GraphBuilder b;
    Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}, {1, 1, 2, 2});
    Tensor target = sizes ? Tensor::from_vector<int64_t>({4, 4}, {2}) : Tensor::from_vector<float>({2, 2}, {2});
    Tensor axes = Tensor::from_vector<int64_t>({2, 3}, {2});
    Node n = b.node("Interpolate", {b.input(f32, {1, 1, 2, 2}), b.input(target.type(), {2}), b.input(ElementType::i64, {2})}, a);
    Tensor out = n.op().eval(n, {x, target, axes})[0];
    EXPECT_EQ(out.shape(), (Shape{1, 1, 4, 4}));
    return {out.data<float>(), out.data<float>() + out.size()};
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(InterpolateOps, ShapesFromScalesSizesAndPads) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 3, 224, 224});
    auto axes = b.constant<int64_t>({2, 3}, {2});
    Node up = b.node("Interpolate", {x, b.constant<float>({2, 2}, {2}), axes}, attrs("nearest", "scales"));
    EXPECT_EQ(inferred(up).to_string(), "1,3,448,448");
    Node third = b.node("Interpolate", {x, b.constant<float>({1.f / 3, 0.5f}, {2}), axes}, attrs("linear", "scales"));
    EXPECT_EQ(inferred(third).to_string(), "1,3,74,112");
    auto dyn = b.input(f32, PartialShape{1, 3, Dimension(), Dimension(10, 20)});
    Node sized = b.node("Interpolate", {dyn, b.constant<int64_t>({64, 32}, {2}), axes}, attrs("linear_onnx", "sizes"));
    EXPECT_EQ(inferred(sized).to_string(), "1,3,64,32");
    Node interval = b.node("Interpolate", {dyn, b.constant<float>({1, 1, 1, 2}, {4})}, attrs("cubic", "scales"));
    EXPECT_EQ(inferred(interval).to_string(), "1,3,?,20..40");  // no axes input: all axes
    AttrMap padded = attrs("nearest", "scales");
    padded["pads_begin"] = Ints{0, 0, 1, 1};
    padded["pads_end"] = Ints{0, 1, 1, 1};
    Node pads = b.node("Interpolate", {b.input(f32, {1, 3, 10, 10}), b.constant<float>({0.5f, 0.5f}, {2}), axes}, padded);
    EXPECT_EQ(inferred(pads).to_string(), "1,4,6,6");
    Node unknown = b.node("Interpolate", {x, b.input(ElementType::i64, {2}), axes}, attrs("nearest", "sizes"));
    EXPECT_EQ(inferred(unknown).to_string(), "1,3,?,?");
    Node wrong_count = b.node("Interpolate", {x, b.constant<float>({2, 2, 2}, {3}), axes}, attrs("nearest", "scales"));
    EXPECT_THROW(inferred(wrong_count), Error);
}

TEST(InterpolateOps, NearestModes) {
    auto a = attrs("nearest", "scales", "asymmetric", "floor");
    expect_near(resize_2x2(a), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
    // half_pixel: sources -0.25, 0.25, 0.75, 1.25 round to 0, 0, 1, 1
    expect_near(resize_2x2(attrs("nearest", "sizes"), true), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
    // asymmetric + round_prefer_ceil: sources 0, 0.5, 1, 1.5 -> 0, 1, 1, 2 (clamped to 1)
    expect_near(resize_2x2(attrs("nearest", "scales", "asymmetric", "round_prefer_ceil")),
                {1, 2, 2, 2, 3, 4, 4, 4, 3, 4, 4, 4, 3, 4, 4, 4});
}

TEST(InterpolateOps, LinearOnnxHalfPixelAsymmetricAlignCorners) {
    // ONNX Resize test "resize_upsample_scales_linear".
    expect_near(resize_2x2(attrs("linear_onnx", "scales")),
                {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
    expect_near(resize_2x2(attrs("linear_onnx", "sizes", "asymmetric"), true),
                {1, 1.5, 2, 2, 2, 2.5, 3, 3, 3, 3.5, 4, 4, 3, 3.5, 4, 4});
    const float t = 1.f / 3;
    expect_near(resize_2x2(attrs("linear_onnx", "scales", "align_corners")),
                {1, 1 + t, 2 - t, 2, 1 + 2 * t, 2, 2 + t, 3 - t, 3 - 2 * t, 3 - t, 3, 3 + t, 3, 3 + t, 4 - t, 4});
    // OpenVINO's own linear mode agrees when upsampling.
    expect_near(resize_2x2(attrs("linear", "scales")),
                {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
}

TEST(InterpolateOps, CubicMatchesOnnxExample) {
    // ONNX Resize test "resize_upsample_scales_cubic": 4x4 (1..16) to 8x8, a = -0.75, first row.
    std::vector<float> x(16);
    for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i + 1);
    GraphBuilder b;
    Node n = b.node("Interpolate", {b.input(f32, {1, 1, 4, 4}), b.input(f32, {4})}, attrs("cubic", "scales"));
    Tensor out = n.op().eval(n, {Tensor::from_vector<float>(x, {1, 1, 4, 4}), Tensor::from_vector<float>({1, 1, 2, 2}, {4})})[0];
    ASSERT_EQ(out.shape(), (Shape{1, 1, 8, 8}));
    std::vector<float> row(out.data<float>(), out.data<float>() + 8);
    expect_near(row, {0.47265625f, 0.76953125f, 1.24609375f, 1.875f, 2.28125f, 2.91015625f, 3.38671875f, 3.68359375f});
}

TEST(InterpolateOps, DownscaleWithPadsAndNearest) {
    // Pad [1, 2, 3] to [0, 1, 2, 3, 0] then take every other element from 0 (asymmetric floor).
    GraphBuilder b;
    AttrMap a = attrs("nearest", "scales", "asymmetric", "floor");
    a["pads_begin"] = Ints{0, 0, 1};
    a["pads_end"] = Ints{0, 0, 1};
    Node n = b.node("Interpolate", {b.input(f32, {1, 1, 3}), b.input(f32, {1}), b.input(ElementType::i64, {1})}, a);
    Tensor out = n.op().eval(n, {Tensor::from_vector<float>({1, 2, 3}, {1, 1, 3}), Tensor::from_vector<float>({0.5f}, {1}),
                                 Tensor::from_vector<int64_t>({2}, {1})})[0];
    ASSERT_EQ(out.shape(), (Shape{1, 1, 2}));
    expect_near({out.data<float>(), out.data<float>() + 2}, {0, 2});
}

TEST(InterpolateOps, EmptyTensorsResizeToEmptyTensors) {
    // The masks of zero detections: [0, 1, 2, 2] scaled by 2 on H and W is [0, 1, 4, 4].
    GraphBuilder b;
    Node n = b.node("Interpolate", {b.input(f32, {0, 1, 2, 2}), b.input(f32, {2}), b.input(ElementType::i64, {2})},
                    attrs("linear", "scales"));
    Tensor out = n.op().eval(n, {Tensor::allocate(f32, {0, 1, 2, 2}), Tensor::from_vector<float>({2, 2}, {2}),
                                 Tensor::from_vector<int64_t>({2, 3}, {2})})[0];
    EXPECT_EQ(out.shape(), (Shape{0, 1, 4, 4}));
    // Growing a resized axis from nothing to 3 has no values to interpolate.
    Node sized = b.node("Interpolate", {b.input(f32, {1, 1, 0, 2}), b.input(ElementType::i64, {2}), b.input(ElementType::i64, {2})},
                        attrs("linear", "sizes"));
    EXPECT_THROW(sized.op().eval(sized, {Tensor::allocate(f32, {1, 1, 0, 2}), Tensor::from_vector<int64_t>({3, 3}, {2}),
                                         Tensor::from_vector<int64_t>({2, 3}, {2})}),
                 Error);
}

TEST(InterpolateOps, AntialiasedLinearDownscale) {
    // [1, 2, 3, 4] halved with half_pixel: sources 0.5 and 2.5; the triangle is widened to
    // max(0, 1 - |0.5 * d|), taps outside the input dropped, weights renormalised.
    GraphBuilder b;
    AttrMap a = attrs("linear", "scales");
    a["antialias"] = true;
    Node n = b.node("Interpolate", {b.input(f32, {1, 4}), b.input(f32, {1}), b.input(ElementType::i64, {1})}, a);
    Tensor out = n.op().eval(n, {Tensor::from_vector<float>({1, 2, 3, 4}, {1, 4}), Tensor::from_vector<float>({0.5f}, {1}),
                                 Tensor::from_vector<int64_t>({1}, {1})})[0];
    ASSERT_EQ(out.shape(), (Shape{1, 2}));
    expect_near({out.data<float>(), out.data<float>() + 2},
                {(0.75f * 1 + 0.75f * 2 + 0.25f * 3) / 1.75f, (0.25f * 2 + 0.75f * 3 + 0.75f * 4) / 1.75f});
}

TEST(InterpolateOps, ScalesInputIsPrecisionSensitive) {
    const OpSchema& s = test::builtin_ops().get("Interpolate");
    EXPECT_EQ(s.precision_sensitive_inputs, std::vector<size_t>{1});
    EXPECT_EQ(s.ir_version, "opset11");
}

}  // namespace
}  // namespace mo
