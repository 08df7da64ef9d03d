// ScaledDotProductAttention-13: shape inference as OpenVINO's shape_infer has it, and evaluation
// against values worked by hand from the spec's pseudo-code and against the pseudo-code itself
// built from MatMul, Multiply, Add, Softmax and MatMul.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/evaluator.hpp"
#include "core/graph.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
constexpr auto f32 = ElementType::f32;

std::string shape_of(const std::vector<PartialShape>& in, bool causal = false, ElementType mask_type = f32) {
    GraphBuilder g;
    std::vector<OutPort> inputs;
    for (size_t i = 0; i < in.size(); ++i) inputs.push_back(g.input(i == 3 ? mask_type : f32, in[i]));
    Node n = g.node("ScaledDotProductAttention", inputs, {{"causal", causal}});
    return test::inferred(n).to_string();
}

TEST(ScaledDotProductAttention, ShapesFollowQueryKeyValueAndMask) {
    EXPECT_EQ(shape_of({{2, 4, 3, 8}, {2, 4, 5, 8}, {2, 4, 5, 6}}), "2,4,3,6");
    const Dimension d;
    EXPECT_EQ(shape_of({{d, 4, d, 8}, {d, 4, d, 8}, {d, 4, d, 8}, {d, 1, d, d}, {}}), "?,4,?,8");
    // Batch dimensions broadcast numpy-style, the mask's included.
    EXPECT_EQ(shape_of({{1, 2, 3, 4}, {3, 1, 5, 4}, {3, 1, 5, 7}}), "3,2,3,7");
    EXPECT_EQ(shape_of({{2, 3, 4}, {2, 5, 4}, {2, 5, 4}, {6, 1, 3, 5}}), "6,2,3,4");
    // A mask's L of 1 broadcasts to the query's; a query's L of 1 to the mask's (as Add would).
    EXPECT_EQ(shape_of({{1, 2, 3, 4}, {1, 2, 5, 4}, {1, 2, 5, 4}, {1, 1, 1, 5}}), "1,2,3,4");
    EXPECT_EQ(shape_of({{1, 2, 1, 4}, {1, 2, 5, 4}, {1, 2, 5, 4}, {1, 1, 3, 5}}), "1,2,3,4");
    // A scalar mask (0: no mask) and a boolean one; a causal op ignores its mask input.
    EXPECT_EQ(shape_of({{1, 3, 4}, {1, 5, 4}, {1, 5, 4}, {}}), "1,3,4");
    EXPECT_EQ(shape_of({{1, 3, 4}, {1, 5, 4}, {1, 5, 4}, {3, 5}}, false, ElementType::boolean), "1,3,4");
    EXPECT_EQ(shape_of({{1, 3, 4}, {1, 5, 4}, {1, 5, 4}, {7}}, true, ElementType::i32), "1,3,4");
    EXPECT_EQ(shape_of({PartialShape::dynamic_rank(), {1, 5, 4}, {1, 5, 4}}), "...");
}

TEST(ScaledDotProductAttention, RefusesWhatOpenVINOsShapeInferenceRefuses) {
    auto fails = [](const std::vector<PartialShape>& in, const char* what, ElementType mask_type = f32) {
        test::expect_error([&] { shape_of(in, false, mask_type); }, what);
    };
    fails({{3, 4}, {1, 5, 4}, {1, 5, 4}}, "rank 3 or more");
    fails({{1, 3, 4}, {1, 5, 6}, {1, 5, 4}}, "different embedding sizes");
    fails({{1, 3, 4}, {1, 5, 4}, {1, 6, 4}}, "different sequence lengths");
    fails({{2, 3, 4}, {3, 5, 4}, {3, 5, 4}}, "does not broadcast");
    fails({{1, 3, 4}, {1, 5, 4}, {1, 5, 4}, {5}}, "rank 2 or more");
    fails({{1, 3, 4}, {1, 5, 4}, {1, 5, 4}, {1, 2, 5}}, "does not fit");
    fails({{1, 3, 4}, {1, 5, 4}, {1, 5, 4}, {3, 5}}, "different element types", ElementType::f16);
    fails({{1, 3, 4}, {1, 5, 4}, {1, 5, 4}, {3, 5}}, "not a floating-point type", ElementType::i32);
    fails({{1, 3, 4}, {1, 5, 4}, {1, 5, 4}, {}, {2}}, "scale must be a scalar or have one element");
}

Tensor sdpa(const std::vector<Tensor>& in, bool causal = false) {
    return test::run_op("ScaledDotProductAttention", in, {{"causal", causal}}).at(0);
}

// One query [1, 0] against keys [1, 0] and [0, 1], values [1, 2] and [3, 4].
const Tensor kQ = Tensor::from_vector<float>({1, 0}, {1, 1, 2});
const Tensor kK = Tensor::from_vector<float>({1, 0, 0, 1}, {1, 2, 2});
const Tensor kV = Tensor::from_vector<float>({1, 2, 3, 4}, {1, 2, 2});

