// Copies nodes of one graph into another (bodies included, recursively): what inlining an If
// branch or unrolling a Loop body needs.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/graph.hpp"
#include "core/tool_api.hpp"

namespace mo {

struct GraphCopy {
    std::map<uint64_t, Node> nodes;  // source node id -> its copy
    // The copy of a source port: a bound Parameter's value, else the copied node's output.
    OutPort port(const OutPort& source) const;
    std::map<uint64_t, OutPort> bound;  // source Parameter id -> the value it stands for
};

// Copies every node of `src` into `dst` with its op, attributes, rt_info, value and inferred
// type and shape, named `prefix` + its name, and connects the copies alike. Parameters listed in
// `bound` are not copied: their uses read the bound port. With `results` false, Results are not
// copied either. Copied Parameters and Results are appended to dst's parameters() / results() in
// src's order. Tensor names are not copied (they belong to the source).
MO_TOOL_API GraphCopy copy_graph(const Graph& src, Graph& dst, const std::string& prefix,
                            std::map<uint64_t, OutPort> bound = {}, bool results = true);

}  // namespace mo
