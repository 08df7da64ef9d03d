// Reduction-family op schemas: Reduce*, Softmax, LogSoftmax, TopK-11, CumSum-3. Shape
// inference with constant and unknown axes, partial shapes, and evaluation against hand-computed
// values and the OpenVINO spec examples.
#include <gtest/gtest.h>

#include <set>

#include "core/graph.hpp"
#include "ops/ops.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::f32;
using test::i32;
using test::GraphBuilder;
using test::expect_error;
using ET = ElementType;

using test::run_op;
using test::infer;

Tensor axes(std::vector<int64_t> v) { Shape s{int64_t(v.size())}; return Tensor::from_vector<int64_t>(v, s); }
Tensor scalar_i64(int64_t v) { return Tensor::scalar<int64_t>(v); }

using test::values;

void expect_near(const Tensor& t, const std::vector<float>& expected, float tol = 1e-5f) {
    ASSERT_EQ(t.type(), ET::f32);
    auto got = values<float>(t);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], tol) << "element " << i;
}

// A reduction over a parameter of `shape` with constant axes.
Node reduce_node(GraphBuilder& b, const std::string& type, PartialShape shape, std::vector<int64_t> ax, bool keep,
                 ET et = ET::f32) {
    auto x = b.input(et, std::move(shape));
    auto a = b.constant<int64_t>(ax, {int64_t(ax.size())});
    return b.node(type, {x, a}, {{"keep_dims", keep}});
}

// ---- Registration -----------------------------------------------------------------------------

TEST(ReductionOps, RegistersEveryOpOnce) {
    OpRegistry r;
    register_reduction_ops(r);
    const std::set<std::string> expected = {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                                            "ReduceL1", "ReduceL2", "ReduceLogicalAnd", "ReduceLogicalOr",
                                            "Softmax", "LogSoftmax", "TopK", "CumSum"};
    EXPECT_EQ(r.size(), 13u);
    auto types = r.types();
    EXPECT_EQ(std::set<std::string>(types.begin(), types.end()), expected);
}

TEST(ReductionOps, IrSpellingsAndVersions) {
    const auto& ops = test::builtin_ops();
    EXPECT_EQ(ops.get("Softmax").ir_type, "SoftMax");
    EXPECT_EQ(ops.get("Softmax").ir_version, "opset8");
    EXPECT_EQ(ops.get("LogSoftmax").ir_version, "opset5");
    EXPECT_EQ(ops.get("TopK").ir_version, "opset11");
    EXPECT_EQ(ops.get("CumSum").ir_version, "opset3");
    EXPECT_EQ(ops.get("ReduceL2").ir_version, "opset4");
    EXPECT_EQ(ops.get("ReduceMean").ir_version, "opset1");
    EXPECT_EQ(ops.get("TopK").num_outputs, 2u);
    EXPECT_EQ(ops.get("TopK").find_attr("index_element_type")->default_value, AttrValue(ET::i32));
}

// Every schema agrees with shared/ir/opsets.json (transcribed from the OpenVINO specs): opset
// version, IR spelling, attribute names in order, input counts.
TEST(ReductionOps, MatchOpsetsJson) {
    auto json = test::load_opsets_json();
    if (!json) GTEST_SKIP() << "shared/ir/opsets.json not found";
    OpRegistry r;
    register_reduction_ops(r);
    test::expect_schemas_match_opsets_json(r, *json, [](const std::string& type, std::vector<std::string>& attrs) {
        if (type == "TopK") std::swap(attrs[3], attrs[4]);  // runtime visits index_element_type first
    });
}

// ---- Shape inference -------------------------------------------------------------------------------

TEST(ReductionInfer, ConstantAxesWithAndWithoutKeepDims) {
    GraphBuilder b;
    Node n = reduce_node(b, "ReduceSum", {2, 3, 4}, {-1}, false);
    infer(n);
    EXPECT_EQ(n.out(0).shape(), PartialShape({2, 3}));
    EXPECT_EQ(n.out(0).type(), ET::f32);

    Node k = reduce_node(b, "ReduceMean", {2, 3, 4}, {0, 2}, true);
    infer(k);
    EXPECT_EQ(k.out(0).shape(), PartialShape({1, 3, 1}));

    Node d = reduce_node(b, "ReduceMax", {2, 3, 4}, {2, -1}, false);  // duplicates collapse
    infer(d);
    EXPECT_EQ(d.out(0).shape(), PartialShape({2, 3}));

    Node all = reduce_node(b, "ReduceProd", {2, 3}, {0, 1}, false);
    infer(all);
    EXPECT_EQ(all.out(0).shape(), PartialShape(Shape{}));
}

