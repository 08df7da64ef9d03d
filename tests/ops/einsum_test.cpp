// Einsum-7: the OpenVINO spec's examples, contractions worked by hand (or by plain loops for the
// GEMM path), shape inference on partial shapes, and the equations OpenVINO refuses.
#include <gtest/gtest.h>

#include "core/graph.hpp"
#include "ops/ops.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::f32;
using test::GraphBuilder;
using test::expect_error;
using test::values;
using ET = ElementType;


std::vector<Tensor> einsum(const std::string& equation, const std::vector<Tensor>& in) {
    return test::run_op("Einsum", in, {{"equation", equation}});
}

void expect_values(const Tensor& t, const Shape& shape, const std::vector<float>& want) {
    ASSERT_EQ(t.type(), ET::f32);
    EXPECT_EQ(t.shape(), shape);
    auto got = values<float>(t);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << "element " << i;
}

// Shape inference over parameters of the given shapes.
PartialShape inferred(const std::string& equation, const std::vector<PartialShape>& shapes, ET type = ET::f32) {
    GraphBuilder b;
    std::vector<OutPort> in;
    for (const auto& s : shapes) in.push_back(b.input(type, s));
    Node n = b.node("Einsum", in, {{"equation", equation}});
    test::infer(n);
    return n.out(0).shape();
}

const Tensor kBatch = f32({1, 2, 3, 4, 5, 6, 7, 8, 9, 2, 4, 6, 8, 10, 12, 14, 16, 18}, {2, 3, 3});

TEST(Einsum, SpecExample1InnerProduct) {
    expect_values(einsum("i,i->", {f32({1, 2, 3}, {3}), f32({4, 5, 6}, {3})})[0], {}, {32});
}

TEST(Einsum, SpecExample2MatrixVector) {
    expect_values(einsum("ij,j->i", {f32({1, 2, 3, 1, 2, 3}, {2, 3}), f32({4, 5, 6}, {3})})[0], {2}, {32, 32});
}

TEST(Einsum, SpecExample3BatchTrace) { expect_values(einsum("kii->k", {kBatch})[0], {2}, {15, 30}); }

TEST(Einsum, SpecExample4BatchDiagonal) {
    expect_values(einsum("kii->ki", {kBatch})[0], {2, 3}, {1, 5, 9, 2, 10, 18});
}

TEST(Einsum, SpecExample5Transpose) {
    expect_values(einsum("ijk->kij", {f32({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 3, 3})})[0], {3, 1, 3},
                  {1, 4, 7, 2, 5, 8, 3, 6, 9});
}

TEST(Einsum, SpecExample6EllipsisReduction) {
    expect_values(einsum("a...->...", {f32({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3})})[0], {3}, {12, 15, 18});
}

TEST(Einsum, SpecExample7EllipsisBroadcast) {
    expect_values(einsum("a...,...->a...", {f32({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3}), f32({0.5f}, {1})})[0], {3, 3},
                  {0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4, 4.5f});
}

TEST(Einsum, SpecExample8ImplicitCapitalsFirst) {
    expect_values(einsum("AbC", {f32({1, 2, 3, 4, 5, 6}, {1, 2, 3})})[0], {1, 3, 2}, {1, 4, 2, 5, 3, 6});
}

// Blanks anywhere are ignored.
TEST(Einsum, BlanksAreIgnored) {
    expect_values(einsum(" i j , j k -> i k ", {f32({1, 2, 3, 4}, {2, 2}), f32({5, 6, 7, 8}, {2, 2})})[0], {2, 2},
                  {19, 22, 43, 50});
}

// Implicit matmul: j is shared, so the output is "ik".
TEST(Einsum, ImplicitMatmul) {
    expect_values(einsum("ij,jk", {f32({1, 2, 3, 4}, {2, 2}), f32({5, 6, 7, 8}, {2, 2})})[0], {2, 2},
                  {19, 22, 43, 50});
}

