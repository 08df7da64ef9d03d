// Shape inference and evaluation of the convolution family against hand-computed results.
#include <gtest/gtest.h>

#include <random>

#include "core/graph.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
using Ints = std::vector<int64_t>;
constexpr auto f32 = ElementType::f32;

using test::inferred;

AttrMap conv_attrs(Ints strides, Ints pads_begin, Ints pads_end, Ints dilations, std::string auto_pad = "explicit") {
    return {{"strides", strides}, {"pads_begin", pads_begin}, {"pads_end", pads_end},
            {"dilations", dilations}, {"auto_pad", auto_pad}};
}

std::vector<float> values(const Tensor& t) { return test::values<float>(t); }
using test::iota;

TEST(ConvolutionOps, ResNetStemShape) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 3, 224, 224});
    auto w = b.input(f32, {64, 3, 7, 7});
    Node conv = b.node("Convolution", {x, w}, conv_attrs({2, 2}, {3, 3}, {3, 3}, {1, 1}));
    EXPECT_EQ(inferred(conv).to_string(), "1,64,112,112");
    EXPECT_EQ(conv.out(0).type(), f32);
}

TEST(ConvolutionOps, AutoPadSameUpperAndLowerWithOddPadding) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 1, 5, 5});
    auto w = b.input(f32, {1, 1, 2, 2});
    // A 2x2 kernel needs 1 pad per axis: same_upper puts it at the end, same_lower at the start.
    Node upper = b.node("Convolution", {x, w}, conv_attrs({1, 1}, {}, {}, {1, 1}, "same_upper"));
    Node lower = b.node("Convolution", {x, w}, conv_attrs({1, 1}, {}, {}, {1, 1}, "same_lower"));
    Node strided = b.node("Convolution", {x, w}, conv_attrs({2, 2}, {}, {}, {1, 1}, "same_upper"));
    Node valid = b.node("Convolution", {x, w}, conv_attrs({1, 1}, {7, 7}, {7, 7}, {1, 1}, "valid"));
    EXPECT_EQ(inferred(upper).to_string(), "1,1,5,5");
    EXPECT_EQ(inferred(lower).to_string(), "1,1,5,5");
    EXPECT_EQ(inferred(strided).to_string(), "1,1,3,3");  // ceil(5 / 2)
    EXPECT_EQ(inferred(valid).to_string(), "1,1,4,4");    // pads ignored

    Tensor xv = Tensor::from_vector<float>(iota(25), {1, 1, 5, 5});
    Tensor wv = Tensor::from_vector<float>({1, 1, 1, 1}, {1, 1, 2, 2});
    auto up = values(upper.op().eval(upper, {xv, wv})[0]);
    auto low = values(lower.op().eval(lower, {xv, wv})[0]);
    ASSERT_EQ(up.size(), 25u);
    EXPECT_EQ(up[0], 1 + 2 + 6 + 7);     // top-left window fully inside
    EXPECT_EQ(up[24], 25);               // bottom-right window overhangs the end pad
    EXPECT_EQ(low[0], 1);                // top-left window overhangs the begin pad
    EXPECT_EQ(low[24], 19 + 20 + 24 + 25);
}

TEST(ConvolutionOps, DynamicBatchIntervalsAndDynamicRank) {
    GraphBuilder b;
    auto x = b.input(f32, PartialShape{Dimension(), 3, Dimension(32, 64), 32});
    auto w = b.input(f32, {16, 3, 3, 3});
    Node conv = b.node("Convolution", {x, w}, conv_attrs({2, 1}, {1, 1}, {1, 1}, {1, 1}));
    EXPECT_EQ(inferred(conv).to_string(), "?,16,16..32,32");

    auto any = b.input(f32, PartialShape::dynamic_rank());
    Node dyn = b.node("Convolution", {any, w}, conv_attrs({1, 1}, {0, 0}, {0, 0}, {1, 1}));
    EXPECT_EQ(inferred(dyn).to_string(), "?,16,?,?");
}

TEST(ConvolutionOps, DilationsWidenTheKernel) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 1, 7, 9});
    auto w = b.input(f32, {2, 1, 3, 3});
    Node conv = b.node("Convolution", {x, w}, conv_attrs({1, 1}, {0, 0}, {0, 0}, {2, 3}));
    // effective kernel 5 x 7
    EXPECT_EQ(inferred(conv).to_string(), "1,2,3,3");
}

