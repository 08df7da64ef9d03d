// GridSample-9 worked by hand from the OpenVINO spec. Data v(y, x) = 4y + x on a 3 x 4 map, so a
// bilinear sample whose taps are all inside is 4y + x at the denormalised point:
// align_corners: x = (gx + 1)(W - 1) / 2, otherwise x = ((gx + 1) W - 1) / 2 (same for y, H).
// Taps outside read 0 (zeros), the edge (border) or the mirrored pixel (reflection). Bicubic
// uses the A = -0.75 weights; at fraction 0.5 they are -0.09375, 0.59375, 0.59375, -0.09375.
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

// [1, 1, 3, 4] with v(y, x) = 4y + x.
Tensor ramp() { return Tensor::from_vector<float>(test::iota(12, 0), {1, 1, 3, 4}); }

// A [1, 1, P, 2] grid of (x, y) points.
Tensor points(Floats xy) {
    const int64_t p = static_cast<int64_t>(xy.size() / 2);
    return Tensor::from_vector<float>(xy, {1, 1, p, 2});
}

Floats sample(const Tensor& data, Floats xy, bool align_corners, const std::string& mode = "bilinear",
              const std::string& padding = "zeros") {
    auto out = test::run_op("GridSample", {data, points(std::move(xy))},
                            {{"align_corners", align_corners}, {"mode", mode}, {"padding_mode", padding}});
    return values<float>(out.at(0));
}

void expect_floats(const Floats& got, const Floats& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(GridSample, BilinearInside) {
    // align_corners: (-1, -1) -> (0, 0); (0, 0) -> (1.5, 1); (1, 1) -> (3, 2)
    expect_floats(sample(ramp(), {-1, -1, 0, 0, 1, 1}, true), {0, 5.5f, 11});
    // otherwise (0, 0) -> (1.5, 1); (-0.5, 0.5) -> (0.5, 1.75)
    expect_floats(sample(ramp(), {0, 0, -0.5f, 0.5f}, false), {5.5f, 7.5f});
}

// (-1, 0) without align_corners is x = -0.5, y = 1: taps x = -1 and 0 at weight 0.5 each.
// (1.5, 0) is x = 4.5: taps x = 4 and 5.
TEST(GridSample, PaddingModes) {
    expect_floats(sample(ramp(), {-1, 0, 1.5f, 0}, false, "bilinear", "zeros"), {2, 0});
    expect_floats(sample(ramp(), {-1, 0, 1.5f, 0}, false, "bilinear", "border"), {4, 7});
    // mirrored about -0.5 and 3.5: -1 -> 0, 4 -> 3, 5 -> 2
    expect_floats(sample(ramp(), {-1, 0, 1.5f, 0}, false, "bilinear", "reflection"), {4, 6.5f});
    // align_corners, mirrored about 0 and 3: x = 3.75, taps 3 (0.25) and 4 -> 2 (0.75)
    expect_floats(sample(ramp(), {1.5f, 0}, true, "bilinear", "reflection"), {6.25f});
}

// Nearest rounds half to even: x = 1.5 -> 2 and x = 2.5 -> 2.
TEST(GridSample, NearestRoundsHalfToEven) {
    expect_floats(sample(ramp(), {0, 0, 0.5f, 0}, false, "nearest"), {6, 6});
    // x = -0.5 rounds to -0 (inside); x = 4.5 rounds to 4: zeros 0, border 3
    expect_floats(sample(ramp(), {-1, 0, 1.5f, 0}, false, "nearest", "zeros"), {4, 0});
    expect_floats(sample(ramp(), {1.5f, 0}, false, "nearest", "border"), {7});
}

TEST(GridSample, Bicubic) {
    // A single 1 at (1, 1) of a 4 x 4 map; (0, 0) with align_corners is (1.5, 1.5), taps 0..3.
    Floats delta(16, 0.0f);
    delta[1 * 4 + 1] = 1;
    Tensor d = Tensor::from_vector<float>(delta, {1, 1, 4, 4});
    expect_floats(sample(d, {0, 0}, true, "bicubic"), {0.59375f * 0.59375f});
    // The 1 at (0, 0) is the corner tap.
    Floats corner(16, 0.0f);
    corner[0] = 1;
    expect_floats(sample(Tensor::from_vector<float>(corner, {1, 1, 4, 4}), {0, 0}, true, "bicubic"),
                  {0.09375f * 0.09375f});
    // On whole coordinates bicubic gives the pixel: (1, 1) -> (3, 2) of the ramp
    expect_floats(sample(ramp(), {1, 1}, true, "bicubic"), {11});
    // border: at x = 4.5 (y = 1) all four x taps read column 3
    expect_floats(sample(ramp(), {1.5f, 0}, false, "bicubic", "border"), {7});
}

// Two images, two channels, a [2, 1, 2, 2] grid: output [N, C, H_out, W_out].
TEST(GridSample, BatchAndChannels) {
    Floats v;
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 12; ++k) v.push_back(float(100 * i + k));  // (n, c) = i / 2, i % 2
    Tensor data = Tensor::from_vector<float>(v, {2, 2, 3, 4});
    Tensor grid = Tensor::from_vector<float>({-1, -1, 1, 1, -1, -1, 1, 1}, {2, 1, 2, 2});
    auto out = test::run_op("GridSample", {data, grid}, {{"align_corners", true}});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 2, 1, 2}));
    expect_floats(values<float>(out.at(0)), {0, 11, 100, 111, 200, 211, 300, 311});
}

TEST(GridSample, ShapeInferenceAndErrors) {
    test::GraphBuilder b;
    auto x = b.input(ET::f32, PartialShape{Dimension(), 3, 10, 10});
    auto grid = b.input(ET::f32, PartialShape{2, 5, Dimension(), 2});
    Node n = b.node("GridSample", {x, grid});
    test::infer(n);
    EXPECT_EQ(n.out(0).shape(), (PartialShape{2, 3, 5, Dimension()}));
    EXPECT_EQ(n.out(0).type(), ET::f32);

    auto bad_grid = b.input(ET::f32, PartialShape{2, 5, 5, 3});
    Node bad = b.node("GridSample", {x, bad_grid});
    expect_error([&] { test::infer(bad); }, "[N, H_out, W_out, 2]");
    Node bad_mode = b.node("GridSample", {x, grid}, {{"mode", std::string("linear")}});
    expect_error([&] { test::infer(bad_mode); }, "unknown mode 'linear'");
    Node bad_padding = b.node("GridSample", {x, grid}, {{"padding_mode", std::string("wrap")}});
    expect_error([&] { test::infer(bad_padding); }, "unknown padding_mode 'wrap'");
}

}  // namespace
}  // namespace mo
