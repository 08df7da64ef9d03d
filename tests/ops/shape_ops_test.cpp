// Tests for the shape-manipulation ops (ops/shape_ops*.cpp): shape inference on static and
// partial shapes, partial-value propagation through shape sub-graphs, and evaluation against
// hand-computed values and the OpenVINO / ONNX spec examples.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "ops/shape_ops_common.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {

// gtest printer: shapes in their IR spelling.
[[maybe_unused]] static void PrintTo(const PartialShape& s, std::ostream* os) { *os << "[" << s.to_string() << "]"; }

namespace {

using test::GraphBuilder;
using I64 = std::vector<int64_t>;
using F32 = std::vector<float>;
const ElementType f32 = ElementType::f32, i64 = ElementType::i64, i32 = ElementType::i32;
const Dimension dyn = Dimension::dynamic();

// Infers every node in order and folds nodes whose inputs are all constant, like the
// partial-inference pass does.
void run(Graph& g) {
    for (Node n : g.topological_order()) {
        if (n.is("Constant")) continue;
        InferContext c(n);
        n.op().infer(c);
        if (!n.op().eval || n.input_count() == 0) continue;
        std::vector<Tensor> inputs;
        bool all_known = true;
        for (size_t i = 0; i < n.input_count(); ++i) {
            const Tensor* v = n.in(i).connected() ? n.in(i).value() : nullptr;
            if (n.in(i).connected() && !v) all_known = false;
            inputs.push_back(v ? *v : Tensor());
        }
        if (!all_known) continue;
        auto outs = n.op().eval(n, inputs);
        EXPECT_EQ(outs.size(), n.output_count());
        for (size_t j = 0; j < outs.size() && j < n.output_count(); ++j) {
            // Evaluation must agree with shape inference (a concrete shape within the inferred one).
            const PartialShape& inferred = n.out(j).shape();
            const Shape& actual = outs[j].shape();
            EXPECT_TRUE(inferred.rank_is_static() && inferred.rank() == actual.size()) << n.describe();
            for (size_t d = 0; d < actual.size() && d < inferred.rank(); ++d)
                EXPECT_TRUE(inferred[d].compatible(actual[d])) << n.describe() << " dim " << d;
            EXPECT_EQ(outs[j].type(), n.out(j).type()) << n.describe();
            n.out(j).set_value(outs[j]);
        }
    }
}

template <typename T>
std::vector<T> values(const OutPort& p) {
    const Tensor* t = p.value();
    EXPECT_NE(t, nullptr);
    if (!t) return {};
    EXPECT_EQ(t->type(), element_type_of<T>());
    return std::vector<T>(t->data<T>(), t->data<T>() + t->size());
}

Shape shape_of_value(const OutPort& p) { return p.value() ? p.value()->shape() : Shape{-1}; }

AttrMap attrs(std::initializer_list<std::pair<const std::string, AttrValue>> l) { return AttrMap(l); }

F32 iota_f(size_t n) {
    F32 v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
    return v;
}
I64 iota_i(size_t n) {
    I64 v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(i);
    return v;
}

// ---- Reshape ----------------------------------------------------------------------------------

TEST(ShapeOpsReshape, SpecialZeroAndMinusOne) {
    GraphBuilder b;
    auto x = b.input(f32, {2, 3, 4});
    auto copy = b.op("Reshape", {x, b.constant<int64_t>({0, -1}, {2})}, attrs({{"special_zero", true}}));
    auto zero = b.op("Reshape", {b.constant<float>({}, {0, 3}), b.constant<int64_t>({0, -1, 3}, {3})}, attrs({{"special_zero", false}}));
    run(b.graph());
    EXPECT_EQ(copy.shape(), (PartialShape{2, 12}));
    // Without special_zero, 0 is a real zero-length dim; -1 then covers 0 elements of 3.
    EXPECT_EQ(zero.shape(), (PartialShape{0, 0, 3}));
}

TEST(ShapeOpsReshape, DynamicBatch) {
    GraphBuilder b;
    auto x = b.input(f32, {dyn, 3, 4});
    auto flat = b.op("Reshape", {x, b.constant<int64_t>({0, -1}, {2})}, attrs({{"special_zero", true}}));
    auto tail = b.op("Reshape", {x, b.constant<int64_t>({-1, 4}, {2})}, attrs({{"special_zero", false}}));
    auto shape = b.input(i64, {3});
    auto runtime = b.op("Reshape", {x, shape}, attrs({{"special_zero", false}}));
    run(b.graph());
    EXPECT_EQ(flat.shape(), (PartialShape{dyn, 12}));
    EXPECT_EQ(tail.shape(), (PartialShape{dyn, 4}));
    EXPECT_EQ(runtime.shape(), PartialShape::dynamic(3));  // rank from the shape input's length
}

TEST(ShapeOpsReshape, RejectsBadTargets) {
    GraphBuilder b;
    auto x = b.input(f32, {2, 3});
    auto two_minus = b.node("Reshape", {x, b.constant<int64_t>({-1, -1}, {2})}, attrs({{"special_zero", false}}));
    auto mismatch = b.node("Reshape", {x, b.constant<int64_t>({4, -1}, {2})}, attrs({{"special_zero", false}}));
    InferContext c1(two_minus), c2(mismatch);
    EXPECT_THROW(two_minus.op().infer(c1), Error);
    EXPECT_THROW(mismatch.op().infer(c2), Error);
}

TEST(ShapeOpsReshape, EvaluatesKeepingValues) {
    GraphBuilder b;
    auto y = b.op("Reshape", {b.constant<int64_t>(iota_i(6), {2, 3}), b.constant<int64_t>({3, -1}, {2})}, attrs({{"special_zero", false}}));
    run(b.graph());
    EXPECT_EQ(shape_of_value(y), (Shape{3, 2}));
    EXPECT_EQ(values<int64_t>(y), iota_i(6));
}

// The BERT pattern: the target shape is computed from ShapeOf of a tensor with a dynamic batch.
TEST(ShapeOpsPartialValue, ShapeOfGatherConcatReshape) {
    GraphBuilder b;
    auto x = b.input(f32, {dyn, 128, 768});
    auto s = b.op("ShapeOf", {x});
    auto batch = b.op("Gather", {s, b.constant<int64_t>({0}, {}), b.constant<int64_t>({0}, {})});
    auto batch1 = b.op("Unsqueeze", {batch, b.constant<int64_t>({0}, {1})});
    auto seq = b.op("Gather", {s, b.constant<int64_t>({1}, {1}), b.constant<int64_t>({0}, {})});
    auto target = b.op("Concat", {batch1, seq, b.constant<int64_t>({12, 64}, {2})}, attrs({{"axis", int64_t{0}}}));
    auto y = b.op("Reshape", {x, target}, attrs({{"special_zero", false}}));
    run(b.graph());
    EXPECT_EQ(s.shape(), (PartialShape{3}));
    EXPECT_EQ(batch.shape(), PartialShape{});
    EXPECT_EQ(target.shape(), (PartialShape{4}));
    EXPECT_EQ(target.value(), nullptr);  // not constant...
    EXPECT_EQ(y.shape(), (PartialShape{dyn, 128, 12, 64}));  // ...but its static elements are known
    auto bounds = shape_ops::value_bounds(target);
    ASSERT_TRUE(bounds.has_value());
    EXPECT_EQ(PartialShape(*bounds), (PartialShape{dyn, 128, 12, 64}));
}

TEST(ShapeOpsPartialValue, ArithmeticAndSliceOnShapes) {
    GraphBuilder b;
    auto x = b.input(f32, {dyn, 128, 12, 64});
    auto s = b.op("ShapeOf", {x});
    auto head = b.op("Slice", {s, b.constant<int64_t>({0}, {1}), b.constant<int64_t>({2}, {1}), b.constant<int64_t>({1}, {1})});
    auto tail = b.op("StridedSlice", {s, b.constant<int64_t>({2}, {1}), b.constant<int64_t>({0}, {1}), b.constant<int64_t>({1}, {1})},
                     attrs({{"begin_mask", I64{0}}, {"end_mask", I64{1}}}));
    auto target = b.op("Concat", {head, b.constant<int64_t>({768}, {1})}, attrs({{"axis", int64_t{0}}}));
    auto y = b.op("Reshape", {x, target}, attrs({{"special_zero", false}}));
    run(b.graph());
    EXPECT_EQ(y.shape(), (PartialShape{dyn, 128, 768}));
    auto tail_bounds = shape_ops::value_bounds(tail);
    ASSERT_TRUE(tail_bounds.has_value());
    EXPECT_EQ(PartialShape(*tail_bounds), (PartialShape{12, 64}));
}

// Merging heads: [B, S, H, D] -> [B, S, H * D] with H * D computed from the shape.
TEST(ShapeOpsPartialValue, ArithmeticOnShapeElements) {
    GraphBuilder b;
    auto x = b.input(f32, {dyn, 128, 12, 64});
    auto s = b.op("ShapeOf", {x});
    auto lead = b.op("Gather", {s, b.constant<int64_t>({0, 1}, {2}), b.constant<int64_t>({0}, {})});
    auto heads = b.op("Gather", {s, b.constant<int64_t>({2}, {1}), b.constant<int64_t>({0}, {})});
    auto width = b.op("Gather", {s, b.constant<int64_t>({3}, {1}), b.constant<int64_t>({0}, {})});
    auto hidden = b.op("Multiply", {heads, width}, attrs({{"auto_broadcast", std::string("numpy")}}));
    auto target = b.op("Concat", {lead, hidden}, attrs({{"axis", int64_t{0}}}));
    auto y = b.op("Reshape", {x, target}, attrs({{"special_zero", false}}));
    run(b.graph());
    EXPECT_EQ(y.shape(), (PartialShape{dyn, 128, 768}));
}

// The TensorFlow spelling of shape[0]: StridedSlice with shrink_axis_mask.
TEST(ShapeOpsPartialValue, StridedSliceShrinkOfShape) {
    GraphBuilder b;
    auto x = b.input(f32, {dyn, 7, 3});
    auto s = b.op("ShapeOf", {x});
    auto last = b.op("StridedSlice", {s, b.constant<int64_t>({-1}, {1}), b.constant<int64_t>({0}, {1}), b.constant<int64_t>({1}, {1})},
                     attrs({{"begin_mask", I64{0}}, {"end_mask", I64{0}}, {"shrink_axis_mask", I64{1}}}));
    auto target = b.op("Concat", {b.constant<int64_t>({-1}, {1}), b.op("Unsqueeze", {last, b.constant<int64_t>({0}, {1})})},
                       attrs({{"axis", int64_t{0}}}));
    auto y = b.op("Reshape", {x, target}, attrs({{"special_zero", false}}));
    run(b.graph());
    EXPECT_EQ(last.shape(), PartialShape{});
    EXPECT_EQ(y.shape(), (PartialShape{dyn, 3}));
    auto bounds = shape_ops::value_bounds(last);
    ASSERT_TRUE(bounds.has_value());
    EXPECT_EQ(PartialShape(*bounds), (PartialShape{3}));
}

// Reshape(x, [ShapeOf(x)[0], -1, 64]): the dynamic batch cancels, so -1 is static.
TEST(ShapeOpsPartialValue, MinusOneCancelsDimsFromShapeOf) {
    GraphBuilder b;
    auto x = b.input(f32, {dyn, 128, 768});
    auto other = b.input(f32, {dyn, 5});
    auto batch = b.op("Gather", {b.op("ShapeOf", {x}), b.constant<int64_t>({0}, {1}), b.constant<int64_t>({0}, {})});
    auto foreign = b.op("Gather", {b.op("ShapeOf", {other}), b.constant<int64_t>({0}, {1}), b.constant<int64_t>({0}, {})});
    auto same = b.op("Reshape", {x, b.op("Concat", {batch, b.constant<int64_t>({-1, 64}, {2})}, attrs({{"axis", int64_t{0}}}))},
                     attrs({{"special_zero", false}}));
    auto different = b.op("Reshape", {x, b.op("Concat", {foreign, b.constant<int64_t>({-1, 64}, {2})}, attrs({{"axis", int64_t{0}}}))},
                          attrs({{"special_zero", false}}));
    run(b.graph());
    EXPECT_EQ(same.shape(), (PartialShape{dyn, 1536, 64}));
    EXPECT_EQ(different.shape(), (PartialShape{dyn, dyn, 64}));  // another tensor's batch: nothing cancels
}

// ---- Squeeze / Unsqueeze ----------------------------------------------------------------------

TEST(ShapeOpsSqueeze, WithAndWithoutAxes) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 3, 1, 4});
    auto all = b.op("Squeeze", {x});
    auto one = b.op("Squeeze", {x, b.constant<int64_t>({-2}, {1})});
    auto d = b.input(f32, {dyn, 3, 1});
    auto unknown_rank = b.op("Squeeze", {d});
    auto explicit_dyn = b.op("Squeeze", {d, b.constant<int64_t>({0, 2}, {2})});
    run(b.graph());
    EXPECT_EQ(all.shape(), (PartialShape{3, 4}));
    EXPECT_EQ(one.shape(), (PartialShape{1, 3, 4}));
    EXPECT_FALSE(unknown_rank.shape().rank_is_static());  // the dynamic dim may or may not be 1
    EXPECT_EQ(explicit_dyn.shape(), (PartialShape{3}));
}

