#include "transforms/configured.hpp"

#include "transforms/config/subgraph_match.hpp"

namespace mo {

std::string ConfigEntry::describe() const { return "entry " + std::to_string(index) + " (id '" + id + "')"; }

namespace {

std::vector<SubgraphMatch> matches_of(const Graph& graph, const ConfigEntry& entry) {
    if (entry.match_kind == "general") return {SubgraphMatch{}};
    if (entry.match_kind == "points") return {match_points(graph, entry)};
    std::vector<SubgraphMatch> found = match_scopes(graph, entry);
    if (found.empty())
        throw Error(entry.describe() + ": no node matches scope " + entry.instances.dump() + " in " + graph.source_path,
                    entry.file,
                    "check the node names of the model against the transformations config");
    return found;
}

}  // namespace

bool ConfiguredTransformation::run(Graph& graph, const TransformContext& ctx) {
    // Every entry is matched before anything is replaced, so a bad entry leaves the graph as it was.
    std::vector<std::pair<const ConfigEntry*, std::vector<SubgraphMatch>>> work;
    for (const ConfigEntry& entry : entries_) work.emplace_back(&entry, matches_of(graph, entry));
    bool changed = false;
    for (const auto& [entry, matches] : work)
        for (const SubgraphMatch& m : matches) {
            try {
                changed |= replace_sub_graph(graph, *entry, m, ctx);
            } catch (const Error& e) {
                throw e.with_context(entry->describe() + (m.instance.empty() ? "" : ", instance " + m.instance));
            }
        }
    return changed;
}

}  // namespace mo
