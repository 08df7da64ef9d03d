// NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss decompositions evaluated with the ops'
// eval, against values computed by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <cmath>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

// 3 samples x 3 classes of log-probabilities, targets [2, 1, 0], weight [0.1, 0.2, 0.3],
// ignore_index 0 (drops sample 2):
//   sample 0: -x[0][2] * w[2] = 3 * 0.3 = 0.9;  sample 1: -x[1][1] * w[1] = 1.5 * 0.2 = 0.3
//   none: [0.9, 0.3, 0];  sum: 1.2;  mean: 1.2 / (w[2] + w[1]) = 1.2 / 0.5 = 2.4
std::vector<double> nll_weighted(const std::string& reduction) {
    OnnxModelBuilder m(13);
    m.input("x", {3, 3});
    m.input("t", {3}, onnx::TensorProto::INT64);
    m.initializer("w", {0.1f, 0.2f, 0.3f}, {3});
    m.node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"loss"},
           {{"reduction", reduction}, {"ignore_index", 0}});
    m.output("loss");
    auto g = convert_onnx(m, "nll_" + reduction + ".onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({-1, -2, -3, -0.5f, -1.5f, -2.5f, -0.1f, -0.2f, -0.3f}, {3, 3})},
                             {"t", Tensor::from_vector<int64_t>({2, 1, 0}, {3})}});
    EXPECT_EQ(out.at(0).shape(), reduction == "none" ? Shape{3} : Shape{});
    return out.at(0).to_f64();
}

TEST(OnnxLoss, NllWeightedIgnoreIndexMean) { expect_near(nll_weighted("mean"), {2.4}); }
TEST(OnnxLoss, NllWeightedIgnoreIndexSum) { expect_near(nll_weighted("sum"), {1.2}); }
TEST(OnnxLoss, NllWeightedIgnoreIndexNone) { expect_near(nll_weighted("none"), {0.9, 0.3, 0.0}); }

// No weight, ignore_index -1 (out of the class range): targets [2, -1, 0] give losses 3 and
// 0.1 over 2 counted samples: mean 3.1 / 2 = 1.55.
TEST(OnnxLoss, NllOutOfRangeIgnoreIndexMeanCountsOnlyKeptSamples) {
    OnnxModelBuilder m(13);
    m.input("x", {3, 3});
    m.input("t", {3}, onnx::TensorProto::INT64);
    m.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}, {{"ignore_index", -1}});
    m.output("loss");
    auto g = convert_onnx(m, "nll_ii_neg.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({-1, -2, -3, -0.5f, -1.5f, -2.5f, -0.1f, -0.2f, -0.3f}, {3, 3})},
                             {"t", Tensor::from_vector<int64_t>({2, -1, 0}, {3})}});
    expect_near(out.at(0).to_f64(), {1.55});
}

// [N=1, C=2, d1=2]: class 0 = [-1, -2], class 1 = [-3, -4]; targets [[1, 0]] pick -3 and -2.
TEST(OnnxLoss, NllSpatialNone) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 2, 2});
    m.input("t", {1, 2}, onnx::TensorProto::INT64);
    m.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}, {{"reduction", "none"}});
    m.output("loss");
    auto g = convert_onnx(m, "nll_spatial.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({-1, -2, -3, -4}, {1, 2, 2})},
                             {"t", Tensor::from_vector<int64_t>({1, 0}, {1, 2})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{1, 2}));
    expect_near(out.at(0).to_f64(), {3, 2});
}

// Scores [[1, 2, 3], [0, 0, 0]], targets [1, 2]: log_prob = x - logsumexp(row);
// losses lse(1,2,3) - 2 and ln 3; mean = their average.
TEST(OnnxLoss, SoftmaxCrossEntropyMeanWithLogProb) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 3});
    m.input("t", {2}, onnx::TensorProto::INT64);
    m.node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"loss", "log_prob"});
    m.output("loss");
    m.output("log_prob");
    auto g = convert_onnx(m, "sce_mean.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 2, 3, 0, 0, 0}, {2, 3})},
                             {"t", Tensor::from_vector<int64_t>({1, 2}, {2})}});
    const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), ln3 = std::log(3.0);
    ASSERT_EQ(out.size(), 2u);
    expect_near(out[0].to_f64(), {((lse - 2) + ln3) / 2});
    expect_near(out[1].to_f64(), {1 - lse, 2 - lse, 3 - lse, -ln3, -ln3, -ln3});
}

TEST(OnnxLoss, UnknownReductionIsAnError) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 3});
    m.input("t", {2}, onnx::TensorProto::INT64);
    m.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}, {{"reduction", "max"}});
    m.output("loss");
    EXPECT_THROW(convert_onnx(m, "nll_bad.onnx"), Error);
}

}  // namespace
}  // namespace mo