TEST(ReductionInfer, PartialShapesKeepUnreducedDims) {
    GraphBuilder b;
    Node n = reduce_node(b, "ReduceMin", {Dimension::dynamic(), 3, Dimension(2, 5)}, {1}, false);
    infer(n);
    EXPECT_EQ(n.out(0).shape(), PartialShape({Dimension::dynamic(), Dimension(2, 5)}));

    Node r = reduce_node(b, "ReduceL1", PartialShape::dynamic_rank(), {1}, true);
    infer(r);
    EXPECT_FALSE(r.out(0).shape().rank_is_static());
}

TEST(ReductionInfer, UnknownAxesGiveRankOrBoundedDims) {
    GraphBuilder b;
    auto x = b.input(ET::f32, {2, 1, Dimension(3, 4)});
    Node n = b.node("ReduceSum", {x, b.input(ET::i64, {2})});
    infer(n);
    EXPECT_EQ(n.out(0).shape(), PartialShape::dynamic(1));

    Node k = b.node("ReduceSum", {x, b.input(ET::i64, {Dimension::dynamic()})}, {{"keep_dims", true}});
    infer(k);
    // each dim is either kept or reduced to 1
    EXPECT_EQ(k.out(0).shape(), PartialShape({Dimension(1, 2), 1, Dimension(1, 4)}));

    Node u = b.node("ReduceSum", {x, b.input(ET::i64, {Dimension::dynamic()})});
    infer(u);
    EXPECT_FALSE(u.out(0).shape().rank_is_static());

    Node too_many = b.node("ReduceSum", {x, b.input(ET::i64, {4})});
    expect_error([&] { infer(too_many); }, "more axes");
}

TEST(ReductionInfer, BadAxesAndTypesAreErrors) {
    GraphBuilder b;
    Node n = reduce_node(b, "ReduceSum", {2, 3}, {2}, false);
    expect_error([&] { infer(n); }, "out of range");
    Node t = reduce_node(b, "ReduceLogicalAnd", {2, 3}, {0}, false, ET::f32);
    expect_error([&] { infer(t); }, "boolean");
    Node m = b.node("ReduceSum", {b.input(ET::f32, {2}), b.input(ET::i64, {1, 1})});
    expect_error([&] { infer(m); }, "scalar or 1D");
    Node f = b.node("ReduceSum", {b.input(ET::f32, {2}), b.input(ET::f32, {1})});
    expect_error([&] { infer(f); }, "integer");
}

TEST(ReductionInfer, SoftmaxChecksAxisAndType) {
    GraphBuilder b;
    Node n = b.node("Softmax", {b.input(ET::f32, {2, Dimension::dynamic()})}, {{"axis", int64_t(-1)}});
    infer(n);
    EXPECT_EQ(n.out(0).shape(), PartialShape({2, Dimension::dynamic()}));
    Node bad = b.node("LogSoftmax", {b.input(ET::f32, {2, 3})}, {{"axis", int64_t(2)}});
    expect_error([&] { infer(bad); }, "out of range");
    Node ints = b.node("Softmax", {b.input(ET::i32, {2, 3})});
    expect_error([&] { infer(ints); }, "floating-point");
}

TEST(ReductionInfer, TopKOutputsBoundedByK) {
    GraphBuilder b;
    auto k = b.constant<int64_t>({3}, {});
    Node n = b.node("TopK", {b.input(ET::f32, {2, Dimension::dynamic(), 10, Dimension(2, 8)}), k},
                    {{"axis", int64_t(2)}, {"mode", std::string("max")}, {"sort", std::string("value")}});
    infer(n);
    EXPECT_EQ(n.out(0).shape(), PartialShape({2, Dimension::dynamic(), 3, Dimension(2, 8)}));
    EXPECT_EQ(n.out(1).type(), ET::i32);

    Node interval = b.node("TopK", {b.input(ET::f32, {Dimension(2, 8)}), k},
                           {{"axis", int64_t(0)}, {"mode", std::string("min")}, {"sort", std::string("none")},
                            {"index_element_type", ET::i64}});
    infer(interval);
    EXPECT_EQ(interval.out(0).shape(), PartialShape({Dimension(2, 3)}));
    EXPECT_EQ(interval.out(1).type(), ET::i64);

    Node unknown_k = b.node("TopK", {b.input(ET::f32, {5}), b.input(ET::i64, {})},
                            {{"axis", int64_t(-1)}, {"mode", std::string("max")}, {"sort", std::string("value")}});
    infer(unknown_k);
    EXPECT_EQ(unknown_k.out(0).shape(), PartialShape({Dimension(0, 5)}));

    Node negative = b.node("TopK", {b.input(ET::f32, {5}), b.constant<int64_t>({-1}, {})},
                           {{"axis", int64_t(0)}, {"mode", std::string("max")}, {"sort", std::string("value")}});
    expect_error([&] { infer(negative); }, "non-negative");

    Node bad_mode = b.node("TopK", {b.input(ET::f32, {5}), k},
                           {{"axis", int64_t(0)}, {"mode", std::string("largest")}, {"sort", std::string("value")}});
    expect_error([&] { infer(bad_mode); }, "largest");

    Node unstable = b.node("TopK", {b.input(ET::f32, {5}), k},
                           {{"axis", int64_t(0)}, {"mode", std::string("max")}, {"sort", std::string("none")},
                            {"stable", true}});
    expect_error([&] { infer(unstable); }, "stable");
}

