// Internal ops (ONNX semantics): Gemm, Flatten, BatchNormalization, Clip.
#include <gtest/gtest.h>

#include <cmath>

#include "support/graph_builder.hpp"

namespace mo {
namespace {

using test::GraphBuilder;

PartialShape infer_shape(Node n) {
    InferContext c(n);
    n.op().infer(c);
    return n.out(0).shape();
}

std::vector<double> eval(Node n, const std::vector<Tensor>& inputs) {
    auto out = n.op().eval(n, inputs);
    EXPECT_EQ(out.size(), 1u);
    return out.at(0).to_f64();
}

TEST(InternalOps, AreInternal) {
    for (const char* type : {"Gemm", "Flatten", "BatchNormalization", "Clip"}) {
        const OpSchema* op = test::builtin_ops().find(type);
        ASSERT_NE(op, nullptr) << type;
        EXPECT_TRUE(op->is_internal()) << type;
    }
}

TEST(InternalOps, GemmShapes) {
    GraphBuilder b;
    auto a = b.input(ElementType::f32, {Dimension(), 4});
    auto w = b.input(ElementType::f32, {4, 5});
    EXPECT_EQ(infer_shape(b.node("Gemm", {a, w})), (PartialShape{Dimension(), 5}));

    auto at = b.input(ElementType::f32, {4, 3});
    auto wt = b.input(ElementType::f32, {5, Dimension(2, 8)});
    auto c = b.input(ElementType::f32, {5});
    Node g = b.node("Gemm", {at, wt, c}, {{"transA", AttrValue(true)}, {"transB", AttrValue(true)}});
    EXPECT_EQ(infer_shape(g), (PartialShape{3, 5}));

    Node bad = b.node("Gemm", {a, b.input(ElementType::f32, {3, 5})});
    EXPECT_THROW(infer_shape(bad), Error);
    Node bad_rank = b.node("Gemm", {b.input(ElementType::f32, {1, 2, 4}), w});
    EXPECT_THROW(infer_shape(bad_rank), Error);
    Node bad_c = b.node("Gemm", {a, w, b.input(ElementType::f32, {3})});
    EXPECT_THROW(infer_shape(bad_c), Error);
    // C may not grow the output: [1, 4] x [4, 5] gives [1, 5], and C [3, 5] does not fit in it.
    Node grows = b.node("Gemm", {b.input(ElementType::f32, {1, 4}), w, b.input(ElementType::f32, {3, 5})});
    EXPECT_THROW(infer_shape(grows), Error);
    Node refines = b.node("Gemm", {a, w, b.input(ElementType::f32, {7, 1})});
    EXPECT_EQ(infer_shape(refines), (PartialShape{7, 5}));
    // C of unknown rank refines nothing (found by fuzz_onnx: an out_of_range, exit 3).
    Node any_c = b.node("Gemm", {a, w, b.input(ElementType::f32, PartialShape::dynamic_rank())});
    EXPECT_EQ(infer_shape(any_c), (PartialShape{Dimension(), 5}));
}

TEST(InternalOps, GemmEvaluatesAlphaBetaAndTransposes) {
    GraphBuilder b;
    auto a = b.input(ElementType::f32, {2, 2});
    auto w = b.input(ElementType::f32, {2, 2});
    auto c = b.input(ElementType::f32, {2});
    Node g = b.node("Gemm", {a, w, c},
                    {{"alpha", AttrValue(2.0)}, {"beta", AttrValue(0.5)}, {"transA", AttrValue(true)}, {"transB", AttrValue(true)}});
    // A^T = [[1,3],[2,4]], B^T = [[5,7],[6,8]]; A^T B^T = [[23,31],[34,46]]; *2 + 0.5*[10,20].
    auto y = eval(g, {Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}), Tensor::from_vector<float>({5, 6, 7, 8}, {2, 2}),
                      Tensor::from_vector<float>({10, 20}, {2})});
    EXPECT_EQ(y, (std::vector<double>{51, 72, 73, 102}));

    Node plain = b.node("Gemm", {a, w});
    auto z = eval(plain, {Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}), Tensor::from_vector<float>({5, 6, 7, 8}, {2, 2}), Tensor()});
    EXPECT_EQ(z, (std::vector<double>{19, 22, 43, 50}));
}

