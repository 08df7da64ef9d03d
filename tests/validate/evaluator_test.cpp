// evaluate(): values computed by hand on small graphs, freeing of intermediates, input errors.
#include "core/evaluator.hpp"

#include <gtest/gtest.h>

#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "transforms/middle/partial_inference.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
using test::values;

// Shape inference over the whole graph, so that evaluate() also checks declared output types.
void infer_all(Graph& g) {
    for (Node n : g.topological_order()) PartialInference::infer_node(n);
}

TEST(Evaluator, ComputesAChainAndASideOutput) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2, 2}, "x");
    auto added = b.op("Add", {x, b.constant<float>({1, 2, 3, 4}, {2, 2})});
    auto relu = b.op("Relu", {added});
    auto doubled = b.op("Multiply", {relu, b.constant(2.f)});
    b.output(doubled);
    b.output(relu);
    infer_all(b.graph());

    auto out = evaluate(b.graph(), {Tensor::from_vector<float>({-5, 1, -1, 0.5f}, {2, 2})});
    ASSERT_EQ(out.size(), 2u);
    // x + c = [-4, 3, 2, 4.5]; relu = [0, 3, 2, 4.5]; * 2 = [0, 6, 4, 9].
    EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
    EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 6, 4, 9}));
    EXPECT_EQ(values<float>(out[1]), (std::vector<float>{0, 3, 2, 4.5f}));
}

TEST(Evaluator, BindsInputsInParameterOrder) {
    GraphBuilder b;
    auto a = b.input(ElementType::i32, {3}, "a");
    auto c = b.input(ElementType::i32, {3}, "c");
    b.output(b.op("Subtract", {a, c}));
    infer_all(b.graph());
    auto out = evaluate(b.graph(), {Tensor::from_vector<int32_t>({10, 20, 30}, {3}),
                                    Tensor::from_vector<int32_t>({1, 2, 3}, {3})});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{9, 18, 27}));
}

TEST(Evaluator, AbsentOptionalInputIsEmpty) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {4}, "x");
    // Clip(x, <no min>, max = 1): only the upper bound applies.
    Node clip = b.graph().add_node("Clip", "clip");
    clip.set_input_count(3);
    clip.in(0).connect(x);
    clip.in(2).connect(b.constant(1.f));
    b.output(clip.out(0));
    infer_all(b.graph());
    auto out = evaluate(b.graph(), {Tensor::from_vector<float>({-7, 0.5f, 1, 3}, {4})});
    EXPECT_EQ(values<float>(out[0]), (std::vector<float>{-7, 0.5f, 1, 1}));
}

TEST(Evaluator, LongChainKeepsFewTensorsAlive) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {3}, "x");
    OutPort cur = x;
    for (int i = 0; i < 100; ++i) cur = b.op("Negative", {cur});
    b.output(cur);
    infer_all(b.graph());
    EvaluationStats stats;
    auto out = evaluate(b.graph(), {Tensor::from_vector<float>({1, -2, 3}, {3})}, &stats);
    // An even number of negations is the identity.
    EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, -2, 3}));
    EXPECT_EQ(stats.nodes_evaluated, 101u);  // the Parameter and 100 Negatives
    EXPECT_LE(stats.peak_live_tensors, 2u);
}

TEST(Evaluator, TensorReadTwiceLivesUntilItsLastConsumer) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2}, "x");
    auto r = b.op("Relu", {x});
    b.output(b.op("Add", {x, r}));  // x is read by Relu and by Add
    infer_all(b.graph());
    EvaluationStats stats;
    auto out = evaluate(b.graph(), {Tensor::from_vector<float>({-1, 2}, {2})}, &stats);
    EXPECT_EQ(values<float>(out[0]), (std::vector<float>{-1, 4}));
    EXPECT_EQ(stats.peak_live_tensors, 2u);  // x and relu before Add runs
}

TEST(Evaluator, SkipsNodesNoResultNeeds) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1}, "x");
    Node dead = b.graph().add_node("FrameworkNode", "dead_branch");  // no eval: would throw
    dead.set_input_count(1);
    dead.set_output_count(1);
    dead.in(0).connect(x);
    b.output(b.op("Relu", {x}));
    auto out = evaluate(b.graph(), {Tensor::from_vector<float>({-3}, {1})});
    EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0}));
}

