#include "transforms/front/output_cut.hpp"

#include <optional>
#include <unordered_map>

namespace mo {

namespace {

// Lists up to `limit` names for an error message.
std::string list_names(const std::vector<std::string>& names, size_t limit = 30) {
    std::string s;
    for (size_t i = 0; i < names.size() && i < limit; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > limit) s += ", ... (" + std::to_string(names.size() - limit) + " more)";
    return s;
}

// "node:N" (MO's spelling of a node's output N), when that node and output exist.
std::optional<OutPort> node_port(const Graph& graph, const std::string& name) {
    auto colon = name.rfind(':');
    if (colon == std::string::npos || colon + 1 == name.size()) return std::nullopt;
    const std::string digits = name.substr(colon + 1);
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return std::nullopt;
    Node n = graph.find_by_name(name.substr(0, colon));
    const size_t index = std::stoul(digits);
    if (!n || index >= n.output_count()) return std::nullopt;
    return n.out(index);
}

}  // namespace

bool OutputCut::run(Graph& graph, const TransformContext& ctx) {
    if (ctx.options.outputs.empty()) return false;  // nothing to cut: the model's outputs stay
    std::unordered_map<std::string, OutPort> by_tensor, by_node;
    std::vector<std::string> tensor_names;
    for (Node n : graph.nodes()) {
        if (n.output_count() > 0) by_node.emplace(n.name(), n.out(0));
        for (size_t j = 0; j < n.output_count(); ++j)
            for (const auto& t : n.out(j).names())
                if (by_tensor.emplace(t, n.out(j)).second) tensor_names.push_back(t);
    }
    std::vector<std::pair<std::string, OutPort>> cuts;
    for (const auto& name : ctx.options.outputs) {
        if (auto it = by_tensor.find(name); it != by_tensor.end()) {
            cuts.emplace_back(name, it->second);
        } else if (auto jt = by_node.find(name); jt != by_node.end()) {
            cuts.emplace_back(name, jt->second);
        } else if (auto port = node_port(graph, name)) {
            cuts.emplace_back(name, *port);
        } else {
            throw Error("--output names '" + name + "', which is neither a tensor nor a node of the model",
                        graph.source_path, "tensors of the model: " + list_names(tensor_names));
        }
    }
    std::vector<Node> old_results = graph.results();
    for (Node r : old_results) graph.remove_node(r);
    graph.results().clear();
    for (const auto& [name, port] : cuts) {
        Node r = graph.add_op("Result", name + "/sink_port_0", {port});
        graph.results().push_back(r);
    }
    graph.remove_dead_nodes();
    return true;
}

}  // namespace mo
