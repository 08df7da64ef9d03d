// Extracted graphs evaluated with the ops' own eval, against values computed by hand from
// the ONNX operator definitions.
#include <gtest/gtest.h>

#include <cmath>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

// Softmax-11 with axis=1 on [2, 2, 2] normalises over the 4 values of each batch item
// (ONNX coerces to 2D), not over axis 1 alone.
TEST(OnnxNumeric, SoftmaxOpset11NormalisesTheFlattenedTail) {
    OnnxModelBuilder m(11);
    m.input("x", {2, 2, 2});
    m.node("Softmax", {"x"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "softmax_num.onnx");
    std::vector<float> x{0, 1, 2, 3, 0, 0, 0, 0};
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>(x, {2, 2, 2})}});
    double z = 1 + std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    expect_near(out.at(0).to_f64(), {1 / z, std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z,
                                     0.25, 0.25, 0.25, 0.25});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 2, 2}));
}

TEST(OnnxNumeric, SliceWithNegativeStepAndLargeEnd) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 4});
    m.initializer_i64("starts", {0, -1}, {2});
    m.initializer_i64("ends", {INT64_MAX, -100}, {2});
    m.initializer_i64("axes", {0, 1}, {2});
    m.initializer_i64("steps", {1, -2}, {2});
    m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "slice_num.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4})}});
    expect_near(out.at(0).to_f64(), {3, 1, 7, 5});
}

// One LSTM step, hidden 1, input 1: i = σ(Wi x + Bi), o = σ(Wo x + Bo), f = σ(Wf x + Bf),
// c~ = tanh(Wc x + Bc); c = i * c~ (zero initial state); h = o * tanh(c). The ONNX order of
// W, R and B is i, o, f, c; every gate gets a different weight so a wrong reorder shows.
TEST(OnnxNumeric, LstmStepMatchesTheOnnxFormulas) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 1, 1});
    std::vector<float> w{0.5f, -1.f, 2.f, 0.25f}, wb{0.1f, 0.2f, 0.3f, 0.4f}, rb{0.01f, 0.02f, 0.03f, 0.04f};
    m.initializer("W", w, {1, 4, 1});
    m.initializer("R", {0.f, 0.f, 0.f, 0.f}, {1, 4, 1});
    std::vector<float> b(wb);
    b.insert(b.end(), rb.begin(), rb.end());
    m.initializer("B", b, {1, 8});
    m.node("LSTM", {"x", "W", "R", "B"}, {"Y", "Y_h", "Y_c"}, {{"hidden_size", 1}});
    m.output("Y");
    m.output("Y_h");
    m.output("Y_c");
    auto g = convert_onnx(m, "lstm_num.onnx");
    const double x = 0.8;
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({static_cast<float>(x)}, {1, 1, 1})}});
    auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
    auto gate = [&](int k) { return w[k] * x + wb[k] + rb[k]; };
    double i = sig(gate(0)), o = sig(gate(1)), cc = std::tanh(gate(3));
    double c = i * cc, h = o * std::tanh(c);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].shape(), (Shape{1, 1, 1, 1}));
    expect_near(out[0].to_f64(), {h});
    expect_near(out[1].to_f64(), {h});
    expect_near(out[2].to_f64(), {c});
}

// Bidirectional, T = 2, zero W and R: the gates are constants per direction, so
// c1 = i*c~, c2 = f*c1 + i*c~, h = o*tanh(c). Forward writes Y[0] = h(c1), Y[1] = h(c2);
// reverse walks t = 1, 0: Y[1] = h(c1'), Y[0] = h(c2'). Y is [T, D, B, H].
TEST(OnnxNumeric, BidirectionalLstmOutputsAreTimeMajor) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 1, 1});
    m.initializer("W", std::vector<float>(8, 0.f), {2, 4, 1});
    m.initializer("R", std::vector<float>(8, 0.f), {2, 4, 1});
    // Per direction: Wb (i o f c) then Rb (zeros).
    std::vector<float> fwd{0.1f, 0.2f, 0.3f, 0.4f}, rev{-0.5f, 0.6f, -0.7f, 0.8f};
    std::vector<float> b(fwd);
    b.insert(b.end(), 4, 0.f);
    b.insert(b.end(), rev.begin(), rev.end());
    b.insert(b.end(), 4, 0.f);
    m.initializer("B", b, {2, 8});
    m.node("LSTM", {"x", "W", "R", "B"}, {"Y", "Y_h", "Y_c"}, {{"hidden_size", 1}, {"direction", "bidirectional"}});
    m.output("Y");
    m.output("Y_h");
    m.output("Y_c");
    auto g = convert_onnx(m, "lstm_bi_num.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({3.f, -3.f}, {2, 1, 1})}});
    auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
    struct Dir { double h1, h2, c2; };
    auto run = [&](const std::vector<float>& g4) {
        double i = sig(g4[0]), o = sig(g4[1]), f = sig(g4[2]), cc = std::tanh(g4[3]);
        double c1 = i * cc, c2 = f * c1 + i * cc;
        return Dir{o * std::tanh(c1), o * std::tanh(c2), c2};
    };
    Dir F = run(fwd), Rv = run(rev);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].shape(), (Shape{2, 2, 1, 1}));
    expect_near(out[0].to_f64(), {F.h1, Rv.h2, F.h2, Rv.h1});
    EXPECT_EQ(out[1].shape(), (Shape{2, 1, 1}));
    expect_near(out[1].to_f64(), {F.h2, Rv.h2});
    expect_near(out[2].to_f64(), {F.c2, Rv.c2});
}

