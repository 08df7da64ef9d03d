#include "transforms/middle/fold_constant_if.hpp"

#include "core/graph_copy.hpp"
#include "core/loop_unroll.hpp"
#include "core/log.hpp"

namespace mo {

void take_over(const OutPort& from, const OutPort& to) {
    from.replace_all_uses_with(to);
    auto& names = to.names();
    names.insert(names.end(), from.names().begin(), from.names().end());
    from.names().clear();
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

}  // namespace mo