// Batched product with the output transposed: out[b, k, i] = sum_j a[b,i,j] * c[b,j,k].
TEST(Einsum, BatchMatmulTransposedOutput) {
    // a[0] = [[1,2],[3,4]], a[1] = [[0,1],[1,0]]; c[0] = [[1,0],[0,1]], c[1] = [[2,3],[4,5]]
    // products: [[1,2],[3,4]] and [[4,5],[2,3]]; transposed: [[1,3],[2,4]] and [[4,2],[5,3]]
    expect_values(einsum("bij,bjk->bki", {f32({1, 2, 3, 4, 0, 1, 1, 0}, {2, 2, 2}), f32({1, 0, 0, 1, 2, 3, 4, 5}, {2, 2, 2})})[0],
                  {2, 2, 2}, {1, 3, 2, 4, 4, 2, 5, 3});
}

// Three operands: out[a, d] = sum_{b,c} x[a,b] y[b,c] z[c,d].
TEST(Einsum, ThreeOperandChain) {
    // x = [[1,2]], y = [[1,0],[1,1]], z = [[1],[2]]: x y = [[3,2]], (x y) z = [[7]]
    expect_values(einsum("ab,bc,cd->ad", {f32({1, 2}, {1, 2}), f32({1, 0, 1, 1}, {2, 2}), f32({1, 2}, {2, 1})})[0],
                  {1, 1}, {7});
}

// A label of one operand only that the output drops is summed before the product:
// out[i] = sum_{j,k} a[i,j] b[k] = (row sums of a) * (sum of b).
TEST(Einsum, LabelsOfOneOperandAreSummed) {
    expect_values(einsum("ij,k->i", {f32({1, 2, 3, 4}, {2, 2}), f32({1, 2, 3}, {3})})[0], {2}, {18, 42});
}

// Outer product and a scalar operand.
TEST(Einsum, OuterProductAndScalar) {
    expect_values(einsum("i,j->ij", {f32({1, 2}, {2}), f32({3, 4, 5}, {3})})[0], {2, 3}, {3, 4, 5, 6, 8, 10});
    expect_values(einsum("i,->i", {f32({1, 2}, {2}), f32({3}, {})})[0], {2}, {3, 6});
}

// Same label with dimensions 1 and 3 in two inputs: numpy broadcasting.
TEST(Einsum, SameLabelBroadcasts) {
    expect_values(einsum("i,i->i", {f32({2}, {1}), f32({1, 2, 3}, {3})})[0], {3}, {2, 4, 6});
}

// "..." covering no dimensions in one input and two in the other.
TEST(Einsum, EllipsisCoveringNoDimensions) {
    expect_values(einsum("...i,i->...", {f32({1, 2, 3, 4, 5, 6}, {3, 2}), f32({1, 10}, {2})})[0], {3}, {21, 43, 65});
    expect_values(einsum("...i,i->...", {f32({1, 2}, {2}), f32({1, 10}, {2})})[0], {}, {21});
}

TEST(Einsum, IntegersWrapLikeTheHardware) {
    auto out = einsum("ij->j", {Tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3})});
    EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{5, 7, 9}));
    auto wrap = einsum("i->", {Tensor::from_vector<int8_t>({100, 100}, {2})});
    EXPECT_EQ(values<int8_t>(wrap[0]), (std::vector<int8_t>{-56}));  // 200 - 256
}

TEST(Einsum, ZeroSizedLabels) {
    expect_values(einsum("ij->i", {f32({}, {0, 3})})[0], {0}, {});
    expect_values(einsum("ij->j", {f32({}, {0, 3})})[0], {3}, {0, 0, 0});
}

TEST(Einsum, F16GoesThroughF32) {
    Tensor a = f32({1, 2, 3}, {3}).convert(ET::f16), b = f32({4, 5, 6}, {3}).convert(ET::f16);
    auto out = einsum("i,i->", {a, b});
    EXPECT_EQ(out[0].type(), ET::f16);
    EXPECT_EQ(out[0].convert(ET::f32).to_f64(), (std::vector<double>{32}));
}

// The GEMM path against a plain triple loop, on a size where the layout matters.
TEST(Einsum, LargerContractionMatchesPlainLoops) {
    const int64_t B = 3, I = 17, J = 29, K = 13;
    std::vector<float> a(size_t(B * I * J)), c(size_t(J * B * K));
    for (size_t n = 0; n < a.size(); ++n) a[n] = float(int(n * 7 % 11) - 5);
    for (size_t n = 0; n < c.size(); ++n) c[n] = float(int(n * 5 % 13) - 6);
    // c is laid out [j, b, k]; out[k, b, i] = sum_j a[b,i,j] c[j,b,k]
    std::vector<float> want(size_t(K * B * I), 0);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < I; ++i)
            for (int64_t k = 0; k < K; ++k) {
                float s = 0;
                for (int64_t j = 0; j < J; ++j) s += a[size_t((b * I + i) * J + j)] * c[size_t((j * B + b) * K + k)];
                want[size_t((k * B + b) * I + i)] = s;
            }
    expect_values(einsum("bij,jbk->kbi", {f32(a, {B, I, J}), f32(c, {J, B, K})})[0], {K, B, I}, want);
}

