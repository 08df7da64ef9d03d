// Boost.Graph's algorithms on mo::Graph (core/graph_boost.hpp) against mo's hand-written walks,
// on the same graphs in one run (docs/architecture.md records the result). Not run by CI:
//   ./build/bench/mo-graph-bench [nodes ...]        (default: 100000 1000000)
// Graphs: a chain (Parameter -> Relu x N -> Result) and a fan (one Parameter read by N Relu
// nodes, all read by one Concat). For each: the topological order (mo's: Kahn's, smallest id
// first, what the IR's layer order is; Boost's topological_sort: reverse DFS post-order),
// a depth-first search with cycle detection, and the reachability behind remove_dead_nodes()
// and --output cuts (mo's breadth-first walk with fetching ahead, which Graph::remove_dead_nodes()
// runs, and the stack walk it ran before, against breadth_first_visit on the reverse graph).
// Best of 5 runs each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/graph/topological_sort.hpp>

#include "core/graph_boost.hpp"
#include "ops/ops.hpp"

namespace {

using namespace mo;

Node parameter(Graph& g) {
    Node p = g.add_op("Parameter", "x", {}, {{"shape", AttrValue(PartialShape::parse("1,16"))},
                                              {"element_type", AttrValue(ElementType::f32)}});
    g.parameters().push_back(p);
    return p;
}

std::unique_ptr<Graph> chain(const OpRegistry& ops, size_t nodes) {
    auto g = std::make_unique<Graph>(ops);
    OutPort x = parameter(*g).out(0);
    for (size_t i = 0; i + 2 < nodes; ++i) x = g->add_op("Relu", "r" + std::to_string(i), {x}).out(0);
    g->results().push_back(g->add_op("Result", "y", {x}));
    return g;
}

std::unique_ptr<Graph> fan(const OpRegistry& ops, size_t nodes) {
    auto g = std::make_unique<Graph>(ops);
    OutPort x = parameter(*g).out(0);
    std::vector<OutPort> branches;
    for (size_t i = 0; i + 3 < nodes; ++i) branches.push_back(g->add_op("Relu", "r" + std::to_string(i), {x}).out(0));
    Node concat = g->add_op("Concat", "cat", branches, {{"axis", AttrValue(int64_t{0})}});
    g->results().push_back(g->add_op("Result", "y", {concat.out(0)}));
    return g;
}

double best_of(int runs, const std::function<size_t()>& fn, size_t& result) {
    double best = 1e9;
    for (int r = 0; r < runs; ++r) {
        auto start = std::chrono::steady_clock::now();
        result = fn();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

// Graph::remove_dead_nodes()'s walk, on the same storage: a queue from the Results over the
// input edges, a mark per node id, the queued nodes' input lists and producers fetched ahead.
size_t reachable_by_queue(const Graph& g) {
    std::vector<uint8_t> seen(g.id_limit(), 0);
    std::vector<NodeData*> queue;
    queue.reserve(g.node_count());
    for (Node r : g.results()) seen[r.id()] = 1, queue.push_back(GraphAccess::data(r));
    for (size_t next = 0; next < queue.size(); ++next) {
        if (next + 8 < queue.size() && !queue[next + 8]->in_edges.empty()) __builtin_prefetch(queue[next + 8]->in_edges.data());
        if (next + 4 < queue.size())
            for (const InEdge& e : queue[next + 4]->in_edges)
                if (e.src) __builtin_prefetch(&e.src->id);
        for (const InEdge& e : queue[next]->in_edges)
            if (e.src && !seen[e.src->id]) {
                seen[e.src->id] = 1;
                queue.push_back(e.src);
            }
    }
    return queue.size();
}

// The walk remove_dead_nodes() ran before: a stack, nothing fetched ahead.
size_t reachable_by_stack(const Graph& g) {
    std::vector<uint8_t> seen(g.id_limit(), 0);
    std::vector<NodeData*> stack;
    for (Node r : g.results()) seen[r.id()] = 1, stack.push_back(GraphAccess::data(r));
    size_t count = stack.size();
    while (!stack.empty()) {
        NodeData* d = stack.back();
        stack.pop_back();
        for (const InEdge& e : d->in_edges)
            if (e.src && !seen[e.src->id]) {
                seen[e.src->id] = 1;
                stack.push_back(e.src);
                ++count;
            }
    }
    return count;
}

// A buffer for breadth_first_visit that hands back the newest node first: it reaches the same
// nodes as a queue, without std::deque's chunks (1.5-2x faster here, with byte colours).
class NodeStack {
public:
    using value_type = Node;
    void push(Node n) { nodes_.push_back(n); }
    void pop() { nodes_.pop_back(); }
    Node& top() { return nodes_.back(); }
    bool empty() const { return nodes_.empty(); }
    size_t size() const { return nodes_.size(); }

private:
    std::vector<Node> nodes_;
};

struct CountVisits : boost::default_bfs_visitor {
    size_t* count;
    template <typename V, typename G> void discover_vertex(V, const G&) const { ++*count; }
};

size_t reachable_by_boost(const Graph& g) {
    auto reversed = boost::make_reverse_graph(g);
    std::vector<boost::default_color_type> storage;
    auto colors = node_map(g, storage, boost::white_color);
    NodeStack stack;
    size_t count = 0;
    CountVisits visitor;
    visitor.count = &count;
    boost::breadth_first_visit(reversed, g.results().begin(), g.results().end(), stack, visitor, colors);
    return count;
}

struct NoCycle : boost::default_dfs_visitor {
    bool* cyclic;
    void back_edge(const graph_view::Edge&, const Graph&) const { *cyclic = true; }
};

void compare(const char* kind, const Graph& g) {
    const int runs = 5;
    size_t a = 0, b = 0;
    double mo_topo = best_of(runs, [&] {
        const_cast<Graph&>(g).note_change();  // drop the cached order
        return g.topological_order().size();
    }, a);
    double boost_topo = best_of(runs, [&] {
        std::vector<Node> order;
        order.reserve(g.node_count());
        std::vector<boost::default_color_type> storage;
        boost::topological_sort(g, std::back_inserter(order), boost::color_map(node_map(g, storage)));
        return order.size();
    }, b);
    std::printf("%-6s %8zu nodes  topological order: mo %.4f s, Boost %.4f s (%.2fx)%s\n", kind, g.node_count(),
                mo_topo, boost_topo, boost_topo / mo_topo, a == b ? "" : "  SIZES DIFFER");
    double dfs = best_of(runs, [&] {
        bool cyclic = false;
        NoCycle visitor;
        visitor.cyclic = &cyclic;
        std::vector<boost::default_color_type> storage;
        boost::depth_first_search(g, boost::visitor(visitor).color_map(node_map(g, storage)));
        return size_t(cyclic);
    }, a);
    std::printf("%-6s %8zu nodes  cycle check: mo (Kahn, above) %.4f s, Boost DFS %.4f s (%.2fx)%s\n", kind,
                g.node_count(), mo_topo, dfs, dfs / mo_topo, a == 0 ? "" : "  CYCLE?");
    size_t c = 0;
    double queue = best_of(runs, [&] { return reachable_by_queue(g); }, c);
    double stack = best_of(runs, [&] { return reachable_by_stack(g); }, a);
    double bfs = best_of(runs, [&] { return reachable_by_boost(g); }, b);
    std::printf("%-6s %8zu nodes  reachability: mo's queue %.4f s, stack walk %.4f s, Boost BFS %.4f s (%.2fx)%s\n",
                kind, g.node_count(), queue, stack, bfs, bfs / queue, a == b && b == c ? "" : "  COUNTS DIFFER");
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {100000, 1000000};
    mo::OpRegistry ops;
    mo::register_builtin_ops(ops);
    for (size_t n : sizes) {
        compare("chain", *chain(ops, n));
        compare("fan", *fan(ops, n));
    }
}
