// What a graph stores, behind core/graph.hpp's handles: nodes, their ports' edges, and the
// node table. Not installed: core/graph.cpp and Boost.Graph's view of a graph
// (core/graph_boost.hpp) read it; passes use Node / InPort / OutPort.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph.hpp"

namespace mo {

// One edge, owned by the input port it enters and listed by the node it leaves. Every change
// is O(1): a node read by 60,000 others, or reading 60,000, made per-edge scans quadratic.
struct Edge {
    NodeData* src = nullptr;
    size_t out_port = 0;
    NodeData* dst = nullptr;
    size_t in_port = 0;
    size_t out_slot = 0;  // position in src->out_edges
};

struct NodeData : detail::NodeCore {
    std::string name;
    AttrMap attrs;
    std::vector<std::unique_ptr<Edge>> in_edges;  // per input port, null when unconnected
    std::vector<Edge*> out_edges;                 // every edge leaving any output, in no order
    std::vector<OutputData> outputs;
    std::unique_ptr<FrameworkInfo> framework;  // until extraction (see Node::framework)
    std::vector<std::string> fused_names;
    std::map<std::string, std::string> rt_info;
    std::vector<Body> bodies;
    bool needs_infer = true;
    bool had_bodies = false;  // add_body() was called: counted in Graph::Impl::with_bodies
    // Scratch state of topological_order(), kept here so that it allocates nothing per node.
    size_t walk_count = 0;
};

struct Graph::Impl {
    // Indexed by id, null once removed: ids only grow, so this is id order, find_by_id is an
    // index, and walks over the nodes scan an array instead of chasing tree pointers.
    std::vector<std::unique_ptr<NodeData>> nodes;
    size_t live = 0;
    // topological_order() as of change_count() == topo_change (passes that change nothing
    // reuse it: most of them, on most graphs).
    std::vector<Node> topo;
    uint64_t topo_change = UINT64_MAX;
    uint64_t clean_key = 0;  // clean_up_key() after the last remove_dead_nodes()
    std::unordered_map<const OpSchema*, size_t> op_counts;
    size_t with_bodies = 0;

    template <typename Fn>
    void for_each(Fn&& fn) const {
        for (const auto& d : nodes)
            if (d) fn(d.get());
    }
};

// The storage behind a graph's and a node's handles, for code that walks it directly.
struct GraphAccess {
    static const Graph::Impl& impl(const Graph& g) { return g.impl(); }
    static NodeData* data(Node n) { return n.data(); }
};

}  // namespace mo
