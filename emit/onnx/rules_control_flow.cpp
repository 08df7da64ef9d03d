// Ops with bodies and variables as ONNX.
// * If: ONNX If; the branches read the node's inputs from the outer scope.
// * Loop / TensorIterator: ONNX Loop. Back-edged (merged) values are loop-carried; invariant
//   inputs are read from the outer scope; sliced inputs are cut in the body from the iteration
//   number; concatenated outputs are ONNX scan outputs (stacked on a new axis 0) moved and
//   merged into OpenVINO's axis; a last-iteration output of a value that is not carried is the
//   last element of a scan output.
// * ReadValue / Assign (a stateful model's variables): the stateless form, as ONNX has no state:
//   each variable is a model input (named as the variable) and the value assigned to it a model
//   output (the variable's name + "_out"); the caller feeds the outputs back as the next inputs.
//   A constant initial value is the input's default value (an initializer of the same name).
#include <algorithm>
#include <climits>

#include "emit/onnx/onnx_rules.hpp"

namespace mo::onnx_emit {

namespace {

// Body outputs must be produced by a node of the body and be distinct: others go through Identity.
std::vector<std::string> body_outputs(OnnxNodeContext& c, onnx::GraphProto& g, const std::vector<std::string>& values) {
    std::unordered_set<std::string> produced, used;
    for (const auto& n : g.node())
        for (const auto& o : n.output()) produced.insert(o);
    std::vector<std::string> out;
    for (const std::string& v : values) {
        std::string name = v;
        if (!produced.count(v) || used.count(v)) {
            name = c.fresh(v + "/out");
            *g.add_node() = make_node("Identity", name, {v}, {name});
        }
        used.insert(name);
        out.push_back(name);
    }
    return out;
}

void emit_if(OnnxNodeContext& c) {
    const size_t outputs = c.node.output_count();
    std::vector<onnx::AttributeProto> attrs;
    for (const Body& b : c.node.bodies()) {
        std::vector<std::string> params(b.graph->parameters().size());
        for (const BodyInput& in : b.inputs) {
            if (in.kind != BodyInput::Kind::Invariant) c.fail("an If body input that is not invariant");
            params.at(in.parameter) = c.in(in.external);
        }
        for (size_t p = 0; p < params.size(); ++p)
            if (params[p].empty()) c.fail("body parameter " + std::to_string(p) + " of " + b.role + " reads no input");
        onnx::GraphProto g = c.body(*b.graph, b.role, params);
        const std::vector<std::string> results = c.body_results();
        std::vector<std::string> values(outputs);
        for (const BodyOutput& o : b.outputs) values.at(o.external) = results.at(o.result);
        for (size_t j = 0; j < outputs; ++j)
            if (values[j].empty()) c.fail("output " + std::to_string(j) + " has no value in " + b.role);
        const auto names = body_outputs(c, g, values);
        for (size_t j = 0; j < outputs; ++j) *g.add_output() = typed_value(names[j], c.out_type(j));
        attrs.push_back(a_graph(b.role == "then_body" ? "then_branch" : "else_branch", std::move(g)));
    }
    std::vector<std::string> outs;
    for (size_t j = 0; j < outputs; ++j) outs.push_back(c.out(j));
    const std::string cond = c.add_tmp("Cast", {c.add_tmp("Reshape", {c.in(0), c.ints({}, "scalar")})},
                                       {a_int("to", onnx::TensorProto::BOOL)}, "cond");
    c.add("If", {cond}, outs, std::move(attrs));
}

// Loop and TensorIterator (`is_loop`: inputs 0 and 1 are the trip count and the condition).
void emit_loop(OnnxNodeContext& c, bool is_loop) {
    const Body& b = c.node.bodies().at(0);
    const Graph& body = *b.graph;
    const std::string prefix = c.node.name() + "/body/";
    const std::string iter = c.fresh(prefix + "iteration"), cond_in = c.fresh(prefix + "cond_in");
    std::vector<onnx::ValueInfoProto> inputs{typed_value(iter, ElementType::i64, PartialShape(std::vector<Dimension>{})),
                                             typed_value(cond_in, ElementType::boolean, PartialShape(std::vector<Dimension>{}))};
    std::vector<onnx::NodeProto> prologue;
    std::vector<std::string> params(body.parameters().size());
    std::vector<std::string> carried_initial;
    std::vector<size_t> carried_result;  // body Result of each carried value
    std::string trip;                    // TensorIterator: iterations from the first sliced input
    for (const BodyInput& in : b.inputs) {
        const Node param = body.parameters().at(in.parameter);
        const ElementType t = param.out(0).type();
        switch (in.kind) {
        case BodyInput::Kind::Invariant: params.at(in.parameter) = c.in(in.external); break;
        case BodyInput::Kind::Merged: {
            const std::string name = c.fresh(prefix + param.name());
            inputs.push_back(typed_value(name, t));
            params.at(in.parameter) = name;
            carried_initial.push_back(c.in(in.external));
            carried_result.push_back(in.result);
            break;
        }
        case BodyInput::Kind::CurrentIteration: {
            if (t == ElementType::i64) {
                params.at(in.parameter) = iter;
            } else {
                const std::string name = c.fresh(prefix + param.name());
                prologue.push_back(make_node("Cast", name, {iter}, {name}, {a_int("to", onnx_type(t, c.node.describe()))}));
                params.at(in.parameter) = name;
            }
            break;
        }
        case BodyInput::Kind::Sliced: {
            if (in.stride != 1 || in.start != 0 || in.end != -1)
                c.fail("a sliced body input other than forwards over the whole axis");
            // [iteration * part, iteration * part + part) along the axis.
            const std::string part = c.ints({in.part_size}, "part");
            const std::string at = c.fresh(prefix + "slice_start"), end = c.fresh(prefix + "slice_end");
            const std::string at1 = c.fresh(prefix + "slice_start_1d");
            prologue.push_back(make_node("Mul", at, {iter, c.int_scalar(in.part_size, "part")}, {at}));
            prologue.push_back(make_node("Reshape", at1, {at, c.ints({1}, "one")}, {at1}));
            prologue.push_back(make_node("Add", end, {at1, part}, {end}));
            const std::string name = c.fresh(prefix + param.name());
            prologue.push_back(make_node("Slice", name, {c.in(in.external), at1, end, c.ints({in.axis}, "axis")}, {name}));
            params.at(in.parameter) = name;
            if (!is_loop && trip.empty()) {
                const std::string shape = c.add_tmp("Shape", {c.in(in.external)});
                const std::string dim = c.add_tmp("Gather", {shape, c.int_scalar(in.axis, "axis")}, {a_int("axis", 0)});
                trip = c.add_tmp("Div", {dim, c.int_scalar(in.part_size, "part")}, {}, "trip_count");
            }
            break;
        }
        }
    }
    for (size_t p = 0; p < params.size(); ++p)
        if (params[p].empty()) c.fail("body parameter " + std::to_string(p) + " reads no input");
    onnx::GraphProto g = c.body(body, "body", params, inputs, prologue);
    const std::vector<std::string> results = c.body_results();

    // Body outputs: the condition, the carried values, then the scan outputs.
    std::string cond_value;
    for (const BodyOutput& o : b.outputs)
        if (o.kind == BodyOutput::Kind::Condition) cond_value = results.at(o.result);
    std::vector<std::string> values;
    std::vector<ElementType> types;
    if (cond_value.empty()) {
        values.push_back(cond_in);
    } else {
        const std::string cast = c.fresh(prefix + "cond_out");
        *g.add_node() = make_node("Cast", cast, {cond_value}, {cast}, {a_int("to", onnx::TensorProto::BOOL)});
        values.push_back(cast);
    }
    types.push_back(ElementType::boolean);
    for (size_t r : carried_result) {
        values.push_back(results.at(r));
        types.push_back(body.results().at(r).in(0).type());
    }
    struct Scan {
        const BodyOutput* output;
        bool last;  // a last-iteration value taken from the stacked outputs
    };
    std::vector<Scan> scans;
    std::vector<int> node_output_carried(c.node.output_count(), -1);
    for (const BodyOutput& o : b.outputs) {
        if (o.kind == BodyOutput::Kind::Condition) continue;
        auto it = std::find(carried_result.begin(), carried_result.end(), o.result);
        if (o.kind == BodyOutput::Kind::Last && it != carried_result.end()) {
            node_output_carried.at(o.external) = static_cast<int>(it - carried_result.begin());
            continue;
        }
        if (o.kind == BodyOutput::Kind::Concat && (o.stride != 1 || o.start != 0 || o.end != -1))
            c.fail("a concatenated body output other than forwards over the whole axis");
        scans.push_back({&o, o.kind == BodyOutput::Kind::Last});
        values.push_back(results.at(o.result));
        types.push_back(body.results().at(o.result).in(0).type());
    }
    const auto names = body_outputs(c, g, values);
    for (size_t i = 0; i < names.size(); ++i) *g.add_output() = typed_value(names[i], types[i]);

    // The Loop node: trip count, condition, carried initial values.
    std::string m, cond;
    if (is_loop) {
        const Tensor* count = c.in_value(0);
        if (!count || count->single_i64("the trip count") >= 0) m = c.cast(c.in(0), c.in_type(0), ElementType::i64);
        if (!m.empty()) m = c.add_tmp("Reshape", {m, c.ints({}, "scalar")}, {}, "trip_count");
        cond = c.add_tmp("Cast", {c.add_tmp("Reshape", {c.in(1), c.ints({}, "scalar")})}, {a_int("to", onnx::TensorProto::BOOL)}, "cond");
    } else {
        if (trip.empty()) c.fail("a TensorIterator without a sliced input (its iteration count is unknown)");
        m = trip;
    }
    std::vector<std::string> loop_in{m, cond};
    loop_in.insert(loop_in.end(), carried_initial.begin(), carried_initial.end());
    std::vector<std::string> loop_out;
    for (size_t k = 0; k < carried_result.size(); ++k) loop_out.push_back(c.fresh(c.node.name() + "/carried"));
    for (size_t s = 0; s < scans.size(); ++s) loop_out.push_back(c.fresh(c.node.name() + "/scan"));
    c.add("Loop", loop_in, loop_out, {a_graph("body", std::move(g))});

    for (size_t j = 0; j < c.node.output_count(); ++j)
        if (node_output_carried[j] >= 0) c.add("Identity", {loop_out[static_cast<size_t>(node_output_carried[j])]}, {c.out(j)});
    for (size_t s = 0; s < scans.size(); ++s) {
        const BodyOutput& o = *scans[s].output;
        const std::string stacked = loop_out[carried_result.size() + s];
        if (scans[s].last) {
            c.add("Gather", {stacked, c.int_scalar(-1, "last")}, {c.out(o.external)}, {a_int("axis", 0)});
            continue;
        }
        // [N, d0, .., d_axis, ..] -> [d0, .., N * d_axis, ..]
        const PartialShape& rs = body.results().at(o.result).in(0).shape();
        if (!rs.rank_is_static()) c.fail("a concatenated body output of dynamic rank");
        const auto rank = static_cast<int64_t>(rs.rank());
        const int64_t axis = o.axis < 0 ? o.axis + rank : o.axis;
        std::string moved = stacked;
        if (axis > 0) {
            std::vector<int64_t> perm;
            for (int64_t a = 1; a <= axis; ++a) perm.push_back(a);
            perm.push_back(0);
            for (int64_t a = axis + 1; a <= rank; ++a) perm.push_back(a);
            moved = c.add_tmp("Transpose", {stacked}, {a_ints("perm", perm)});
        }
        const std::string shape = c.add_tmp("Shape", {moved});
        const std::string head = c.add_tmp("Slice", {shape, c.ints({0}, "zero"), c.ints({axis}, "axis")});
        const std::string tail = c.add_tmp("Slice", {shape, c.ints({axis + 2}, "after"), c.ints({INT64_MAX}, "end")});
        const std::string target = c.add_tmp("Concat", {head, c.ints({-1}, "merged"), tail}, {a_int("axis", 0)});
        c.add("Reshape", {moved, target}, {c.out(o.external)});
    }
}

void emit_read_value(OnnxNodeContext& c) {
    const std::string id = c.attr<std::string>("variable_id");
    const std::string name = c.fresh(id);
    *c.graph().add_input() = typed_value(name, c.out_type(0), c.out_shape(0));
    // A constant initial value is the input's default (an initializer of the same name).
    if (const Tensor* init = c.in_value(0)) c.input_default(name, *init);
    c.bind_out(0, name);
}

void emit_assign(OnnxNodeContext& c) {
    const std::string id = c.attr<std::string>("variable_id");
    const std::string name = c.fresh(id + "_out");
    c.add("Identity", {c.in(0)}, {name});
    *c.graph().add_output() = typed_value(name, c.in_type(0), c.in_shape(0));
    c.bind_out(0, name);
}

}  // namespace

std::vector<OnnxRule> control_flow_rules() {
    return {
        {"If", 13, emit_if, "If (branches read the inputs from the outer scope)"},
        {"Loop", 13, [](OnnxNodeContext& c) { emit_loop(c, true); }, "Loop (carried, outer-scope, sliced and scanned values)"},
        {"TensorIterator", 13, [](OnnxNodeContext& c) { emit_loop(c, false); }, "Loop with the trip count of the sliced input"},
        {"ReadValue", 13, emit_read_value, "a model input (stateless form)"},
        {"Assign", 13, emit_assign, "a model output (stateless form)"},
    };
}

}  // namespace mo::onnx_emit