TEST(ConvolutionOps, BadChannelsAndRanksAreErrors) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 4, 8, 8});
    Node wrong_c = b.node("Convolution", {x, b.input(f32, {8, 3, 3, 3})}, conv_attrs({1, 1}, {0, 0}, {0, 0}, {1, 1}));
    EXPECT_THROW(inferred(wrong_c), Error);
    Node wrong_rank = b.node("Convolution", {x, b.input(f32, {8, 4, 3})}, conv_attrs({1, 1}, {0, 0}, {0, 0}, {1, 1}));
    EXPECT_THROW(inferred(wrong_rank), Error);
    Node zero_stride = b.node("Convolution", {x, b.input(f32, {8, 4, 3, 3})}, conv_attrs({0, 1}, {0, 0}, {0, 0}, {1, 1}));
    EXPECT_THROW(inferred(zero_stride), Error);
    Node too_big = b.node("Convolution", {x, b.input(f32, {8, 4, 9, 9})}, conv_attrs({1, 1}, {0, 0}, {0, 0}, {1, 1}));
    EXPECT_THROW(inferred(too_big), Error);
}

TEST(ConvolutionOps, GroupConvolutionShapes) {
    GraphBuilder b;
    auto x = b.input(f32, {Dimension(), 32, 16, 16});
    Node depthwise = b.node("GroupConvolution", {x, b.input(f32, {32, 1, 1, 3, 3})},
                            conv_attrs({1, 1}, {1, 1}, {1, 1}, {1, 1}));
    EXPECT_EQ(inferred(depthwise).to_string(), "?,32,16,16");
    Node grouped = b.node("GroupConvolution", {x, b.input(f32, {4, 16, 8, 1, 1})},
                          conv_attrs({2, 2}, {0, 0}, {0, 0}, {1, 1}));
    EXPECT_EQ(inferred(grouped).to_string(), "?,64,8,8");
    Node mismatch = b.node("GroupConvolution", {x, b.input(f32, {4, 16, 4, 1, 1})},
                           conv_attrs({1, 1}, {0, 0}, {0, 0}, {1, 1}));
    EXPECT_THROW(inferred(mismatch), Error);
}

TEST(ConvolutionOps, BackpropDataShapes) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 16, 8, 8});
    auto w = b.input(f32, {16, 8, 3, 3});
    AttrMap attrs = conv_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1});
    attrs["output_padding"] = Ints{1, 1};
    Node deconv = b.node("ConvolutionBackpropData", {x, w}, attrs);
    EXPECT_EQ(inferred(deconv).to_string(), "1,8,16,16");  // 2 * 7 + 3 - 2 + 1
    Node sized = b.node("ConvolutionBackpropData", {x, w, b.constant<int64_t>({20, 21}, {2})},
                        conv_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1}, "same_upper"));
    EXPECT_EQ(inferred(sized).to_string(), "1,8,20,21");
    Node same = b.node("ConvolutionBackpropData", {x, w}, conv_attrs({2, 2}, {}, {}, {1, 1}, "same_lower"));
    EXPECT_EQ(inferred(same).to_string(), "1,8,17,17");  // auto_pad without output_shape: no pads
    Node interval = b.node("ConvolutionBackpropData", {b.input(f32, PartialShape{Dimension(), 16, Dimension(4, 8), Dimension()}), w},
                           conv_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1}));
    EXPECT_EQ(inferred(interval).to_string(), "?,8,7..15,?");  // 2 * (x - 1) + 3 - 2
    Node grouped = b.node("GroupConvolutionBackpropData", {x, b.input(f32, {4, 4, 2, 4, 4})},
                          conv_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1}));
    EXPECT_EQ(inferred(grouped).to_string(), "1,8,16,16");  // 2 * 7 + 4 - 2
}

TEST(ConvolutionOps, Evaluates3x3InputWith2x2KernelByHand) {
    GraphBuilder b;
    Node conv = b.node("Convolution", {b.input(f32, {1, 1, 3, 3}), b.input(f32, {1, 1, 2, 2})},
                       conv_attrs({1, 1}, {0, 0}, {0, 0}, {1, 1}));
    Tensor x = Tensor::from_vector<float>(iota(9), {1, 1, 3, 3});
    Tensor w = Tensor::from_vector<float>({1, 2, 3, 4}, {1, 1, 2, 2});
    auto out = conv.op().eval(conv, {x, w});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].shape(), (Shape{1, 1, 2, 2}));
    // 1*1 + 2*2 + 3*4 + 4*5 = 37, and so on.
    EXPECT_EQ(values(out[0]), (std::vector<float>{37, 47, 67, 77}));
}

