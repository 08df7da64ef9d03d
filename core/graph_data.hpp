// What a graph stores, behind core/graph.hpp's handles: nodes, their ports' edges, and the
// node table. Not installed: core/graph.cpp and Boost.Graph's view of a graph
// (core/graph_boost.hpp) read it; passes use Node / InPort / OutPort.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph.hpp"

namespace mo {

// An edge is listed at both ends, by value: the input it enters holds its source, the source
// holds it among its consumers, and each end knows the other's position, so every change is
// O(1) (a node read by 60,000 others, or reading 60,000, made per-edge scans quadratic) and no
// edge is an allocation of its own (a million-node graph had 1.5 million of them).
struct InEdge {  // the source of one input; src is null when the input is unconnected
    NodeData* src = nullptr;
    uint32_t out_port = 0;
    uint32_t out_slot = 0;  // position in src->out_edges
};
struct OutEdge {  // one consumer of one output
    NodeData* dst = nullptr;
    uint32_t in_port = 0;
    uint32_t out_port = 0;
};

constexpr uint32_t kNoSource = UINT32_MAX;

// Rarely set, so made on first use: most nodes have neither.
struct NodeExtras {
    std::vector<std::string> fused_names;
    std::map<std::string, std::string> rt_info;
};

// What walks over the graph read (id, op, edges) comes first, on the first cache line or two:
// a walk that touches each consumer once took two cache misses per consumer when what it read
// lay 200 bytes into the node.
struct NodeData : detail::NodeCore {
    bool needs_infer = true;
    bool had_bodies = false;  // add_body() was called: counted in Graph::Impl::with_bodies
    uint16_t op_index = 0;    // op's place in Graph::Impl::op_table (in what was padding)
    std::vector<OutEdge> out_edges;  // every edge leaving any output, in no order
    std::vector<InEdge> in_edges;    // per input port
    std::vector<OutputData> outputs;
    std::string name;
    AttrMap attrs;
    std::unique_ptr<FrameworkInfo> framework;  // until extraction (see Node::framework)
    std::unique_ptr<NodeExtras> extras;
    std::vector<Body> bodies;
    uint32_t framework_source = kNoSource;  // see Graph::set_framework_source

    NodeExtras& extra() {
        if (!extras) extras = std::make_unique<NodeExtras>();
        return *extras;
    }
};

struct Graph::Impl {
    // Indexed by id, null once removed: ids only grow, so this is id order, find_by_id is an
    // index, and walks over the nodes scan an array instead of chasing tree pointers.
    std::vector<std::unique_ptr<NodeData>> nodes;
    size_t live = 0;
    size_t edges = 0;  // connected inputs (each one out edge): sizes the topological order's copy
    // topological_order() as of change_count() == topo_change (passes that change nothing
    // reuse it: most of them, on most graphs).
    std::vector<Node> topo;
    // topo's ops, position by position, as places in op_table: passes that pick their nodes by
    // op read this instead of every node (a cache miss each: 25 ms per pass at 1.7 million
    // nodes), at 2 bytes a node.
    std::vector<uint16_t> topo_ops;
    uint64_t topo_change = UINT64_MAX;
    uint64_t clean_key = 0;  // clean_up_key() after the last remove_dead_nodes()
    struct OpUse {
        size_t nodes = 0;    // how many nodes have the op
        uint16_t index = 0;  // its place in op_table
    };
    std::unordered_map<const OpSchema*, OpUse> op_counts;
    std::vector<const OpSchema*> op_table;  // every op a node of this graph has had
    // Counts one node of `op` more (delta 1) or less (-1) and returns op's place in op_table.
    uint16_t count_op(const OpSchema* op, int delta);
    const OpSchema* constant_op = nullptr;  // add_constant()'s, looked up once
    size_t with_bodies = 0;
    std::function<FrameworkInfo(uint32_t)> framework_source;

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
    static Node node(NodeData* d) {  // Node(d), inline
        Node n;
        n.d_ = d;
        return n;
    }
    // The graph's topological order and its nodes' ops, kept until the graph changes (what
    // Graph::topological_order() returns a copy of).
    struct Order {
        const std::vector<Node>& nodes;
        const std::vector<uint16_t>& op_index;
        const std::vector<const OpSchema*>& op_table;
        const OpSchema* op(size_t position) const { return op_table[op_index[position]]; }
    };
    static Order order(const Graph& g);
    // Asks the CPU for every cache line of `d`, ahead of a walk reaching it: on a graph of
    // millions of nodes each node is a cache miss otherwise.
    static void prefetch(const NodeData* d) {
        const char* p = reinterpret_cast<const char*>(d);
        for (size_t line = 0; line < sizeof(NodeData); line += 64) __builtin_prefetch(p + line);
    }
    // Only what a walk over edges reads first: the id, the op and the edge lists.
    static void prefetch_head(const NodeData* d) {
        __builtin_prefetch(d);
        __builtin_prefetch(&d->in_edges);  // on the next line when the block starts late in one
    }
};

}  // namespace mo
