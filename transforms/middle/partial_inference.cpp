#include "transforms/middle/partial_inference.hpp"

#include <algorithm>
#include <unordered_set>

#include "core/graph_data.hpp"
#include "core/hash.hpp"
#include "core/infer.hpp"

namespace mo {

namespace {

uint64_t shape_digest(uint64_t h, const PartialShape& shape) {
    h = hash_combine(h, shape.rank_is_static() ? shape.dims().size() : UINT64_MAX - 1);
    if (shape.rank_is_static())
        for (const Dimension& d : shape.dims()) h = hash_combine(hash_combine(h, static_cast<uint64_t>(d.min())), static_cast<uint64_t>(d.max()));
    return h;
}

// What inference reads of `n`'s inputs. Read from the graph's storage: this runs for every node
// after every pass that changed something.
uint64_t input_digest(const NodeData& d, const OpSchema* shape_of) {
    uint64_t h = hash_combine(0, d.in_edges.size());
    for (const InEdge& e : d.in_edges) {
        if (!e.src) {
            h = hash_combine(h, UINT64_MAX);
            continue;
        }
        const OutputData& out = e.src->outputs[e.out_port];
        h = hash_combine(hash_combine(hash_combine(h, e.src->id), e.out_port), static_cast<uint64_t>(out.type));
        h = shape_digest(h, out.shape);
        // A Gather of a ShapeOf folds the static dims it reads (core/infer.cpp): they count too.
        const NodeData& from = *e.src;
        if (from.op == shape_of && from.in_edges.size() == 1 && from.in_edges[0].src)
            h = shape_digest(h, from.in_edges[0].src->outputs[from.in_edges[0].out_port].shape);
        // Its buffer, not bytes(): see core/infer.cpp.
        h = hash_combine(h, reinterpret_cast<uintptr_t>(out.value ? out.value->buffer().get() : nullptr));
    }
    return h == 0 ? 1 : h;
}

// The digest walk chases node -> its inputs -> their producers' outputs -> their dims, each a
// cache miss on a large graph: the nodes further on in the order are fetched in stages, each
// stage a step deeper, so that every step finds its data cached.
void prefetch_ahead(const std::vector<Node>& order, size_t k) {
    constexpr size_t kNode = 12, kInputs = 8, kSources = 4;
    if (k + kNode < order.size()) __builtin_prefetch(GraphAccess::data(order[k + kNode]));
    if (k + kInputs < order.size()) {
        const NodeData& d = *GraphAccess::data(order[k + kInputs]);
        if (!d.in_edges.empty()) __builtin_prefetch(d.in_edges.data());
    }
    if (k + kSources < order.size())
        for (const InEdge& e : GraphAccess::data(order[k + kSources])->in_edges)
            if (e.src) __builtin_prefetch(e.src->outputs.data() + e.out_port);
}

}  // namespace

bool PartialInference::infer_node(Node n) { return mo::infer_node(n); }

bool PartialInference::run(Graph& graph, const TransformContext&) {
    if (graph_ != &graph) {
        graph_ = &graph;
        last_inputs_.clear();
    }
    bool changed = false;
    // Nodes no extractor handled (left for a configured replacement, reported at the back phase)
    // and everything they feed stay uninferred.
    std::unordered_set<uint64_t> blocked;
    const OpSchema* framework_node = graph.ops().find("FrameworkNode");
    const OpSchema* shape_of = graph.ops().find("ShapeOf");
    last_inputs_.resize(std::max<size_t>(last_inputs_.size(), graph.id_limit()), 0);  // every id of the order below
    // The graph's own cached order, not a copy of it (8 bytes a node): inference changes values,
    // shapes and types, never which nodes there are.
    const std::vector<Node>& order = GraphAccess::order(graph).nodes;
    const uint64_t structure = graph.change_count();
    for (size_t k = 0; k < order.size(); ++k) {
        prefetch_ahead(order, k);
        const Node n = order[k];
        const NodeData& d = *GraphAccess::data(n);
        bool skip = d.op == framework_node;
        for (size_t i = 0; !skip && !blocked.empty() && i < d.in_edges.size(); ++i)
            skip = d.in_edges[i].src && blocked.count(d.in_edges[i].src->id);
        if (skip) {
            blocked.insert(d.id);
            continue;
        }
        const uint64_t digest = input_digest(d, shape_of);
        if (!d.needs_infer && last_inputs_[d.id] == digest) continue;
        // A node without inputs that its maker marked inferred (Graph::add_constant: 640,000
        // of them after f16 compression of a large graph) depends on nothing that could change.
        if (!d.needs_infer && d.in_edges.empty()) {
            last_inputs_[d.id] = digest;
            continue;
        }
        changed |= infer_node(n);
        last_inputs_[d.id] = digest;
    }
    MO_ASSERT(graph.change_count() == structure, "inference added, removed or reconnected nodes");
    return changed;
}

}  // namespace mo
