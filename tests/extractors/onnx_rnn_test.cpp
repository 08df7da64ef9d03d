#include <gtest/gtest.h>

#include <cmath>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

// The `type` sequence op behind outputs Y and Y_h, which are transposed back to ONNX's
// time-major layout ([B, D, T, H] -> [T, D, B, H], [B, D, H] -> [D, B, H]); null if it is not there.
Node sequence_behind_outputs(const Graph& g, const std::string& type) {
    Node y = output_node(g, 0), y_h = output_node(g, 1);
    if (!y.is("Transpose") || !y_h.is("Transpose")) {
        ADD_FAILURE() << "Y and Y_h must come from Transposes";
        return {};
    }
    EXPECT_EQ(const_ints(y, 1), (Ints{2, 1, 0, 3}));
    EXPECT_EQ(const_ints(y_h, 1), (Ints{1, 0, 2}));
    Node seq = y.in(0).src().node();
    if (!seq.is(type)) {
        ADD_FAILURE() << "Y comes from " << seq.describe() << ", not " << type;
        return {};
    }
    EXPECT_EQ(y_h.in(0).src(), seq.out(1));
    return seq;
}

// hidden_size 1, input size 1, one direction: every gate is one number, so the reorder is
// visible directly. ONNX LSTM gate order i, o, f, c; OpenVINO f, i, c, o.
TEST(OnnxRnn, LstmReordersGatesSumsBiasesAndTransposesLayouts) {
    OnnxModelBuilder m(14);
    m.input("x", {5, 2, 1});  // [T, B, I]
    m.initializer("W", {1, 2, 3, 4}, {1, 4, 1});
    m.initializer("R", {10, 20, 30, 40}, {1, 4, 1});
    m.initializer("B", {1, 2, 3, 4, 10, 20, 30, 40}, {1, 8});
    m.node("LSTM", {"x", "W", "R", "B"}, {"Y", "Y_h"}, {{"hidden_size", 1}}, "lstm");
    m.output("Y");
    m.output("Y_h");
    auto g = convert_onnx(m, "lstm.onnx");
    Node seq = sequence_behind_outputs(*g, "LSTMSequence");
    ASSERT_TRUE(seq);
    EXPECT_EQ(seq.name(), "lstm");
    EXPECT_EQ(seq.attr<int64_t>("hidden_size"), 1);
    EXPECT_EQ(seq.attr<std::string>("direction"), "forward");
    ASSERT_EQ(seq.input_count(), 7u);
    Node x = seq.in(0).src().node();
    ASSERT_TRUE(x.is("Transpose"));
    EXPECT_EQ(const_ints(x, 1), (Ints{1, 0, 2}));
    EXPECT_EQ(const_values(seq, 4), (Doubles{3, 1, 4, 2}));      // W: f i c o
    EXPECT_EQ(const_values(seq, 5), (Doubles{30, 10, 40, 20}));  // R
    EXPECT_EQ(const_values(seq, 6), (Doubles{33, 11, 44, 22}));  // B = Wb + Rb, reordered
    EXPECT_EQ(seq.in(4).value()->shape(), (Shape{1, 4, 1}));
    EXPECT_EQ(seq.in(6).value()->shape(), (Shape{1, 4}));
    // Absent initial states are zeros [B, D, H]; absent lengths are T for every batch item.
    Node h0 = seq.in(1).src().node();
    ASSERT_TRUE(h0.is("Broadcast"));
    EXPECT_EQ(const_values(h0, 0), (Doubles{0}));
    EXPECT_EQ(const_ints(h0, 1), (Ints{2, 1, 1}));
    Node lengths = seq.in(3).src().node();
    ASSERT_TRUE(lengths.is("Broadcast"));
    EXPECT_EQ(const_ints(lengths, 0), (Ints{5}));
    EXPECT_EQ(const_ints(lengths, 1), (Ints{2}));
}

