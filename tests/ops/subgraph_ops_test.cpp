// If-8, Loop-5 and TensorIterator-1 built by hand: inference binds the bodies to the inputs,
// evaluation follows the specs (values worked out by hand), and the IR written and read back
// keeps the bodies, port maps and back edges and gives the same values.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include <limits>
#include <tuple>

#include "core/evaluator.hpp"
#include "core/infer.hpp"
#include "emit/ir_test_util.hpp"
#include "emit/ir_writer.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

Node body_parameter(Body& body, ElementType type, PartialShape shape, const std::string& name) {
    Node p = body.graph->add_op("Parameter", name, {}, {{"shape", AttrValue(shape)}, {"element_type", AttrValue(type)}});
    body.graph->parameters().push_back(p);
    return p;
}

void body_result(Body& body, OutPort value, const std::string& name) {
    body.graph->results().push_back(body.graph->add_op("Result", name, {value}));
}

OutPort body_f32(Body& body, float v, const std::string& name) {
    return body.graph->add_constant(name, Tensor::scalar<float>(v)).out(0);
}

// y = cond ? x * 2 : x - 1, with x read by both bodies.
std::unique_ptr<Graph> if_model() {
    test::GraphBuilder b;
    OutPort cond = b.input(ElementType::boolean, PartialShape{}, "cond");
    OutPort x = b.input(ElementType::f32, {3}, "x");
    Node n = b.graph().add_node("If", "if");
    n.set_input_count(2);
    n.in(0).connect(cond);
    n.in(1).connect(x);
    n.set_output_count(1);
    Body& then_body = n.add_body("then_body");
    Node tx = body_parameter(then_body, ElementType::f32, PartialShape::dynamic_rank(), "then_x");
    body_result(then_body, then_body.graph->add_op("Multiply", "twice", {tx.out(0), body_f32(then_body, 2, "two")}).out(0), "then_y");
    then_body.inputs.push_back(BodyInput{BodyInput::Kind::Invariant, 1, 0});
    then_body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, 0, 0});
    Body& else_body = n.add_body("else_body");
    Node ex = body_parameter(else_body, ElementType::f32, PartialShape::dynamic_rank(), "else_x");
    body_result(else_body, else_body.graph->add_op("Subtract", "less", {ex.out(0), body_f32(else_body, 1, "one")}).out(0), "else_y");
    else_body.inputs.push_back(BodyInput{BodyInput::Kind::Invariant, 1, 0});
    else_body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, 0, 0});
    b.output(n.out(0), "y");
    auto g = b.release();
    infer_graph(*g);
    return g;
}

// acc starts at `init`; each iteration i adds x * i; the loop stops after the iteration whose
// i reaches 2 (the body's condition is i < 2) or after the trip count. Outputs: the final acc
// and every iteration's acc stacked along a new axis 0.
std::unique_ptr<Graph> loop_model() {
    test::GraphBuilder b;
    OutPort trip = b.input(ElementType::i64, PartialShape{}, "trip");
    OutPort init = b.input(ElementType::f32, {2}, "init");
    OutPort x = b.input(ElementType::f32, {2}, "x");
    OutPort go = b.constant<bool>({true}, {}, "go");
    Node n = b.graph().add_node("Loop", "loop");
    n.set_input_count(4);
    n.in(0).connect(trip);
    n.in(1).connect(go);
    n.in(2).connect(init);
    n.in(3).connect(x);
    n.set_output_count(2);
    Body& body = n.add_body("body");
    Graph& g = *body.graph;
    Node i = body_parameter(body, ElementType::i64, PartialShape{}, "i");
    Node acc = body_parameter(body, ElementType::f32, PartialShape::dynamic_rank(), "acc");
    Node bx = body_parameter(body, ElementType::f32, PartialShape::dynamic_rank(), "bx");
    OutPort fi = g.add_op("Convert", "fi", {i.out(0)}, {{"destination_type", AttrValue(ElementType::f32)}}).out(0);
    OutPort next = g.add_op("Add", "next", {acc.out(0), g.add_op("Multiply", "step", {bx.out(0), fi}).out(0)}).out(0);
    OutPort two = g.add_constant("two", Tensor::scalar<int64_t>(2)).out(0);
    body_result(body, g.add_op("Less", "more", {i.out(0), two}).out(0), "cond_out");
    body_result(body, next, "acc_out");
    OutPort axis = g.add_constant("axis", Tensor::from_vector<int64_t>({0}, {1})).out(0);
    body_result(body, g.add_op("Unsqueeze", "stacked", {next, axis}).out(0), "scan_out");
    body.inputs.push_back(BodyInput{BodyInput::Kind::CurrentIteration, 0, 0});
    body.inputs.push_back(BodyInput{BodyInput::Kind::Merged, 2, 1, 1});
    body.inputs.push_back(BodyInput{BodyInput::Kind::Invariant, 3, 2});
    body.outputs.push_back(BodyOutput{BodyOutput::Kind::Condition, 0, 0});
    body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, 0, 1});
    body.outputs.push_back(BodyOutput{BodyOutput::Kind::Concat, 1, 2});
    b.output(n.out(0), "acc_final");
    b.output(n.out(1), "acc_all");
    auto graph = b.release();
    infer_graph(*graph);
    return graph;
}

