// LSTMSequence-5, GRUSequence-5 and RNNSequence-5: shapes, and steps against the spec's cell
// formulas with tiny hand-picked weights.
#include <gtest/gtest.h>

#include <cmath>

#include "core/graph.hpp"
#include "support/graph_builder.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
constexpr auto f32 = ElementType::f32;
constexpr auto i64 = ElementType::i64;

float sigmoid(float x) { return 1 / (1 + std::exp(-x)); }

Tensor t(std::vector<float> v, Shape s) { return Tensor::from_vector<float>(v, std::move(s)); }

std::vector<float> values(const Tensor& x) { return {x.data<float>(), x.data<float>() + x.size()}; }

void infer(Node n) {
    InferContext c(n);
    n.op().infer(c);
}

TEST(RecurrentOps, LstmSequenceShapes) {
    GraphBuilder b;
    const Dimension batch;
    Node lstm = b.node("LSTMSequence",
                       {b.input(f32, PartialShape{batch, 10, 32}), b.input(f32, PartialShape{batch, 2, 64}),
                        b.input(f32, PartialShape{batch, 2, 64}), b.input(i64, PartialShape{batch}),
                        b.input(f32, {2, 256, 32}), b.input(f32, {2, 256, 64}), b.input(f32, {2, 256})},
                       {{"hidden_size", int64_t{64}}, {"direction", std::string("bidirectional")}});
    infer(lstm);
    EXPECT_EQ(lstm.out(0).shape().to_string(), "?,2,10,64");
    EXPECT_EQ(lstm.out(1).shape().to_string(), "?,2,64");
    EXPECT_EQ(lstm.out(2).shape().to_string(), "?,2,64");
    EXPECT_EQ(lstm.attr<std::vector<std::string>>("activations"), (std::vector<std::string>{"sigmoid", "tanh", "tanh"}));

    Node wrong = b.node("LSTMSequence",
                        {b.input(f32, {1, 10, 32}), b.input(f32, {1, 1, 64}), b.input(f32, {1, 1, 64}),
                         b.input(i64, {1}), b.input(f32, {1, 192, 32}), b.input(f32, {1, 256, 64}),
                         b.input(f32, {1, 256})},
                        {{"hidden_size", int64_t{64}}, {"direction", std::string("forward")}});
    EXPECT_THROW(infer(wrong), Error);  // W has 3 gates' rows
}

TEST(RecurrentOps, GruSequenceShapes) {
    GraphBuilder b;
    auto make = [&](bool lbr, int64_t bias_rows) {
        return b.node("GRUSequence",
                      {b.input(f32, {4, 7, 16}), b.input(f32, {4, 1, 8}), b.input(i64, {4}), b.input(f32, {1, 24, 16}),
                       b.input(f32, {1, 24, 8}), b.input(f32, {1, bias_rows})},
                      {{"hidden_size", int64_t{8}}, {"direction", std::string("reverse")}, {"linear_before_reset", lbr}});
    };
    Node gru = make(false, 24);
    infer(gru);
    EXPECT_EQ(gru.out(0).shape().to_string(), "4,1,7,8");
    EXPECT_EQ(gru.out(1).shape().to_string(), "4,1,8");
    EXPECT_NO_THROW(infer(make(true, 32)));
    EXPECT_THROW(infer(make(true, 24)), Error);  // linear_before_reset needs 4 * hidden biases
}

TEST(RecurrentOps, LstmOneStepByHand) {
    GraphBuilder b;
    Node lstm = b.node("LSTMSequence",
                       {b.input(f32, {1, 1, 1}), b.input(f32, {1, 1, 1}), b.input(f32, {1, 1, 1}), b.input(i64, {1}),
                        b.input(f32, {1, 4, 1}), b.input(f32, {1, 4, 1}), b.input(f32, {1, 4})},
                       {{"hidden_size", int64_t{1}}, {"direction", std::string("forward")}});
    // Gates in order f, i, c, o: W = [0, 1, 2, 3], R = [0.5, -0.5, 1, 0], B = [.1, .2, .3, .4]; x = h0 = 1, c0 = 2.
    auto out = lstm.op().eval(lstm, {t({1}, {1, 1, 1}), t({1}, {1, 1, 1}), t({2}, {1, 1, 1}),
                                     Tensor::from_vector<int64_t>({1}, {1}), t({0, 1, 2, 3}, {1, 4, 1}),
                                     t({0.5f, -0.5f, 1, 0}, {1, 4, 1}), t({0.1f, 0.2f, 0.3f, 0.4f}, {1, 4})});
    ASSERT_EQ(out.size(), 3u);
    const float f = sigmoid(0.6f), i = sigmoid(0.7f), g = std::tanh(3.3f), o = sigmoid(3.4f);
    const float c1 = f * 2 + i * g, h1 = o * std::tanh(c1);
    EXPECT_EQ(out[0].shape(), (Shape{1, 1, 1, 1}));
    EXPECT_NEAR(values(out[0])[0], h1, 1e-6);
    EXPECT_NEAR(values(out[1])[0], h1, 1e-6);
    EXPECT_NEAR(values(out[2])[0], c1, 1e-6);
}

