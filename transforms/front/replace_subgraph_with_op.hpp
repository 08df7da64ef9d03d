// ReplaceSubgraphWithOp (configured): the sub-graph an entry matches -> one op, named in
// custom_attributes, whose input i is the sub-graph's input i and whose output j replaces the
// sub-graph's output j:
//   {"id": "ReplaceSubgraphWithOp", "match_kind": "scope", "instances": ["block3/act"],
//    "inputs": [[{"node": "neg", "port": 0}]], "outputs": [{"node": "recip", "port": 0}],
//    "custom_attributes": {"op": "Sigmoid", "attributes": {}}}
// For a sub-graph that computes what one op does (a hand-written activation, a plugin's op for
// a custom post-processing tail). The op's attributes come from "attributes", converted to the
// kinds its schema declares.
#pragma once

#include "transforms/configured.hpp"

namespace mo {

class ReplaceSubgraphWithOp final : public ConfiguredTransformation {
public:
    std::string id() const override { return "ReplaceSubgraphWithOp"; }
    Phase phase() const override { return Phase::Front; }
    bool force_clean_up() const override { return true; }
    bool replace_sub_graph(Graph& graph, const ConfigEntry& entry, const SubgraphMatch& match,
                           const TransformContext& ctx) override;
};

}  // namespace mo