// A running sum over axis 1 of x [1, 3], walked backwards: TensorIterator slices x into [1, 1]
// parts from the last; outputs the final sum and the sums concatenated in reverse (so that
// they line up with x again).
std::unique_ptr<Graph> tensor_iterator_model() {
    test::GraphBuilder b;
    OutPort x = b.input(ElementType::f32, {1, 3}, "x");
    OutPort zero = b.constant<float>({0}, {1, 1}, "zero");
    Node n = b.graph().add_node("TensorIterator", "ti");
    n.set_input_count(2);
    n.in(0).connect(x);
    n.in(1).connect(zero);
    n.set_output_count(2);
    Body& body = n.add_body("body");
    Node part = body_parameter(body, ElementType::f32, PartialShape::dynamic_rank(), "part");
    Node sum = body_parameter(body, ElementType::f32, PartialShape::dynamic_rank(), "sum");
    OutPort next = body.graph->add_op("Add", "next", {sum.out(0), part.out(0)}).out(0);
    body_result(body, next, "sum_out");
    BodyInput sliced{BodyInput::Kind::Sliced, 0, 0};
    sliced.axis = 1, sliced.start = -1, sliced.end = 0, sliced.stride = -1;
    body.inputs.push_back(sliced);
    body.inputs.push_back(BodyInput{BodyInput::Kind::Merged, 1, 1, 0});
    body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, 0, 0});
    BodyOutput all{BodyOutput::Kind::Concat, 1, 0};
    all.axis = 1, all.start = -1, all.end = 0, all.stride = -1;
    body.outputs.push_back(all);
    b.output(n.out(0), "total");
    b.output(n.out(1), "suffix_sums");
    auto graph = b.release();
    infer_graph(*graph);
    return graph;
}

std::vector<double> values(const Tensor& t) { return t.to_f64(); }

std::unique_ptr<Graph> round_trip(const Graph& g, test::ScratchDir& dir, pugi::xml_document& doc) {
    EmitOptions o;
    o.xml_path = dir.file("m.xml");
    o.bin_path = dir.file("m.bin");
    o.model_name = "m";
    write_ir(g, o);
    EXPECT_TRUE(doc.load_file(o.xml_path.c_str()));
    return read_ir(o.xml_path, test::builtin_ops());
}

TEST(IfOp, TakesTheBranchTheConditionNames) {
    auto g = if_model();
    const Tensor x = Tensor::from_vector<float>({1, 2, 3}, {3});
    EXPECT_EQ(values(evaluate(*g, {Tensor::scalar<bool>(true), x})[0]), (std::vector<double>{2, 4, 6}));
    EXPECT_EQ(values(evaluate(*g, {Tensor::scalar<bool>(false), x})[0]), (std::vector<double>{0, 1, 2}));
    EXPECT_EQ(g->results()[0].in(0).shape(), PartialShape({3}));  // both branches keep [3]
}

