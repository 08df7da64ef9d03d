// Boost.Graph's view of a mo::Graph, on mo's own storage (no copy): a Graph models
// VertexListGraph, IncidenceGraph and BidirectionalGraph (boost/graph/graph_concepts.hpp). A
// vertex is a Node, an edge a graph_view::Edge (its ends and ports), and a node's id is its
// vertex_index.
// Ids are not dense (removed nodes leave gaps): a property map over vertices needs
// id_limit() entries, not num_vertices(), so algorithms are given their maps by node_map().
#pragma once

#include <boost/graph/graph_traits.hpp>
#include <boost/graph/properties.hpp>
#include <boost/iterator/filter_iterator.hpp>
#include <boost/iterator/transform_iterator.hpp>
#include <boost/property_map/property_map.hpp>

#include "core/graph_data.hpp"

namespace mo::graph_view {

// An edge: its two ends and ports (an input has at most one source, so `target` and
// `in_port` alone name it).
struct Edge {
    Node source, target;
    uint32_t out_port = 0, in_port = 0;
    bool operator==(const Edge& o) const { return target == o.target && in_port == o.in_port; }
    bool operator!=(const Edge& o) const { return !(*this == o); }
};

struct IsLiveNode {
    bool operator()(const std::unique_ptr<NodeData>& d) const { return d != nullptr; }
};
struct AsNode {
    Node operator()(const std::unique_ptr<NodeData>& d) const { return GraphAccess::node(d.get()); }
};
struct AsOutEdge {  // one consumer of `node`
    Node node;
    Edge operator()(const OutEdge& e) const { return {node, GraphAccess::node(e.dst), e.out_port, e.in_port}; }
};
struct IsConnected {
    bool operator()(const InEdge& e) const { return e.src != nullptr; }
};
struct AsInEdge {  // the source of one input of `node`, found by its position
    Node node;
    const InEdge* first = nullptr;
    Edge operator()(const InEdge& e) const {
        return {GraphAccess::node(e.src), node, e.out_port, static_cast<uint32_t>(&e - first)};
    }
};

using VertexIterator = boost::transform_iterator<
    AsNode, boost::filter_iterator<IsLiveNode, std::vector<std::unique_ptr<NodeData>>::const_iterator>, Node, Node>;
using OutEdgeIterator = boost::transform_iterator<AsOutEdge, std::vector<OutEdge>::const_iterator, Edge, Edge>;
using InEdgeIterator = boost::transform_iterator<
    AsInEdge, boost::filter_iterator<IsConnected, std::vector<InEdge>::const_iterator>, Edge, Edge>;

struct TraversalCategory : boost::vertex_list_graph_tag, boost::bidirectional_graph_tag {};

// vertex_index: the node's id.
struct NodeIdMap {
    using key_type = Node;
    using value_type = uint64_t;
    using reference = uint64_t;
    using category = boost::readable_property_map_tag;
};
inline uint64_t get(NodeIdMap, Node n) { return n.id(); }

}  // namespace mo::graph_view

namespace boost {

template <>
struct graph_traits<mo::Graph> {
    using vertex_descriptor = mo::Node;
    using edge_descriptor = mo::graph_view::Edge;
    using directed_category = bidirectional_tag;
    using edge_parallel_category = allow_parallel_edge_tag;
    using traversal_category = mo::graph_view::TraversalCategory;
    using vertex_iterator = mo::graph_view::VertexIterator;
    using out_edge_iterator = mo::graph_view::OutEdgeIterator;
    using in_edge_iterator = mo::graph_view::InEdgeIterator;
    using vertices_size_type = size_t;
    using edges_size_type = size_t;
    using degree_size_type = size_t;
    static mo::Node null_vertex() { return mo::Node(); }
};

template <>
struct property_map<mo::Graph, vertex_index_t> {
    using type = mo::graph_view::NodeIdMap;
    using const_type = mo::graph_view::NodeIdMap;
};

}  // namespace boost

namespace mo {

// Found by argument-dependent lookup, as Boost's algorithms call them.
inline std::pair<graph_view::VertexIterator, graph_view::VertexIterator> vertices(const Graph& g) {
    const auto& nodes = GraphAccess::impl(g).nodes;
    using Live = boost::filter_iterator<graph_view::IsLiveNode, std::vector<std::unique_ptr<NodeData>>::const_iterator>;
    return {graph_view::VertexIterator(Live(nodes.begin(), nodes.end())),
            graph_view::VertexIterator(Live(nodes.end(), nodes.end()))};
}
inline size_t num_vertices(const Graph& g) { return GraphAccess::impl(g).live; }

inline std::pair<graph_view::OutEdgeIterator, graph_view::OutEdgeIterator> out_edges(Node v, const Graph&) {
    const auto& edges = GraphAccess::data(v)->out_edges;
    return {graph_view::OutEdgeIterator(edges.begin(), {v}), graph_view::OutEdgeIterator(edges.end(), {v})};
}
inline size_t out_degree(Node v, const Graph&) { return GraphAccess::data(v)->out_edges.size(); }

inline std::pair<graph_view::InEdgeIterator, graph_view::InEdgeIterator> in_edges(Node v, const Graph&) {
    const auto& edges = GraphAccess::data(v)->in_edges;
    using Connected = boost::filter_iterator<graph_view::IsConnected, std::vector<InEdge>::const_iterator>;
    const graph_view::AsInEdge as_edge{v, edges.data()};
    return {graph_view::InEdgeIterator(Connected(edges.begin(), edges.end()), as_edge),
            graph_view::InEdgeIterator(Connected(edges.end(), edges.end()), as_edge)};
}
inline size_t in_degree(Node v, const Graph& g) {
    auto [begin, end] = in_edges(v, g);
    return static_cast<size_t>(std::distance(begin, end));
}
inline size_t degree(Node v, const Graph& g) { return in_degree(v, g) + out_degree(v, g); }

inline Node source(const graph_view::Edge& e, const Graph&) { return e.source; }
inline Node target(const graph_view::Edge& e, const Graph&) { return e.target; }

inline graph_view::NodeIdMap get(boost::vertex_index_t, const Graph&) { return {}; }

// A read/write property map over the graph's nodes, kept in `storage` (sized here to id_limit()).
template <typename T>
auto node_map(const Graph& g, std::vector<T>& storage, T initial = T()) {
    storage.assign(g.id_limit(), initial);
    return boost::make_iterator_property_map(storage.begin(), graph_view::NodeIdMap());
}

}  // namespace mo