TEST(ConvolutionOps, EvaluatesStridedPaddedConvolution) {
    GraphBuilder b;
    Node conv = b.node("Convolution", {b.input(f32, {1, 1, 3, 3}), b.input(f32, {1, 1, 3, 3})},
                       conv_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1}));
    Tensor x = Tensor::from_vector<float>(iota(9), {1, 1, 3, 3});
    Tensor w = Tensor::from_vector<float>(std::vector<float>(9, 1.f), {1, 1, 3, 3});
    auto out = conv.op().eval(conv, {x, w})[0];
    EXPECT_EQ(values(out), (std::vector<float>{1 + 2 + 4 + 5, 2 + 3 + 5 + 6, 4 + 5 + 7 + 8, 5 + 6 + 8 + 9}));
}

TEST(ConvolutionOps, EvaluatesDepthwise1DAndF16) {
    GraphBuilder b;
    Node conv = b.node("GroupConvolution", {b.input(f32, {1, 2, 3}), b.input(f32, {2, 1, 1, 1})},
                       conv_attrs({1}, {0}, {0}, {1}));
    Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {1, 2, 3});
    Tensor w = Tensor::from_vector<float>({2, 3}, {2, 1, 1, 1});
    EXPECT_EQ(values(conv.op().eval(conv, {x, w})[0]), (std::vector<float>{2, 4, 6, 12, 15, 18}));
    auto half = conv.op().eval(conv, {x.convert(ElementType::f16), w.convert(ElementType::f16)})[0];
    EXPECT_EQ(half.type(), ElementType::f16);
    EXPECT_EQ(values(half.convert(f32)), (std::vector<float>{2, 4, 6, 12, 15, 18}));
}

TEST(ConvolutionOps, EvaluatesTransposedConvolution1D) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 1, 2});
    auto w = b.input(f32, {1, 1, 3});
    Node full = b.node("ConvolutionBackpropData", {x, w}, conv_attrs({2}, {0}, {0}, {1}));
    Node cropped = b.node("ConvolutionBackpropData", {x, w}, conv_attrs({2}, {1}, {1}, {1}));
    AttrMap padded_attrs = conv_attrs({2}, {0}, {0}, {1});
    padded_attrs["output_padding"] = Ints{1};
    Node padded = b.node("ConvolutionBackpropData", {x, w}, padded_attrs);
    Tensor xv = Tensor::from_vector<float>({1, 2}, {1, 1, 2});
    Tensor wv = Tensor::from_vector<float>({1, 1, 1}, {1, 1, 3});
    // x[0] spreads over outputs 0..2, x[1] over 2..4.
    EXPECT_EQ(values(full.op().eval(full, {xv, wv})[0]), (std::vector<float>{1, 1, 3, 2, 2}));
    EXPECT_EQ(values(cropped.op().eval(cropped, {xv, wv})[0]), (std::vector<float>{1, 3, 2}));
    EXPECT_EQ(values(padded.op().eval(padded, {xv, wv})[0]), (std::vector<float>{1, 1, 3, 2, 2, 0}));

    // output_shape 4 of the full 5: one pad, at the start for same_upper, at the end otherwise.
    Tensor four = Tensor::from_vector<int64_t>({4}, {1});
    auto shape_in = b.input(ElementType::i64, {1});
    Node upper = b.node("ConvolutionBackpropData", {x, w, shape_in}, conv_attrs({2}, {0}, {0}, {1}, "same_upper"));
    Node expl = b.node("ConvolutionBackpropData", {x, w, shape_in}, conv_attrs({2}, {3}, {3}, {1}));
    EXPECT_EQ(values(upper.op().eval(upper, {xv, wv, four})[0]), (std::vector<float>{1, 3, 2, 2}));
    EXPECT_EQ(values(expl.op().eval(expl, {xv, wv, four})[0]), (std::vector<float>{1, 1, 3, 2}));
}

