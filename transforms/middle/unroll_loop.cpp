#include "transforms/middle/unroll_loop.hpp"

#include "core/graph_copy.hpp"
#include "core/loop_unroll.hpp"
#include "core/log.hpp"
#include "transforms/middle/fold_constant_if.hpp"

namespace mo {

namespace {

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
