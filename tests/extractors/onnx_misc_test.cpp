// LRN, Celu, Scatter, Hann/Hamming/BlackmanWindow and BitShift extracted and evaluated with the
// ops' eval, against values worked by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <cmath>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

// ONNX: x / (bias + alpha / size * sum(x^2 over c-1..c+1))^beta, here 2 + 0.1 * [5, 14, 29, 50, 41].
TEST(OnnxMisc, LrnMatchesTheOnnxFormula) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 5, 1, 1});
    m.node("LRN", {"x"}, {"y"}, {{"size", 3}, {"alpha", 0.3f}, {"beta", 0.75f}, {"bias", 2.0f}});
    m.output("y");
    auto g = convert_onnx(m, "lrn.onnx");
    Node lrn = output_node(*g);
    ASSERT_TRUE(lrn.is("LRN"));
    EXPECT_EQ(const_ints(lrn, 1), (Ints{1}));
    EXPECT_FLOAT_EQ(static_cast<float>(lrn.attr<double>("alpha")), 0.3f);
    EXPECT_EQ(lrn.attr<int64_t>("size"), 3);
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 2, 3, 4, 5}, {1, 5, 1, 1})}});
    expect_near(out.at(0).to_f64(), {0.5029733718731741, 0.7987682757159082, 0.9109073255437746,
                                     0.9294723209701633, 1.288168360804001});
}

TEST(OnnxMisc, LrnDefaultsAndEvenSizeRefused) {
    OnnxModelBuilder m(1);
    m.input("x", {1, 4, 2, 2});
    m.node("LRN", {"x"}, {"y"}, {{"size", 5}});
    m.output("y");
    auto g = convert_onnx(m, "lrn_default.onnx");
    Node lrn = output_node(*g);
    EXPECT_FLOAT_EQ(static_cast<float>(lrn.attr<double>("alpha")), 1e-4f);
    EXPECT_DOUBLE_EQ(lrn.attr<double>("beta"), 0.75);
    EXPECT_DOUBLE_EQ(lrn.attr<double>("bias"), 1.0);

    OnnxModelBuilder even(13);
    even.input("x", {1, 4, 2, 2});
    even.node("LRN", {"x"}, {"y"}, {{"size", 4}});
    even.output("y");
    std::string e = extract_error(even, "lrn_even.onnx");
    EXPECT_NE(e.find("even size (4)"), std::string::npos) << e;
    EXPECT_NE(e.find("is not supported"), std::string::npos) << e;
}

