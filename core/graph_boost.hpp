// Boost.Graph's view of a mo::Graph, on mo's own storage (no copy): a Graph models
// VertexListGraph, IncidenceGraph and BidirectionalGraph (boost/graph/graph_concepts.hpp). A
// vertex is a Node, an edge the Edge* its input port owns, and a node's id is its vertex_index.
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

struct IsLiveNode {
    bool operator()(const std::unique_ptr<NodeData>& d) const { return d != nullptr; }
};
struct AsNode {
    Node operator()(const std::unique_ptr<NodeData>& d) const { return Node(d.get()); }
};
struct IsConnected {
    bool operator()(const std::unique_ptr<Edge>& e) const { return e != nullptr; }
};
struct AsEdge {
    Edge* operator()(const std::unique_ptr<Edge>& e) const { return e.get(); }
};

using VertexIterator = boost::transform_iterator<
    AsNode, boost::filter_iterator<IsLiveNode, std::vector<std::unique_ptr<NodeData>>::const_iterator>, Node, Node>;
using InEdgeIterator = boost::transform_iterator<
    AsEdge, boost::filter_iterator<IsConnected, std::vector<std::unique_ptr<Edge>>::const_iterator>, Edge*, Edge*>;
using OutEdgeIterator = std::vector<Edge*>::const_iterator;

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
    using edge_descriptor = mo::Edge*;
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
    return {edges.begin(), edges.end()};
}
inline size_t out_degree(Node v, const Graph&) { return GraphAccess::data(v)->out_edges.size(); }

inline std::pair<graph_view::InEdgeIterator, graph_view::InEdgeIterator> in_edges(Node v, const Graph&) {
    const auto& edges = GraphAccess::data(v)->in_edges;
    using Connected = boost::filter_iterator<graph_view::IsConnected, std::vector<std::unique_ptr<Edge>>::const_iterator>;
    return {graph_view::InEdgeIterator(Connected(edges.begin(), edges.end())),
            graph_view::InEdgeIterator(Connected(edges.end(), edges.end()))};
}
inline size_t in_degree(Node v, const Graph& g) { return static_cast<size_t>(std::distance(in_edges(v, g).first, in_edges(v, g).second)); }
inline size_t degree(Node v, const Graph& g) { return in_degree(v, g) + out_degree(v, g); }

inline Node source(const Edge* e, const Graph&) { return Node(e->src); }
inline Node target(const Edge* e, const Graph&) { return Node(e->dst); }

inline graph_view::NodeIdMap get(boost::vertex_index_t, const Graph&) { return {}; }

// A read/write property map over the graph's nodes, kept in `storage` (sized here to id_limit()).
template <typename T>
auto node_map(const Graph& g, std::vector<T>& storage, T initial = T()) {
    storage.assign(g.id_limit(), initial);
    return boost::make_iterator_property_map(storage.begin(), graph_view::NodeIdMap());
}

}  // namespace mo
