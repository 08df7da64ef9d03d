#include "transforms/middle/partial_inference.hpp"

#include <gtest/gtest.h>

#include "transforms/back/unsupported_ops.hpp"

#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

// One instance per graph: it keeps its memo across runs, like the registry's instance.
struct Inference {
    PartialInference pass;
    bool operator()(Graph& g) {
        ConversionOptions opts;
        return pass.run(g, TransformContext{opts});
    }
};

TEST(PartialInference, InfersShapesAndFoldsConstantSubgraphs) {
    TestGraph t;
    Inference run;
    auto x = t.input(ElementType::f32, {Dimension(), 3}, "x");
    auto c = t.op("Add", {t.constant<float>({1, 2, 3}, {3}, "a"), t.constant<float>({10, 20, 30}, {3}, "b")}, {}, "c");
    auto y = t.op("Add", {x, c}, {}, "y");
    auto p = t.op("Relu", {x}, {}, "p");
    t.output(y, "out");
    t.output(p, "out2");
    EXPECT_TRUE(run(t.graph()));
    EXPECT_EQ(y.shape(), (PartialShape{Dimension(), 3}));
    EXPECT_EQ(y.type(), ElementType::f32);
    ASSERT_NE(c.value(), nullptr);
    EXPECT_EQ(c.value()->to_f64(), (std::vector<double>{11, 22, 33}));
    EXPECT_EQ(y.value(), nullptr);
    EXPECT_EQ(x.value(), nullptr);
    EXPECT_EQ(p.value(), nullptr);
    EXPECT_FALSE(run(t.graph()));  // nothing changed since
}

TEST(PartialInference, ReinfersAfterRewiringAndDropsStaleValues) {
    TestGraph t;
    Inference run;
    auto x = t.input(ElementType::f32, {3}, "x");
    auto a = t.constant<float>({1, 2, 3}, {3}, "a");
    auto sum = t.op("Add", {a, a}, {}, "sum");
    auto relu = t.op("Relu", {sum}, {}, "relu");
    t.output(relu, "out");
    run(t.graph());
    ASSERT_NE(relu.value(), nullptr);
    EXPECT_EQ(relu.value()->to_f64(), (std::vector<double>{2, 4, 6}));

    sum.node().in(1).connect(t.constant<float>({-5, 0, 5}, {3}, "b"));
    EXPECT_TRUE(run(t.graph()));
    EXPECT_EQ(relu.value()->to_f64(), (std::vector<double>{0, 2, 8}));

    sum.node().in(1).connect(x);
    EXPECT_TRUE(run(t.graph()));
    EXPECT_EQ(sum.value(), nullptr);
    EXPECT_EQ(relu.value(), nullptr);
}

TEST(PartialInference, RerunsOnlyWhatChanged) {
    TestGraph t;
    Inference run;
    auto a = t.constant<float>({1, 2}, {2}, "a");
    auto counted = t.op("TestCounted", {a}, {}, "counted");
    auto other = t.op("TestCounted", {t.constant<float>({3, 4}, {2}, "b")}, {}, "other");
    t.output(t.op("Add", {counted, other}, {}, "sum"), "out");
    test::counted_evals() = 0;
    run(t.graph());
    EXPECT_EQ(test::counted_evals(), 2);
    run(t.graph());
    EXPECT_EQ(test::counted_evals(), 2);  // nothing changed: nothing evaluated
    counted.node().in(0).connect(t.constant<float>({5, 6}, {2}, "c"));
    EXPECT_TRUE(run(t.graph()));
    EXPECT_EQ(test::counted_evals(), 3);  // only the rewired node
    EXPECT_EQ(t->find_by_name("sum").out(0).value()->to_f64(), (std::vector<double>{8, 10}));
}

TEST(PartialInference, FoldsShapeOfOfStaticShapes) {
    TestGraph t;
    Inference run;
    auto x = t.input(ElementType::f32, {2, 5}, "x");
    auto d = t.input(ElementType::f32, {Dimension(), 5}, "d");
    auto s = t.op("ShapeOf", {x}, {}, "s");
    auto sd = t.op("ShapeOf", {d}, {}, "sd");
    t.output(s, "o1");
    t.output(sd, "o2");
    run(t.graph());
    ASSERT_NE(s.value(), nullptr);
    EXPECT_EQ(s.value()->to_i64(), (std::vector<int64_t>{2, 5}));
    EXPECT_EQ(sd.value(), nullptr);
    EXPECT_EQ(sd.shape(), (PartialShape{2}));
}

