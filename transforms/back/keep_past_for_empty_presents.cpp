#include "transforms/back/keep_past_for_empty_presents.hpp"

#include "core/log.hpp"

namespace mo {

namespace {

std::string tensor_name(const Node& n) {
    const auto& names = n.is("Result") ? n.in(0).src().names() : n.out(0).names();
    return names.empty() ? n.name() : names.front();
}

Node find_named(const std::vector<Node>& nodes, const std::string& name) {
    for (const Node& n : nodes)
        if (n.answers_to(name)) return n;
    return Node();
}

// The (past Parameter, present Result) pairs MakeStateful will make.
std::vector<std::pair<Node, Node>> state_pairs(const Graph& graph, const TransformOptions& options) {
    std::vector<std::pair<Node, Node>> pairs;
    if (!options.stateful_pairs.empty()) {
        for (const auto& [param, result] : options.stateful_pairs) {
            Node p = find_named(graph.parameters(), param), r = find_named(graph.results(), result);
            if (p && r) pairs.emplace_back(p, r);  // MakeStateful reports the others
        }
        return pairs;
    }
    for (const Node& p : graph.parameters()) {
        const std::string name = tensor_name(p);
        for (const std::string prefix : {"past_key_values", "past"})
            if (name.rfind(prefix, 0) == 0) {
                if (Node r = find_named(graph.results(), "present" + name.substr(prefix.size()))) pairs.emplace_back(p, r);
                break;
            }
    }
    return pairs;
}

bool is_empty_constant(const OutPort& port) {
    if (!port.node().is("Constant") || !port.shape().rank_is_static()) return false;
    for (size_t i = 0; i < port.shape().rank(); ++i)
        if (port.shape()[i].is_static() && port.shape()[i].get_length() == 0) return true;
    return false;
}

// The body Parameter that receives the If's input `external`, added when the body has none.
OutPort parameter_for(Body& body, const Node& owner, size_t external) {
    for (const BodyInput& in : body.inputs)
        if (in.kind == BodyInput::Kind::Invariant && in.external == external)
            return body.graph->parameters()[in.parameter].out(0);
    const OutPort outer = owner.in(external).src();
    Node p = body.graph->add_op("Parameter", owner.name() + "/" + body.role + "/kept_past", {},
                                {{"shape", AttrValue(outer.shape())}, {"element_type", AttrValue(outer.type())}});
    p.out(0).set_type_and_shape(outer.type(), outer.shape());
    body.graph->parameters().push_back(p);
    BodyInput in;
    in.external = external;
    in.parameter = body.graph->parameters().size() - 1;
    body.inputs.push_back(in);
    return p.out(0);
}

}  // namespace

bool KeepPastForEmptyPresents::run(Graph& graph, const TransformContext& ctx) {
    size_t kept = 0;
    for (const auto& [past, present] : state_pairs(graph, ctx.options)) {
        const OutPort value = present.in(0).src();
        Node owner = value.node();
        if (!owner.is("If")) continue;
        std::optional<size_t> external;  // the If's input that reads the past, added when needed
        for (size_t i = 1; i < owner.input_count(); ++i)
            if (owner.in(i).connected() && owner.in(i).src() == past.out(0)) external = i;
        for (Body& body : owner.bodies()) {
            for (const BodyOutput& out : body.outputs) {
                if (out.external != value.index() || out.kind != BodyOutput::Kind::Last) continue;
                Node result = body.graph->results()[out.result];
                const OutPort given = result.in(0).src();
                if (!is_empty_constant(given)) continue;
                if (!external) {
                    external = owner.input_count();
                    owner.set_input_count(*external + 1);
                    owner.in(*external).connect(past.out(0));
                }
                const Node constant = given.node();
                result.in(0).connect(parameter_for(body, owner, *external));
                if (!constant.out(0).has_targets()) body.graph->remove_node(constant);
                ++kept;
                MO_LOG(Debug, "KeepPastForEmptyPresents: the ", body.role, " of '", owner.name(), "' returns '",
                       tensor_name(past), "' as '", tensor_name(present), "'");
            }
        }
    }
    if (kept) MO_LOG(Info, "KeepPastForEmptyPresents: ", kept, " empty presents keep their past value");
    return kept > 0;
}

}  // namespace mo