TEST(RecurrentOps, LstmReverseRespectsSequenceLengths) {
    GraphBuilder b;
    Node lstm = b.node("LSTMSequence",
                       {b.input(f32, {2, 2, 1}), b.input(f32, {2, 1, 1}), b.input(f32, {2, 1, 1}), b.input(i64, {2}),
                        b.input(f32, {1, 4, 1}), b.input(f32, {1, 4, 1}), b.input(f32, {1, 4})},
                       {{"hidden_size", int64_t{1}}, {"direction", std::string("reverse")}});
    // Only the candidate sees x: f = i = o = 1/2, c_t = c_{t-1} / 2 + tanh(x_t) / 2.
    const float x0 = 0.3f, x1 = -0.8f, y0 = 1.1f;
    auto out = lstm.op().eval(lstm, {t({x0, x1, y0, 5}, {2, 2, 1}), t({0, 0}, {2, 1, 1}), t({0, 0}, {2, 1, 1}),
                                     Tensor::from_vector<int64_t>({2, 1}, {2}), t({0, 0, 1, 0}, {1, 4, 1}),
                                     t({0, 0, 0, 0}, {1, 4, 1}), t({0, 0, 0, 0}, {1, 4})});
    auto y = values(out[0]);  // [batch 2, dir 1, time 2, hidden 1]
    const float c_late = 0.5f * std::tanh(x1);                        // batch 0 starts at t = 1
    const float c_early = 0.5f * c_late + 0.5f * std::tanh(x0);
    EXPECT_NEAR(y[1], 0.5f * std::tanh(c_late), 1e-6);
    EXPECT_NEAR(y[0], 0.5f * std::tanh(c_early), 1e-6);
    const float c_short = 0.5f * std::tanh(y0);                       // batch 1 has length 1
    EXPECT_NEAR(y[2], 0.5f * std::tanh(c_short), 1e-6);
    EXPECT_EQ(y[3], 0.0f);                                            // past its length
    EXPECT_NEAR(values(out[1])[0], y[0], 1e-6);
    EXPECT_NEAR(values(out[1])[1], y[2], 1e-6);
    EXPECT_NEAR(values(out[2])[1], c_short, 1e-6);
}

TEST(RecurrentOps, LstmBidirectionalRunsBothWays) {
    GraphBuilder b;
    Node lstm = b.node("LSTMSequence",
                       {b.input(f32, {1, 2, 1}), b.input(f32, {1, 2, 1}), b.input(f32, {1, 2, 1}), b.input(i64, {1}),
                        b.input(f32, {2, 4, 1}), b.input(f32, {2, 4, 1}), b.input(f32, {2, 4})},
                       {{"hidden_size", int64_t{1}}, {"direction", std::string("bidirectional")}});
    // As above: c_t = c_{t-1} / 2 + tanh(x_t) / 2, h_t = tanh(c_t) / 2, in both directions.
    const float x0 = 0.4f, x1 = -0.2f;
    auto out = lstm.op().eval(lstm, {t({x0, x1}, {1, 2, 1}), t({0, 0}, {1, 2, 1}), t({0, 0}, {1, 2, 1}),
                                     Tensor::from_vector<int64_t>({2}, {1}), t({0, 0, 1, 0, 0, 0, 1, 0}, {2, 4, 1}),
                                     t(std::vector<float>(8, 0), {2, 4, 1}), t(std::vector<float>(8, 0), {2, 4})});
    ASSERT_EQ(out[0].shape(), (Shape{1, 2, 2, 1}));
    auto y = values(out[0]);  // [dir][time]
    const float fwd0 = 0.5f * std::tanh(x0), fwd1 = 0.5f * fwd0 + 0.5f * std::tanh(x1);
    const float bwd1 = 0.5f * std::tanh(x1), bwd0 = 0.5f * bwd1 + 0.5f * std::tanh(x0);
    EXPECT_NEAR(y[0], 0.5f * std::tanh(fwd0), 1e-6);
    EXPECT_NEAR(y[1], 0.5f * std::tanh(fwd1), 1e-6);
    EXPECT_NEAR(y[2], 0.5f * std::tanh(bwd0), 1e-6);
    EXPECT_NEAR(y[3], 0.5f * std::tanh(bwd1), 1e-6);
    auto ho = values(out[1]), co = values(out[2]);  // forward ends at t = 1, reverse at t = 0
    EXPECT_NEAR(ho[0], y[1], 1e-6);
    EXPECT_NEAR(ho[1], y[2], 1e-6);
    EXPECT_NEAR(co[0], fwd1, 1e-6);
    EXPECT_NEAR(co[1], bwd0, 1e-6);
}