TEST(IfOp, IrKeepsBothBodiesAndPortMaps) {
    auto g = if_model();
    test::ScratchDir dir{"if_ir"};
    pugi::xml_document doc;
    auto back = round_trip(*g, dir, doc);
    pugi::xml_node layer = test::layer_of_type(doc, "If");
    ASSERT_TRUE(layer);
    EXPECT_EQ(std::string(layer.attribute("version").value()), "opset8");
    for (const char* child : {"then_port_map", "else_port_map", "then_body", "else_body"}) EXPECT_TRUE(layer.child(child)) << child;
    // Output external ids count after the If's two inputs (as OpenVINO's serializer writes them).
    EXPECT_EQ(std::string(layer.child("then_port_map").child("output").attribute("external_port_id").value()), "2");
    EXPECT_EQ(std::string(layer.child("else_port_map").child("input").attribute("external_port_id").value()), "1");
    const Tensor x = Tensor::from_vector<float>({1, 2, 3}, {3});
    EXPECT_EQ(values(evaluate(*back, {Tensor::scalar<bool>(true), x})[0]), (std::vector<double>{2, 4, 6}));
    EXPECT_EQ(values(evaluate(*back, {Tensor::scalar<bool>(false), x})[0]), (std::vector<double>{0, 1, 2}));
}

TEST(LoopOp, RunsUntilTheBodyConditionOrTheTripCountEnds) {
    auto g = loop_model();
    const Tensor init = Tensor::from_vector<float>({1, 1}, {2}), x = Tensor::from_vector<float>({1, 10}, {2});
    // i = 0: acc = 1 + 0 = [1, 1]; i = 1: [2, 11]; i = 2: [4, 31] and the condition 2 < 2 stops it.
    auto out = evaluate(*g, {Tensor::scalar<int64_t>(10), init, x});
    EXPECT_EQ(values(out[0]), (std::vector<double>{4, 31}));
    EXPECT_EQ(out[1].shape(), (Shape{3, 2}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{1, 1, 2, 11, 4, 31}));
    // A trip count of 2 stops first; 0 runs nothing: the final acc is the initial value.
    out = evaluate(*g, {Tensor::scalar<int64_t>(2), init, x});
    EXPECT_EQ(values(out[0]), (std::vector<double>{2, 11}));
    out = evaluate(*g, {Tensor::scalar<int64_t>(0), init, x});
    EXPECT_EQ(values(out[0]), (std::vector<double>{1, 1}));
    EXPECT_EQ(out[1].shape(), (Shape{0, 2}));
}

TEST(LoopOp, InferenceKeepsBackEdgeShapesAndLeavesUnknownIterationCountsDynamic) {
    auto g = loop_model();
    EXPECT_EQ(g->results()[0].in(0).shape(), PartialShape({2}));
    EXPECT_EQ(g->results()[1].in(0).shape(), PartialShape({Dimension::dynamic(), 2}));
}

