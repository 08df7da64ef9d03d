// Unique-10: values, first-occurrence indices, inverse indices and counts worked by hand from
// the OpenVINO spec (sorted ascending or in first-occurrence order; slices compared
// lexicographically), and shape inference with the data-dependent (interval) sizes.
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
using I64s = std::vector<int64_t>;


std::vector<Tensor> unique(const std::vector<Tensor>& in, const AttrMap& attrs = {}) {
    return test::run_op("Unique", in, attrs);
}

void expect_outputs(const std::vector<Tensor>& out, const Shape& shape, const std::vector<float>& y, const I64s& indices,
                    const I64s& inverse, const I64s& counts) {
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].shape(), shape);
    EXPECT_EQ(values<float>(out[0]), y);
    EXPECT_EQ(out[1].to_i64(), indices);
    EXPECT_EQ(out[2].to_i64(), inverse);
    EXPECT_EQ(out[3].to_i64(), counts);
}

const Tensor kValues = f32({2, 1, 1, 3, 4, 3}, {6});
// Columns (1,3), (0,2), (1,3), (0,1).
const Tensor kColumns = f32({1, 0, 1, 0, 3, 2, 3, 1}, {2, 4});

TEST(Unique, SortedByDefault) {
    expect_outputs(unique({kValues}), {4}, {1, 2, 3, 4}, {1, 0, 3, 4}, {1, 0, 0, 2, 3, 2}, {2, 1, 2, 1});
}

TEST(Unique, UnsortedKeepsFirstOccurrenceOrder) {
    expect_outputs(unique({kValues}, {{"sorted", false}}), {4}, {2, 1, 3, 4}, {0, 1, 3, 4}, {0, 1, 1, 2, 3, 2},
                   {1, 2, 2, 1});
}

// Without an axis an N-D input is flattened.
TEST(Unique, FlattensWithoutAxis) {
    expect_outputs(unique({f32({3, 1, 3, 1}, {2, 2})}), {2}, {1, 3}, {1, 0}, {1, 0, 1, 0}, {2, 2});
}

TEST(Unique, RowsAlongAxisZero) {
    Tensor x = f32({1, 0, 0, 1, 0, 0, 2, 3, 4}, {3, 3});
    expect_outputs(unique({x, Tensor::scalar<int64_t>(0)}), {2, 3}, {1, 0, 0, 2, 3, 4}, {0, 2}, {0, 0, 1}, {2, 1});
}

// Columns sorted lexicographically: (0,1) < (0,2) < (1,3).
TEST(Unique, ColumnsSortedLexicographically) {
    expect_outputs(unique({kColumns, Tensor::from_vector<int32_t>({1}, {1})}), {2, 3}, {0, 0, 1, 1, 2, 3}, {3, 1, 0},
                   {2, 1, 2, 0}, {1, 1, 2});
}

TEST(Unique, ColumnsUnsortedAndNegativeAxis) {
    expect_outputs(unique({kColumns, Tensor::scalar<int64_t>(-1)}, {{"sorted", false}}), {2, 3}, {1, 0, 0, 3, 2, 1},
                   {0, 1, 3}, {0, 1, 0, 2}, {2, 1, 1});
}

// [2, 2, 2] along axis 1: slices x[:, j, :] are (1,2,5,6) and (1,2,5,6): one unique.
TEST(Unique, MiddleAxisOfA3dTensor) {
    Tensor x = f32({1, 2, 1, 2, 5, 6, 5, 6}, {2, 2, 2});
    expect_outputs(unique({x, Tensor::scalar<int64_t>(1)}), {2, 1, 2}, {1, 2, 5, 6}, {0}, {0, 0}, {2});
}

TEST(Unique, OutputTypes) {
    auto out = unique({kValues}, {{"index_element_type", ET::i32}, {"count_element_type", ET::i32}});
    EXPECT_EQ(out[1].type(), ET::i32);
    EXPECT_EQ(out[2].type(), ET::i32);
    EXPECT_EQ(out[3].type(), ET::i32);
    EXPECT_EQ(values<int32_t>(out[3]), (std::vector<int32_t>{2, 1, 2, 1}));
    auto mixed = unique({kValues}, {{"count_element_type", ET::i32}});
    EXPECT_EQ(mixed[1].type(), ET::i64);
    EXPECT_EQ(mixed[3].type(), ET::i32);
}

