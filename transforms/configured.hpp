// Configured transformations: replacements that run only when a --transformations_config file
// (the Model Optimizer's JSON format, docs/transformations-config.md) has entries with their id.
// The file's entries say which sub-graphs to hand over (by node-name scope, by start and end
// points, or none for `general`); the transformation rewrites each one.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../core/api.hpp"
#include "../core/graph.hpp"
#include "transformation.hpp"

namespace mo {

// One entry of a transformations config file.
struct MO_API ConfigEntry {
    std::string file;        // the config file, for messages
    size_t index = 0;        // position in the file's array, for messages
    std::string id;          // the configured transformation that handles it
    std::string match_kind;  // "scope", "points" or "general"
    nlohmann::json instances;          // scope: [regex, ...]; points: {"start_points": [...], "end_points": [...]}
    nlohmann::json inputs;             // [[{"node": regex, "port": n}, ...], ...]: the sub-graph's inputs, in order
    nlohmann::json outputs;            // [{"node": regex, "port": n}, ...]: its outputs, in order
    nlohmann::json custom_attributes;  // whatever the transformation needs, as written
    bool include_inputs_to_sub_graph = true;
    bool include_outputs_to_sub_graph = true;

    std::string describe() const;  // "entry 2 (id 'X')"
};

// A matched sub-graph.
struct MO_API SubgraphMatch {
    std::string instance;        // the scope or "start points -> end points" that matched
    std::vector<Node> nodes;     // every node of the sub-graph, by id
    // inputs[i]: the ports of sub-graph nodes that receive the sub-graph's input i (one tensor
    // may feed several nodes). From the entry's `inputs`; for points without them, each
    // connected input of a start point from outside the sub-graph.
    std::vector<std::vector<InPort>> inputs;
    // outputs[j]: the port producing the sub-graph's output j. From the entry's `outputs`; for
    // points without them, each output of an end point.
    std::vector<OutPort> outputs;
};

class MO_API ConfiguredTransformation : public Transformation {
public:
    // On only when the config gave it entries (MO_ENABLED/DISABLED_TRANSFORMS still override).
    bool enabled() const override { return !entries_.empty(); }
    void add_entry(ConfigEntry entry) { entries_.push_back(std::move(entry)); }
    const std::vector<ConfigEntry>& entries() const { return entries_; }

    // Matches every entry first (an entry that matches nothing is an error, before anything is
    // replaced), then calls replace_sub_graph() for each match (`general`: once, empty match).
    // Configured points and scopes name nodes of the model's graph.
    bool wants_bodies() const override { return false; }
    bool run(Graph& graph, const TransformContext& ctx) final;
    virtual bool replace_sub_graph(Graph& graph, const ConfigEntry& entry, const SubgraphMatch& match,
                                   const TransformContext& ctx) = 0;

private:
    std::vector<ConfigEntry> entries_;
};

}  // namespace mo
