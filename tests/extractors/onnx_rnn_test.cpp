#include <gtest/gtest.h>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

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
    Node y = output_node(*g, 0), y_h = output_node(*g, 1);
    ASSERT_TRUE(y.is("Transpose"));
    EXPECT_EQ(const_ints(y, 1), (Ints{2, 1, 0, 3}));
    ASSERT_TRUE(y_h.is("Transpose"));
    EXPECT_EQ(const_ints(y_h, 1), (Ints{1, 0, 2}));
    Node seq = y.in(0).src().node();
    ASSERT_TRUE(seq.is("LSTMSequence"));
    EXPECT_EQ(seq.name(), "lstm");
    EXPECT_EQ(y_h.in(0).src(), seq.out(1));
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
    EXPECT_EQ(seq.attr<std::string>("activations"), "sigmoid,relu");
    Node b = seq.in(5).src().node();  // absent B: zeros [D, 3H]
    ASSERT_TRUE(b.is("Broadcast"));
    EXPECT_EQ(const_ints(b, 1), (Ints{2, 3}));
}

}  // namespace
}  // namespace mo
