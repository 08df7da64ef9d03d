#include "core/graph.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <algorithm>
#include <map>
#include <queue>
#include <unordered_set>

#include "core/hash.hpp"

namespace mo {

struct EdgePorts {
    size_t out_port = 0;
    size_t in_port = 0;
};

using BoostGraph = boost::adjacency_list<boost::listS, boost::listS, boost::bidirectionalS, NodeData*, EdgePorts>;
using Vertex = BoostGraph::vertex_descriptor;

struct NodeData {
    Graph* graph = nullptr;
    uint64_t id = 0;
    std::string name;
    const OpSchema* op = nullptr;
    AttrMap attrs;
    size_t num_inputs = 0;
    std::vector<OutputData> outputs;
    FrameworkInfo framework;
    std::vector<std::string> fused_names;
    std::map<std::string, std::string> rt_info;
    Vertex vertex{};
    std::vector<Body> bodies;
    bool needs_infer = true;
    // Scratch state of whole-graph walks (topological_order, remove_dead_nodes), kept here so
    // that a walk allocates nothing per node: a walk owns it for its duration.
    size_t walk_count = 0;
    uint64_t walk_epoch = 0;
};

struct Graph::Impl {
    BoostGraph g;
    // Indexed by id, null once removed: ids only grow, so this is id order, find_by_id is an
    // index, and walks over the nodes scan an array instead of chasing tree pointers.
    std::vector<std::unique_ptr<NodeData>> nodes;
    size_t live = 0;
    uint64_t walk_epoch = 0;  // NodeData::walk_epoch == this: visited by the current walk
    // topological_order() as of change_count() == topo_change (passes that change nothing
    // reuse it: most of them, on most graphs).
    std::vector<Node> topo;
    uint64_t topo_change = UINT64_MAX;
    uint64_t clean_key = 0;  // clean_up_key() after the last remove_dead_nodes()