TEST(ReductionInfer, CumSumKeepsShapeAndChecksAxis) {
    GraphBuilder b;
    PartialShape s{Dimension::dynamic(), 4};
    Node n = b.node("CumSum", {b.input(ET::f32, s), b.constant<int64_t>({-1}, {})});
    infer(n);
    EXPECT_EQ(n.out(0).shape(), s);
    Node bad = b.node("CumSum", {b.input(ET::f32, s), b.constant<int64_t>({2}, {})});
    expect_error([&] { infer(bad); }, "out of range");
    Node no_axis = b.node("CumSum", {b.input(ET::i32, {3})});
    infer(no_axis);
    EXPECT_EQ(no_axis.out(0).type(), ET::i32);
}

// ---- Evaluation ------------------------------------------------------------------------------------

TEST(ReductionEval, ReducesF32) {
    auto x = f32({1, 2, 3, 4, 5, 6}, {2, 3});
    expect_near(run_op("ReduceSum", {x, axes({1})})[0], {6, 15});
    auto kept = run_op("ReduceSum", {x, axes({0})}, {{"keep_dims", true}});
    EXPECT_EQ(kept[0].shape(), (Shape{1, 3}));
    expect_near(kept[0], {5, 7, 9});
    expect_near(run_op("ReduceMean", {x, axes({-1})})[0], {2, 5});
    expect_near(run_op("ReduceProd", {x, axes({1})})[0], {6, 120});
    expect_near(run_op("ReduceMax", {x, axes({0})})[0], {4, 5, 6});
    expect_near(run_op("ReduceMin", {x, axes({0, 1})})[0], {1});
    expect_near(run_op("ReduceL1", {f32({-1, 2, -3}), axes({0})})[0], {6});
    expect_near(run_op("ReduceL2", {f32({3, -4}), axes({0})})[0], {5});
    auto scalar_axis = run_op("ReduceSum", {x, scalar_i64(0)});
    expect_near(scalar_axis[0], {5, 7, 9});
    auto no_axes = run_op("ReduceSum", {x, axes({})});  // empty axes reduce nothing
    EXPECT_EQ(no_axes[0].shape(), (Shape{2, 3}));
    expect_near(no_axes[0], {1, 2, 3, 4, 5, 6});
}

TEST(ReductionEval, ReducesIntegersAndBooleans) {
    auto x = i32({1, 2, 3, 5}, {2, 2});
    EXPECT_EQ(values<int32_t>(run_op("ReduceMean", {x, axes({1})})[0]), (std::vector<int32_t>{1, 4}));  // 1.5 -> 1
    EXPECT_EQ(values<int32_t>(run_op("ReduceSum", {x, axes({0})})[0]), (std::vector<int32_t>{4, 7}));
    EXPECT_EQ(values<int32_t>(run_op("ReduceMax", {i32({-7, -3}), axes({0})})[0]), (std::vector<int32_t>{-3}));
    auto flags = Tensor::from_vector<bool>({true, false, true, true}, {2, 2});
    EXPECT_EQ(values<uint8_t>(run_op("ReduceLogicalAnd", {flags, axes({1})})[0]), (std::vector<uint8_t>{0, 1}));
    EXPECT_EQ(values<uint8_t>(run_op("ReduceLogicalOr", {flags, axes({0})})[0]), (std::vector<uint8_t>{1, 1}));
}