TEST(ShapeOpsSqueeze, KeepsNonUnitAxisAndRejectsBadAxis) {
    GraphBuilder b;
    auto kept = b.op("Squeeze", {b.input(f32, {2, 1, 3}), b.constant<int64_t>({0, 1}, {2})});
    auto n = b.node("Squeeze", {b.input(f32, {2, 3}), b.constant<int64_t>({2}, {1})});
    InferContext c(kept.node()), bad(n);
    kept.node().op().infer(c);
    EXPECT_EQ(kept.shape(), (PartialShape{2, 3}));  // axis 0 (size 2) is ignored, per the spec
    EXPECT_THROW(n.op().infer(bad), Error);
}

TEST(ShapeOpsSqueeze, EvaluatesInt64) {
    GraphBuilder b;
    auto y = b.op("Squeeze", {b.constant<int64_t>({7, 8, 9}, {1, 3, 1})});
    run(b.graph());
    EXPECT_EQ(shape_of_value(y), (Shape{3}));
    EXPECT_EQ(values<int64_t>(y), (I64{7, 8, 9}));
}

TEST(ShapeOpsUnsqueeze, SpecExample) {
    GraphBuilder b;
    auto y = b.op("Unsqueeze", {b.input(f32, {2, 3}), b.constant<int64_t>({0, 3}, {2})});
    auto neg = b.op("Unsqueeze", {b.input(f32, {dyn, 3}), b.constant<int64_t>({-1}, {1})});
    auto scalar = b.op("Unsqueeze", {b.constant<float>({5.f}, {}), b.constant<int64_t>({0}, {1})});
    run(b.graph());
    EXPECT_EQ(y.shape(), (PartialShape{1, 2, 3, 1}));
    EXPECT_EQ(neg.shape(), (PartialShape{dyn, 3, 1}));
    EXPECT_EQ(values<float>(scalar), (F32{5.f}));
    EXPECT_EQ(shape_of_value(scalar), (Shape{1}));
}

