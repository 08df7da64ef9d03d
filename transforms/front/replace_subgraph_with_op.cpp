#include "transforms/front/replace_subgraph_with_op.hpp"

namespace mo {

namespace {

// A JSON value as the attribute kind the schema declares.
AttrValue attr_from_json(const AttrSpec& spec, const nlohmann::json& v) {
    switch (spec.kind) {
        case AttrKind::Bool: return v.get<bool>();
        case AttrKind::Int: return v.get<int64_t>();
        case AttrKind::Float: return v.get<double>();
        case AttrKind::String: return v.get<std::string>();
        case AttrKind::Ints: return v.get<std::vector<int64_t>>();
        case AttrKind::Floats: return v.get<std::vector<double>>();
        case AttrKind::Strings: return v.get<std::vector<std::string>>();
        case AttrKind::Type: return element_type_from_string(v.get<std::string>());
        case AttrKind::Shape: return PartialShape::parse(v.get<std::string>());
    }
    return {};
}

AttrMap attributes(const OpSchema& op, const nlohmann::json& given) {
    AttrMap attrs;
    for (const auto& [name, value] : given.items()) {
        const AttrSpec* spec = op.find_attr(name);
        if (!spec)
            throw Error("op " + op.type + " has no attribute '" + name + "'", {}, "fix custom_attributes.attributes");
        try {
            attrs[name] = attr_from_json(*spec, value);
        } catch (const nlohmann::json::exception&) {
            throw Error("attribute '" + name + "' of " + op.type + " must be a " + std::string(kind_name(spec->kind)) +
                            ", not " + value.dump(),
                        {}, "fix custom_attributes.attributes");
        }
    }
    return attrs;
}

}  // namespace

bool ReplaceSubgraphWithOp::replace_sub_graph(Graph& graph, const ConfigEntry& entry, const SubgraphMatch& match,
                                              const TransformContext&) {
    const auto& custom = entry.custom_attributes;
    if (!custom.contains("op") || !custom["op"].is_string())
        throw Error("custom_attributes.op must name the op that replaces the sub-graph", {},
                    "e.g. \"custom_attributes\": {\"op\": \"Sigmoid\"}");
    if (match.outputs.empty()) throw Error("the entry names no outputs", {}, "list the sub-graph's outputs in \"outputs\"");
    const OpSchema* op = graph.ops().find(custom["op"].get<std::string>());
    if (!op) throw Error("unknown op '" + custom["op"].get<std::string>() + "'", {}, "use an op mo or a plugin registers");
    std::vector<OutPort> inputs;
    for (const auto& ports : match.inputs) inputs.push_back(ports.front().src());
    const AttrMap attrs = attributes(*op, custom.value("attributes", nlohmann::json::object()));
    Node replacement = graph.add_op(op->type, match.outputs.front().node().name() + "/replacement", inputs, attrs);
    if (op->num_outputs == SIZE_MAX) replacement.set_output_count(match.outputs.size());
    if (replacement.output_count() < match.outputs.size())
        throw Error(op->type + " has " + std::to_string(replacement.output_count()) + " outputs, the sub-graph " +
                        std::to_string(match.outputs.size()),
                    {}, "list as many outputs as the op has");
    for (const Node& n : match.nodes) replacement.fused_names().push_back(n.name());
    for (size_t j = 0; j < match.outputs.size(); ++j) {
        const OutPort& old = match.outputs[j];
        old.replace_all_uses_with(replacement.out(j));
        replacement.out(j).names() = std::move(old.names());
        old.names().clear();
    }
    // The replacement takes the name of the node that produced the first output.
    Node named = match.outputs.front().node();
    const std::string name = named.name();
    named.set_name(name + "/replaced");
    replacement.set_name(name);
    return true;
}

}  // namespace mo