TEST(ReductionEval, MiddleAxisOf3D) {
    // [2, 2, 2]: reduce axis 1 -> element (i, k) = x[i,0,k] + x[i,1,k]
    auto x = f32({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
    expect_near(run_op("ReduceSum", {x, axes({1})})[0], {4, 6, 12, 14});
}

TEST(ReductionEval, F16ThroughF32) {
    auto x = f32({1.5f, 2.5f, 4}, {3}).convert(ET::f16);
    auto out = run_op("ReduceSum", {x, axes({0})});
    ASSERT_EQ(out[0].type(), ET::f16);
    expect_near(out[0].convert(ET::f32), {8}, 0);
}

TEST(ReductionEval, SoftmaxAndTopKOnF16) {
    auto soft = run_op("Softmax", {f32({0, 0}, {1, 2}).convert(ET::f16)});
    ASSERT_EQ(soft[0].type(), ET::f16);
    expect_near(soft[0].convert(ET::f32), {0.5f, 0.5f}, 0);
    auto top = run_op("TopK", {f32({1, 7, 3}).convert(ET::f16), scalar_i64(1)},
                   {{"axis", int64_t(0)}, {"mode", std::string("max")}, {"sort", std::string("value")}});
    ASSERT_EQ(top[0].type(), ET::f16);
    expect_near(top[0].convert(ET::f32), {7}, 0);
    EXPECT_EQ(values<int32_t>(top[1]), (std::vector<int32_t>{1}));
}

TEST(ReductionEval, SoftmaxAndLogSoftmax) {
    expect_near(run_op("Softmax", {f32({1, 2, 3})}, {{"axis", int64_t(0)}})[0], {0.0900306f, 0.2447285f, 0.6652410f});
    expect_near(run_op("LogSoftmax", {f32({1, 2, 3})}, {{"axis", int64_t(-1)}})[0], {-2.4076060f, -1.4076060f, -0.4076060f});
    // axis 0 of [[1, 1], [1, 3]]: column 0 -> {0.5, 0.5}, column 1 -> {e/(e+e^3), e^3/(e+e^3)}
    expect_near(run_op("Softmax", {f32({1, 1, 1, 3}, {2, 2})}, {{"axis", int64_t(0)}})[0],
                {0.5f, 0.1192029f, 0.5f, 0.8807971f});
    // default axis 1; large values must not overflow
    expect_near(run_op("Softmax", {f32({1000, 1000}, {1, 2})})[0], {0.5f, 0.5f});
}

AttrMap topk_attrs(int64_t axis, const char* mode, const char* sort, ET index = ET::i32) {
    return {{"axis", axis}, {"mode", std::string(mode)}, {"sort", std::string(sort)}, {"index_element_type", index}};
}

TEST(ReductionEval, TopKModesAndSorts) {
    auto x = f32({3, 1, 4, 2});
    auto by_value = run_op("TopK", {x, scalar_i64(2)}, topk_attrs(0, "max", "value"));
    expect_near(by_value[0], {4, 3});
    EXPECT_EQ(values<int32_t>(by_value[1]), (std::vector<int32_t>{2, 0}));
    auto by_index = run_op("TopK", {x, scalar_i64(2)}, topk_attrs(0, "max", "index", ET::i64));
    expect_near(by_index[0], {3, 4});
    EXPECT_EQ(values<int64_t>(by_index[1]), (std::vector<int64_t>{0, 2}));
    auto smallest = run_op("TopK", {x, scalar_i64(3)}, topk_attrs(-1, "min", "value"));
    expect_near(smallest[0], {1, 2, 3});
    EXPECT_EQ(values<int32_t>(smallest[1]), (std::vector<int32_t>{1, 3, 0}));
    auto k_too_big = run_op("TopK", {x, scalar_i64(9)}, topk_attrs(0, "max", "value"));
    expect_near(k_too_big[0], {4, 3, 2, 1});
}

TEST(ReductionEval, TopKAlongAxis0OfIntegersWithTies) {
    // columns of [[5, 0], [5, 9], [1, 9]]: ties keep the lower index first
    auto x = i32({5, 0, 5, 9, 1, 9}, {3, 2});
    auto out = run_op("TopK", {x, scalar_i64(2)}, topk_attrs(0, "max", "value"));
    EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
    EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{5, 9, 5, 9}));
    EXPECT_EQ(values<int32_t>(out[1]), (std::vector<int32_t>{0, 1, 1, 2}));
}

TEST(ReductionEval, CumSumSpecExamples) {
    auto x = f32({1, 2, 3, 4, 5});
    expect_near(run_op("CumSum", {x, scalar_i64(0)})[0], {1, 3, 6, 10, 15});
    expect_near(run_op("CumSum", {x, scalar_i64(0)}, {{"exclusive", true}})[0], {0, 1, 3, 6, 10});
    expect_near(run_op("CumSum", {x, scalar_i64(0)}, {{"reverse", true}})[0], {15, 14, 12, 9, 5});
    expect_near(run_op("CumSum", {x, scalar_i64(0)}, {{"exclusive", true}, {"reverse", true}})[0], {14, 12, 9, 5, 0});
    expect_near(run_op("CumSum", {x})[0], {1, 3, 6, 10, 15});  // axis defaults to 0
}

TEST(ReductionEval, CumSumOfIntegersAlongLastAxis) {
    auto x = i32({1, 2, 3, 10, 20, 30}, {2, 3});
    auto out = run_op("CumSum", {x, Tensor::scalar<int32_t>(-1)});
    EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{1, 3, 6, 10, 30, 60}));
}

}  // namespace
}  // namespace mo