TEST(RecurrentOps, GruOneStepByHandBothResetPlacements) {
    for (bool lbr : {false, true}) {
        GraphBuilder b;
        const int64_t bias_rows = lbr ? 4 : 3;
        Node gru = b.node("GRUSequence",
                          {b.input(f32, {1, 1, 1}), b.input(f32, {1, 1, 1}), b.input(i64, {1}), b.input(f32, {1, 3, 1}),
                           b.input(f32, {1, 3, 1}), b.input(f32, {1, bias_rows})},
                          {{"hidden_size", int64_t{1}}, {"direction", std::string("forward")},
                           {"linear_before_reset", lbr}});
        // Gates z, r, h: W = [1, 2, 3], R = [0.5, 0.5, 2], x = 1, h0 = 0.5.
        std::vector<float> bias = lbr ? std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f} : std::vector<float>{0.1f, 0.2f, 0.3f};
        auto out = gru.op().eval(gru, {t({1}, {1, 1, 1}), t({0.5f}, {1, 1, 1}), Tensor::from_vector<int64_t>({1}, {1}),
                                       t({1, 2, 3}, {1, 3, 1}), t({0.5f, 0.5f, 2}, {1, 3, 1}), t(bias, {1, bias_rows})});
        ASSERT_EQ(out.size(), 2u);
        const float z = sigmoid(1 + 0.25f + 0.1f), r = sigmoid(2 + 0.25f + 0.2f);
        const float cand = lbr ? std::tanh(3 + 0.3f + r * (2 * 0.5f + 0.4f)) : std::tanh(3 + 2 * (r * 0.5f) + 0.3f);
        const float h1 = (1 - z) * cand + z * 0.5f;
        EXPECT_NEAR(values(out[0])[0], h1, 1e-6) << "linear_before_reset=" << lbr;
        EXPECT_NEAR(values(out[1])[0], h1, 1e-6);
    }
}

TEST(RecurrentOps, UnknownActivationIsAnError) {
    GraphBuilder b;
    Node gru = b.node("GRUSequence",
                      {b.input(f32, {1, 1, 1}), b.input(f32, {1, 1, 1}), b.input(i64, {1}), b.input(f32, {1, 3, 1}),
                       b.input(f32, {1, 3, 1}), b.input(f32, {1, 3})},
                      {{"hidden_size", int64_t{1}}, {"direction", std::string("forward")},
                       {"activations", std::vector<std::string>{"sigmoid", "softsign"}}});
    EXPECT_THROW(infer(gru), Error);
}

TEST(RecurrentOps, RnnSequenceShapes) {
    GraphBuilder b;
    auto make = [&](int64_t w_rows) {
        return b.node("RNNSequence",
                      {b.input(f32, PartialShape{Dimension(), 5, 3}), b.input(f32, PartialShape{Dimension(), 2, 4}),
                       b.input(i64, PartialShape{Dimension()}), b.input(f32, {2, w_rows, 3}), b.input(f32, {2, 4, 4}),
                       b.input(f32, {2, 4})},
                      {{"hidden_size", int64_t{4}}, {"direction", std::string("bidirectional")}});
    };
    Node rnn = make(4);
    infer(rnn);
    ASSERT_EQ(rnn.output_count(), 2u);
    EXPECT_EQ(rnn.out(0).shape().to_string(), "?,2,5,4");
    EXPECT_EQ(rnn.out(1).shape().to_string(), "?,2,4");
    EXPECT_EQ(rnn.attr<std::vector<std::string>>("activations"), std::vector<std::string>{"tanh"});
    EXPECT_FALSE(rnn.op().find_attr("linear_before_reset"));
    EXPECT_THROW(infer(make(12)), Error);  // W rows are hidden_size, not 3 gates' worth
}

