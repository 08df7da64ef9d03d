#include "transforms/middle/constants_into_bodies.hpp"

#include "core/graph_copy.hpp"
#include "core/loop_unroll.hpp"
#include "core/log.hpp"

namespace mo {

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

}  // namespace mo
