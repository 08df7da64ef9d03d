// DFT-7, IDFT-7 and RDFT-9 against transforms worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "core/infer.hpp"
#include "support/graph_builder.hpp"

namespace mo {
namespace {

std::vector<double> run(const std::string& type, const Tensor& x, std::vector<int64_t> axes, std::vector<int64_t> sizes = {}) {
    test::GraphBuilder b;
    std::vector<OutPort> in{b.input(x.type(), PartialShape(x.shape())), b.constant<int64_t>(axes, {static_cast<int64_t>(axes.size())})};
    if (!sizes.empty()) in.push_back(b.constant<int64_t>(sizes, {static_cast<int64_t>(sizes.size())}));
    Node n = b.node(type, in);
    infer_node(n);
    std::vector<Tensor> args{x, Tensor::from_vector<int64_t>(axes, {static_cast<int64_t>(axes.size())})};
    if (!sizes.empty()) args.push_back(Tensor::from_vector<int64_t>(sizes, {static_cast<int64_t>(sizes.size())}));
    Tensor out = n.op().eval(n, args)[0];
    EXPECT_EQ(PartialShape(out.shape()), n.out(0).shape());
    return out.to_f64();
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "at " << i;
}

// DFT of [1, 2, 3, 4] is [10, -2 + 2i, -2, -2 - 2i].
TEST(DftOps, ForwardInverseAndOneSided) {
    const Tensor complex = Tensor::from_vector<float>({1, 0, 2, 0, 3, 0, 4, 0}, {4, 2});
    expect_near(run("DFT", complex, {0}), {10, 0, -2, 2, -2, 0, -2, -2});
    const Tensor spectrum = Tensor::from_vector<float>({10, 0, -2, 2, -2, 0, -2, -2}, {4, 2});
    expect_near(run("IDFT", spectrum, {0}), {1, 0, 2, 0, 3, 0, 4, 0});
    expect_near(run("RDFT", Tensor::from_vector<float>({1, 2, 3, 4}, {4}), {0}), {10, 0, -2, 2, -2, 0});
}

// signal_size 2 trims to [1, 2]: [3, -1]; 6 pads with zeros: bin 1 is sum x_j e^(-i pi j / 3).
TEST(DftOps, SignalSizeTrimsAndPads) {
    const Tensor complex = Tensor::from_vector<float>({1, 0, 2, 0, 3, 0, 4, 0}, {4, 2});
    expect_near(run("DFT", complex, {0}, {2}), {3, 0, -1, 0});
    const auto padded = run("DFT", complex, {0}, {6});
    ASSERT_EQ(padded.size(), 12u);
    const double pi = 3.14159265358979323846;
    double re = 0, im = 0;
    for (int j = 0; j < 4; ++j) re += (j + 1) * std::cos(-pi * j / 3), im += (j + 1) * std::sin(-pi * j / 3);
    EXPECT_NEAR(padded[2], re, 1e-5);
    EXPECT_NEAR(padded[3], im, 1e-5);
}

// Two axes of a 2x2 signal: the 2D transform of [[1, 2], [3, 4]] is [[10, -2], [-4, 0]].
TEST(DftOps, SeveralAxes) {
    const Tensor x = Tensor::from_vector<float>({1, 0, 2, 0, 3, 0, 4, 0}, {2, 2, 2});
    expect_near(run("DFT", x, {0, 1}), {10, 0, -2, 0, -4, 0, 0, 0});
    expect_near(run("DFT", x, {-2, -1}), {10, 0, -2, 0, -4, 0, 0, 0});
}

// Frames of 4 samples every 1 of [1, 2, 3, 4, 5] with the window [1, 1] centred (positions 1, 2):
// frame 0 sees 2, 3: bins 5, 2·(−i) + 3·(−1) = −3 − 2i, 2·(−1) + 3 = 1; frame 1 sees 3, 4: 7, −4 − 3i, 1.
TEST(DftOps, StftFramesWindowsAndTransposes) {
    for (bool transpose : {false, true}) {
        test::GraphBuilder b;
        Node n = b.node("STFT", {b.input(ElementType::f32, {5}), b.input(ElementType::f32, {2}), b.constant<int64_t>({4}, {}),
                                 b.constant<int64_t>({1}, {})},
                        {{"transpose_frames", transpose}});
        infer_node(n);
        Tensor out = n.op().eval(n, {Tensor::from_vector<float>({1, 2, 3, 4, 5}, {5}), Tensor::from_vector<float>({1, 1}, {2}),
                                     Tensor::scalar<int64_t>(4), Tensor::scalar<int64_t>(1)})[0];
        EXPECT_EQ(PartialShape(out.shape()), n.out(0).shape());
        if (!transpose) {
            EXPECT_EQ(out.shape(), (Shape{2, 3, 2}));
            expect_near(out.to_f64(), {5, 0, -3, -2, 1, 0, 7, 0, -4, -3, 1, 0});
        } else {
            EXPECT_EQ(out.shape(), (Shape{3, 2, 2}));
            expect_near(out.to_f64(), {5, 0, 7, 0, -3, -2, -4, -3, 1, 0, 1, 0});
        }
    }
}

}  // namespace
}  // namespace mo