TEST(OnnxRnn, GruLinearBeforeResetKeepsTheRecurrentHBias) {
    OnnxModelBuilder m(13);
    m.input("x", {3, 1, 1});
    m.initializer("W", {1, 2, 3}, {1, 3, 1});
    m.initializer("R", {4, 5, 6}, {1, 3, 1});
    m.initializer("B", {1, 2, 3, 10, 20, 30}, {1, 6});  // Wb z r h, Rb z r h
    m.node("GRU", {"x", "W", "R", "B"}, {"", "Y_h"},
           {{"hidden_size", 1}, {"linear_before_reset", 1}, {"direction", "reverse"}}, "gru");
    m.output("Y_h");
    auto g = convert_onnx(m, "gru.onnx");
    Node y_h = output_node(*g);
    ASSERT_TRUE(y_h.is("Transpose"));
    Node seq = y_h.in(0).src().node();
    ASSERT_TRUE(seq.is("GRUSequence"));
    EXPECT_TRUE(seq.attr<bool>("linear_before_reset"));
    EXPECT_EQ(seq.attr<std::string>("direction"), "reverse");
    ASSERT_EQ(seq.input_count(), 6u);
    EXPECT_EQ(const_values(seq, 3), (Doubles{1, 2, 3}));  // z r h already in OpenVINO order
    EXPECT_EQ(const_values(seq, 5), (Doubles{11, 22, 3, 30}));
}

TEST(OnnxRnn, BidirectionalActivationsAreLowerCased) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 1, 1});
    m.initializer("W", std::vector<float>(2 * 3, 1.f), {2, 3, 1});
    m.initializer("R", std::vector<float>(2 * 3, 1.f), {2, 3, 1});
    auto& n = m.node("GRU", {"x", "W", "R"}, {"Y"}, {{"hidden_size", 1}, {"direction", "bidirectional"}}, "gru");
    auto* a = n.add_attribute();
    a->set_name("activations");
    a->set_type(onnx::AttributeProto::STRINGS);
    for (const char* s : {"Sigmoid", "Relu", "Sigmoid", "Relu"}) a->add_strings(s);
    m.output("Y");
    auto g = convert_onnx(m, "gru_bi.onnx");
    Node seq = output_node(*g).in(0).src().node();
    ASSERT_TRUE(seq.is("GRUSequence"));
    EXPECT_EQ(seq.attr<std::vector<std::string>>("activations"), (std::vector<std::string>{"sigmoid", "relu"}));
    Node b = seq.in(5).src().node();  // absent B: zeros [D, 3H]
    ASSERT_TRUE(b.is("Broadcast"));
    EXPECT_EQ(const_ints(b, 1), (Ints{2, 3}));
}

// RNN is 1:1: one gate, so W and R pass unchanged and B = Wb + Rb.
TEST(OnnxRnn, RnnMapsToRnnSequenceWithSummedBias) {
    OnnxModelBuilder m(14);
    m.input("x", {3, 2, 1});  // [T, B, I]
    m.input("h0", {1, 2, 2});  // [D, B, H]
    m.initializer("W", {1, 2}, {1, 2, 1});
    m.initializer("R", {3, 4, 5, 6}, {1, 2, 2});
    m.initializer("B", {1, 2, 10, 20}, {1, 4});
    m.node("RNN", {"x", "W", "R", "B", "", "h0"}, {"Y", "Y_h"}, {{"hidden_size", 2}, {"clip", 2.5f}}, "rnn");
    m.output("Y");
    m.output("Y_h");
    auto g = convert_onnx(m, "rnn.onnx");
    Node seq = sequence_behind_outputs(*g, "RNNSequence");
    ASSERT_TRUE(seq);
    EXPECT_EQ(seq.name(), "rnn");
    EXPECT_EQ(seq.attr<std::vector<std::string>>("activations"), std::vector<std::string>{"tanh"});
    EXPECT_EQ(seq.attr<double>("clip"), 2.5);
    ASSERT_EQ(seq.input_count(), 6u);
    Node h0 = seq.in(1).src().node();
    ASSERT_TRUE(h0.is("Transpose"));
    EXPECT_EQ(const_ints(h0, 1), (Ints{1, 0, 2}));
    EXPECT_EQ(const_values(seq, 3), (Doubles{1, 2}));
    EXPECT_EQ(const_values(seq, 4), (Doubles{3, 4, 5, 6}));
    EXPECT_EQ(const_values(seq, 5), (Doubles{11, 22}));
    EXPECT_EQ(seq.in(5).value()->shape(), (Shape{1, 2}));
}

