// ONNX If -> If-8, Loop -> Loop-5, Scan (opset 9+) -> TensorIterator-1. The loader has built the
// bodies (the GRAPH attributes) and turned every outer value a body reads into an input of the
// node and an Invariant body input; these extractors map the ONNX body inputs and outputs onto
// OpenVINO's port map.
#include "core/loop_unroll.hpp"
#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"
#include "loaders/onnx/onnx_loader.hpp"

namespace mo {

namespace {

// The body built from GRAPH attribute `attr`, renamed to its IR element `role`.
Body& body_of(ExtractContext& c, const std::string& attr, const std::string& role) {
    for (Body& b : c.node().bodies())
        if (b.role == attr || b.role == role) {
            b.role = role;
            b.graph->set_owner_role(role);
            return b;
        }
    c.fail("the graph attribute '" + attr + "' is missing", "fix the model");
}

// Number of the body's own (ONNX) inputs: the Parameters that are not captured outer values
// (the loader put those last, and they are the only port map entries so far).
size_t own_inputs(const Body& body) {
    size_t n = body.graph->parameters().size();
    for (const BodyInput& in : body.inputs) n = std::min(n, in.parameter);
    return n;
}

// Number of the node's own (ONNX) inputs: the captured outer values come after them.
size_t own_node_inputs(ExtractContext& c) {
    size_t n = c.input_count();
    for (const Body& b : c.node().bodies())
        for (const BodyInput& in : b.inputs) n = std::min(n, in.external);
    return n;
}

Node add_body_op(Body& body, const std::string& type, const std::string& name, const std::vector<OutPort>& inputs,
                 const AttrMap& attrs = {}) {
    return body.graph->add_op(type, name, inputs, attrs);
}

OutPort body_i64s(Body& body, const std::string& name, std::vector<int64_t> values) {
    const auto n = static_cast<int64_t>(values.size());
    return body.graph->add_constant(name, Tensor::from_vector<int64_t>(values, {n})).out(0);
}

// Inserts Unsqueeze(value, axis) between body Result `result` and its producer: the value of one
// iteration as a slice of the concatenated output.
void stack_result(Body& body, size_t result, int64_t axis) {
    Node r = body.graph->results()[result];
    OutPort src = r.in(0).src();
    const std::string name = r.name() + "/stack";
    r.in(0).connect(add_body_op(body, "Unsqueeze", name, {src, body_i64s(body, name + "/axis", {axis})}).out(0));
}

void if_op(ExtractContext& c) {
    Body& then_body = body_of(c, "then_branch", "then_body");
    body_of(c, "else_branch", "else_body");
    auto& bodies = c.node().bodies();
    if (&bodies[0] != &then_body) std::swap(bodies[0], bodies[1]);
    for (Body* b : {&bodies[0], &bodies[1]}) {
        if (own_inputs(*b) != 0) c.fail("an If branch declares inputs", "If branches take none; fix the model");
        if (b->graph->results().size() != c.output_count())
            c.fail("the " + b->role + " has " + std::to_string(b->graph->results().size()) + " outputs, the node " +
                   std::to_string(c.output_count()), "fix the model");
        for (size_t k = 0; k < c.output_count(); ++k) b->outputs.push_back(BodyOutput{BodyOutput::Kind::Last, k, k});
    }
    c.become("If");
}

// An int attribute of another framework node (0 when absent, as ConcatFromSequence's defaults).
int64_t int_attr(const Node& n, const char* name) {
    const auto& attributes = n.framework().attributes;
    auto a = attributes ? attributes->get(name) : std::nullopt;
    const int64_t* v = a ? std::get_if<int64_t>(&*a) : nullptr;
    if (a && !v) throw Error("attribute '" + std::string(name) + "' is not an int", n.describe(), "fix the model");
    return v ? *v : 0;
}

bool is_framework_op(const Node& n, const char* type) { return n.is("FrameworkNode") && n.framework().type == type; }

// The list a loop appends to, as TorchScript exports `xs.append(v)` + `torch.stack(xs)` /
// `torch.cat(xs)`: a SequenceEmpty carried through the Loop, one SequenceInsert at the end per
// iteration, and ConcatFromSequence after the loop. Such a carried sequence is a scan output in
// disguise. Returns the ConcatFromSequence nodes when carried value `k` is one.
std::vector<Node> appended_sequence(ExtractContext& c, const Body& body, size_t k) {
    const Graph& g = *body.graph;
    Node p = g.parameters()[2 + k];
    if (p.framework().type != kOnnxSequence) return {};
    auto uses = p.out(0).targets();
    if (uses.size() != 1 || uses[0].index() != 0) return {};
    Node insert = uses[0].node();
    if (!insert.is("SequenceInsert") || insert.attr<int64_t>("position") != -1) return {};
    auto insert_uses = insert.out(0).targets();
    if (insert_uses.size() != 1 || insert_uses[0].node() != g.results()[1 + k]) return {};
    auto init = c.node().in(2 + k).source();
    if (!init || !init->node().is("SequenceMake") || init->node().input_count() != 0) return {};
    std::vector<Node> concats;
    for (const InPort& t : c.node().out(k).targets()) {
        if (!is_framework_op(t.node(), "ConcatFromSequence")) return {};
        concats.push_back(t.node());
    }
    return concats;
}

// Carried list `i` (see appended_sequence) becomes Loop output i as a scan output: the appended
// value, Unsqueezed when the ConcatFromSequence adds an axis, concatenated along its axis; the
// ConcatFromSequence nodes go. The list's body Parameter and Loop input are removed by the caller.
void lower_appended_list(ExtractContext& c, Body& body, size_t i, const std::vector<Node>& concats) {
    Graph& g = *body.graph;
    const int64_t axis = int_attr(concats[0], "axis");
    const bool new_axis = int_attr(concats[0], "new_axis") != 0;
    for (const Node& other : concats)
        if (int_attr(other, "axis") != axis || (int_attr(other, "new_axis") != 0) != new_axis)
            c.unsupported("one appended sequence concatenated in two ways");
    Node result = g.results()[1 + i];
    Node insert = result.in(0).src().node();
    result.in(0).connect(insert.in(1).src());
    g.remove_node(insert);
    if (new_axis) stack_result(body, 1 + i, axis);
    BodyOutput out{BodyOutput::Kind::Concat, i, 1 + i};
    out.axis = axis;
    body.outputs.push_back(out);
    for (const Node& concat : concats) {
        concat.out(0).replace_all_uses_with(c.node().out(i));
        auto& names = c.node().out(i).names();
        names.insert(names.end(), concat.out(0).names().begin(), concat.out(0).names().end());
        c.graph().remove_node(concat);
    }
}

// The value a body port has in every iteration when it is known: a constant, or a Parameter that
// receives a constant outer value.
const Tensor* invariant_value(ExtractContext& c, const Body& body, const OutPort& port) {
    if (!port.node().is("Parameter")) return port.value();
    const auto& params = body.graph->parameters();
    for (const BodyInput& in : body.inputs)
        if (in.kind == BodyInput::Kind::Invariant && params[in.parameter] == port.node()) return c.input_value(in.external);
    return nullptr;
}

// A Loop whose carried sequence does more than collect a scan output (MViT builds a list of
// slices, appends to it after the loop and picks elements) is unrolled here, port map complete,
// when its trip count is a small constant and its conditions constantly true: the copies'
// sequence placeholders then resolve like any other. Returns false when the Loop is not such a one.
bool unroll_with_sequences(ExtractContext& c, const Body& body) {
    constexpr int64_t kMaxIterations = 64;
    constexpr int64_t kMaxUnrolledNodes = 65536;  // a 50,000-node body 64 times took 2.6 GB
    const Tensor* trip = c.input_value(0);
    if (!trip || trip->size() != 1) return false;
    const int64_t iterations = trip->to_i64()[0];
    if (iterations < 1 || iterations > kMaxIterations || !known_true(c.input_value(1))) return false;
    const Graph& g = *body.graph;
    if (!known_true(invariant_value(c, body, g.results()[0].in(0).src()))) return false;
    for (const Node& n : g.nodes())
        if (n.is("FrameworkNode") || !n.bodies().empty()) return false;
    const auto nodes = static_cast<int64_t>(g.node_count());
    if (nodes > kMaxUnrolledNodes / iterations)
        c.unsupported("unrolling this Loop, which carries a sequence, into " + std::to_string(iterations) + " copies of " +
                      std::to_string(nodes) + " body nodes (at most " + std::to_string(kMaxUnrolledNodes) + " in all)");
    std::vector<OutPort> inputs;
    for (size_t i = 0; i < c.input_count(); ++i) inputs.push_back(c.input(i));
    const auto outputs = unroll_loop_body(body, c.graph(), inputs, c.output_count(), iterations, c.name() + "/");
    for (size_t j = 0; j < outputs.size(); ++j) c.set_output(j, outputs[j]);
    return true;  // the Loop, a FrameworkNode without consumers now, goes
}

// ONNX: Loop(M?, cond?, v...) with body (iteration, cond_in, v...) -> (cond_out, v..., scan...).
void loop(ExtractContext& c) {
    Body& body = body_of(c, "body", "body");
    Graph& g = *body.graph;
    const size_t n_onnx_inputs = own_node_inputs(c);
    if (n_onnx_inputs < 2) c.fail("Loop needs the M and cond inputs (they may be empty names)", "fix the model");
    const size_t carried = n_onnx_inputs - 2;
    if (own_inputs(body) != carried + 2)
        c.fail("the body takes " + std::to_string(own_inputs(body)) + " inputs, the Loop gives " + std::to_string(carried + 2),
               "fix the model");
    if (g.results().size() < carried + 1 || c.output_count() != g.results().size() - 1)
        c.fail("the body's outputs do not match the Loop's", "fix the model");
    const size_t scans = g.results().size() - 1 - carried;
    Node loop = c.node();
    // Loop-5 reads a negative trip count as no limit; ONNX's M < 0 runs no iteration.
    if (!c.has_input(0)) {
        loop.in(0).connect(c.i64("trip_count", -1));
    } else if (const Tensor* m = c.input_value(0); !m || m->size() != 1) {
        loop.in(0).connect(c.op("Maximum", "trip_count", {c.input(0), c.i64("trip_count/zero", 0)}));
    } else if (m->to_i64()[0] < 0) {
        loop.in(0).connect(c.i64("trip_count", 0));
    }
    if (!c.has_input(1)) loop.in(1).connect(c.constant("execution_condition", Tensor::scalar<bool>(true)));

    // Body Parameter 0: the iteration number, as ONNX an i64 scalar.
    Node iteration = g.parameters()[0];
    iteration.set_attr("element_type", ElementType::i64);
    iteration.set_attr("shape", PartialShape{});
    body.inputs.push_back(BodyInput{BodyInput::Kind::CurrentIteration, 0, 0});
    body.outputs.push_back(BodyOutput{BodyOutput::Kind::Condition, 0, 0});
    // A carried sequence other than a list to append to: the Loop is unrolled once mapped.
    bool unroll = false;
    for (size_t i = 0; i < carried; ++i)
        unroll |= g.parameters()[2 + i].framework().type == kOnnxSequence && appended_sequence(c, body, i).empty();
    std::vector<size_t> sequences;  // carried values that are appended-to lists, lowered below
    for (size_t i = 0; i < carried; ++i) {
        std::vector<Node> concats = unroll ? std::vector<Node>{} : appended_sequence(c, body, i);
        if (concats.empty()) {
            body.inputs.push_back(BodyInput{BodyInput::Kind::Merged, 2 + i, 2 + i, 1 + i});
            body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, i, 1 + i});
            continue;
        }
        lower_appended_list(c, body, i, concats);
        sequences.push_back(i);
    }
    // Scan outputs stack the per-iteration values along a new first axis.
    for (size_t k = 0; k < scans; ++k) {
        const size_t result = 1 + carried + k;
        stack_result(body, result, 0);
        BodyOutput out{BodyOutput::Kind::Concat, carried + k, result};
        body.outputs.push_back(out);
    }
    // The lowered lists leave the body's and the node's inputs (from the last, so that the
    // indices of the others stay valid until they move).
    for (auto it = sequences.rbegin(); it != sequences.rend(); ++it) {
        Node empty = loop.in(2 + *it).src().node();
        remove_subgraph_op_input(loop, 2 + *it);
        remove_body_parameter(body, 2 + *it);
        if (!empty.out(0).has_targets()) c.graph().remove_node(empty);
    }
    // Body Parameter 1 (cond_in) starts as the Loop's condition and then is the body's own
    // cond_out. The condition input itself is not a body input in OpenVINO, so the first value
    // comes through an input of its own.
    if (g.parameters()[1].out(0).has_targets()) {
        const size_t extra = loop.input_count();
        loop.set_input_count(extra + 1);
        loop.in(extra).connect(loop.in(1).src());
        body.inputs.push_back(BodyInput{BodyInput::Kind::Merged, extra, 1, 0});
    } else {
        remove_body_parameter(body, 1);
    }
    if (!unroll) {
        c.become("Loop");
        return;
    }
    if (!unroll_with_sequences(c, body))
        c.unsupported("a sequence carried through the Loop other than a list appended to and concatenated after it, "
                      "in a Loop that is not a short constant one");
}

