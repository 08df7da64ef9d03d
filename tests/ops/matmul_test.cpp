// Shape inference and evaluation of MatMul-1 against the spec's rules and hand-computed products.
#include <gtest/gtest.h>

#include "core/graph.hpp"
#include "support/graph_builder.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
constexpr auto f32 = ElementType::f32;

std::string shape_of(const PartialShape& a, const PartialShape& b, bool ta = false, bool tb = false) {
    GraphBuilder g;
    Node n = g.node("MatMul", {g.input(f32, a), g.input(f32, b)}, {{"transpose_a", ta}, {"transpose_b", tb}});
    InferContext c(n);
    n.op().infer(c);
    return n.out(0).shape().to_string();
}

std::vector<float> values(const Tensor& t) {
    const float* d = t.data<float>();
    return {d, d + t.size()};
}

TEST(MatMulOps, MatrixAndTransposeShapes) {
    EXPECT_EQ(shape_of({2, 3}, {3, 4}), "2,4");
    EXPECT_EQ(shape_of({3, 2}, {3, 4}, true), "2,4");
    EXPECT_EQ(shape_of({2, 3}, {4, 3}, false, true), "2,4");
    EXPECT_THROW(shape_of({2, 3}, {4, 3}), Error);
}

TEST(MatMulOps, OneDimensionalOperandsLoseTheirUnitAxis) {
    EXPECT_EQ(shape_of({3}, {3, 4}), "4");
    EXPECT_EQ(shape_of({2, 3}, {3}), "2");
    EXPECT_EQ(shape_of({3}, {3}), "");
    EXPECT_EQ(shape_of({3}, {5, 3, 4}), "5,4");
    EXPECT_EQ(shape_of({3}, {3, 4}, true), "4");  // transpose does not apply to 1D
}

TEST(MatMulOps, BatchBroadcastAndDynamicDims) {
    EXPECT_EQ(shape_of({5, 1, 2, 3}, {4, 3, 6}), "5,4,2,6");
    EXPECT_EQ(shape_of({Dimension(), 128, 768}, {768, 3072}), "?,128,3072");
    EXPECT_EQ(shape_of({Dimension(), Dimension(), 64}, {Dimension(), 64, Dimension(1, 512)}), "?,?,1..512");
    EXPECT_EQ(shape_of(PartialShape::dynamic_rank(), {3, 4}), "...");
    EXPECT_THROW(shape_of({2, 2, 3}, {3, 3, 4}), Error);
}

TEST(MatMulOps, EvaluatesBatchBroadcastProduct) {
    GraphBuilder g;
    Node n = g.node("MatMul", {g.input(f32, {2, 1, 2}), g.input(f32, {2, 2})}, {{"transpose_b", true}});
    // Two row vectors [1, 2] and [3, 4] times B^T with B = [[1, 0], [1, 1]].
    Tensor a = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 1, 2});
    Tensor b = Tensor::from_vector<float>({1, 0, 1, 1}, {2, 2});
    auto out = n.op().eval(n, {a, b})[0];
    EXPECT_EQ(out.shape(), (Shape{2, 1, 2}));
    EXPECT_EQ(values(out), (std::vector<float>{1, 3, 3, 7}));

    Node m = g.node("MatMul", {g.input(f32, {1, 2, 3}), g.input(f32, {2, 3, 1})}, {});
    Tensor a2 = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {1, 2, 3});
    Tensor b2 = Tensor::from_vector<float>({1, 1, 1, 1, 0, -1}, {2, 3, 1});
    auto out2 = m.op().eval(m, {a2, b2})[0];
    EXPECT_EQ(out2.shape(), (Shape{2, 2, 1}));
    EXPECT_EQ(values(out2), (std::vector<float>{6, 15, -2, -2}));
}

TEST(MatMulOps, EvaluatesTransposedAAndVectors) {
    GraphBuilder g;
    Node n = g.node("MatMul", {g.input(f32, {3, 2}), g.input(f32, {3})}, {{"transpose_a", true}});
    Tensor a = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});  // A^T = [[1, 3, 5], [2, 4, 6]]
    Tensor v = Tensor::from_vector<float>({1, 0, 2}, {3});
    auto out = n.op().eval(n, {a, v})[0];
    EXPECT_EQ(out.shape(), (Shape{2}));
    EXPECT_EQ(values(out), (std::vector<float>{11, 14}));

    Node dot = g.node("MatMul", {g.input(ElementType::i32, {3}), g.input(ElementType::i32, {3})}, {});
    auto d = dot.op().eval(dot, {Tensor::from_vector<int32_t>({1, 2, 3}, {3}), Tensor::from_vector<int32_t>({4, 5, 6}, {3})})[0];
    EXPECT_EQ(d.shape(), Shape{});
    EXPECT_EQ(d.data<int32_t>()[0], 32);
}

TEST(MatMulOps, IntegerProductsWrapLikeTheHardware) {
    GraphBuilder g;
    Node n = g.node("MatMul", {g.input(ElementType::u8, {1, 2}), g.input(ElementType::u8, {2, 1})}, {});
    // 200 * 2 + 100 * 1 = 500 = 244 (mod 256)
    auto out = n.op().eval(n, {Tensor::from_vector<uint8_t>({200, 100}, {1, 2}), Tensor::from_vector<uint8_t>({2, 1}, {2, 1})})[0];
    EXPECT_EQ(out.data<uint8_t>()[0], 244);
}

TEST(MatMulOps, LargeProductMatchesNaiveSum) {
    // Sizes that cross the GEMM block edges (512 columns, 128 depth).
    const int64_t M = 3, K = 130, N = 515;
    std::vector<float> a(M * K), b(K * N);
    for (int64_t i = 0; i < M * K; ++i) a[i] = static_cast<float>(i % 7) - 3;
    for (int64_t i = 0; i < K * N; ++i) b[i] = static_cast<float>(i % 5) - 2;
    GraphBuilder g;
    Node n = g.node("MatMul", {g.input(f32, {M, K}), g.input(f32, {K, N})}, {});
    auto out = n.op().eval(n, {Tensor::from_vector<float>(a, {M, K}), Tensor::from_vector<float>(b, {K, N})})[0];
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; j += 37) {
            float sum = 0;
            for (int64_t k = 0; k < K; ++k) sum += a[i * K + k] * b[k * N + j];
            EXPECT_EQ(out.data<float>()[i * N + j], sum);
        }
}

}  // namespace
}  // namespace mo
