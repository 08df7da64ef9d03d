// IF -> If-8, WHILE -> Loop-5, and the state of resource variables -> ReadValue-6 / Assign-6.
// The loader has built each IF / WHILE subgraph as a body of the node (its inputs Parameters,
// its outputs Results, in the subgraph's order) and resolved VAR_HANDLE / READ_VARIABLE /
// ASSIGN_VARIABLE / CALL_ONCE; these extractors map the bodies onto OpenVINO's port maps, as
// TFLite's kernels (if.cc, while.cc) pass values:
//   IF(cond, x...)   the taken branch receives x..., its outputs are the node's outputs
//   WHILE(x...)      x = cond(x) ? body(x) : stop, again and again; the outputs are the last x
#include "core/graph_copy.hpp"
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

void check_counts(ExtractContext& c, const Body& body, size_t parameters, size_t results) {
    const Graph& g = *body.graph;
    if (g.parameters().size() != parameters || g.results().size() != results)
        c.fail("the " + body.role + " subgraph has " + std::to_string(g.parameters().size()) + " inputs and " +
                   std::to_string(g.results().size()) + " outputs where the node gives " + std::to_string(parameters) +
                   " and takes " + std::to_string(results),
               "the model is corrupt; re-export it");
}

void check_condition(ExtractContext& c, const OutPort& cond, const std::string& what) {
    if (cond.type() != ElementType::boolean && cond.type() != ElementType::dynamic)
        c.fail(what + " is " + std::string(ir_name(cond.type())) + ", TFLite's kernel takes a bool",
               "the model is corrupt; re-export it");
}

// IF(cond, x...): then_body and else_body each take x... and give the node's outputs.
void if_op(ExtractContext& c) {
    auto& bodies = c.node().bodies();
    if (bodies.size() != 2 || c.input_count() < 1) c.fail("IF needs a condition and two subgraphs", "re-export the model");
    check_condition(c, c.input(0), "the condition");
    const size_t args = c.input_count() - 1;
    for (Body& b : bodies) {
        check_counts(c, b, args, c.output_count());
        for (size_t k = 0; k < args; ++k) b.inputs.push_back(BodyInput{BodyInput::Kind::Invariant, 1 + k, k});
        for (size_t k = 0; k < c.output_count(); ++k) b.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, k, k});
    }
    for (size_t k = 0; k < args; ++k)
        if (!c.has_input(1 + k)) c.fail("input " + std::to_string(1 + k) + " is absent", "the model is corrupt; re-export it");
    c.become("If");
}

// WHILE(x...) with cond(x...) -> bool and body(x...) -> x...: Loop-5 with no trip count, whose
// execution condition is cond applied to the inputs (a copy of cond in the outer graph) and whose
// body ends with cond applied to its outputs (a second copy, the body's condition Result).
void while_op(ExtractContext& c) {
    auto& bodies = c.node().bodies();
    if (bodies.size() != 2) c.fail("WHILE needs a cond and a body subgraph", "re-export the model");
    const size_t n = c.input_count();
    if (c.output_count() != n)
        c.fail("WHILE has " + std::to_string(n) + " inputs but " + std::to_string(c.output_count()) + " outputs",
               "the model is corrupt; re-export it");
    for (size_t k = 0; k < n; ++k)
        if (!c.has_input(k)) c.fail("input " + std::to_string(k) + " is absent", "the model is corrupt; re-export it");
    check_counts(c, bodies[0], n, 1);
    check_counts(c, bodies[1], n, n);
    const Graph& cond = *bodies[0].graph;
    Graph& body = *bodies[1].graph;
    const OutPort cond_value = cond.results()[0].in(0).src();

    std::map<uint64_t, OutPort> outer_values, body_values;
    for (size_t k = 0; k < n; ++k) {
        outer_values[cond.parameters()[k].id()] = c.input(k);
        body_values[cond.parameters()[k].id()] = body.results()[k].in(0).src();
    }
    const OutPort first = copy_graph(cond, c.graph(), c.name() + "/cond/", outer_values, false).port(cond_value);
    check_condition(c, first, "the cond subgraph's output");
    const OutPort next = copy_graph(cond, body, c.name() + "/cond/", body_values, false).port(cond_value);
    body.results().push_back(body.add_op("Result", c.name() + "/cond/sink_port_0", {next}));

    Node loop = c.node();
    loop.set_input_count(n + 2);
    for (size_t k = n; k-- > 0;) loop.in(k + 2).connect(loop.in(k).src());
    loop.in(0).connect(c.i64("trip_count", -1));
    loop.in(1).connect(first);
    bodies.erase(bodies.begin());
    Body& b = bodies[0];
    for (size_t k = 0; k < n; ++k) {
        b.inputs.push_back(BodyInput{BodyInput::Kind::Merged, 2 + k, k, k});
        b.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, k, k});
    }
    b.outputs.push_back(BodyOutput{BodyOutput::Kind::Condition, 0, n});
    c.become("Loop");
}

// The state of a variable the main subgraph reads before assigning it: ReadValue of its initial
// value (what CALL_ONCE's init subgraph assigned), of the initial value's type and shape.
void read_variable(ExtractContext& c) {
    const OutPort initial = c.input(0);
    if (initial.type() == ElementType::dynamic || !initial.shape().rank_is_static())
        c.unsupported("a variable whose initial value has no known type and rank");
    c.become("ReadValue", {{"variable_id", c.s("variable_id", "")},
                           {"variable_type", initial.type()},
                           {"variable_shape", initial.shape()}});
}

void assign_variable(ExtractContext& c) { c.become("Assign", {{"variable_id", c.s("variable_id", "")}}); }

}  // namespace

void register_tflite_control_flow(ExtractorRegistry& r) {
    r.add({"tflite", "", "IF", 1, INT64_MAX, if_op});
    r.add({"tflite", "", "WHILE", 1, INT64_MAX, while_op});
    r.add({"tflite", "", "READ_VARIABLE", 1, INT64_MAX, read_variable});
    r.add({"tflite", "", "ASSIGN_VARIABLE", 1, INT64_MAX, assign_variable});
}

}  // namespace mo
