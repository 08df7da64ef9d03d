#include "transforms/back/report_unsupported_ops.hpp"

#include <map>

#include "core/error.hpp"

namespace mo {

namespace {

using Missing = std::map<std::string, std::vector<std::string>>;  // "onnx Type (opset N)" -> node names

// Also looks inside bodies: one unsupported op in a Loop body fails the whole model.
void collect(const Graph& graph, Missing& missing) {
    // The graph counts its nodes per op: without a FrameworkNode or a body there is nothing to walk.
    if (!graph.has_bodies() && present_ops(graph, {"FrameworkNode"}).empty()) return;
    for (const Node& n : graph.topological_order()) {
        for (const Body& body : n.bodies()) collect(*body.graph, missing);
        if (!n.is("FrameworkNode")) continue;
        const auto& fw = n.framework();
        std::string key = fw.framework + " " + (fw.domain.empty() ? "" : fw.domain + ".") + fw.type + " (opset " +
                          std::to_string(fw.opset) + ")";
        missing[key].push_back(n.name());
    }
}

}  // namespace

void report_unsupported_ops(const Graph& graph) {
    Missing missing;
    collect(graph, missing);
    if (missing.empty()) return;
    std::string list;
    for (const auto& [key, names] : missing) {
        list += "\n  " + key + ": ";
        for (size_t i = 0; i < names.size(); ++i) {
            if (i == 8) {
                list += ", ... (" + std::to_string(names.size()) + " nodes)";
                break;
            }
            list += (i ? ", " : "") + names[i];
        }
    }
    throw Error(std::to_string(missing.size()) + " op type(s) are not supported:" + list, graph.source_path,
                "add an extractor in a plugin (--extensions, see docs/extending.md), cut these nodes off with "
                "--output, or replace the sub-graph that holds them with --transformations_config");
}

}  // namespace mo