// ONNX Scan-9+: (state..., scan inputs...) with body (state..., slices...) -> (state..., scan...).
void scan(ExtractContext& c) {
    Body& body = body_of(c, "body", "body");
    Graph& g = *body.graph;
    const int64_t n_scan_in = c.i("num_scan_inputs");
    const size_t n_onnx_inputs = own_node_inputs(c);
    if (n_scan_in < 1 || static_cast<size_t>(n_scan_in) > n_onnx_inputs)
        c.fail("num_scan_inputs " + std::to_string(n_scan_in) + " does not fit the " + std::to_string(n_onnx_inputs) + " inputs",
               "fix the model");
    const size_t n_state = n_onnx_inputs - static_cast<size_t>(n_scan_in);
    if (c.output_count() < n_state)
        c.fail("the Scan has " + std::to_string(c.output_count()) + " outputs, fewer than its " + std::to_string(n_state) +
                   " state variables",
               "fix the model");
    const size_t n_scan_out = c.output_count() - n_state;
    if (own_inputs(body) != n_onnx_inputs || g.results().size() != c.output_count())
        c.fail("the body's inputs or outputs do not match the Scan's", "fix the model");
    auto in_axes = c.ints("scan_input_axes", std::vector<int64_t>(n_scan_in, 0));
    auto in_dirs = c.ints("scan_input_directions", std::vector<int64_t>(n_scan_in, 0));
    auto out_axes = c.ints("scan_output_axes", std::vector<int64_t>(n_scan_out, 0));
    auto out_dirs = c.ints("scan_output_directions", std::vector<int64_t>(n_scan_out, 0));
    if (in_axes.size() != static_cast<size_t>(n_scan_in) || in_dirs.size() != static_cast<size_t>(n_scan_in) ||
        out_axes.size() != n_scan_out || out_dirs.size() != n_scan_out)
        c.fail("scan_input_* / scan_output_* attributes do not have one entry per scan input / output", "fix the model");

    for (size_t i = 0; i < n_state; ++i) {
        body.inputs.push_back(BodyInput{BodyInput::Kind::Merged, i, i, i});
        body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, i, i});
    }
    for (size_t j = 0; j < static_cast<size_t>(n_scan_in); ++j) {
        // OpenVINO's slice keeps the iterated axis (extent 1); ONNX's body sees it removed.
        const size_t param = n_state + j;
        int64_t axis = in_axes[j];
        if (int64_t rank = ExtractContext::rank_of(c.input(param)); rank >= 0) {
            if (axis < -rank || axis >= rank)
                c.fail("scan_input_axes[" + std::to_string(j) + "] is " + std::to_string(axis) + ", outside the input's rank " +
                       std::to_string(rank), "fix the model");
            if (axis < 0) axis += rank;
        }
        Node p = g.parameters()[param];
        auto targets = p.out(0).targets();
        OutPort squeezed = add_body_op(body, "Squeeze", p.name() + "/slice", {p.out(0), body_i64s(body, p.name() + "/slice/axis", {axis})}).out(0);
        for (const InPort& t : targets) t.connect(squeezed);
        BodyInput in{BodyInput::Kind::Sliced, param, param};
        in.axis = axis;
        if (in_dirs[j] != 0) in.start = -1, in.end = 0, in.stride = -1;
        body.inputs.push_back(in);
    }
    for (size_t k = 0; k < n_scan_out; ++k) {
        const size_t result = n_state + k;
        stack_result(body, result, out_axes[k]);
        BodyOutput out{BodyOutput::Kind::Concat, result, result};
        out.axis = out_axes[k];
        if (out_dirs[k] != 0) out.start = -1, out.end = 0, out.stride = -1;
        body.outputs.push_back(out);
    }
    c.become("TensorIterator");
}

}  // namespace

void register_onnx_control_flow(ExtractorRegistry& r) {
    r.add({"onnx", "", "If", since(1), if_op});
    r.add({"onnx", "", "Loop", since(1), loop});
    r.add({"onnx", "", "Scan", since(9), scan});
}

}  // namespace mo