// GRU with linear_before_reset: h~ = tanh(Wh x + Wbh + r * (Rh h + Rbh)); with h0 given.
TEST(OnnxNumeric, GruStepWithLinearBeforeReset) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 1, 1});
    m.initializer("W", {0.5f, -0.5f, 1.f}, {1, 3, 1});   // z r h
    m.initializer("R", {0.2f, 0.3f, -0.4f}, {1, 3, 1});
    m.initializer("B", {0.1f, 0.2f, 0.3f, 0.05f, 0.06f, 0.07f}, {1, 6});
    m.initializer("h0", {0.6f}, {1, 1, 1});
    m.node("GRU", {"x", "W", "R", "B", "", "h0"}, {"", "Y_h"}, {{"hidden_size", 1}, {"linear_before_reset", 1}});
    m.output("Y_h");
    auto g = convert_onnx(m, "gru_num.onnx");
    const double x = 0.7, h0 = 0.6;
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({0.7f}, {1, 1, 1})}});
    auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
    double z = sig(0.5 * x + 0.2 * h0 + 0.1 + 0.05);
    double r = sig(-0.5 * x + 0.3 * h0 + 0.2 + 0.06);
    double hh = std::tanh(1.0 * x + 0.3 + r * (-0.4 * h0 + 0.07));
    double h = (1 - z) * hh + z * h0;
    expect_near(out.at(0).to_f64(), {h});
}

// With a dynamic rank the spatial axes and the reversed order are computed in the graph.
TEST(OnnxNumeric, GlobalPoolAndTransposeWithUnknownRank) {
    OnnxModelBuilder m(13);
    m.input_any_rank("x");
    m.node("GlobalAveragePool", {"x"}, {"gap"});
    m.node("Transpose", {"x"}, {"t"});
    m.output("gap");
    m.output("t");
    auto g = convert_onnx(m, "dynamic_rank_num.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {1, 2, 3})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{1, 2, 1}));
    expect_near(out.at(0).to_f64(), {2, 5});
    EXPECT_EQ(out.at(1).shape(), (Shape{3, 2, 1}));
    expect_near(out.at(1).to_f64(), {1, 4, 2, 5, 3, 6});
}

TEST(OnnxNumeric, ArgMaxFirstOrLastOfEqualValues) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 4});
    m.node("ArgMax", {"x"}, {"first"}, {{"axis", 1}, {"keepdims", 0}});
    m.node("ArgMax", {"x"}, {"last"}, {{"axis", 1}, {"select_last_index", 1}});
    m.output("first", onnx::TensorProto::INT64);
    m.output("last", onnx::TensorProto::INT64);
    auto g = convert_onnx(m, "argmax_num.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 5, 5, 0, 7, 2, 7, 7}, {2, 4})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{2}));
    EXPECT_EQ(out.at(0).to_i64(), (Ints{1, 0}));
    EXPECT_EQ(out.at(1).shape(), (Shape{2, 1}));
    EXPECT_EQ(out.at(1).to_i64(), (Ints{2, 3}));
}

TEST(OnnxNumeric, ConvWithBiasAndPads) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 1, 2, 2});
    m.initializer("w", {1, 1, 1, 1}, {1, 1, 2, 2});  // sums 2x2 windows
    m.initializer("b", {10}, {1});
    m.node("Conv", {"x", "w", "b"}, {"y"}, {{"pads", {0, 0, 1, 0}}});
    m.output("y");
    auto g = convert_onnx(m, "conv_num.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 2, 3, 4}, {1, 1, 2, 2})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{1, 1, 2, 1}));
    expect_near(out.at(0).to_f64(), {20, 17});  // 1+2+3+4+10, 3+4+10 (bottom pad row)
}

}  // namespace
}  // namespace mo