// One step, two units, input size 2: H1 = f(W x + R h0 + B) per unit, x = [1, 2], h0 = [0.5, -1],
// W = [[0.1, 0.2], [0.3, -0.4]], R = [[1, 0], [0.5, 0.5]], B = [0.05, -0.1]:
//   unit 0: 0.1 + 0.4 + 0.5 + 0 + 0.05 = 1.05;  unit 1: 0.3 - 0.8 + 0.25 - 0.5 - 0.1 = -0.85.
TEST(RecurrentOps, RnnOneStepTwoUnitsByHand) {
    auto run = [](AttrMap attrs) {
        GraphBuilder b;
        attrs["hidden_size"] = int64_t{2};
        attrs["direction"] = std::string("forward");
        Node rnn = b.node("RNNSequence",
                          {b.input(f32, {1, 1, 2}), b.input(f32, {1, 1, 2}), b.input(i64, {1}), b.input(f32, {1, 2, 2}),
                           b.input(f32, {1, 2, 2}), b.input(f32, {1, 2})},
                          attrs);
        return rnn.op().eval(rnn, {t({1, 2}, {1, 1, 2}), t({0.5f, -1}, {1, 1, 2}), Tensor::from_vector<int64_t>({1}, {1}),
                                   t({0.1f, 0.2f, 0.3f, -0.4f}, {1, 2, 2}), t({1, 0, 0.5f, 0.5f}, {1, 2, 2}),
                                   t({0.05f, -0.1f}, {1, 2})});
    };
    auto out = run({});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), (Shape{1, 1, 1, 2}));
    EXPECT_EQ(out[1].shape(), (Shape{1, 1, 2}));
    for (size_t k : {0u, 1u}) {
        auto v = values(out[k]);
        EXPECT_NEAR(v[0], std::tanh(1.05f), 1e-6);
        EXPECT_NEAR(v[1], std::tanh(-0.85f), 1e-6);
    }
    // relu after clipping to [-0.9, 0.9]: [min(1.05, 0.9), relu(-0.85)].
    out = run({{"activations", std::vector<std::string>{"relu"}}, {"clip", 0.9}});
    EXPECT_NEAR(values(out[1])[0], 0.9f, 1e-6);
    EXPECT_EQ(values(out[1])[1], 0.0f);
    out = run({{"activations", std::vector<std::string>{"sigmoid"}}});
    EXPECT_NEAR(values(out[1])[0], sigmoid(1.05f), 1e-6);
    EXPECT_NEAR(values(out[1])[1], sigmoid(-0.85f), 1e-6);
}

// Hidden 1, input 1, W = 1, B = 0; R = 0.5 forward and -0.5 reverse. Batch 0 [a, b] has length 2,
// batch 1 [c, -] length 1: its second step is zero in Y and leaves the state alone.
TEST(RecurrentOps, RnnBidirectionalWithSequenceLengths) {
    GraphBuilder b;
    Node rnn = b.node("RNNSequence",
                      {b.input(f32, {2, 2, 1}), b.input(f32, {2, 2, 1}), b.input(i64, {2}), b.input(f32, {2, 1, 1}),
                       b.input(f32, {2, 1, 1}), b.input(f32, {2, 1})},
                      {{"hidden_size", int64_t{1}}, {"direction", std::string("bidirectional")}});
    const float a = 0.3f, bb = -0.7f, c = 0.9f;
    auto out = rnn.op().eval(rnn, {t({a, bb, c, 5}, {2, 2, 1}), t({0, 0, 0, 0}, {2, 2, 1}),
                                   Tensor::from_vector<int64_t>({2, 1}, {2}), t({1, 1}, {2, 1, 1}),
                                   t({0.5f, -0.5f}, {2, 1, 1}), t({0, 0}, {2, 1})});
    const float f0 = std::tanh(a), f1 = std::tanh(bb + 0.5f * f0);  // forward, batch 0
    const float r1 = std::tanh(bb), r0 = std::tanh(a - 0.5f * r1);  // reverse, batch 0
    auto y = values(out[0]);                                        // [batch][dir][time]
    ASSERT_EQ(y.size(), 8u);
    EXPECT_NEAR(y[0], f0, 1e-6);
    EXPECT_NEAR(y[1], f1, 1e-6);
    EXPECT_NEAR(y[2], r0, 1e-6);
    EXPECT_NEAR(y[3], r1, 1e-6);
    EXPECT_NEAR(y[4], std::tanh(c), 1e-6);
    EXPECT_EQ(y[5], 0.0f);
    EXPECT_NEAR(y[6], std::tanh(c), 1e-6);
    EXPECT_EQ(y[7], 0.0f);
    auto ho = values(out[1]);  // [batch][dir]
    EXPECT_NEAR(ho[0], f1, 1e-6);
    EXPECT_NEAR(ho[1], r0, 1e-6);
    EXPECT_NEAR(ho[2], std::tanh(c), 1e-6);
    EXPECT_NEAR(ho[3], std::tanh(c), 1e-6);
}

TEST(RecurrentOps, RnnTakesExactlyOneActivation) {
    GraphBuilder b;
    Node rnn = b.node("RNNSequence",
                      {b.input(f32, {1, 1, 1}), b.input(f32, {1, 1, 1}), b.input(i64, {1}), b.input(f32, {1, 1, 1}),
                       b.input(f32, {1, 1, 1}), b.input(f32, {1, 1})},
                      {{"hidden_size", int64_t{1}}, {"direction", std::string("forward")},
                       {"activations", std::vector<std::string>{"sigmoid", "tanh"}}});
    EXPECT_THROW(infer(rnn), Error);
}

}  // namespace
}  // namespace mo