// With every input known the Loop folds at conversion, unless its trip count could make that run
// for long: -1 (no limit) or more than kMaxFoldedIterations stay unfolded.
TEST(LoopOp, FoldsOnlyABoundedNumberOfIterations) {
    for (int64_t trip : {int64_t{10}, int64_t{-1}, int64_t{1'000'000'000}}) {
        auto g = loop_model();
        Node loop = g->find_by_name("loop");
        loop.in(0).connect(g->add_constant("trip_value", Tensor::scalar<int64_t>(trip)).out(0));
        loop.in(2).connect(g->add_constant("init_value", Tensor::from_vector<float>({1, 1}, {2})).out(0));
        loop.in(3).connect(g->add_constant("x_value", Tensor::from_vector<float>({1, 10}, {2})).out(0));
        infer_graph(*g);
        const Tensor* folded = loop.out(0).value();
        if (trip == 10) {
            ASSERT_NE(folded, nullptr);
            EXPECT_EQ(values(*folded), (std::vector<double>{4, 31}));
        } else {
            EXPECT_EQ(folded, nullptr) << "trip count " << trip;
        }
    }
}

TEST(LoopOp, IrKeepsSpecialPortsAndBackEdges) {
    auto g = loop_model();
    test::ScratchDir dir{"loop_ir"};
    pugi::xml_document doc;
    auto back = round_trip(*g, dir, doc);
    pugi::xml_node layer = test::layer_of_type(doc, "Loop");
    ASSERT_TRUE(layer);
    bool iteration = false, condition = false, concat = false;
    for (pugi::xml_node e : layer.child("port_map").children()) {
        const std::string purpose = e.attribute("purpose").value();
        iteration |= purpose == "current_iteration" && std::string(e.attribute("external_port_id").value()) == "-1";
        condition |= purpose == "execution_condition" && std::string(e.attribute("external_port_id").value()) == "-1";
        concat |= std::string(e.name()) == "output" && std::string(e.attribute("axis").value()) == "0";
    }
    EXPECT_TRUE(iteration && condition && concat);
    EXPECT_EQ(std::distance(layer.child("back_edges").children("edge").begin(), layer.child("back_edges").children("edge").end()), 1);
    const Tensor init = Tensor::from_vector<float>({1, 1}, {2}), x = Tensor::from_vector<float>({1, 10}, {2});
    auto out = evaluate(*back, {Tensor::scalar<int64_t>(10), init, x});
    EXPECT_EQ(values(out[0]), (std::vector<double>{4, 31}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{1, 1, 2, 11, 4, 31}));
}

TEST(TensorIteratorOp, SlicesAndConcatenatesBackwards) {
    auto g = tensor_iterator_model();
    // Backwards over [1, 2, 4]: sums 4, 6, 7; concatenated in reverse: [7, 6, 4].
    auto out = evaluate(*g, {Tensor::from_vector<float>({1, 2, 4}, {1, 3})});
    EXPECT_EQ(values(out[0]), (std::vector<double>{7}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{7, 6, 4}));
    EXPECT_EQ(g->results()[1].in(0).shape(), PartialShape({1, 3}));  // 3 iterations: known
    test::ScratchDir dir{"ti_ir"};
    pugi::xml_document doc;
    auto back = round_trip(*g, dir, doc);
    pugi::xml_node input = test::layer_of_type(doc, "TensorIterator").child("port_map").child("input");
    EXPECT_EQ(std::string(input.attribute("axis").value()), "1");
    EXPECT_EQ(std::string(input.attribute("stride").value()), "-1");
    out = evaluate(*back, {Tensor::from_vector<float>({1, 2, 4}, {1, 3})});
    EXPECT_EQ(values(out[1]), (std::vector<double>{7, 6, 4}));
}

TEST(SubgraphOps, ABodyParameterWithoutAPortMapEntryIsRefused) {
    auto g = if_model();
    Node n = g->find_by_name("if");
    n.bodies()[1].inputs.clear();
    try {
        infer_graph(*g);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("else_x"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("gets no value"), std::string::npos) << e.what();
    }
}

// Found by an audit of the IR reader and mo-run: each was a crash, an internal error, an
// out-of-bounds read that printed garbage, or a wrapped dimension.
TEST(SubgraphOps, SlicedPartsOutsideTheAxisAreRefused) {
    for (auto [start, end, stride] : {std::tuple{int64_t{-100000}, int64_t{-1}, int64_t{1}},  // start before the axis
                                      std::tuple{int64_t{100000}, int64_t{0}, int64_t{-1}},   // backwards from past it
                                      std::tuple{int64_t{0}, int64_t{100000}, int64_t{1}},    // end past it
                                      std::tuple{int64_t{0}, std::numeric_limits<int64_t>::max(), int64_t{1}}}) {
        auto g = tensor_iterator_model();
        BodyInput& sliced = g->find_by_name("ti").bodies()[0].inputs[0];
        sliced.start = start, sliced.end = end, sliced.stride = stride;
        test::expect_error([&] { infer_graph(*g); }, {"node 'ti'", "lie outside the axis of 3 elements"});
    }
    // The walk inside the axis still works both ways: forwards over [1, 2, 4] sums 1, 3, 7.
    auto g = tensor_iterator_model();
    BodyInput& sliced = g->find_by_name("ti").bodies()[0].inputs[0];
    sliced.start = 0, sliced.end = -1, sliced.stride = 1;
    auto out = evaluate(*g, {Tensor::from_vector<float>({1, 2, 4}, {1, 3})});
    EXPECT_EQ(values(out[0]), (std::vector<double>{7}));
}

TEST(SubgraphOps, AnOutputWithoutAPortMapEntryIsRefused) {
    auto g = tensor_iterator_model();
    g->find_by_name("ti").bodies()[0].outputs.pop_back();
    test::expect_error([&] { infer_graph(*g); }, {"node 'ti'", "output 1 has no entry in the port map"});
}

TEST(SubgraphOps, OnlyALoopHasAnExecutionCondition) {
    auto g = if_model();
    g->find_by_name("if").bodies()[0].outputs.push_back(BodyOutput{BodyOutput::Kind::Condition, 0, 0});
    test::expect_error([&] { infer_graph(*g); }, {"node 'if'", "only a Loop has"});
}

// A back edge that rotates a rank-70 shape [1, ..., 1, 2]: each round of inference makes one
// more dim dynamic, 70 rounds in all (64 was the old fixed bound: an internal error).
TEST(LoopOp, BackEdgeShapesSettleHoweverManyRoundsTheyTake) {
    constexpr int64_t kRank = 70;
    test::GraphBuilder b;
    std::vector<int64_t> dims(kRank, 1);
    dims.back() = 2;
    OutPort trip = b.constant<int64_t>({3}, {}, "trip");
    OutPort go = b.constant<bool>({true}, {}, "go");
    OutPort x = b.input(ElementType::f32, PartialShape(Shape(dims.begin(), dims.end())), "x");
    Node n = b.graph().add_node("Loop", "loop");
    n.set_input_count(3);
    n.in(0).connect(trip);
    n.in(1).connect(go);
    n.in(2).connect(x);
    n.set_output_count(1);
    Body& body = n.add_body("body");
    Node p = body_parameter(body, ElementType::f32, PartialShape::dynamic_rank(), "p");
    std::vector<int64_t> rotate(kRank);
    for (int64_t i = 0; i < kRank; ++i) rotate[i] = (i + kRank - 1) % kRank;
    OutPort perm = body.graph->add_constant("perm", Tensor::from_vector<int64_t>(rotate, {kRank})).out(0);
    body_result(body, body.graph->add_op("Transpose", "rotated", {p.out(0), perm}).out(0), "out");
    body.inputs.push_back(BodyInput{BodyInput::Kind::Merged, 2, 0, 0});
    body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, 0, 0});
    b.output(n.out(0), "y");
    auto g = b.release();
    infer_graph(*g);
    const PartialShape& y = g->results()[0].in(0).shape();
    ASSERT_TRUE(y.rank_is_static());
    EXPECT_EQ(y.rank(), static_cast<size_t>(kRank));
    for (size_t i = 0; i < y.rank(); ++i) EXPECT_FALSE(y[i].is_static()) << "dim " << i;
}

