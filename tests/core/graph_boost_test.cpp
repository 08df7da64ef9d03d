// Boost.Graph's view of mo::Graph (core/graph_boost.hpp): the concepts it models, checked at
// compile time, and what its functions list on a small graph worked by hand.
#include "core/graph_boost.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include <boost/concept/assert.hpp>
#include <boost/graph/graph_concepts.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/graph/topological_sort.hpp>

#include "support/graph_builder.hpp"

namespace mo {
namespace {

BOOST_CONCEPT_ASSERT((boost::VertexListGraphConcept<Graph>));
BOOST_CONCEPT_ASSERT((boost::IncidenceGraphConcept<Graph>));
BOOST_CONCEPT_ASSERT((boost::BidirectionalGraphConcept<Graph>));
BOOST_CONCEPT_ASSERT((boost::ReadablePropertyMapConcept<boost::property_map<Graph, boost::vertex_index_t>::type, Node>));

std::vector<std::string> names(const std::vector<Node>& nodes) {
    std::vector<std::string> v;
    for (Node n : nodes) v.push_back(n.name());
    return v;
}

// x -> a(x, x) -> c(a); `gone` is removed, so the vertices skip its id.
TEST(GraphBoost, VerticesAndEdgesAreTheGraphsNodesAndConnections) {
    test::GraphBuilder b;
    OutPort x = b.input(ElementType::f32, {1, 4}, "x");
    Node gone = b.node("FrameworkNode", {x}, {}, "gone");
    Node a = b.node("FrameworkNode", {x, x}, {}, "a");
    Node c = b.node("FrameworkNode", {a.out(0)}, {}, "c");
    a.set_input_count(3);  // input 2 stays unconnected: not an edge
    b.graph().remove_node(gone);
    const Graph& g = b.graph();

    auto [v, v_end] = vertices(g);
    EXPECT_EQ(names(std::vector<Node>(v, v_end)), (std::vector<std::string>{"x", "a", "c"}));
    EXPECT_EQ(num_vertices(g), 3u);
    EXPECT_EQ(get(get(boost::vertex_index, g), c), c.id());

    EXPECT_EQ(out_degree(x.node(), g), 2u);  // the two inputs of a
    for (auto [e, end] = out_edges(x.node(), g); e != end; ++e) {
        EXPECT_EQ(source(*e, g), x.node());
        EXPECT_EQ(target(*e, g), a);
    }
    EXPECT_EQ(in_degree(a, g), 2u);
    EXPECT_EQ(degree(a, g), 3u);
    std::vector<size_t> in_ports;
    for (auto [e, end] = in_edges(a, g); e != end; ++e) {
        EXPECT_EQ(source(*e, g), x.node());
        in_ports.push_back((*e).in_port);
    }
    EXPECT_EQ(in_ports, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(in_degree(x.node(), g), 0u);
    EXPECT_EQ(out_degree(c, g), 0u);
}

// Boost's algorithms run on the view: its topological sort (reverse DFS post-order) puts
// producers first, and the reversed graph's out-edges are the graph's in-edges.
TEST(GraphBoost, BoostAlgorithmsRunOnTheGraph) {
    test::GraphBuilder b;
    OutPort x = b.input(ElementType::f32, {2}, "x");
    Node late = b.node("FrameworkNode", {}, {}, "late");
    Node join = b.node("FrameworkNode", {late.out(0), x}, {}, "join");
    Node tail = b.node("FrameworkNode", {join.out(0)}, {}, "tail");
    const Graph& g = b.graph();

    std::vector<Node> reversed_order;
    std::vector<boost::default_color_type> colors;
    boost::topological_sort(g, std::back_inserter(reversed_order), boost::color_map(node_map(g, colors)));
    std::vector<Node> order(reversed_order.rbegin(), reversed_order.rend());
    auto position = [&](Node n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
    ASSERT_EQ(order.size(), 4u);
    EXPECT_LT(position(x.node()), position(join));
    EXPECT_LT(position(late), position(join));
    EXPECT_LT(position(join), position(tail));

    auto reversed = boost::make_reverse_graph(g);
    std::vector<std::string> readers_of_join;
    for (auto [e, end] = out_edges(join, reversed); e != end; ++e) readers_of_join.push_back(target(*e, reversed).name());
    EXPECT_EQ(readers_of_join, (std::vector<std::string>{"late", "x"}));
}

}  // namespace
}  // namespace mo