TEST(InternalOps, FlattenShapes) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2, 3, 4, 5});
    auto flat = [&](OutPort in, int64_t axis) { return infer_shape(b.node("Flatten", {in}, {{"axis", AttrValue(axis)}})); };
    EXPECT_EQ(flat(x, 2), (PartialShape{6, 20}));
    EXPECT_EQ(flat(x, 0), (PartialShape{1, 120}));
    EXPECT_EQ(flat(x, 4), (PartialShape{120, 1}));
    EXPECT_EQ(flat(x, -1), (PartialShape{24, 5}));
    EXPECT_THROW(flat(x, 5), Error);
    auto d = b.input(ElementType::f32, {Dimension(), 3, 4});
    EXPECT_EQ(flat(d, 1), (PartialShape{Dimension(), 12}));
    auto r = b.input(ElementType::f32, PartialShape::dynamic_rank());
    EXPECT_EQ(flat(r, 1), PartialShape::dynamic(2));
}

TEST(InternalOps, FlattenEvaluates) {
    GraphBuilder b;
    Node f = b.node("Flatten", {b.input(ElementType::i32, {2, 1, 3})}, {{"axis", AttrValue(int64_t{2})}});
    auto out = f.op().eval(f, {Tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 1, 3})});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 3}));
    EXPECT_EQ(out.at(0).to_i64(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
    Node empty = b.node("Flatten", {b.input(ElementType::f32, {0, 3, 4})});
    EXPECT_EQ(empty.op().eval(empty, {Tensor::allocate(ElementType::f32, {0, 3, 4})}).at(0).shape(), (Shape{0, 12}));
}

TEST(InternalOps, BatchNormalization) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1, 2, 1, 2});
    auto p = [&] { return b.input(ElementType::f32, {2}); };
    Node bn = b.node("BatchNormalization", {x, p(), p(), p(), p()}, {{"epsilon", AttrValue(0.0)}});
    EXPECT_EQ(infer_shape(bn), (PartialShape{1, 2, 1, 2}));
    // channel 0: (x - 1) / 2 * 3 + 1; channel 1: (x - 0) / 1 * 1 - 2.
    auto y = eval(bn, {Tensor::from_vector<float>({1, 3, 5, 7}, {1, 2, 1, 2}), Tensor::from_vector<float>({3, 1}, {2}),
                       Tensor::from_vector<float>({1, -2}, {2}), Tensor::from_vector<float>({1, 0}, {2}),
                       Tensor::from_vector<float>({4, 1}, {2})});
    EXPECT_EQ(y, (std::vector<double>{1, 4, 3, 5}));

    Node bad = b.node("BatchNormalization", {x, b.input(ElementType::f32, {3}), p(), p(), p()});
    EXPECT_THROW(infer_shape(bad), Error);
}

TEST(InternalOps, Clip) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {4});
    auto lo = b.input(ElementType::f32, {});
    auto hi = b.input(ElementType::f32, {});
    Node both = b.node("Clip", {x, lo, hi});
    EXPECT_EQ(infer_shape(both), (PartialShape{4}));
    Tensor in = Tensor::from_vector<float>({-3, -0.5f, 0.5f, 3}, {4});
    EXPECT_EQ(eval(both, {in, Tensor::scalar<float>(-1), Tensor::scalar<float>(1)}), (std::vector<double>{-1, -0.5, 0.5, 1}));
    Node min_only = b.node("Clip", {x, lo});
    EXPECT_EQ(eval(min_only, {in, Tensor::scalar<float>(0)}), (std::vector<double>{0, 0, 0.5, 3}));
    Node none = b.node("Clip", {x});
    EXPECT_EQ(eval(none, {in}), (std::vector<double>{-3, -0.5, 0.5, 3}));
    Node ints = b.node("Clip", {b.input(ElementType::i32, {3}), b.input(ElementType::i32, {}), b.input(ElementType::i32, {})});
    EXPECT_EQ(eval(ints, {Tensor::from_vector<int32_t>({-7, 2, 9}, {3}), Tensor::scalar<int32_t>(0), Tensor::scalar<int32_t>(5)}),
              (std::vector<double>{0, 2, 5}));
    Node bad = b.node("Clip", {x, b.input(ElementType::f32, {2})});
    EXPECT_THROW(infer_shape(bad), Error);
}

}  // namespace
}  // namespace mo
