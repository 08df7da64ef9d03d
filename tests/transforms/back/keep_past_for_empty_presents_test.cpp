#include "transforms/back/keep_past_for_empty_presents.hpp"

#include <gtest/gtest.h>

#include "core/evaluator.hpp"
#include "support/op_test_util.hpp"
#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

Node body_parameter(Body& body, ElementType type, PartialShape shape, const std::string& name) {
    Node p = body.graph->add_op("Parameter", name, {}, {{"shape", AttrValue(shape)}, {"element_type", AttrValue(type)}});
    body.graph->parameters().push_back(p);
    return p;
}

void body_result(Body& body, OutPort value, const std::string& name) {
    body.graph->results().push_back(body.graph->add_op("Result", name, {value}));
}

// optimum's merged seq2seq decoder in small: present.0.encoder.key is the computed `x` without a
// cache (else) and an empty [0, 2, 1, 2] constant with it (then); `then_reads_past` makes the
// then branch read past_key_values.0.encoder.key too, as the merged decoder's cross-attention does.
struct Merged {
    TestGraph t;
    OutPort cond, past, x;
    Node if_node;
};

void build(Merged& m, bool then_reads_past, std::vector<int64_t> empty_shape = {0, 2, 1, 2}) {
    m.cond = m.t.input(ElementType::boolean, PartialShape{1}, "use_cache_branch");
    m.past = m.t.input(ElementType::f32, {Dimension(), 2, Dimension(), 2}, "past_key_values.0.encoder.key");
    m.x = m.t.input(ElementType::f32, {Dimension(), 2, Dimension(), 2}, "x");
    Node n = m.t->add_node("If", "optimum::if");
    n.set_input_count(then_reads_past ? 3 : 2);
    n.in(0).connect(m.cond);
    n.in(1).connect(m.x);
    if (then_reads_past) n.in(2).connect(m.past);
    n.set_output_count(1);
    n.out(0).names() = {"present.0.encoder.key"};
    Body& then_body = n.add_body("then_body");
    Shape s(empty_shape.begin(), empty_shape.end());
    OutPort empty = then_body.graph->add_constant("const_tensor", Tensor::allocate(ElementType::f32, s)).out(0);
    if (then_reads_past) {
        Node p = body_parameter(then_body, ElementType::f32, PartialShape::dynamic_rank(), "then_past");
        then_body.inputs.push_back(BodyInput{BodyInput::Kind::Invariant, 2, 0});
        // the cross-attention reads it; the output is the empty constant
        then_body.graph->add_op("Relu", "reads_past", {p.out(0)});
    }
    body_result(then_body, empty, "then_present");
    then_body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, 0, 0});
    Body& else_body = n.add_body("else_body");
    Node ex = body_parameter(else_body, ElementType::f32, PartialShape::dynamic_rank(), "else_x");
    else_body.inputs.push_back(BodyInput{BodyInput::Kind::Invariant, 1, 0});
    body_result(else_body, ex.out(0), "else_present");
    else_body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, 0, 0});
    m.t.output(n.out(0), "present.0.encoder.key");
    m.if_node = n;
    test::infer(m.t.graph());
}

ConversionOptions stateful() {
    ConversionOptions o;
    o.make_stateful = true;
    return o;
}

Tensor f32_of(std::vector<float> v, Shape s) { return Tensor::from_vector<float>(std::move(v), std::move(s)); }

std::vector<Tensor> run(Graph& g, bool use_cache, const Tensor& past, const Tensor& x) {
    return evaluate(g, {test::boolean({use_cache}, {1}), past, x});
}

TEST(KeepPastForEmptyPresents, TheBranchReturnsThePastItAlreadyReads) {
    for (bool then_reads_past : {true, false}) {
        Merged m;
        build(m, then_reads_past);
        const Tensor past = f32_of({1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 2, 2}), x = f32_of({9, 8, 7, 6}, {1, 2, 1, 2});
        EXPECT_EQ(run(m.t.graph(), true, past, x).at(0).shape(), (Shape{0, 2, 1, 2}));  // as ONNX Runtime gives it

        KeepPastForEmptyPresents pass;
        EXPECT_TRUE(test::run_pass(pass, m.t.graph(), stateful())) << then_reads_past;
        EXPECT_EQ(m.if_node.input_count(), 3u);  // one If input reads the past, added when needed
        test::infer(m.t.graph());
        const auto kept = run(m.t.graph(), true, past, x).at(0);
        EXPECT_EQ(test::values<float>(kept), test::values<float>(past));
        EXPECT_EQ(test::values<float>(run(m.t.graph(), false, past, x).at(0)), test::values<float>(x));
        EXPECT_EQ(m.if_node.out(0).shape(), (PartialShape{Dimension(), 2, Dimension(), 2}));
        EXPECT_FALSE(test::run_pass(pass, m.t.graph(), stateful()));  // nothing left to do
    }
}

TEST(KeepPastForEmptyPresents, LeavesOtherOutputsAndPairsAlone) {
    {  // a constant that is not empty is the model's value
        Merged m;
        build(m, true, {1, 2, 1, 2});
        KeepPastForEmptyPresents pass;
        EXPECT_FALSE(test::run_pass(pass, m.t.graph(), stateful()));
    }
    {  // named pairs: only those
        Merged m;
        build(m, true);
        ConversionOptions o = stateful();
        o.stateful_pairs = {{"x", "present.0.encoder.key"}};
        KeepPastForEmptyPresents pass;
        EXPECT_TRUE(test::run_pass(pass, m.t.graph(), o));
        test::infer(m.t.graph());
        const Tensor past = f32_of({1, 2, 3, 4}, {1, 2, 1, 2}), x = f32_of({9, 8, 7, 6}, {1, 2, 1, 2});
        EXPECT_EQ(test::values<float>(run(m.t.graph(), true, past, x).at(0)), test::values<float>(x));
    }
    {  // without MakeStateful the model keeps ONNX Runtime's outputs
        Merged m;
        build(m, true);
        KeepPastForEmptyPresents pass;
        EXPECT_FALSE(pass.condition(m.t.graph(), TransformContext{ConversionOptions{}}));
    }
}

}  // namespace
}  // namespace mo
