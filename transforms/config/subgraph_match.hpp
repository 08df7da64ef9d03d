// Finding the sub-graphs a config entry names: every node under a name scope, or every node
// between start and end points with the producers they need.
#pragma once

#include <vector>

#include "transforms/configured.hpp"

namespace mo {

// One match per scope of entry.instances that some node name falls under (the scope itself or
// "scope/..."; a scope is a regex). Throws mo::Error for a bad regex or a bad inputs/outputs.
std::vector<SubgraphMatch> match_scopes(const Graph& graph, const ConfigEntry& entry);

// The nodes reached forward from the start points without passing an end point (no end points:
// up to the model's outputs), plus, for every node but the starts, its producers (constants,
// shape computations; a producer with a known value is taken without its own). A point names a
// node, or else the tensor a node produces. Throws mo::Error for an unknown point, an end
// point not reached, or a model input pulled in.
SubgraphMatch match_points(const Graph& graph, const ConfigEntry& entry);

}  // namespace mo