// ---- ShapeOf --------------------------------------------------------------------------------

TEST(ShapeOpsShapeOf, TypesAndValues) {
    GraphBuilder b;
    auto d = b.op("ShapeOf", {b.input(f32, {dyn, 3})});
    auto r = b.op("ShapeOf", {b.input(f32, PartialShape::dynamic_rank())}, attrs({{"output_type", i32}}));
    auto v = b.op("ShapeOf", {b.constant<float>(iota_f(6), {2, 1, 3})}, attrs({{"output_type", i32}}));
    run(b.graph());
    EXPECT_EQ(d.shape(), (PartialShape{2}));
    EXPECT_EQ(d.type(), i64);
    EXPECT_EQ(r.shape(), (PartialShape{dyn}));
    EXPECT_EQ(r.type(), i32);
    EXPECT_EQ(values<int32_t>(v), (std::vector<int32_t>{2, 1, 3}));
}

// ---- Transpose --------------------------------------------------------------------------------

TEST(ShapeOpsTranspose, ShapesAndValues) {
    GraphBuilder b;
    auto p = b.op("Transpose", {b.input(f32, {dyn, 3, 4}), b.constant<int64_t>({2, 0, 1}, {3})});
    auto rev = b.op("Transpose", {b.input(f32, {2, 3, 4}), b.constant<int64_t>({}, {0})});
    auto v = b.op("Transpose", {b.constant<float>(iota_f(6), {2, 3}), b.constant<int64_t>({1, 0}, {2})});
    auto v3 = b.op("Transpose", {b.constant<int64_t>(iota_i(8), {2, 2, 2}), b.constant<int64_t>({}, {0})});
    run(b.graph());
    EXPECT_EQ(p.shape(), (PartialShape{4, dyn, 3}));
    EXPECT_EQ(rev.shape(), (PartialShape{4, 3, 2}));
    EXPECT_EQ(values<float>(v), (F32{0, 3, 1, 4, 2, 5}));
    // Reversing axes of [2,2,2]: out[i][j][k] = in[k][j][i].
    EXPECT_EQ(values<int64_t>(v3), (I64{0, 4, 2, 6, 1, 5, 3, 7}));
}