// ---- Shape inference ---------------------------------------------------------------------------

TEST(Einsum, InfersFromPartialShapes) {
    EXPECT_EQ(inferred("ij,jk->ik", {PartialShape{Dimension(), 3}, PartialShape{3, 5}}), (PartialShape{Dimension(), 5}));
    EXPECT_EQ(inferred("ij,jk->ki", {PartialShape{Dimension(2, 4), 3}, PartialShape{Dimension(), 5}}),
              (PartialShape{5, Dimension(2, 4)}));
    // a repeated label merges its dimensions
    EXPECT_EQ(inferred("ii->i", {PartialShape{Dimension(), 4}}), (PartialShape{4}));
    // a dynamic-rank input without "..." gives its labels dynamic dims
    EXPECT_EQ(inferred("ij,jk->ik", {PartialShape::dynamic_rank(), PartialShape{3, 5}}), (PartialShape{Dimension(), 5}));
    // with "..." the output rank is unknown
    EXPECT_EQ(inferred("...j->...", {PartialShape::dynamic_rank()}), PartialShape::dynamic_rank());
}

// The spec's examples: "..." dims [1, 4] and [11, 7, 1] broadcast to [11, 7, 4].
TEST(Einsum, InfersSpecEllipsisShapes) {
    EXPECT_EQ(inferred("a...b,b...->a...", {PartialShape{9, 1, 4, 3}, PartialShape{3, 11, 7, 1}}),
              (PartialShape{9, 11, 7, 4}));
    EXPECT_EQ(inferred("ab...,ac...,ade->...bc", {PartialShape{2, 3, 4}, PartialShape{2, 7, 1}, PartialShape{2, 4, 7}}),
              (PartialShape{4, 3, 7}));
    EXPECT_EQ(inferred("ij,jk->ik", {PartialShape{2, 3}, PartialShape{3, 5}}, ET::i64), (PartialShape{2, 5}));
}

// ---- Refused equations and inputs -----------------------------------------------------------

TEST(Einsum, RefusesWhatOpenVinoRefuses) {
    expect_error([] { inferred("i1->i", {PartialShape{2}}); }, "invalid label '1'");
    expect_error([] { inferred("...i...->i", {PartialShape{2, 2}}); }, "more than one ellipsis");
    expect_error([] { inferred("i->j", {PartialShape{2}}); }, "label 'j'");
    expect_error([] { inferred("...i->i", {PartialShape{2, 2}}); }, "'...' in the output");
    expect_error([] { inferred("i->...i", {PartialShape{2}}); }, "'...' in the output");
    expect_error([] { inferred("i->ii", {PartialShape{2}}); }, "repeats label 'i'");
    // implicit mode keeps a label repeated within one subscript: "ii" would be "ii"
    expect_error([] { inferred("ii", {PartialShape{2, 2}}); }, "repeats label 'i'");
    expect_error([] { inferred("i,i->i", {PartialShape{2}}); }, "1 inputs");
    expect_error([] { inferred("ij->i", {PartialShape{2}}); }, "another rank");
    expect_error([] { inferred("...ij->i...", {PartialShape{2}}); }, "fewer dimensions");
    expect_error([] { inferred("ii->i", {PartialShape{2, 3}}); }, "repeated in input 0");
    expect_error([] { inferred("i,i->i", {PartialShape{2}, PartialShape{3}}); }, "do not broadcast");
    expect_error([] { inferred("i->i", {PartialShape{2}}, ET::boolean); }, "numeric");
}

TEST(Einsum, RefusesMixedTypes) {
    GraphBuilder b;
    Node n = b.node("Einsum", {b.input(ET::f32, {2}), b.input(ET::i32, {2})}, {{"equation", std::string("i,i->")}});
    expect_error([&] { test::infer(n); }, "same element type");
}

}  // namespace
}  // namespace mo