TEST(Evaluator, NodeWithoutEvalIsAnErrorNamingIt) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1}, "x");
    Node mystery = b.graph().add_node("FrameworkNode", "mystery_op");
    mystery.set_input_count(1);
    mystery.set_output_count(1);
    mystery.in(0).connect(x);
    b.output(mystery.out(0));
    try {
        evaluate(b.graph(), {Tensor::from_vector<float>({1}, {1})});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(e.where().find("mystery_op"), std::string::npos) << e.what();
    }
}

// The error's `where` names the parameter.
void expect_input_error(const Graph& g, const std::vector<Tensor>& inputs, const std::string& where_part) {
    try {
        evaluate(g, inputs);
        FAIL() << "expected an error for " << where_part;
    } catch (const Error& e) {
        EXPECT_NE(e.where().find(where_part), std::string::npos) << e.what();
    }
}

TEST(Evaluator, RejectsWrongInputs) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {Dimension::dynamic(), 2}, "x");
    b.output(b.op("Relu", {x}));
    infer_all(b.graph());
    const Graph& g = b.graph();
    // A dynamic dim accepts any extent.
    EXPECT_EQ(evaluate(g, {Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2})})[0].shape(), (Shape{3, 2}));
    EXPECT_THROW(evaluate(g, {}), Error);
    EXPECT_THROW(evaluate(g, {Tensor::scalar(1.f), Tensor::scalar(1.f)}), Error);
    expect_input_error(g, {Tensor::from_vector<int32_t>({1, 2}, {1, 2})}, "'x'");     // type
    expect_input_error(g, {Tensor::from_vector<float>({1, 2, 3}, {1, 3})}, "'x'");    // static dim
    expect_input_error(g, {Tensor::from_vector<float>({1, 2}, {2})}, "'x'");          // rank
    expect_input_error(g, {Tensor()}, "'x'");                                       // missing
}

TEST(Evaluator, IntervalDimensionBoundsTheInput) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {Dimension(1, 3)}, "x");
    b.output(b.op("Relu", {x}));
    infer_all(b.graph());
    EXPECT_EQ(evaluate(b.graph(), {Tensor::from_vector<float>({-1, 1, 2}, {3})})[0].size(), 3u);
    expect_input_error(b.graph(), {Tensor::from_vector<float>({1, 2, 3, 4}, {4})}, "'x'");
}

}  // namespace
}  // namespace mo

namespace mo {
namespace {

TEST(Evaluator, MultiOutputNodeFeedsTheRightConsumers) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {6}, "x");
    Node split = b.node("Split", {x, b.constant<int64_t>({0}, {})}, {{"num_splits", AttrValue(int64_t{3})}});
    split.set_output_count(3);
    b.output(split.out(2));  // [5, 6]
    b.output(b.op("Negative", {split.out(0)}));  // -[1, 2]; out(1) is read by nobody
    infer_all(b.graph());
    EvaluationStats stats;
    auto out = evaluate(b.graph(), {Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {6})}, &stats);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(values<float>(out[0]), (std::vector<float>{5, 6}));
    EXPECT_EQ(values<float>(out[1]), (std::vector<float>{-1, -2}));
    EXPECT_LE(stats.peak_live_tensors, 3u);  // the unread out(1) is never kept
}

TEST(Evaluator, FailingEvalIsReportedWithTheNode) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {Dimension::dynamic()}, "x");
    b.output(b.op("Reshape", {x, b.constant<int64_t>({4}, {1})}, {{"special_zero", AttrValue(false)}}, "to_four"));
    infer_all(b.graph());
    EXPECT_EQ(evaluate(b.graph(), {Tensor::from_vector<float>({1, 2, 3, 4}, {4})})[0].shape(), (Shape{4}));
    try {
        evaluate(b.graph(), {Tensor::from_vector<float>({1, 2, 3}, {3})});  // 3 elements cannot become [4]
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(e.where().find("to_four"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mo