// A 3-D permutation checked element by element against direct indexing; also 2-byte (f16)
// and boolean elements, which move as raw bytes.
TEST(ShapeOpsTranspose, MatchesDirectIndexingForAllWidths) {
    GraphBuilder b;
    auto x = b.constant<int64_t>(iota_i(60), {3, 4, 5});
    auto y = b.op("Transpose", {x, b.constant<int64_t>({1, 2, 0}, {3})});
    auto h = b.op("Transpose", {b.graph().add_constant("h", Tensor::from_vector<float>(iota_f(6), {2, 3}).convert(ElementType::f16)).out(0),
                                b.constant<int64_t>({1, 0}, {2})});
    auto flags = b.op("Transpose", {b.constant<bool>({true, false, false, true, true, false}, {3, 2}), b.constant<int64_t>({1, 0}, {2})});
    run(b.graph());
    ASSERT_EQ(shape_of_value(y), (Shape{4, 5, 3}));
    auto out = values<int64_t>(y);
    for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 5; ++j)
            for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(out[(i * 5 + j) * 3 + k], k * 20 + i * 5 + j);
    ASSERT_NE(h.value(), nullptr);
    EXPECT_EQ(h.value()->type(), ElementType::f16);
    EXPECT_EQ(h.value()->to_f64(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
    EXPECT_EQ(flags.value()->to_i64(), (I64{1, 0, 1, 0, 1, 0}));
}

TEST(ShapeOpsTranspose, RejectsBadOrder) {
    GraphBuilder b;
    auto n = b.node("Transpose", {b.input(f32, {2, 3}), b.constant<int64_t>({0, 0}, {2})});
    InferContext c(n);
    EXPECT_THROW(n.op().infer(c), Error);
}

// ---- Concat -----------------------------------------------------------------------------------

TEST(ShapeOpsConcat, NegativeAxisAndDynamicDims) {
    GraphBuilder b;
    auto y = b.op("Concat", {b.input(f32, {dyn, 2}), b.input(f32, {4, 3}), b.input(f32, {dyn, Dimension(1, 5)})},
                  attrs({{"axis", int64_t{-1}}}));
    auto v = b.op("Concat", {b.constant<int64_t>({1, 2}, {1, 2}), b.constant<int64_t>({3, 4, 5, 6}, {2, 2})}, attrs({{"axis", int64_t{0}}}));
    auto w = b.op("Concat", {b.constant<float>({1, 2}, {2, 1}), b.constant<float>({3, 4, 5, 6}, {2, 2})}, attrs({{"axis", int64_t{1}}}));
    run(b.graph());
    EXPECT_EQ(y.shape(), (PartialShape{4, Dimension(6, 10)}));
    EXPECT_EQ(values<int64_t>(v), (I64{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(shape_of_value(v), (Shape{3, 2}));
    EXPECT_EQ(values<float>(w), (F32{1, 3, 4, 2, 5, 6}));
}

TEST(ShapeOpsConcat, RejectsMismatch) {
    GraphBuilder b;
    auto n = b.node("Concat", {b.input(f32, {2, 3}), b.input(f32, {2, 4})}, attrs({{"axis", int64_t{0}}}));
    InferContext c(n);
    EXPECT_THROW(n.op().infer(c), Error);
}

// ---- Split / VariadicSplit ----------------------------------------------------------------------

TEST(ShapeOpsSplit, EqualParts) {
    GraphBuilder b;
    Node n = b.node("Split", {b.constant<float>(iota_f(12), {6, 2}), b.constant<int64_t>({0}, {})}, attrs({{"num_splits", int64_t{3}}}));
    n.set_output_count(3);
    Node d = b.node("Split", {b.input(f32, {dyn, 8}), b.constant<int64_t>({-1}, {})}, attrs({{"num_splits", int64_t{2}}}));
    d.set_output_count(2);
    run(b.graph());
    EXPECT_EQ(n.out(1).shape(), (PartialShape{2, 2}));
    EXPECT_EQ(values<float>(n.out(0)), (F32{0, 1, 2, 3}));
    EXPECT_EQ(values<float>(n.out(2)), (F32{8, 9, 10, 11}));
    EXPECT_EQ(d.out(1).shape(), (PartialShape{dyn, 4}));
}

TEST(ShapeOpsSplit, VariadicWithMinusOne) {
    GraphBuilder b;
    Node n = b.node("VariadicSplit", {b.constant<int64_t>(iota_i(10), {2, 5}), b.constant<int64_t>({1}, {}), b.constant<int64_t>({-1, 2}, {2})});
    n.set_output_count(2);
    Node d = b.node("VariadicSplit", {b.input(f32, {dyn, 5}), b.constant<int64_t>({0}, {}), b.constant<int64_t>({2, -1}, {2})});
    d.set_output_count(2);
    run(b.graph());
    EXPECT_EQ(n.out(0).shape(), (PartialShape{2, 3}));
    EXPECT_EQ(values<int64_t>(n.out(0)), (I64{0, 1, 2, 5, 6, 7}));
    EXPECT_EQ(values<int64_t>(n.out(1)), (I64{3, 4, 8, 9}));
    EXPECT_EQ(d.out(0).shape(), (PartialShape{2, 5}));
    EXPECT_EQ(d.out(1).shape(), (PartialShape{dyn, 5}));
}

// Found by an audit of mo-run: lengths known only at run time returned more outputs than the
// node has (an internal error).
TEST(ShapeOpsSplit, VariadicLengthsMustMatchTheOutputs) {
    GraphBuilder b;
    Node n = b.node("VariadicSplit", {b.input(f32, {6}), b.constant<int64_t>({0}, {}), b.input(ElementType::i64, {3})});
    n.set_output_count(2);
    test::expect_error([&] { run(b.graph()); }, {"2 outputs", "split_lengths holds 3 values"});

    GraphBuilder d;
    Node m = d.node("VariadicSplit", {d.input(f32, {6}), d.constant<int64_t>({0}, {}), d.input(ElementType::i64, {dyn})});
    m.set_output_count(2);
    run(d.graph());
    test::expect_error([&] { m.op().eval(m, {test::f32({1, 2, 3, 4, 5, 6}, {6}), Tensor::scalar<int64_t>(0),
                                             Tensor::from_vector<int64_t>({1, 2, 3}, {3})}); },
                       "split_lengths holds 3 values");
}

// ---- StridedSlice -----------------------------------------------------------------------------

OutPort strided(GraphBuilder& b, OutPort x, I64 begin, I64 end, I64 stride, AttrMap a) {
    const auto n = static_cast<int64_t>(begin.size());
    return b.op("StridedSlice", {x, b.constant<int64_t>(begin, {n}), b.constant<int64_t>(end, {n}), b.constant<int64_t>(stride, {n})}, a);
}

TEST(ShapeOpsStridedSlice, Masks) {
    GraphBuilder b;
    auto x = b.input(f32, {2, 3, 4});
    // begin_mask/end_mask: axis 0 whole; axis 1 is [1:3].
    auto masked = strided(b, x, {5, 1}, {0, 3}, {1, 1}, attrs({{"begin_mask", I64{1, 0}}, {"end_mask", I64{1, 0}}}));
    auto shrink = strided(b, x, {1}, {2}, {1}, attrs({{"begin_mask", I64{0}}, {"end_mask", I64{0}}, {"shrink_axis_mask", I64{1}}}));
    auto new_axis = strided(b, x, {0, 0}, {0, 0}, {1, 1},
                            attrs({{"begin_mask", I64{0, 1}}, {"end_mask", I64{0, 1}}, {"new_axis_mask", I64{1, 0}}}));
    auto ellipsis = strided(b, x, {0, 1}, {0, 4}, {1, 2}, attrs({{"begin_mask", I64{0, 0}}, {"end_mask", I64{0, 0}}, {"ellipsis_mask", I64{1, 0}}}));
    auto reversed = strided(b, x, {-1}, {0}, {-1}, attrs({{"begin_mask", I64{0}}, {"end_mask", I64{1}}}));
    auto dynamic = strided(b, b.input(f32, {dyn, 10}), {0, 2}, {0, -2}, {1, 1}, attrs({{"begin_mask", I64{1, 0}}, {"end_mask", I64{1, 0}}}));
    run(b.graph());
    EXPECT_EQ(masked.shape(), (PartialShape{2, 2, 4}));
    EXPECT_EQ(shrink.shape(), (PartialShape{3, 4}));
    EXPECT_EQ(new_axis.shape(), (PartialShape{1, 2, 3, 4}));
    EXPECT_EQ(ellipsis.shape(), (PartialShape{2, 3, 2}));
    EXPECT_EQ(reversed.shape(), (PartialShape{2, 3, 4}));
    EXPECT_EQ(dynamic.shape(), (PartialShape{dyn, 6}));
}

TEST(ShapeOpsStridedSlice, Evaluates) {
    GraphBuilder b;
    auto x = b.constant<int64_t>(iota_i(12), {3, 4});
    // Rows 2,0 (reverse with stride 2), columns 1..2.
    auto rows = strided(b, x, {-1, 1}, {0, 3}, {-2, 1}, attrs({{"begin_mask", I64{0, 0}}, {"end_mask", I64{1, 0}}}));
    // x[1] (shrink) then every second column.
    auto row = strided(b, x, {1, 0}, {2, 4}, {1, 2}, attrs({{"begin_mask", I64{0, 0}}, {"end_mask", I64{0, 0}}, {"shrink_axis_mask", I64{1, 0}}}));
    auto f = strided(b, b.constant<float>(iota_f(6), {6}), {1}, {100}, {2}, attrs({{"begin_mask", I64{0}}, {"end_mask", I64{0}}}));
    run(b.graph());
    EXPECT_EQ(shape_of_value(rows), (Shape{2, 2}));
    EXPECT_EQ(values<int64_t>(rows), (I64{9, 10, 1, 2}));
    EXPECT_EQ(shape_of_value(row), (Shape{2}));
    EXPECT_EQ(values<int64_t>(row), (I64{4, 6}));
    EXPECT_EQ(values<float>(f), (F32{1, 3, 5}));
}

// ---- Slice ------------------------------------------------------------------------------------

OutPort slice(GraphBuilder& b, OutPort x, I64 start, I64 stop, I64 step, std::optional<I64> axes = std::nullopt) {
    const auto n = static_cast<int64_t>(start.size());
    std::vector<OutPort> in{x, b.constant<int64_t>(start, {n}), b.constant<int64_t>(stop, {n}), b.constant<int64_t>(step, {n})};
    if (axes) in.push_back(b.constant<int64_t>(*axes, {n}));
    return b.op("Slice", in);
}

TEST(ShapeOpsSlice, NegativeStepAndClamping) {
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
    GraphBuilder b;
    auto x = b.constant<float>(iota_f(10), {10});
    auto back = slice(b, x, {-1}, {kMin}, {-2});     // 9, 7, 5, 3, 1
    auto all = slice(b, x, {-100}, {100}, {1});      // clamped to the whole axis
    auto none = slice(b, x, {8}, {2}, {1});          // empty
    auto tail = slice(b, x, {-3}, {kMax}, {1});      // 7, 8, 9
    auto down = slice(b, x, {100}, {-100}, {-3});    // from 9 down: 9, 6, 3, 0
    run(b.graph());
    EXPECT_EQ(values<float>(back), (F32{9, 7, 5, 3, 1}));
    EXPECT_EQ(values<float>(all), iota_f(10));
    EXPECT_EQ(shape_of_value(none), (Shape{0}));
    EXPECT_EQ(values<float>(tail), (F32{7, 8, 9}));
    EXPECT_EQ(values<float>(down), (F32{9, 6, 3, 0}));
}

TEST(ShapeOpsSlice, AxesAndDynamicDims) {
    GraphBuilder b;
    auto m = b.constant<int64_t>(iota_i(12), {3, 4});
    auto cols = slice(b, m, {3}, {0}, {-2}, I64{-1});  // columns 3, 1
    auto x = b.input(f32, {dyn, 10, Dimension(2, 8)});
    auto s1 = slice(b, x, {0, 2}, {3, 20}, {1, 1}, I64{0, 1});
    auto s2 = slice(b, x, {1}, {-1}, {1}, I64{2});
    auto s3 = slice(b, x, {-5}, {3}, {1}, I64{0});  // mixed signs on a dynamic dim: unknown
    run(b.graph());
    EXPECT_EQ(shape_of_value(cols), (Shape{3, 2}));
    EXPECT_EQ(values<int64_t>(cols), (I64{3, 1, 7, 5, 11, 9}));
    EXPECT_EQ(s1.shape(), (PartialShape{Dimension(0, 3), 8, Dimension(2, 8)}));
    EXPECT_EQ(s2.shape(), (PartialShape{dyn, 10, Dimension(0, 6)}));
    EXPECT_EQ(s3.shape(), (PartialShape{dyn, 10, Dimension(2, 8)}));
}

// position_ids[:, :seq_len] with seq_len = ShapeOf(input_ids)[1].
TEST(ShapeOpsSlice, StopFromShapeOf) {
    GraphBuilder b;
    auto positions = b.constant<int64_t>(iota_i(512), {1, 512});
    auto stat = b.input(i64, {dyn, 128});
    auto ranged = b.input(i64, {dyn, Dimension(1, 600)});
    auto stop_of = [&](OutPort ids) {
        return b.op("Unsqueeze", {b.op("Gather", {b.op("ShapeOf", {ids}), b.constant<int64_t>({1}, {}), b.constant<int64_t>({0}, {})}),
                                  b.constant<int64_t>({0}, {1})});
    };
    auto s1 = b.op("Slice", {positions, b.constant<int64_t>({0}, {1}), stop_of(stat), b.constant<int64_t>({1}, {1}), b.constant<int64_t>({1}, {1})});
    auto s2 = b.op("Slice", {positions, b.constant<int64_t>({0}, {1}), stop_of(ranged), b.constant<int64_t>({1}, {1}), b.constant<int64_t>({1}, {1})});
    run(b.graph());
    EXPECT_EQ(s1.shape(), (PartialShape{1, 128}));
    EXPECT_EQ(s2.shape(), (PartialShape{1, Dimension(1, 512)}));
}

TEST(ShapeOpsSlice, RejectsZeroStep) {
    GraphBuilder b;
    auto y = slice(b, b.input(f32, {4}), {0}, {4}, {0});
    InferContext c(y.node());
    EXPECT_THROW(y.node().op().infer(c), Error);
}

// ---- Gather family ----------------------------------------------------------------------------

OutPort gather(GraphBuilder& b, OutPort data, OutPort indices, int64_t axis, int64_t batch_dims = 0) {
    return b.op("Gather", {data, indices, b.constant<int64_t>({axis}, {})}, attrs({{"batch_dims", batch_dims}}));
}

TEST(ShapeOpsGather, SpecExamples) {
    GraphBuilder b;
    auto data = b.constant<float>({1, 2, 3, 4, 5}, {5});
    auto e1 = gather(b, data, b.constant<int64_t>({0, 0, 4}, {3}), 0);
    auto e6 = gather(b, data, b.constant<int64_t>({0, -2, -1}, {3}), 0);
    auto e7 = gather(b, data, b.constant<int64_t>({3, 10, -20}, {3}), 0);
    auto batched = b.constant<int64_t>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {2, 5});
    auto e2 = gather(b, batched, b.constant<int64_t>({0, 0, 4, 4, 0, 0}, {2, 3}), 1, 1);
    auto e5 = gather(b, batched, b.constant<int64_t>({0, 0, 4, 4, 0, 0}, {2, 3}), 1, -1);
    auto scalar = gather(b, batched, b.constant<int32_t>({1}, {}), 0);
    run(b.graph());
    EXPECT_EQ(values<float>(e1), (F32{1, 1, 5}));
    EXPECT_EQ(values<float>(e6), (F32{1, 4, 5}));
    EXPECT_EQ(values<float>(e7), (F32{4, 0, 0}));
    EXPECT_EQ(values<int64_t>(e2), (I64{1, 1, 5, 10, 6, 6}));
    EXPECT_EQ(shape_of_value(e2), (Shape{2, 3}));
    EXPECT_EQ(values<int64_t>(e5), (I64{1, 1, 5, 10, 6, 6}));
    EXPECT_EQ(values<int64_t>(scalar), (I64{6, 7, 8, 9, 10}));
    EXPECT_EQ(shape_of_value(scalar), (Shape{5}));
}

TEST(ShapeOpsGather, ShapesWithBatchDims) {
    GraphBuilder b;
    // The spec's IR example: data [2,64,128], indices [2,32,21], axis 1, batch_dims 1.
    auto y = gather(b, b.input(f32, {2, 64, 128}), b.input(i64, {2, 32, 21}), 1, 1);
    // Spec example 4: axis 2 > batch_dims 1.
    auto e4 = gather(b, b.input(f32, {dyn, 1, 5, 4}), b.input(i64, {2, 3}), 2, 1);
    auto d = gather(b, b.input(f32, {dyn, 768}), b.input(i32, {dyn, 128}), 0);
    run(b.graph());
    EXPECT_EQ(y.shape(), (PartialShape{2, 32, 21, 128}));
    EXPECT_EQ(e4.shape(), (PartialShape{2, 1, 3, 4}));
    EXPECT_EQ(d.shape(), (PartialShape{dyn, 128, 768}));
}

TEST(ShapeOpsGather, BatchDimsAboveAxisFails) {
    GraphBuilder b;
    auto y = gather(b, b.input(f32, {2, 3}), b.input(i64, {2, 3}), 0, 1);
    InferContext c(y.node());
    EXPECT_THROW(y.node().op().infer(c), Error);
}

TEST(ShapeOpsGather, Elements) {
    GraphBuilder b;
    // ONNX GatherElements example: axis 1.
    auto y = b.op("GatherElements", {b.constant<float>({1, 2, 3, 4}, {2, 2}), b.constant<int64_t>({0, 0, 1, 0}, {2, 2})},
                  attrs({{"axis", int64_t{1}}}));
    auto z = b.op("GatherElements", {b.constant<int64_t>(iota_i(9), {3, 3}), b.constant<int32_t>({1, 2, 0, 2, 0, -3}, {2, 3})},
                  attrs({{"axis", int64_t{0}}}));
    auto s = b.op("GatherElements", {b.input(f32, {dyn, 4}), b.input(i64, {3, dyn})}, attrs({{"axis", int64_t{0}}}));
    run(b.graph());
    EXPECT_EQ(values<float>(y), (F32{1, 1, 4, 3}));
    // out[i][j] = data[idx[i][j]][j].
    EXPECT_EQ(values<int64_t>(z), (I64{3, 7, 2, 6, 1, 2}));
    EXPECT_EQ(s.shape(), (PartialShape{3, 4}));
}

TEST(ShapeOpsGather, ND) {
    GraphBuilder b;
    auto data = b.constant<int64_t>({1, 2, 3, 4}, {2, 2});
    auto points = b.op("GatherND", {data, b.constant<int64_t>({0, 0, 1, 1}, {2, 2})});
    auto rows = b.op("GatherND", {data, b.constant<int64_t>({1, 0}, {2, 1})});
    // Spec example with batch_dims = 1.
    auto batched = b.op("GatherND", {b.constant<float>(F32{1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}), b.constant<int64_t>({1, 0}, {2, 1})},
                        attrs({{"batch_dims", int64_t{1}}}));
    auto shape = b.op("GatherND", {b.input(f32, {dyn, 5, 6, 7}), b.input(i64, {dyn, 4, 2})}, attrs({{"batch_dims", int64_t{1}}}));
    run(b.graph());
    EXPECT_EQ(values<int64_t>(points), (I64{1, 4}));
    EXPECT_EQ(values<int64_t>(rows), (I64{3, 4, 1, 2}));
    EXPECT_EQ(shape_of_value(rows), (Shape{2, 2}));
    EXPECT_EQ(values<float>(batched), (F32{3, 4, 5, 6}));
    EXPECT_EQ(shape_of_value(batched), (Shape{2, 2}));
    EXPECT_EQ(shape.shape(), (PartialShape{dyn, 4, 7}));
}

// ---- Broadcast / Tile ---------------------------------------------------------------------------

TEST(ShapeOpsBroadcast, ModesFromSpec) {
    GraphBuilder b;
    auto data = b.input(f32, {16, 1, 1});
    auto numpy = b.op("Broadcast", {data, b.constant<int64_t>({1, 16, 50, 50}, {4})});
    auto expl = b.op("Broadcast", {b.input(f32, {16}), b.constant<int64_t>({1, 16, 50, 50}, {4}), b.constant<int64_t>({1}, {1})},
                     attrs({{"mode", std::string("explicit")}}));
    auto expl2 = b.op("Broadcast", {b.input(f32, {50, 50}), b.constant<int64_t>({1, 50, 50, 16}, {4}), b.constant<int64_t>({1, 2}, {2})},
                      attrs({{"mode", std::string("explicit")}}));
    auto bidir = b.op("Broadcast", {data, b.constant<int64_t>({1, 1, 50, 50}, {4})}, attrs({{"mode", std::string("bidirectional")}}));
    auto dyn_target = b.op("Broadcast", {b.input(f32, {3, 1}), b.input(i64, {3})});
    run(b.graph());
    EXPECT_EQ(numpy.shape(), (PartialShape{1, 16, 50, 50}));
    EXPECT_EQ(expl.shape(), (PartialShape{1, 16, 50, 50}));
    EXPECT_EQ(expl2.shape(), (PartialShape{1, 50, 50, 16}));
    EXPECT_EQ(bidir.shape(), (PartialShape{1, 16, 50, 50}));
    EXPECT_EQ(dyn_target.shape(), (PartialShape{dyn, 3, dyn}));
}

TEST(ShapeOpsBroadcast, NumpyRejectsShrinking) {
    GraphBuilder b;
    auto y = b.op("Broadcast", {b.input(f32, {3, 4}), b.constant<int64_t>({3, 1}, {2})});
    InferContext c(y.node());
    EXPECT_THROW(y.node().op().infer(c), Error);
}

TEST(ShapeOpsBroadcast, Evaluates) {
    GraphBuilder b;
    auto numpy = b.op("Broadcast", {b.constant<float>({1, 2, 3}, {3}), b.constant<int64_t>({2, 3}, {2})});
    auto expl = b.op("Broadcast", {b.constant<int64_t>({7, 8}, {2}), b.constant<int64_t>({2, 3}, {2}), b.constant<int64_t>({0}, {1})},
                     attrs({{"mode", std::string("explicit")}}));
    auto bidir = b.op("Broadcast", {b.constant<int64_t>({1, 2}, {2, 1}), b.constant<int64_t>({1, 3}, {2})},
                      attrs({{"mode", std::string("bidirectional")}}));
    run(b.graph());
    EXPECT_EQ(values<float>(numpy), (F32{1, 2, 3, 1, 2, 3}));
    EXPECT_EQ(values<int64_t>(expl), (I64{7, 7, 7, 8, 8, 8}));
    EXPECT_EQ(values<int64_t>(bidir), (I64{1, 1, 1, 2, 2, 2}));
    EXPECT_EQ(shape_of_value(bidir), (Shape{2, 3}));
}

TEST(ShapeOpsTile, ShapesAndValues) {
    GraphBuilder b;
    auto t = b.op("Tile", {b.constant<int64_t>({1, 2, 3, 4}, {2, 2}), b.constant<int64_t>({2, 1}, {2})});
    auto longer = b.op("Tile", {b.constant<float>({1, 2}, {2}), b.constant<int64_t>({2, 2}, {2})});
    auto shape = b.op("Tile", {b.input(f32, {dyn, 3, 4}), b.constant<int64_t>({2, 3}, {2})});
    run(b.graph());
    EXPECT_EQ(values<int64_t>(t), (I64{1, 2, 3, 4, 1, 2, 3, 4}));
    EXPECT_EQ(shape_of_value(t), (Shape{4, 2}));
    EXPECT_EQ(values<float>(longer), (F32{1, 2, 1, 2, 1, 2, 1, 2}));
    EXPECT_EQ(shape_of_value(longer), (Shape{2, 4}));
    EXPECT_EQ(shape.shape(), (PartialShape{dyn, 6, 12}));
}

// ---- Range ------------------------------------------------------------------------------------

TEST(ShapeOpsRange, SpecExamples) {
    GraphBuilder b;
    auto up = b.op("Range", {b.constant<int32_t>({2}, {}), b.constant<int32_t>({23}, {}), b.constant<int32_t>({3}, {})},
                   attrs({{"output_type", i32}}));
    auto down = b.op("Range", {b.constant<int64_t>({23}, {}), b.constant<int64_t>({2}, {}), b.constant<int64_t>({-3}, {})},
                     attrs({{"output_type", i64}}));
    auto fl = b.op("Range", {b.constant<float>({1.f}, {}), b.constant<float>({2.5f}, {}), b.constant<float>({0.5f}, {})},
                   attrs({{"output_type", f32}}));
    auto empty = b.op("Range", {b.constant<int64_t>({5}, {}), b.constant<int64_t>({2}, {}), b.constant<int64_t>({1}, {})},
                      attrs({{"output_type", i64}}));
    auto unknown = b.op("Range", {b.constant<int64_t>({0}, {}), b.input(i64, {}), b.constant<int64_t>({1}, {})}, attrs({{"output_type", i64}}));
    run(b.graph());
    EXPECT_EQ(values<int32_t>(up), (std::vector<int32_t>{2, 5, 8, 11, 14, 17, 20}));
    EXPECT_EQ(values<int64_t>(down), (I64{23, 20, 17, 14, 11, 8, 5}));
    EXPECT_EQ(values<float>(fl), (F32{1.f, 1.5f, 2.f}));
    EXPECT_EQ(shape_of_value(empty), (Shape{0}));
    EXPECT_EQ(unknown.shape(), (PartialShape{dyn}));
}

TEST(ShapeOpsRange, LengthFromShapeOfBounds) {
    GraphBuilder b;
    auto x = b.input(i64, {dyn, 128});
    auto seq = b.op("Gather", {b.op("ShapeOf", {x}), b.constant<int64_t>({1}, {}), b.constant<int64_t>({0}, {})});
    auto ids = b.op("Range", {b.constant<int64_t>({0}, {}), seq, b.constant<int64_t>({1}, {})}, attrs({{"output_type", i64}}));
    auto y = b.input(i64, {Dimension(4, 10)});
    auto len = b.op("Gather", {b.op("ShapeOf", {y}), b.constant<int64_t>({0}, {}), b.constant<int64_t>({0}, {})});
    auto odd = b.op("Range", {b.constant<int64_t>({1}, {}), len, b.constant<int64_t>({2}, {})}, attrs({{"output_type", i32}}));
    run(b.graph());
    EXPECT_EQ(ids.shape(), (PartialShape{128}));
    EXPECT_EQ(odd.shape(), (PartialShape{Dimension(2, 5)}));  // 1,3 (stop 4) .. 1,3,5,7,9 (stop 10)
}

// ---- Pad --------------------------------------------------------------------------------------

OutPort pad(GraphBuilder& b, OutPort x, I64 begin, I64 end, const std::string& mode, std::optional<OutPort> value = std::nullopt) {
    const auto n = static_cast<int64_t>(begin.size());
    std::vector<OutPort> in{x, b.constant<int64_t>(begin, {n}), b.constant<int64_t>(end, {n})};
    if (value) in.push_back(*value);
    return b.op("Pad", in, attrs({{"pad_mode", mode}}));
}

TEST(ShapeOpsPad, ShapesWithNegativePads) {
    GraphBuilder b;
    auto s = pad(b, b.input(f32, {2, 3}), {1, -1}, {0, 2}, "constant");
    auto d = pad(b, b.input(f32, {dyn, 3}), {1, 0}, {1, 0}, "edge");
    run(b.graph());
    EXPECT_EQ(s.shape(), (PartialShape{3, 4}));
    EXPECT_EQ(d.shape(), (PartialShape{Dimension(2, Dimension::kUnbounded), 3}));
}

TEST(ShapeOpsPad, Modes) {
    GraphBuilder b;
    auto x = b.constant<float>({1, 2, 3}, {3});
    auto constant = pad(b, x, {2}, {1}, "constant", b.constant<float>({9.f}, {}));
    auto edge = pad(b, x, {2}, {2}, "edge");
    auto reflect = pad(b, x, {2}, {2}, "reflect");
    auto symmetric = pad(b, x, {2}, {2}, "symmetric");
    auto crop = pad(b, b.constant<int64_t>(iota_i(6), {2, 3}), {0, -1}, {1, 0}, "constant");
    run(b.graph());
    EXPECT_EQ(values<float>(constant), (F32{9, 9, 1, 2, 3, 9}));
    EXPECT_EQ(values<float>(edge), (F32{1, 1, 1, 2, 3, 3, 3}));
    EXPECT_EQ(values<float>(reflect), (F32{3, 2, 1, 2, 3, 2, 1}));
    EXPECT_EQ(values<float>(symmetric), (F32{2, 1, 1, 2, 3, 3, 2}));
    EXPECT_EQ(shape_of_value(crop), (Shape{3, 2}));
    EXPECT_EQ(values<int64_t>(crop), (I64{1, 2, 4, 5, 0, 0}));
}

TEST(ShapeOpsPad, ReflectTooLargeFails) {
    GraphBuilder b;
    auto y = pad(b, b.constant<float>({1, 2}, {2}), {2}, {0}, "reflect");
    EXPECT_THROW(run(b.graph()), Error);
    (void)y;
}

// ---- Scatter family ---------------------------------------------------------------------------

OutPort scatter_elements(GraphBuilder& b, OutPort data, OutPort indices, OutPort updates, int64_t axis, const std::string& reduction,
                         bool use_init = true) {
    return b.op("ScatterElementsUpdate", {data, indices, updates, b.constant<int64_t>({axis}, {1})},
                attrs({{"reduction", reduction}, {"use_init_val", use_init}}));
}

TEST(ShapeOpsScatter, ElementsUpdateSpecExamples) {
    GraphBuilder b;
    auto data = b.constant<float>({2, 3, 4, 6}, {4});
    auto updates = b.constant<float>({10, 20, 30, 40, 70, 60}, {6});
    auto e1 = scatter_elements(b, data, b.constant<int64_t>({1, 0, 0, -2, -1, 2}, {6}), updates, 0, "sum");
    auto e2 = scatter_elements(b, data, b.constant<int64_t>({1, 0, 0, 2, 3, 2}, {6}), updates, 0, "sum", false);
    auto ones = b.constant<int32_t>(std::vector<int32_t>(12, 1), {3, 4});
    auto twos = b.constant<int32_t>(std::vector<int32_t>(12, 2), {3, 4});
    auto idx = b.constant<int64_t>({1, 1, 0, 3}, {2, 2});
    auto upd = b.constant<int32_t>({11, 12, 13, 14}, {2, 2});
    auto e3 = scatter_elements(b, b.constant<int32_t>(std::vector<int32_t>(12, 0), {3, 4}), b.constant<int64_t>({1, 2, 0, 3}, {2, 2}), upd, 1, "none");
    auto e4 = scatter_elements(b, ones, idx, upd, 1, "sum");
    auto e5 = scatter_elements(b, twos, idx, upd, 1, "prod");
    run(b.graph());
    EXPECT_EQ(values<float>(e1), (F32{52, 13, 104, 76}));
    EXPECT_EQ(values<float>(e2), (F32{50, 10, 100, 70}));
    EXPECT_EQ(values<int32_t>(e3), (std::vector<int32_t>{0, 11, 12, 0, 13, 0, 0, 14, 0, 0, 0, 0}));
    EXPECT_EQ(values<int32_t>(e4), (std::vector<int32_t>{1, 24, 1, 1, 14, 1, 1, 15, 1, 1, 1, 1}));
    EXPECT_EQ(values<int32_t>(e5), (std::vector<int32_t>{2, 264, 2, 2, 26, 2, 2, 28, 2, 2, 2, 2}));
}

TEST(ShapeOpsScatter, ElementsUpdateMinMaxMean) {
    GraphBuilder b;
    auto data = b.constant<int64_t>({5, 5, 5}, {3});
    auto idx = b.constant<int64_t>({0, 0, 1, 2}, {4});
    auto upd = b.constant<int64_t>({1, 8, 9, -2}, {4});
    auto mn = scatter_elements(b, data, idx, upd, 0, "min");
    auto mx = scatter_elements(b, data, idx, upd, 0, "max", false);
    auto mean = scatter_elements(b, data, idx, upd, 0, "mean");
    auto mean_f = scatter_elements(b, b.constant<float>({1, 1}, {2}), b.constant<int64_t>({0, 0}, {2}), b.constant<float>({2, 4}, {2}), 0, "mean");
    run(b.graph());
    EXPECT_EQ(values<int64_t>(mn), (I64{1, 5, -2}));
    EXPECT_EQ(values<int64_t>(mx), (I64{8, 9, -2}));
    // (5+1+8)/3 = 4.67 -> 4; (5+9)/2 = 7; (5-2)/2 = 1.5 -> 1 (rounded towards -inf).
    EXPECT_EQ(values<int64_t>(mean), (I64{4, 7, 1}));
    EXPECT_FLOAT_EQ(values<float>(mean_f)[0], 7.f / 3.f);
}

TEST(ShapeOpsScatter, UpdateAndNDUpdate) {
    GraphBuilder b;
    auto rows = b.op("ScatterUpdate", {b.constant<float>(F32(6, 0.f), {3, 2}), b.constant<int64_t>({2, 0}, {2}),
                                       b.constant<float>({1, 2, 3, 4}, {2, 2}), b.constant<int64_t>({0}, {})});
    auto cols = b.op("ScatterUpdate", {b.constant<int64_t>(I64(6, 0), {2, 3}), b.constant<int64_t>({-1}, {1}),
                                       b.constant<int64_t>({7, 8}, {2, 1}), b.constant<int64_t>({1}, {})});
    // ONNX ScatterND example 1.
    auto nd = b.op("ScatterNDUpdate", {b.constant<float>({1, 2, 3, 4, 5, 6, 7, 8}, {8}), b.constant<int64_t>({4, 3, 1, 7}, {4, 1}),
                                       b.constant<float>({9, 10, 11, 12}, {4})});
    auto nd_rows = b.op("ScatterNDUpdate", {b.constant<int64_t>(iota_i(6), {3, 2}), b.constant<int32_t>({1}, {1, 1}),
                                            b.constant<int64_t>({9, 9}, {1, 2})});
    auto shape = b.op("ScatterNDUpdate", {b.input(f32, {dyn, 4}), b.input(i64, {2, 1}), b.input(f32, {2, 4})});
    run(b.graph());
    EXPECT_EQ(values<float>(rows), (F32{3, 4, 0, 0, 1, 2}));
    EXPECT_EQ(values<int64_t>(cols), (I64{0, 0, 7, 0, 0, 8}));
    EXPECT_EQ(values<float>(nd), (F32{1, 11, 3, 10, 9, 6, 7, 12}));
    EXPECT_EQ(values<int64_t>(nd_rows), (I64{0, 1, 9, 9, 4, 5}));
    EXPECT_EQ(shape.shape(), (PartialShape{dyn, 4}));
}

// ---- NonZero / OneHot ---------------------------------------------------------------------------

TEST(ShapeOpsNonZero, ShapesAndValues) {
    GraphBuilder b;
    auto v = b.op("NonZero", {b.constant<float>({1, 0, 0, 3}, {2, 2})});
    auto v32 = b.op("NonZero", {b.constant<int64_t>({0, 5, 0, 7}, {4})}, attrs({{"output_type", i32}}));
    auto s = b.op("NonZero", {b.input(f32, {2, 3, 4})});
    run(b.graph());
    EXPECT_EQ(shape_of_value(v), (Shape{2, 2}));
    EXPECT_EQ(values<int64_t>(v), (I64{0, 1, 0, 1}));
    EXPECT_EQ(values<int32_t>(v32), (std::vector<int32_t>{1, 3}));
    EXPECT_EQ(s.shape(), (PartialShape{3, Dimension(0, 24)}));
}

TEST(ShapeOpsOneHot, ValuesAndAxis) {
    GraphBuilder b;
    auto idx = b.constant<int64_t>({0, 2, -1, 1}, {4});
    auto last = b.op("OneHot", {idx, b.constant<int64_t>({3}, {}), b.constant<float>({1.f}, {}), b.constant<float>({0.f}, {})},
                     attrs({{"axis", int64_t{-1}}}));
    auto first = b.op("OneHot", {b.constant<int32_t>({1, 0}, {2}), b.constant<int32_t>({2}, {}), b.constant<int64_t>({5}, {}),
                                 b.constant<int64_t>({-1}, {})},
                      attrs({{"axis", int64_t{0}}}));
    auto shape = b.op("OneHot", {b.input(i64, {dyn, 7}), b.constant<int64_t>({10}, {}), b.constant<float>({1.f}, {}), b.constant<float>({0.f}, {})},
                      attrs({{"axis", int64_t{1}}}));
    run(b.graph());
    EXPECT_EQ(values<float>(last), (F32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
    EXPECT_EQ(shape_of_value(first), (Shape{2, 2}));
    EXPECT_EQ(values<int64_t>(first), (I64{-1, 5, 5, -1}));
    EXPECT_EQ(shape.shape(), (PartialShape{dyn, 10, 7}));
    EXPECT_EQ(shape.type(), f32);
}

TEST(ShapeOpsOneHot, SpecExamples) {
    GraphBuilder b;
    auto e1 = b.op("OneHot", {b.constant<int64_t>({0, 3, 1, 2}, {4}), b.constant<int64_t>({3}, {}), b.constant<int32_t>({1}, {}),
                              b.constant<int32_t>({2}, {})},
                   attrs({{"axis", int64_t{-1}}}));
    auto e2 = b.op("OneHot", {b.constant<int32_t>({0, 3, 1, 1, 2, 4}, {2, 3}), b.constant<int32_t>({3}, {}), b.constant<float>({1.f}, {}),
                              b.constant<float>({0.f}, {})},
                   attrs({{"axis", int64_t{1}}}));
    run(b.graph());
    EXPECT_EQ(values<int32_t>(e1), (std::vector<int32_t>{1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 1}));
    EXPECT_EQ(shape_of_value(e2), (Shape{2, 3, 3}));
    EXPECT_EQ(values<float>(e2), (F32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}));
}

// ---- DepthToSpace / SpaceToDepth / ReverseSequence ---------------------------------------------

TEST(ShapeOpsDepthToSpace, Modes) {
    GraphBuilder b;
    auto x = b.constant<float>(iota_f(8), {1, 8, 1, 1});
    auto bf = b.op("DepthToSpace", {x}, attrs({{"mode", std::string("blocks_first")}, {"block_size", int64_t{2}}}));
    auto df = b.op("DepthToSpace", {x}, attrs({{"mode", std::string("depth_first")}, {"block_size", int64_t{2}}}));
    auto s = b.op("DepthToSpace", {b.input(f32, {dyn, 12, 5, dyn})}, attrs({{"mode", std::string("blocks_first")}, {"block_size", int64_t{2}}}));
    run(b.graph());
    // blocks_first: channel = (i * 2 + j) * C' + c; depth_first: channel = c * 4 + i * 2 + j.
    EXPECT_EQ(shape_of_value(bf), (Shape{1, 2, 2, 2}));
    EXPECT_EQ(values<float>(bf), (F32{0, 2, 4, 6, 1, 3, 5, 7}));
    EXPECT_EQ(values<float>(df), (F32{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(s.shape(), (PartialShape{dyn, 3, 10, dyn}));
}

TEST(ShapeOpsDepthToSpace, SpaceToDepthInvertsIt) {
    for (const char* mode : {"blocks_first", "depth_first"}) {
        GraphBuilder b;
        auto x = b.constant<int64_t>(iota_i(48), {1, 8, 2, 3});
        auto d2s = b.op("DepthToSpace", {x}, attrs({{"mode", std::string(mode)}, {"block_size", int64_t{2}}}));
        auto back = b.op("SpaceToDepth", {d2s}, attrs({{"mode", std::string(mode)}, {"block_size", int64_t{2}}}));
        run(b.graph());
        EXPECT_EQ(shape_of_value(d2s), (Shape{1, 2, 4, 6}));
        EXPECT_EQ(values<int64_t>(back), iota_i(48)) << mode;
    }
    GraphBuilder b;
    // SpaceToDepth on [1,1,2,4] (values 0..7), block 2: channel (i, j) holds x[2h+i][2w+j].
    auto s2d = b.op("SpaceToDepth", {b.constant<float>(iota_f(8), {1, 1, 2, 4})}, attrs({{"mode", std::string("blocks_first")}, {"block_size", int64_t{2}}}));
    run(b.graph());
    EXPECT_EQ(shape_of_value(s2d), (Shape{1, 4, 1, 2}));
    EXPECT_EQ(values<float>(s2d), (F32{0, 2, 1, 3, 4, 6, 5, 7}));
}

TEST(ShapeOpsReverseSequence, Values) {
    GraphBuilder b;
    auto y = b.op("ReverseSequence", {b.constant<float>({1, 2, 3, 4, 5, 6}, {2, 3}), b.constant<int64_t>({2, 3}, {2})},
                  attrs({{"batch_axis", int64_t{0}}, {"seq_axis", int64_t{1}}}));
    auto t = b.op("ReverseSequence", {b.constant<int64_t>({1, 2, 3, 4, 5, 6}, {3, 2}), b.constant<int64_t>({3, 1}, {2})},
                  attrs({{"batch_axis", int64_t{1}}, {"seq_axis", int64_t{0}}}));
    run(b.graph());
    EXPECT_EQ(values<float>(y), (F32{2, 1, 3, 6, 5, 4}));
    EXPECT_EQ(values<int64_t>(t), (I64{5, 2, 3, 4, 1, 6}));
}

TEST(ShapeOpsRegistry, SchemasFollowOpsets) {
    const OpRegistry& ops = test::builtin_ops();
    const std::pair<const char*, const char*> expected[] = {
        {"Reshape", "opset1"}, {"Transpose", "opset1"}, {"Concat", "opset1"}, {"Split", "opset1"}, {"VariadicSplit", "opset1"},
        {"StridedSlice", "opset1"}, {"Slice", "opset8"}, {"Squeeze", "opset1"}, {"Unsqueeze", "opset1"}, {"Gather", "opset8"},
        {"GatherElements", "opset6"}, {"GatherND", "opset8"}, {"ShapeOf", "opset3"}, {"Broadcast", "opset3"}, {"Tile", "opset1"},
        {"Range", "opset4"}, {"Pad", "opset12"}, {"ScatterUpdate", "opset3"}, {"ScatterElementsUpdate", "opset12"},
        {"ScatterNDUpdate", "opset4"}, {"NonZero", "opset3"}, {"OneHot", "opset1"}, {"DepthToSpace", "opset1"},
        {"SpaceToDepth", "opset1"}, {"ReverseSequence", "opset1"}};
    for (const auto& [type, version] : expected) {
        const OpSchema* s = ops.find(type);
        ASSERT_NE(s, nullptr) << type;
        EXPECT_EQ(s->ir_type, type);
        EXPECT_EQ(s->ir_version, version) << type;
        EXPECT_TRUE(s->infer && s->eval) << type;
    }
}

}  // namespace
}  // namespace mo