TEST(Unique, IntegersHalfFloatsScalarsAndEmpty) {
    auto ints = unique({Tensor::from_vector<int32_t>({-5, 7, -5}, {3})});
    EXPECT_EQ(values<int32_t>(ints[0]), (std::vector<int32_t>{-5, 7}));
    auto half = unique({f32({0.5f, -1, 0.5f}, {3}).convert(ET::f16)});
    EXPECT_EQ(half[0].type(), ET::f16);
    EXPECT_EQ(half[0].convert(ET::f32).to_f64(), (std::vector<double>{-1, 0.5}));
    expect_outputs(unique({f32({7}, {})}), {1}, {7}, {0}, {0}, {1});
    expect_outputs(unique({f32({}, {0})}), {0}, {}, {}, {}, {});
}

// ---- Shape inference ---------------------------------------------------------------------------

struct Inferred {
    std::vector<PartialShape> shapes;
    std::vector<ET> types;
};

Inferred infer_over(PartialShape data, std::optional<int64_t> axis, const AttrMap& attrs = {}) {
    GraphBuilder b;
    std::vector<OutPort> in{b.input(ET::f32, std::move(data))};
    if (axis) in.push_back(b.constant<int64_t>({*axis}, {}));
    Node n = b.node("Unique", in, attrs);
    test::infer(n);
    Inferred r;
    for (size_t j = 0; j < 4; ++j) {
        r.shapes.push_back(n.out(j).shape());
        r.types.push_back(n.out(j).type());
    }
    return r;
}

// The spec's examples 2 and 1: [3, 3] without axis, and along axis 0.
TEST(Unique, InfersIntervalsFromTheDataShape) {
    auto flat = infer_over(PartialShape{3, 3}, std::nullopt);
    const Dimension upto9(1, 9);
    EXPECT_EQ(flat.shapes, (std::vector<PartialShape>{{upto9}, {upto9}, {9}, {upto9}}));
    EXPECT_EQ(flat.types, (std::vector<ET>{ET::f32, ET::i64, ET::i64, ET::i64}));
    auto rows = infer_over(PartialShape{3, 3}, 0, {{"index_element_type", ET::i32}});
    const Dimension upto3(1, 3);
    EXPECT_EQ(rows.shapes, (std::vector<PartialShape>{{upto3, 3}, {upto3}, {3}, {upto3}}));
    EXPECT_EQ(rows.types, (std::vector<ET>{ET::f32, ET::i32, ET::i32, ET::i64}));
}

TEST(Unique, InfersDynamicDimsAndRank) {
    auto dyn = infer_over(PartialShape{Dimension(), 4}, -1);
    EXPECT_EQ(dyn.shapes[0], (PartialShape{Dimension(), Dimension(1, 4)}));
    EXPECT_EQ(dyn.shapes[2], (PartialShape{4}));
    auto flat = infer_over(PartialShape{Dimension(2, 3), 4}, std::nullopt);
    EXPECT_EQ(flat.shapes[0], (PartialShape{Dimension(1, 12)}));
    EXPECT_EQ(flat.shapes[2], (PartialShape{Dimension(8, 12)}));
    auto any = infer_over(PartialShape::dynamic_rank(), 0);
    EXPECT_EQ(any.shapes[0], PartialShape::dynamic_rank());
    EXPECT_EQ(any.shapes[1], (PartialShape{Dimension()}));
}

TEST(Unique, RefusesBadAttributesAndAxes) {
    expect_error([] { infer_over(PartialShape{3}, std::nullopt, {{"index_element_type", ET::f32}}); },
                 "index_element_type");
    expect_error([] { infer_over(PartialShape{3}, std::nullopt, {{"count_element_type", ET::u8}}); },
                 "count_element_type");
    expect_error([] { infer_over(PartialShape{3, 3}, 2); }, "axis");
    GraphBuilder b;
    Node n = b.node("Unique", {b.input(ET::f32, {3}), b.input(ET::i64, {})});
    expect_error([&] { test::infer(n); }, "must be a constant");
}

}  // namespace
}  // namespace mo
