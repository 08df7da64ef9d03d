#include "transforms/middle/unroll_loop.hpp"

#include "core/graph_copy.hpp"
#include "core/loop_unroll.hpp"
#include "core/log.hpp"

namespace mo {

namespace {

// Moves the consumers and tensor names of `from` to `to`.
void take_over(const OutPort& from, const OutPort& to) {
    from.replace_all_uses_with(to);
    auto& names = to.names();
    names.insert(names.end(), from.names().begin(), from.names().end());
    from.names().clear();
}

// The Loop's iteration count when it is known before running it, else -1.
int64_t fixed_iterations(const Node& loop) {
    const Body& body = loop.bodies().at(0);
    const Tensor* trip = loop.in(0).value();
    if (!trip || trip->size() != 1 || !known_true(loop.in(1).value())) return -1;
    for (const BodyInput& in : body.inputs)
        if (in.kind == BodyInput::Kind::Sliced) return -1;
    for (const BodyOutput& out : body.outputs)
        if (out.kind == BodyOutput::Kind::Condition && !known_true(body.graph->results()[out.result].in(0).value()))
            return -1;
    return trip->single_i64("the trip count");
}

}  // namespace

bool ConstantsIntoBodies::apply(Node n, const TransformContext&) {
    bool changed = false;
    for (Body& body : n.bodies()) {
        for (size_t k = body.inputs.size(); k-- > 0;) {
            const BodyInput in = body.inputs[k];
            const Tensor* value = in.kind == BodyInput::Kind::Invariant ? n.in(in.external).value() : nullptr;
            if (!value) continue;
            Node p = body.graph->parameters()[in.parameter];
            Node c = body.graph->add_constant(p.name(), *value);
            p.out(0).replace_all_uses_with(c.out(0));
            remove_body_parameter(body, in.parameter);
            changed = true;
        }
    }
    // Inputs no body reads any more leave the node (Loop's trip count and condition stay).
    const size_t first = n.is("Loop") ? 2 : n.is("If") ? 1 : 0;
    for (size_t i = n.input_count(); i-- > first;) {
        bool read = false;
        for (const Body& body : n.bodies())
            for (const BodyInput& in : body.inputs) read |= in.kind != BodyInput::Kind::CurrentIteration && in.external == i;
        if (!read) remove_subgraph_op_input(n, i);
    }
    if (changed) n.set_needs_infer();
    return changed;
}

bool FoldConstantIf::matches(Node n) const {
    const Tensor* cond = n.in(0).value();
    return cond && cond->size() == 1 && n.bodies().size() == 2;
}

bool FoldConstantIf::apply(Node n, const TransformContext&) {
    const bool taken_then = n.in(0).value()->to_i64()[0] != 0;
    const Body& body = n.bodies()[taken_then ? 0 : 1];
    std::map<uint64_t, OutPort> bound;
    for (const BodyInput& in : body.inputs) bound.emplace(body.graph->parameters()[in.parameter].id(), n.in(in.external).src());
    GraphCopy copy = copy_graph(*body.graph, n.graph(), n.name() + "/" + body.role + "/", bound, false);
    for (const BodyOutput& out : body.outputs)
        take_over(n.out(out.external), copy.port(body.graph->results()[out.result].in(0).src()));
    MO_LOG(Debug, "FoldConstantIf: ", n.describe(), " is its ", body.role);
    n.graph().remove_node(n);
    return true;
}

bool UnrollLoop::matches(Node n) const {
    const int64_t iterations = fixed_iterations(n);
    const auto body_nodes = static_cast<int64_t>(n.bodies().at(0).graph->node_count());
    return iterations >= 1 && iterations <= kMaxIterations && iterations * body_nodes <= kMaxNodes;
}

bool UnrollLoop::apply(Node n, const TransformContext&) {
    const int64_t iterations = fixed_iterations(n);
    std::vector<OutPort> inputs;
    for (size_t i = 0; i < n.input_count(); ++i) inputs.push_back(n.in(i).src());
    const auto outputs = unroll_loop_body(n.bodies().at(0), n.graph(), inputs, n.output_count(), iterations, n.name() + "/");
    for (size_t j = 0; j < outputs.size(); ++j)
        if (outputs[j].node()) take_over(n.out(j), outputs[j]);
    MO_LOG(Debug, "UnrollLoop: ", n.describe(), " unrolled ", iterations, " times");
    n.graph().remove_node(n);
    return true;
}

}  // namespace mo