TEST(LoopOp, AConcatenatedOutputOfMoreThanInt64ElementsIsAnError) {
    auto g = loop_model();
    Node n = g->find_by_name("loop");
    Body& body = n.bodies()[0];
    // A constant trip count of 2^62 + 1 and a body condition that is always true.
    n.in(0).connect(g->add_constant("huge_trip", Tensor::scalar<int64_t>((int64_t{1} << 62) + 1)).out(0));
    body_result(body, body.graph->add_constant("always", Tensor::scalar<bool>(true)).out(0), "always_out");
    body.outputs[0].result = body.graph->results().size() - 1;
    body.outputs[2].axis = 1;  // the stacked [1, 2] parts along their dim of 2
    test::expect_error([&] { infer_graph(*g); }, {"node 'loop'", "overflow"});
}

TEST(LoopOp, TwoBackEdgesIntoOneParameterAreRefused) {
    auto g = loop_model();
    test::ScratchDir dir{"loop_two_back_edges"};
    pugi::xml_document doc;
    round_trip(*g, dir, doc);
    pugi::xml_node edges = test::layer_of_type(doc, "Loop").child("back_edges");
    edges.append_copy(edges.first_child());
    ASSERT_TRUE(doc.save_file(dir.file("m.xml").c_str()));
    test::expect_error([&] { read_ir(dir.file("m.xml"), test::builtin_ops()); }, {"layer 'loop'", "two back edges enter layer"});
}

TEST(SubgraphOps, NodesInBodiesNameTheirOwner) {
    auto g = if_model();
    Node twice = g->find_by_name("if").bodies()[0].graph->find_by_name("twice");
    EXPECT_EQ(twice.describe(), "node 'twice' (Multiply) in the then_body of node 'if' (If)");
}

}  // namespace
}  // namespace mo