// layout=1: X [B, T, I] and states [B, D, H] are OpenVINO's already; Y [B, D, T, H] -> [B, T, D, H].
TEST(OnnxRnn, RnnBatchwiseLayoutTransposesOnlyY) {
    OnnxModelBuilder m(14);
    m.input("x", {2, 3, 1});
    m.initializer("W", {1, 1}, {2, 1, 1});
    m.initializer("R", {1, 1}, {2, 1, 1});
    m.node("RNN", {"x", "W", "R"}, {"Y", "Y_h"}, {{"hidden_size", 1}, {"layout", 1}, {"direction", "bidirectional"}});
    m.output("Y");
    m.output("Y_h");
    auto g = convert_onnx(m, "rnn_batchwise.onnx");
    Node y = output_node(*g, 0);
    ASSERT_TRUE(y.is("Transpose"));
    EXPECT_EQ(const_ints(y, 1), (Ints{0, 2, 1, 3}));
    Node seq = y.in(0).src().node();
    ASSERT_TRUE(seq.is("RNNSequence"));
    EXPECT_EQ(output_node(*g, 1), seq);
    EXPECT_TRUE(seq.in(0).src().node().is("Parameter"));
    Node b = seq.in(5).src().node();  // absent B: zeros [D, H]
    ASSERT_TRUE(b.is("Broadcast"));
    EXPECT_EQ(const_ints(b, 1), (Ints{2, 1}));
}

// The 1-step, 2-unit RNN of tests/ops/recurrent_test.cpp through the ONNX extractor:
// x = [1, 2], h0 = [0.5, -1], W = [[0.1, 0.2], [0.3, -0.4]], R = [[1, 0], [0.5, 0.5]],
// Wb + Rb = [0.02 + 0.03, -0.3 + 0.2]; Y_h = tanh([1.05, -0.85]).
TEST(OnnxRnn, RnnOneStepTwoUnitsByHand) {
    OnnxModelBuilder m(7);
    m.input("x", {1, 1, 2});
    m.input("h0", {1, 1, 2});
    m.initializer("W", {0.1f, 0.2f, 0.3f, -0.4f}, {1, 2, 2});
    m.initializer("R", {1, 0, 0.5f, 0.5f}, {1, 2, 2});
    m.initializer("B", {0.02f, -0.3f, 0.03f, 0.2f}, {1, 4});
    m.node("RNN", {"x", "W", "R", "B", "", "h0"}, {"Y", "Y_h"}, {{"hidden_size", 2}});
    m.output("Y");
    m.output("Y_h");
    auto g = convert_onnx(m, "rnn_num.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 2}, {1, 1, 2})},
                             {"h0", Tensor::from_vector<float>({0.5f, -1}, {1, 1, 2})}});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), (Shape{1, 1, 1, 2}));  // [T, D, B, H]
    EXPECT_EQ(out[1].shape(), (Shape{1, 1, 2}));     // [D, B, H]
    for (const Tensor& o : out) {
        auto v = o.to_f64();
        EXPECT_NEAR(v[0], std::tanh(1.05), 1e-6);
        EXPECT_NEAR(v[1], std::tanh(-0.85), 1e-6);
    }
}

TEST(OnnxRnn, RnnRefusesWhatOpenVinoCannotExpress) {
    auto model = [](std::vector<OnnxAttr> attrs, std::vector<const char*> acts) {
        OnnxModelBuilder m(14);
        m.input("x", {1, 1, 1});
        int64_t dirs = acts.size() == 2 ? 2 : 1;
        m.initializer("W", std::vector<float>(static_cast<size_t>(dirs), 1.f), {dirs, 1, 1});
        m.initializer("R", std::vector<float>(static_cast<size_t>(dirs), 1.f), {dirs, 1, 1});
        attrs.push_back({"hidden_size", 1});
        if (dirs == 2) attrs.push_back({"direction", "bidirectional"});
        auto& n = m.node("RNN", {"x", "W", "R"}, {"Y"}, attrs, "rnn");
        if (!acts.empty()) {
            auto* a = n.add_attribute();
            a->set_name("activations");
            a->set_type(onnx::AttributeProto::STRINGS);
            for (const char* s : acts) a->add_strings(s);
        }
        m.output("Y");
        return m;
    };
    auto refused = [](const std::string& e, const std::string& what) {
        EXPECT_NE(e.find(what), std::string::npos) << e;
        EXPECT_NE(e.find("is not supported"), std::string::npos) << e;
    };
    refused(extract_error(model({}, {"Softsign"}), "rnn_softsign.onnx"), "activation Softsign");
    refused(extract_error(model({}, {"Tanh", "Relu"}), "rnn_mixed.onnx"), "different activations per direction");
    refused(extract_error(model({{"clip", 0.f}}, {}), "rnn_clip0.onnx"), "clip=");
    EXPECT_EQ(extract_error(model({}, {"Relu", "Relu"}), "rnn_relu.onnx"), "no error");
}

}  // namespace
}  // namespace mo
