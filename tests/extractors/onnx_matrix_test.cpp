// Trilu, EyeLike, Hardmax, Shrink, IsInf, IsNaN decompositions evaluated with the ops' eval,
// against values computed by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

std::vector<float> iota(int n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i + 1);
    return v;
}

// Upper with k = 1 on a 3x4 of 1..12 keeps col - row >= 1.
TEST(OnnxMatrix, TriluUpperAboveTheDiagonal) {
    OnnxModelBuilder m(14);
    m.input("x", {3, 4});
    m.initializer_i64("k", {1}, {});
    m.node("Trilu", {"x", "k"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "triu.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>(iota(12), {3, 4})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{3, 4}));
    expect_near(out.at(0).to_f64(), {0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12});
}

// Lower, k = 0, batched [2, 2, 3]: each matrix keeps col <= row.
TEST(OnnxMatrix, TriluLowerBatched) {
    OnnxModelBuilder m(14);
    m.input("x", {2, 2, 3});
    m.node("Trilu", {"x"}, {"y"}, {{"upper", 0}});
    m.output("y");
    auto g = convert_onnx(m, "tril.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>(iota(12), {2, 2, 3})}});
    expect_near(out.at(0).to_f64(), {1, 0, 0, 4, 5, 0, 7, 0, 0, 10, 11, 0});
}

// k = 1, dtype INT64 (7): ones where col = row + 1.
TEST(OnnxMatrix, EyeLikeOffDiagonalWithDtype) {
    OnnxModelBuilder m(9);
    m.input("x", {3, 3});
    m.node("EyeLike", {"x"}, {"y"}, {{"k", 1}, {"dtype", 7}});
    m.output("y", onnx::TensorProto::INT64);
    auto g = convert_onnx(m, "eyelike.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>(iota(9), {3, 3})}});
    EXPECT_EQ(out.at(0).type(), ElementType::i64);
    expect_near(out.at(0).to_f64(), {0, 1, 0, 0, 0, 1, 0, 0, 0});
}

// Axis 1; the tie in row 0 goes to the first maximum.
TEST(OnnxMatrix, HardmaxMarksTheFirstMaximum) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 3});
    m.node("Hardmax", {"x"}, {"y"}, {{"axis", 1}});
    m.output("y");
    auto g = convert_onnx(m, "hardmax.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 3, 3, 5, 2, 1}, {2, 3})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 3}));
    expect_near(out.at(0).to_f64(), {0, 1, 0, 1, 0, 0});
}

// Hardmax along axis 0 of [2, 2]: per column.
TEST(OnnxMatrix, HardmaxAxisZero) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 2});
    m.node("Hardmax", {"x"}, {"y"}, {{"axis", 0}});
    m.output("y");
    auto g = convert_onnx(m, "hardmax0.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 4, 2, 3}, {2, 2})}});
    expect_near(out.at(0).to_f64(), {0, 1, 1, 0});
}

// lambd 1.5, bias 0.5: -2 -> -1.5, |x| <= 1.5 -> 0, 2 -> 1.5.
TEST(OnnxMatrix, ShrinkSoft) {
    OnnxModelBuilder m(9);
    m.input("x", {5});
    m.node("Shrink", {"x"}, {"y"}, {{"lambd", 1.5f}, {"bias", 0.5f}});
    m.output("y");
    auto g = convert_onnx(m, "shrink.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({-2, -1, 0, 1, 2}, {5})}});
    expect_near(out.at(0).to_f64(), {-1.5, 0, 0, 0, 1.5});
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<double> is_inf(const std::vector<OnnxAttr>& attrs, const std::string& file) {
    OnnxModelBuilder m(10);
    m.input("x", {4});
    m.node("IsInf", {"x"}, {"y"}, attrs);
    m.output("y", onnx::TensorProto::BOOL);
    auto g = convert_onnx(m, file);
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({-kInf, 1, kInf, kNaN}, {4})}});
    EXPECT_EQ(out.at(0).type(), ElementType::boolean);
    return out.at(0).to_f64();
}

TEST(OnnxMatrix, IsInfBothSigns) { expect_near(is_inf({}, "isinf.onnx"), {1, 0, 1, 0}); }
TEST(OnnxMatrix, IsInfPositiveOnly) { expect_near(is_inf({{"detect_negative", 0}}, "isinf_pos.onnx"), {0, 0, 1, 0}); }
TEST(OnnxMatrix, IsInfNegativeOnly) { expect_near(is_inf({{"detect_positive", 0}}, "isinf_neg.onnx"), {1, 0, 0, 0}); }

TEST(OnnxMatrix, IsNaN) {
    OnnxModelBuilder m(13);
    m.input("x", {4});
    m.node("IsNaN", {"x"}, {"y"});
    m.output("y", onnx::TensorProto::BOOL);
    auto g = convert_onnx(m, "isnan.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({-kInf, 1, kInf, kNaN}, {4})}});
    expect_near(out.at(0).to_f64(), {0, 0, 0, 1});
}

}  // namespace
}  // namespace mo