// alpha 2: x for x >= 0, 2 * (exp(x / 2) - 1) below.
TEST(OnnxMisc, Celu) {
    OnnxModelBuilder m(12);
    m.input("x", {5});
    m.node("Celu", {"x"}, {"y"}, {{"alpha", 2.0f}});
    m.output("y");
    auto g = convert_onnx(m, "celu.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({-2, -1, 0, 1, 3}, {5})}});
    expect_near(out.at(0).to_f64(), {-1.2642411176571153, -0.7869386805747332, 0, 1, 3});
}

// The ONNX Scatter example (axis 0), and axis 1.
TEST(OnnxMisc, ScatterOpset10IsScatterElements) {
    for (int64_t axis : {0, 1}) {
        OnnxModelBuilder m(10);
        m.input("data", {3, 3});
        m.initializer_i64("idx", {1, 0, 2, 0, 2, 1}, {2, 3});
        m.initializer("upd", {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f}, {2, 3});
        m.node("Scatter", {"data", "idx", "upd"}, {"y"}, {{"axis", axis}});
        m.output("y");
        auto g = convert_onnx(m, "scatter.onnx");
        EXPECT_TRUE(output_node(*g).is("ScatterElementsUpdate"));
        auto out = evaluate(*g, {{"data", Tensor::from_vector<float>(std::vector<float>(9, 0.0f), {3, 3})}});
        if (axis == 0) expect_near(out.at(0).to_f64(), {2.0, 1.1, 0, 1.0, 0, 2.2, 0, 2.1, 1.2});
        else expect_near(out.at(0).to_f64(), {1.1, 1.0, 1.2, 2.0, 2.2, 2.1, 0, 0, 0});
    }
}

// Scatter is deprecated from opset 11 (ScatterElements replaces it).
TEST(OnnxMisc, ScatterOpset11IsNotAnOp) {
    OnnxModelBuilder m(11);
    m.input("data", {3});
    m.initializer_i64("idx", {1}, {1});
    m.initializer("upd", {1.0f}, {1});
    m.node("Scatter", {"data", "idx", "upd"}, {"y"});
    m.output("y");
    std::string e = extract_error(m, "scatter11.onnx");
    EXPECT_NE(e.find("Scatter (opset 11)"), std::string::npos) << e;
}

// size 4 as a constant (periodic: N = 4) or a graph input (symmetric size 5: N = 4), so the
// angles are k * pi / 2: cos = 1, 0, -1, 0 (, 1).
std::vector<double> window(const std::string& op, int64_t size, bool periodic, bool size_is_input, int dtype = 1) {
    OnnxModelBuilder m(17);
    if (size_is_input) m.input("size", {}, onnx::TensorProto::INT64);
    else m.initializer_i64("size", {size}, {});
    m.node(op, {"size"}, {"y"}, {{"periodic", periodic ? 1 : 0}, {"output_datatype", dtype}});
    m.output("y", dtype);
    auto g = convert_onnx(m, op + ".onnx");
    std::map<std::string, Tensor> in;
    if (size_is_input) in.emplace("size", Tensor::scalar<int64_t>(size));
    auto out = evaluate(*g, in);
    EXPECT_EQ(out.at(0).shape(), (Shape{size}));
    return out.at(0).to_f64();
}

TEST(OnnxMisc, HannWindow) {
    expect_near(window("HannWindow", 4, true, false), {0, 0.5, 1, 0.5});
    expect_near(window("HannWindow", 5, false, true), {0, 0.5, 1, 0.5, 0});
}

// a0 = 25/46, a1 = 21/46: a0 - a1, a0, a0 + a1, a0.
TEST(OnnxMisc, HammingWindow) {
    const double a0 = 25.0 / 46, a1 = 21.0 / 46;
    expect_near(window("HammingWindow", 4, true, true), {a0 - a1, a0, a0 + a1, a0});
    expect_near(window("HammingWindow", 5, false, false), {a0 - a1, a0, a0 + a1, a0, a0 - a1});
}

// 0.42 - 0.5 cos(t) + 0.08 cos(2t) at t = 0, pi/2, pi, 3pi/2 (, 2pi).
TEST(OnnxMisc, BlackmanWindow) {
    expect_near(window("BlackmanWindow", 4, true, false), {0, 0.34, 1, 0.34});
    expect_near(window("BlackmanWindow", 5, false, true), {0, 0.34, 1, 0.34, 0});
}

// output_datatype DOUBLE (11) and INT64 (7, truncation: only the 1 survives).
TEST(OnnxMisc, WindowOutputDatatype) {
    expect_near(window("HannWindow", 4, true, true, onnx::TensorProto::DOUBLE), {0, 0.5, 1, 0.5});
    expect_near(window("HannWindow", 4, true, false, onnx::TensorProto::INT64), {0, 0, 1, 0});
}

// u8: 3 << 7 wraps to 128; u16 right.
TEST(OnnxMisc, BitShift) {
    for (const char* dir : {"LEFT", "RIGHT"}) {
        OnnxModelBuilder m(11);
        m.input("x", {3}, onnx::TensorProto::UINT8);
        m.input("n", {3}, onnx::TensorProto::UINT8);
        m.node("BitShift", {"x", "n"}, {"y"}, {{"direction", dir}});
        m.output("y", onnx::TensorProto::UINT8);
        auto g = convert_onnx(m, "bitshift.onnx");
        EXPECT_TRUE(output_node(*g).is(std::string(dir) == "LEFT" ? "BitwiseLeftShift" : "BitwiseRightShift"));
        auto out = evaluate(*g, {{"x", Tensor::from_vector<uint8_t>({16, 3, 200}, {3})},
                                 {"n", Tensor::from_vector<uint8_t>({1, 7, 2}, {3})}});
        EXPECT_EQ(out.at(0).type(), ElementType::u8);
        if (std::string(dir) == "LEFT") expect_near(out.at(0).to_f64(), {32, 128, 32});
        else expect_near(out.at(0).to_f64(), {8, 0, 50});
    }
}

TEST(OnnxMisc, BitShiftRefusesSignedAndBadDirection) {
    OnnxModelBuilder m(11);
    m.input("x", {3}, onnx::TensorProto::INT32);
    m.input("n", {3}, onnx::TensorProto::INT32);
    m.node("BitShift", {"x", "n"}, {"y"}, {{"direction", "LEFT"}});
    m.output("y", onnx::TensorProto::INT32);
    std::string e = extract_error(m, "bitshift_i32.onnx");
    EXPECT_NE(e.find("BitShift on i32"), std::string::npos) << e;

    OnnxModelBuilder bad(11);
    bad.input("x", {3}, onnx::TensorProto::UINT8);
    bad.input("n", {3}, onnx::TensorProto::UINT8);
    bad.node("BitShift", {"x", "n"}, {"y"}, {{"direction", "UP"}});
    bad.output("y", onnx::TensorProto::UINT8);
    e = extract_error(bad, "bitshift_up.onnx");
    EXPECT_NE(e.find("direction must be LEFT or RIGHT"), std::string::npos) << e;
}

}  // namespace
}  // namespace mo