    template <typename Fn>
    void for_each(Fn&& fn) const {
        for (const auto& d : nodes)
            if (d) fn(d.get());
    }
};

// ---------------------------------------------------------------- Node

Graph& Node::graph() const { return *d_->graph; }
uint64_t Node::id() const { return d_->id; }
const std::string& Node::name() const { return d_->name; }
void Node::set_name(std::string name) const { d_->name = std::move(name); }
const OpSchema& Node::op() const { return *d_->op; }

void Node::set_op(const OpSchema& op) const {
    d_->op = &op;
    d_->attrs.clear();
    d_->needs_infer = true;
    if (op.num_outputs != SIZE_MAX) set_output_count(op.num_outputs);
    d_->graph->note_change();
}

const AttrValue& Node::attr_value(std::string_view name) const {
    if (auto it = d_->attrs.find(name); it != d_->attrs.end()) return it->second;
    const AttrSpec* spec = d_->op->find_attr(name);
    MO_ASSERT(spec != nullptr, "op ", d_->op->type, " has no attribute '", std::string(name), "'");
    if (spec->required())
        throw Error("required attribute '" + std::string(name) + "' is not set", describe(),
                    "the source model or the extractor must provide it");
    return spec->default_value;
}

bool Node::has_attr(std::string_view name) const { return d_->attrs.count(name) != 0; }

void Node::set_attr_value(std::string_view name, AttrValue value) const {
    const AttrSpec* spec = d_->op->find_attr(name);
    MO_ASSERT(spec != nullptr, "op ", d_->op->type, " declares no attribute '", std::string(name), "'");
    MO_ASSERT(kind_of(value) == spec->kind, "attribute '", std::string(name), "' of ", d_->op->type, " is ",
              kind_name(spec->kind), ", not ", kind_name(kind_of(value)));
    d_->attrs[std::string(name)] = std::move(value);
    d_->needs_infer = true;
}

const AttrMap& Node::attrs() const { return d_->attrs; }

size_t Node::input_count() const { return d_->num_inputs; }

void Node::set_input_count(size_t n) const {
    for (size_t i = n; i < d_->num_inputs; ++i) in(i).disconnect();
    d_->num_inputs = n;
    d_->needs_infer = true;
}

size_t Node::output_count() const { return d_->outputs.size(); }

void Node::set_output_count(size_t n) const {
    if (n < d_->outputs.size()) {
        auto& g = d_->graph->impl().g;
        boost::remove_out_edge_if(d_->vertex, [&](auto e) { return g[e].out_port >= n; }, g);
        d_->graph->note_change();
    }
    d_->outputs.resize(n);
}

InPort Node::in(size_t i) const {
    MO_ASSERT(i < d_->num_inputs, describe(), " has no input ", i);
    return InPort(*this, i);
}

OutPort Node::out(size_t i) const {
    MO_ASSERT(i < d_->outputs.size(), describe(), " has no output ", i);
    return OutPort(*this, i);
}

FrameworkInfo& Node::framework() const { return d_->framework; }
std::vector<std::string>& Node::fused_names() const { return d_->fused_names; }
std::map<std::string, std::string>& Node::rt_info() const { return d_->rt_info; }

bool Node::needs_infer() const { return d_->needs_infer; }
void Node::set_inferred() const { d_->needs_infer = false; }
void Node::set_needs_infer() const { d_->needs_infer = true; }

std::vector<Body>& Node::bodies() const { return d_->bodies; }

Body& Node::add_body(std::string role) const {
    Graph& outer = *d_->graph;
    Body body;
    body.role = std::move(role);
    body.graph = std::make_unique<Graph>(outer.ops());
    body.graph->owner_ = *this;
    body.graph->owner_role_ = body.role;
    body.graph->source_path = outer.source_path;
    body.graph->source_framework = outer.source_framework;
    d_->bodies.push_back(std::move(body));
    d_->needs_infer = true;
    outer.note_change();
    return d_->bodies.back();
}

bool Node::answers_to(std::string_view name) const {
    if (d_->name == name) return true;
    auto listed = [&](const std::vector<std::string>& names) {
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (is("Result")) return in(0).connected() && listed(in(0).src().names());
    for (const OutputData& out : d_->outputs)
        if (listed(out.names)) return true;
    return false;
}

std::string Node::describe() const {
    std::string t = d_->op ? d_->op->type : "?";
    if (!d_->framework.type.empty() && d_->op && d_->op->type == "FrameworkNode") t = d_->framework.type;
    std::string text = "node '" + d_->name + "' (" + t + ")";
    if (Node owner = d_->graph->owner()) text += " in the " + d_->graph->owner_role() + " of " + owner.describe();
    return text;
}

// ---------------------------------------------------------------- ports

std::vector<InPort> OutPort::targets() const {
    auto& g = node_.graph().impl().g;
    std::vector<InPort> result;
    for (auto [it, end] = boost::out_edges(node_.data()->vertex, g); it != end; ++it)
        if (g[*it].out_port == index_) result.emplace_back(Node(g[boost::target(*it, g)]), g[*it].in_port);
    std::sort(result.begin(), result.end(), [](const InPort& a, const InPort& b) {
        return a.node().id() != b.node().id() ? a.node().id() < b.node().id() : a.index() < b.index();
    });
    return result;
}

size_t OutPort::target_count() const {
    auto& g = node_.graph().impl().g;
    size_t n = 0;
    for (auto [it, end] = boost::out_edges(node_.data()->vertex, g); it != end; ++it) n += g[*it].out_port == index_;
    return n;
}

bool OutPort::has_targets() const {
    auto& g = node_.graph().impl().g;
    for (auto [it, end] = boost::out_edges(node_.data()->vertex, g); it != end; ++it)
        if (g[*it].out_port == index_) return true;
    return false;
}

OutputData& OutPort::data() const { return node_.data()->outputs.at(index_); }

const Tensor* OutPort::value() const {
    auto& v = data().value;
    return v ? &*v : nullptr;
}

void OutPort::set_type_and_shape(ElementType t, PartialShape s) const {
    auto& d = data();
    d.type = t;
    d.shape = std::move(s);
}

void OutPort::set_value(Tensor v) const {
    auto& d = data();
    d.type = v.type();
    d.shape = PartialShape(v.shape());
    d.value = std::move(v);
}

void OutPort::replace_all_uses_with(const OutPort& other) const {
    if (other == *this) return;
    for (const InPort& t : targets()) t.connect(other);
}

std::optional<OutPort> InPort::source() const {
    auto& g = node_.graph().impl().g;
    for (auto [it, end] = boost::in_edges(node_.data()->vertex, g); it != end; ++it)
        if (g[*it].in_port == index_) return OutPort(Node(g[boost::source(*it, g)]), g[*it].out_port);
    return std::nullopt;
}

bool InPort::connected() const { return source().has_value(); }

OutPort InPort::src() const {
    auto s = source();
    MO_ASSERT(s.has_value(), node_.describe(), " input ", index_, " is not connected");
    return *s;
}

void InPort::connect(const OutPort& src) const {
    MO_ASSERT(&src.node().graph() == &node_.graph(), "connecting nodes of different graphs");
    MO_ASSERT(src.index() < src.node().output_count(), "connecting from a missing output");
    disconnect();
    auto& g = node_.graph().impl().g;
    boost::add_edge(src.node().data()->vertex, node_.data()->vertex, EdgePorts{src.index(), index_}, g);
    node_.data()->needs_infer = true;
    node_.graph().note_change();
}

void InPort::disconnect() const {
    auto& g = node_.graph().impl().g;
    bool removed = false;
    boost::remove_in_edge_if(
        node_.data()->vertex,
        [&](auto e) {
            bool hit = g[e].in_port == index_;
            removed |= hit;
            return hit;
        },
        g);
    if (removed) {
        node_.data()->needs_infer = true;
        node_.graph().note_change();
    }
}

// ---------------------------------------------------------------- Graph

Graph::Graph(const OpRegistry& ops) : ops_(&ops), impl_(std::make_unique<Impl>()) {}
Graph::~Graph() = default;

Node Graph::add_node(const OpSchema& op, std::string name) {
    auto d = std::make_unique<NodeData>();
    d->graph = this;
    d->id = impl_->nodes.size();
    d->name = std::move(name);
    d->op = &op;
    d->num_inputs = op.min_inputs;
    d->outputs.resize(op.num_outputs == SIZE_MAX ? 1 : op.num_outputs);
    d->vertex = boost::add_vertex(d.get(), impl_->g);
    Node n(d.get());
    impl_->nodes.push_back(std::move(d));
    ++impl_->live;
    note_change();
    return n;
}

Node Graph::add_op(std::string_view type, std::string name, const std::vector<OutPort>& inputs, const AttrMap& attrs) {
    const OpSchema& op = ops_->get(type);
    MO_ASSERT(inputs.size() >= op.min_inputs && inputs.size() <= op.max_inputs, "op ", op.type, " takes ",
              op.min_inputs, "..", op.max_inputs, " inputs, got ", inputs.size());
    Node n = add_node(op, std::move(name));
    n.set_input_count(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) n.in(i).connect(inputs[i]);
    for (const auto& [k, v] : attrs) n.set_attr_value(k, v);
    return n;
}

Node Graph::add_constant(std::string name, Tensor value) {
    Node n = add_node(ops_->get("Constant"), std::move(name));
    n.out(0).set_value(std::move(value));
    n.data()->needs_infer = false;
    return n;
}

void Graph::remove_node(Node n) {
    MO_ASSERT(&n.graph() == this);
    auto v = n.data()->vertex;
    boost::clear_vertex(v, impl_->g);
    boost::remove_vertex(v, impl_->g);
    std::erase(parameters_, n);
    std::erase(results_, n);
    std::erase(sinks_, n);
    impl_->nodes[n.id()].reset();  // frees the NodeData: `n` dangles from here on
    --impl_->live;
    note_change();
}

void Graph::replace(Node old_node, Node new_node) {
    MO_ASSERT(old_node.output_count() == new_node.output_count(), "replace(", old_node.describe(), ", ",
              new_node.describe(), "): output counts differ");
    for (size_t j = 0; j < old_node.output_count(); ++j) {
        old_node.out(j).replace_all_uses_with(new_node.out(j));
        auto& from = old_node.out(j).names();
        auto& to = new_node.out(j).names();
        to.insert(to.end(), from.begin(), from.end());
    }
    auto& fused = new_node.fused_names();
    fused.push_back(old_node.name());
    fused.insert(fused.end(), old_node.fused_names().begin(), old_node.fused_names().end());
    new_node.set_name(old_node.name());
    for (auto& p : parameters_)
        if (p == old_node) p = new_node;
    for (auto& r : results_)
        if (r == old_node) r = new_node;
    for (auto& k : sinks_)
        if (k == old_node) k = new_node;
    remove_node(old_node);
}

size_t Graph::node_count() const { return impl_->live; }

std::vector<Node> Graph::nodes() const {
    std::vector<Node> v;
    v.reserve(impl_->live);
    impl_->for_each([&](NodeData* d) { v.emplace_back(d); });
    return v;
}

std::vector<Node> Graph::topological_order() const {
    if (impl_->topo_change != change_count_) {
        impl_->topo = compute_topological_order();
        impl_->topo_change = change_count_;
    }
    return impl_->topo;
}

std::vector<Node> Graph::compute_topological_order() const {
    auto& g = impl_->g;
    std::vector<std::pair<uint64_t, NodeData*>> ready;  // a min-heap on id
    impl_->for_each([&](NodeData* d) {
        d->walk_count = boost::in_degree(d->vertex, g);  // inputs not yet ordered
        if (d->walk_count == 0) ready.emplace_back(d->id, d);
    });
    auto later = std::greater<>();
    std::make_heap(ready.begin(), ready.end(), later);
    std::vector<Node> order;
    order.reserve(impl_->live);
    while (!ready.empty()) {
        std::pop_heap(ready.begin(), ready.end(), later);
        NodeData* d = ready.back().second;
        ready.pop_back();
        order.emplace_back(d);
        for (auto [it, end] = boost::out_edges(d->vertex, g); it != end; ++it) {
            NodeData* t = g[boost::target(*it, g)];
            if (--t->walk_count == 0) {
                ready.emplace_back(t->id, t);
                std::push_heap(ready.begin(), ready.end(), later);
            }
        }
    }
    if (order.size() != impl_->live) {
        impl_->for_each([&](NodeData* d) {
            if (d->walk_count != 0)
                throw Error("the graph has a cycle through this node", Node(d).describe(),
                            "mo supports only acyclic graphs (loops must be expressed as Loop/TensorIterator ops)");
        });
    }
    return order;
}

Node Graph::find_by_name(std::string_view name) const {
    for (const auto& d : impl_->nodes)
        if (d && d->name == name) return Node(d.get());
    return Node();
}

uint64_t Graph::id_limit() const { return impl_->nodes.size(); }

Node Graph::find_by_id(uint64_t id) const {
    return id < impl_->nodes.size() ? Node(impl_->nodes[id].get()) : Node();
}

// What remove_dead_nodes() depends on: the structure and the lists of Parameters, Results and sinks
// (which passes may edit without adding or removing a node).
uint64_t Graph::clean_up_key() const {
    uint64_t key = hash_combine(0, change_count_);
    for (const auto* list : {&parameters_, &results_, &sinks_}) {
        key = hash_combine(key, list->size());
        for (const Node& n : *list) key = hash_combine(key, n.id());
    }
    return key;
}

size_t Graph::remove_dead_nodes() {
    if (impl_->clean_key == clean_up_key()) return 0;  // nothing changed since the last clean-up
    auto& g = impl_->g;
    const uint64_t live = ++impl_->walk_epoch;
    std::vector<NodeData*> stack;
    auto visit = [&](NodeData* d) {
        if (d->walk_epoch == live) return;
        d->walk_epoch = live;
        stack.push_back(d);
    };
    for (Node r : results_) visit(r.data());
    for (Node k : sinks_) visit(k.data());
    while (!stack.empty()) {
        NodeData* d = stack.back();
        stack.pop_back();
        for (auto [it, end] = boost::in_edges(d->vertex, g); it != end; ++it) visit(g[boost::source(*it, g)]);
    }
    for (Node p : parameters_) p.data()->walk_epoch = live;
    std::vector<Node> dead;
    impl_->for_each([&](NodeData* d) {
        if (d->walk_epoch != live) dead.emplace_back(d);
    });
    for (Node n : dead) remove_node(n);
    impl_->clean_key = clean_up_key();
    return dead.size();
}

void remove_body_parameter(Body& body, size_t parameter) {
    Graph& g = *body.graph;
    MO_ASSERT(parameter < g.parameters().size(), "body has no Parameter ", parameter);
    Node p = g.parameters()[parameter];
    MO_ASSERT(!p.out(0).has_targets(), p.describe(), " is still used");
    g.remove_node(p);  // also drops it from parameters()
    std::erase_if(body.inputs, [&](const BodyInput& in) { return in.parameter == parameter; });
    for (BodyInput& in : body.inputs)
        if (in.parameter > parameter) --in.parameter;
}

void remove_subgraph_op_input(Node n, size_t i) {
    for (const Body& b : n.bodies())
        for (const BodyInput& in : b.inputs)
            MO_ASSERT(in.kind == BodyInput::Kind::CurrentIteration || in.external != i, n.describe(), ": input ", i,
                      " is still mapped into the ", b.role);
    for (size_t k = i; k + 1 < n.input_count(); ++k) {
        if (auto src = n.in(k + 1).source()) n.in(k).connect(*src);
        else n.in(k).disconnect();
    }
    n.set_input_count(n.input_count() - 1);
    for (Body& b : n.bodies())
        for (BodyInput& in : b.inputs)
            if (in.kind != BodyInput::Kind::CurrentIteration && in.external > i) --in.external;
}

void InferContext::fail(const std::string& what, const std::string& hint) const {
    throw Error(what, node.describe(), hint);
}

}  // namespace mo