// TorchScript exports squeeze(dim) of a dim it cannot see as If(Equal(Gather(Shape(x), [dim]),
// [1])): a static dim of an otherwise dynamic shape makes the condition known.
TEST(PartialInference, FoldsGathersOfStaticDimsOfDynamicShapes) {
    TestGraph t;
    Inference run;
    auto x = t.input(ElementType::f32, {Dimension(), 1, Dimension(), 8}, "x");
    auto s = t.op("ShapeOf", {x}, {}, "s");
    auto axis = t.constant<int64_t>({0}, {}, "axis");
    auto one = t.op("Gather", {s, t.constant<int64_t>({1}, {1}, "i1"), axis}, {{"batch_dims", AttrValue(int64_t{0})}}, "one");
    auto last = t.op("Gather", {s, t.constant<int64_t>({-1}, {}, "i_last"), axis}, {{"batch_dims", AttrValue(int64_t{0})}}, "last");
    auto both = t.op("Gather", {s, t.constant<int64_t>({3, 1}, {2}, "i31"), axis}, {{"batch_dims", AttrValue(int64_t{0})}}, "both");
    auto dynamic = t.op("Gather", {s, t.constant<int64_t>({1, 2}, {2}, "i12"), axis}, {{"batch_dims", AttrValue(int64_t{0})}}, "dyn");
    auto cond = t.op("Equal", {one, t.constant<int64_t>({1}, {1}, "c1")}, {}, "cond");
    t.output(cond, "o1");
    t.output(last, "o2");
    t.output(both, "o3");
    t.output(dynamic, "o4");
    run(t.graph());
    ASSERT_NE(one.value(), nullptr);
    EXPECT_EQ(one.value()->to_i64(), (std::vector<int64_t>{1}));
    ASSERT_NE(cond.value(), nullptr);
    EXPECT_EQ(cond.value()->to_i64(), (std::vector<int64_t>{1}));
    ASSERT_NE(last.value(), nullptr);
    EXPECT_EQ(last.value()->shape(), Shape{});
    EXPECT_EQ(last.value()->to_i64(), (std::vector<int64_t>{8}));
    ASSERT_NE(both.value(), nullptr);
    EXPECT_EQ(both.value()->to_i64(), (std::vector<int64_t>{8, 1}));
    EXPECT_EQ(dynamic.value(), nullptr);  // dim 2 is not known
    EXPECT_EQ(s.value(), nullptr);

    // The shape changes: the value goes.
    x.node().set_attr("shape", PartialShape{Dimension(), Dimension(), Dimension(), 8});
    x.node().set_needs_infer();
    run(t.graph());
    EXPECT_EQ(one.value(), nullptr);
    EXPECT_EQ(cond.value(), nullptr);
    ASSERT_NE(last.value(), nullptr);
}

TEST(PartialInference, HugeOutputsAreFoldedOnlyFromConstants) {
    TestGraph t;
    Inference run;
    auto two = t.op("Relu", {t.constant<float>({2}, {1}, "c")}, {}, "two");  // a value, not a Constant
    auto small = t.op("Broadcast", {two, t.constant<int64_t>({3}, {1}, "small_shape")}, {}, "small");
    const int64_t huge_size = PartialInference::kMaxFoldedElements + 1;
    auto huge = t.op("Broadcast", {two, t.constant<int64_t>({huge_size}, {1}, "huge_shape")}, {}, "huge");
    t.output(small, "o1");
    t.output(huge, "o2");
    run(t.graph());
    ASSERT_NE(two.value(), nullptr);
    ASSERT_NE(small.value(), nullptr);
    EXPECT_EQ(small.value()->to_f64(), (std::vector<double>{2, 2, 2}));
    EXPECT_EQ(huge.value(), nullptr);
    EXPECT_EQ(huge.shape(), (PartialShape{huge_size}));
}

TEST(PartialInference, FrameworkNodeAndWhatItFeedsStayUninferredForTheBackPhaseReport) {
    // A configured replacement may still remove an op no extractor handled.
    TestGraph t;
    Inference run;
    auto x = t.input(ElementType::f32, {2}, "x");
    Node fw = t->add_op("FrameworkNode", "weird", {x});
    fw.framework().type = "WeirdOp";
    auto relu = t.op("Relu", {fw.out(0)}, {}, "relu");
    t.output(relu, "out");
    auto side = t.op("Relu", {x}, {}, "side");
    t.output(side, "side_out");
    run(t.graph());
    EXPECT_FALSE(relu.shape().rank_is_static());
    EXPECT_EQ(side.shape(), PartialShape({2}));
    try {
        report_unsupported_ops(t.graph());
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("WeirdOp"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("weird"), std::string::npos) << e.what();
    }
}

TEST(PartialInference, UnconnectedRequiredInputIsAnError) {
    TestGraph t;
    Inference run;
    auto x = t.input(ElementType::f32, {2}, "x");
    Node add = t->add_op("Add", "add", {x, x});
    add.in(1).disconnect();
    t.output(add.out(0), "out");
    EXPECT_THROW(run(t.graph()), Error);
}

TEST(PartialInference, RunsWhereTheRegistryExpectsIt) {
    PartialInference pass;
    EXPECT_EQ(pass.id(), kPartialInferenceId);
    EXPECT_EQ(pass.run_after(), std::vector<std::string>{anchors::FrontFinish});
    EXPECT_EQ(pass.run_before(), std::vector<std::string>{anchors::MiddleStart});
}

}  // namespace
}  // namespace mo