// softmax([a, b]) · [[1, 2], [3, 4]]
std::vector<float> mix(double a, double b) {
    const double p0 = std::exp(a) / (std::exp(a) + std::exp(b)), p1 = 1 - p0;
    return {static_cast<float>(p0 + 3 * p1), static_cast<float>(2 * p0 + 4 * p1)};
}

void expect_values(const Tensor& got, const std::vector<float>& want) {
    auto v = test::values<float>(got);
    ASSERT_EQ(v.size(), want.size());
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-6) << i;
}

TEST(ScaledDotProductAttention, ScaleDefaultsToOneOverTheSquareRootOfE) {
    // scores = [1, 0] · scale
    expect_values(sdpa({kQ, kK, kV}), mix(1 / std::sqrt(2.0), 0));
    expect_values(sdpa({kQ, kK, kV, Tensor::scalar<float>(0), Tensor::scalar<float>(3)}), mix(3, 0));
    expect_values(sdpa({kQ, kK, kV, Tensor::scalar<float>(0), Tensor::from_vector<float>({0.5f}, {1})}), mix(0.5, 0));
}

TEST(ScaledDotProductAttention, BooleanMasksHideAndFloatMasksAdd) {
    const Tensor one = Tensor::scalar<float>(1);
    // false -> -inf: only the first key is seen
    expect_values(sdpa({kQ, kK, kV, test::boolean({true, false}, {1, 2}), one}), {1, 2});
    expect_values(sdpa({kQ, kK, kV, test::boolean({false, true}, {1, 2}), one}), {3, 4});
    // a float mask is added to the scores
    expect_values(sdpa({kQ, kK, kV, test::f32({0, std::log(3.f)}, {1, 2}), one}), mix(1, std::log(3.0)));
    expect_values(sdpa({kQ, kK, kV, test::f32({0, -std::numeric_limits<float>::infinity()}, {1, 1, 2}), one}), {1, 2});
}

TEST(ScaledDotProductAttention, CausalHidesKeysAboveTheDiagonalOfLTimesS) {
    const Tensor one = Tensor::scalar<float>(1);
    // Two queries [1, 0] and [0, 1]: row 0 sees key 0 only, row 1 both (scores [0, 1]).
    const Tensor q2 = Tensor::from_vector<float>({1, 0, 0, 1}, {1, 2, 2});
    auto row1 = mix(0, 1);
    expect_values(sdpa({q2, kK, kV, Tensor::scalar<float>(0), one}, true), {1, 2, row1[0], row1[1]});
    // The mask input is ignored.
    expect_values(sdpa({q2, kK, kV, test::boolean({false, false, false, false}, {2, 2}), one}, true),
                  {1, 2, row1[0], row1[1]});
    // numpy.triu over [L, S] = [1, 2]: the one query is row 0, so it sees key 0 only.
    expect_values(sdpa({kQ, kK, kV, Tensor::scalar<float>(0), one}, true), {1, 2});
}

// The spec's pseudo-code for a float mask, as opset ops: Softmax(MatMul(q, kᵀ) · scale + mask) · v.
Tensor decomposed(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float scale) {
    GraphBuilder g;
    auto qi = g.input(f32, q.shape(), "q"), ki = g.input(f32, k.shape(), "k"), vi = g.input(f32, v.shape(), "v"),
         mi = g.input(f32, mask.shape(), "mask");
    auto scores = g.op("MatMul", {qi, ki}, {{"transpose_a", false}, {"transpose_b", true}});
    auto scaled = g.op("Multiply", {scores, g.constant(scale)});
    auto probs = g.op("Softmax", {g.op("Add", {scaled, mi})}, {{"axis", int64_t{-1}}});
    g.output(g.op("MatMul", {probs, vi}, {{"transpose_a", false}, {"transpose_b", false}}));
    return evaluate(g.graph(), {q, k, v, mask}).at(0);
}

Tensor random(const Shape& s, std::mt19937& rng, float lo = -1, float hi = 1) {
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(static_cast<size_t>(shape_size(s)));
    for (float& x : v) x = u(rng);
    return Tensor::from_vector<float>(v, s);
}

TEST(ScaledDotProductAttention, EqualsThePseudoCodeWithBroadcastBatchAndMask) {
    std::mt19937 rng(7);
    const Tensor q = random({2, 4, 3, 8}, rng), k = random({2, 1, 5, 8}, rng), v = random({1, 4, 5, 6}, rng);
    const Tensor mask = random({2, 1, 1, 5}, rng, -5, 0);
    test::expect_close(sdpa({q, k, v, mask, Tensor::scalar<float>(0.3f)}), decomposed(q, k, v, mask, 0.3f), 1e-6, 1e-6,
                       "SDPA vs MatMul/Softmax");
}

}  // namespace
}  // namespace mo