// The GEMM path against a direct 7-loop convolution (groups, strides, dilations, asymmetric pads).
TEST(ConvolutionOps, GemmPathMatchesDirectLoops) {
    const int64_t N = 2, G = 2, Cg = 3, Og = 4, H = 9, W = 8, KH = 3, KW = 2;
    const int64_t SH = 2, SW = 1, DH = 1, DW = 2, PT = 1, PL = 0, PB = 2, PR = 1;
    const int64_t OH = (H + PT + PB - ((KH - 1) * DH + 1)) / SH + 1;
    const int64_t OW = (W + PL + PR - ((KW - 1) * DW + 1)) / SW + 1;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> x(N * G * Cg * H * W), w(G * Og * Cg * KH * KW);
    for (auto& v : x) v = dist(rng);
    for (auto& v : w) v = dist(rng);
    GraphBuilder b;
    Node conv = b.node("GroupConvolution", {b.input(f32, {N, G * Cg, H, W}), b.input(f32, {G, Og, Cg, KH, KW})},
                       conv_attrs({SH, SW}, {PT, PL}, {PB, PR}, {DH, DW}));
    auto out = conv.op().eval(conv, {Tensor::from_vector<float>(x, {N, G * Cg, H, W}),
                                     Tensor::from_vector<float>(w, {G, Og, Cg, KH, KW})})[0];
    ASSERT_EQ(out.shape(), (Shape{N, G * Og, OH, OW}));
    const float* y = out.data<float>();
    for (int64_t n = 0; n < N; ++n)
        for (int64_t g = 0; g < G; ++g)
            for (int64_t o = 0; o < Og; ++o)
                for (int64_t oh = 0; oh < OH; ++oh)
                    for (int64_t ow = 0; ow < OW; ++ow) {
                        double sum = 0;
                        for (int64_t c = 0; c < Cg; ++c)
                            for (int64_t kh = 0; kh < KH; ++kh)
                                for (int64_t kw = 0; kw < KW; ++kw) {
                                    int64_t ih = oh * SH - PT + kh * DH, iw = ow * SW - PL + kw * DW;
                                    if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                    sum += x[((n * G + g) * Cg + c) * H * W + ih * W + iw] *
                                           w[((g * Og + o) * Cg + c) * KH * KW + kh * KW + kw];
                                }
                        EXPECT_NEAR(y[((n * G + g) * Og + o) * OH * OW + oh * OW + ow], sum, 1e-5);
                    }
}

// The col2im path against a direct scatter loop (groups, strides, dilations, pads, output_padding).
TEST(ConvolutionOps, TransposedGemmPathMatchesDirectScatter) {
    const int64_t N = 1, G = 2, Cg = 3, Og = 2, H = 4, W = 5, KH = 3, KW = 2;
    const int64_t SH = 2, SW = 3, DH = 2, DW = 1, PT = 1, PL = 2, PB = 0, PR = 1, OPH = 1, OPW = 0;
    const int64_t OH = SH * (H - 1) + (KH - 1) * DH + 1 - PT - PB + OPH;
    const int64_t OW = SW * (W - 1) + (KW - 1) * DW + 1 - PL - PR + OPW;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> x(N * G * Cg * H * W), w(G * Cg * Og * KH * KW);
    for (auto& v : x) v = dist(rng);
    for (auto& v : w) v = dist(rng);
    GraphBuilder b;
    AttrMap attrs = conv_attrs({SH, SW}, {PT, PL}, {PB, PR}, {DH, DW});
    attrs["output_padding"] = Ints{OPH, OPW};
    Node deconv = b.node("GroupConvolutionBackpropData",
                         {b.input(f32, {N, G * Cg, H, W}), b.input(f32, {G, Cg, Og, KH, KW})}, attrs);
    EXPECT_EQ(inferred(deconv), (PartialShape{N, G * Og, OH, OW}));
    auto out = deconv.op().eval(deconv, {Tensor::from_vector<float>(x, {N, G * Cg, H, W}),
                                         Tensor::from_vector<float>(w, {G, Cg, Og, KH, KW})})[0];
    ASSERT_EQ(out.shape(), (Shape{N, G * Og, OH, OW}));
    std::vector<double> expected(out.size(), 0.0);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t g = 0; g < G; ++g)
            for (int64_t c = 0; c < Cg; ++c)
                for (int64_t ih = 0; ih < H; ++ih)
                    for (int64_t iw = 0; iw < W; ++iw)
                        for (int64_t o = 0; o < Og; ++o)
                            for (int64_t kh = 0; kh < KH; ++kh)
                                for (int64_t kw = 0; kw < KW; ++kw) {
                                    int64_t oh = ih * SH - PT + kh * DH, ow = iw * SW - PL + kw * DW;
                                    if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                                    expected[((n * G + g) * Og + o) * OH * OW + oh * OW + ow] +=
                                        x[((n * G + g) * Cg + c) * H * W + ih * W + iw] *
                                        w[((g * Cg + c) * Og + o) * KH * KW + kh * KW + kw];
                                }
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(out.data<float>()[i], expected[i], 1e-5) << i;
}

}  // namespace
}  // namespace mo
