#include "core/graph.hpp"

#include <algorithm>
#include <bit>
#include <map>

#include <boost/graph/depth_first_search.hpp>

#include "core/graph_boost.hpp"
#include "core/graph_data.hpp"
#include "core/hash.hpp"
#include "core/large_array_allocator.hpp"

namespace mo {

// ---------------------------------------------------------------- Node

Node::Node(NodeData* d) : d_(d) {}
NodeData* Node::data() const { return static_cast<NodeData*>(d_); }

const std::string& Node::name() const { return data()->name; }
void Node::set_name(std::string name) const { data()->name = std::move(name); }

void Node::set_op(const OpSchema& op) const {
    Graph::Impl& impl = d_->graph->impl();
    impl.count_op(d_->op, -1);
    data()->op_index = impl.count_op(&op, 1);
    d_->op = &op;
    data()->attrs.clear();
    data()->needs_infer = true;
    if (op.num_outputs != SIZE_MAX) set_output_count(op.num_outputs);
    d_->graph->note_change();
}

const AttrValue& Node::attr_value(std::string_view name) const {
    if (auto it = data()->attrs.find(name); it != data()->attrs.end()) return it->second;
    const AttrSpec* spec = d_->op->find_attr(name);
    MO_ASSERT(spec != nullptr, "op ", d_->op->type, " has no attribute '", std::string(name), "'");
    if (spec->required())
        throw Error("required attribute '" + std::string(name) + "' is not set", describe(),
                    "the source model or the extractor must provide it");
    return spec->default_value;
}

bool Node::has_attr(std::string_view name) const { return data()->attrs.count(name) != 0; }

void Node::set_attr_value(std::string_view name, AttrValue value) const {
    const AttrSpec* spec = d_->op->find_attr(name);
    MO_ASSERT(spec != nullptr, "op ", d_->op->type, " declares no attribute '", std::string(name), "'");
    MO_ASSERT(kind_of(value) == spec->kind, "attribute '", std::string(name), "' of ", d_->op->type, " is ",
              kind_name(spec->kind), ", not ", kind_name(kind_of(value)));
    data()->attrs[std::string(name)] = std::move(value);
    data()->needs_infer = true;
}

const AttrMap& Node::attrs() const { return data()->attrs; }

size_t Node::input_count() const { return data()->in_edges.size(); }

void Node::set_input_count(size_t n) const {
    for (size_t i = n; i < data()->in_edges.size(); ++i) in(i).disconnect();
    data()->in_edges.resize(n);
    data()->needs_infer = true;
}

size_t Node::output_count() const { return data()->outputs.size(); }

void Node::set_output_count(size_t n) const {
    if (n < data()->outputs.size()) {
        // Backwards: disconnecting moves the last edge into the freed slot.
        for (size_t k = data()->out_edges.size(); k-- > 0;)
            if (const OutEdge e = data()->out_edges[k]; e.out_port >= n) InPort(Node(e.dst), e.in_port).disconnect();
        d_->graph->note_change();
    }
    data()->outputs.resize(n);
}

InPort Node::in(size_t i) const {
    MO_ASSERT(i < data()->in_edges.size(), describe(), " has no input ", i);
    return InPort(*this, i);
}

OutPort Node::out(size_t i) const {
    MO_ASSERT(i < data()->outputs.size(), describe(), " has no output ", i);
    return OutPort(*this, i);
}

FrameworkInfo& Node::framework() const {
    auto& fw = data()->framework;
    if (!fw) {
        uint32_t& index = data()->framework_source;
        const auto& source = d_->graph->impl().framework_source;
        fw = std::make_unique<FrameworkInfo>(index != kNoSource && source ? source(index) : FrameworkInfo{});
        index = kNoSource;
    }
    return *fw;
}

void Node::set_framework_source(uint32_t index) const {
    MO_ASSERT(index != kNoSource, "framework source index out of range");
    data()->framework.reset();
    data()->framework_source = index;
}

void Node::release_framework() const {
    data()->framework.reset();
    data()->framework_source = kNoSource;
}
std::vector<std::string>& Node::fused_names() const { return data()->extra().fused_names; }
std::map<std::string, std::string>& Node::rt_info() const { return data()->extra().rt_info; }
const std::vector<std::string>& Node::read_fused_names() const {
    static const std::vector<std::string> none;
    return data()->extras ? data()->extras->fused_names : none;
}
const std::map<std::string, std::string>& Node::read_rt_info() const {
    static const std::map<std::string, std::string> none;
    return data()->extras ? data()->extras->rt_info : none;
}
bool Node::has_rt_info(std::string_view key) const {
    const NodeExtras* extras = data()->extras.get();  // most nodes have none: no key string is made
    return extras && !extras->rt_info.empty() && extras->rt_info.count(std::string(key)) != 0;
}

bool Node::needs_infer() const { return data()->needs_infer; }
void Node::set_inferred() const { data()->needs_infer = false; }
void Node::set_needs_infer() const { data()->needs_infer = true; }

std::vector<Body>& Node::bodies() const { return data()->bodies; }

Body& Node::add_body(std::string role) const {
    Graph& outer = *d_->graph;
    Body body;
    body.role = std::move(role);
    body.graph = std::make_unique<Graph>(outer.ops());
    body.graph->owner_ = *this;
    body.graph->owner_role_ = body.role;
    body.graph->source_path = outer.source_path;
    body.graph->source_framework = outer.source_framework;
    body.graph->max_constant_bytes = outer.max_constant_bytes;
    if (!data()->had_bodies) {
        data()->had_bodies = true;
        ++outer.impl().with_bodies;
    }
    data()->bodies.push_back(std::move(body));
    data()->needs_infer = true;
    outer.note_change();
    return data()->bodies.back();
}

bool Node::answers_to(std::string_view name) const {
    if (data()->name == name) return true;
    auto listed = [&](const std::vector<std::string>& names) {
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (is("Result")) return in(0).connected() && listed(in(0).src().names());
    for (const OutputData& out : data()->outputs)
        if (listed(out.names)) return true;
    return false;
}

std::string Node::describe() const {
    std::string t = d_->op ? d_->op->type : "?";
    if (d_->op && d_->op->type == "FrameworkNode" && (data()->framework || data()->framework_source != kNoSource) &&
        !framework().type.empty())
        t = framework().type;
    std::string text = "node '" + data()->name + "' (" + t + ")";
    if (Node owner = d_->graph->owner()) text += " in the " + d_->graph->owner_role() + " of " + owner.describe();
    return text;
}

// ---------------------------------------------------------------- ports

namespace {
// Drops input edge `e` from its source's out_edges in O(1): the last edge takes its slot.
void unlink_from_source(const InEdge& e) {
    std::vector<OutEdge>& out = e.src->out_edges;
    const OutEdge last = out.back();
    out[e.out_slot] = last;
    last.dst->in_edges[last.in_port].out_slot = e.out_slot;
    out.pop_back();
}
}  // namespace

std::vector<InPort> OutPort::targets() const {
    std::vector<InPort> result;
    for (const OutEdge& e : node_.data()->out_edges)
        if (e.out_port == index_) result.emplace_back(Node(e.dst), e.in_port);
    std::sort(result.begin(), result.end(), [](const InPort& a, const InPort& b) {
        return a.node().id() != b.node().id() ? a.node().id() < b.node().id() : a.index() < b.index();
    });
    return result;
}

size_t OutPort::target_count() const {
    size_t n = 0;
    for (const OutEdge& e : node_.data()->out_edges) n += e.out_port == index_;
    return n;
}

bool OutPort::has_targets() const {
    for (const OutEdge& e : node_.data()->out_edges)
        if (e.out_port == index_) return true;
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
    // In any order: the consumers end up the same (targets() sorts, which a port read by
    // half a million nodes would pay for).
    std::vector<InPort> consumers;
    for (const OutEdge& e : node_.data()->out_edges)
        if (e.out_port == index_) consumers.emplace_back(Node(e.dst), e.in_port);
    for (const InPort& t : consumers) t.connect(other);
}

std::optional<OutPort> InPort::source() const {
    const InEdge& e = node_.data()->in_edges.at(index_);
    if (!e.src) return std::nullopt;
    return OutPort(Node(e.src), e.out_port);
}

bool InPort::connected() const { return node_.data()->in_edges.at(index_).src != nullptr; }

OutPort InPort::src() const {
    auto s = source();
    MO_ASSERT(s.has_value(), node_.describe(), " input ", index_, " is not connected");
    return *s;
}

void InPort::connect(const OutPort& src) const {
    MO_ASSERT(&src.node().graph() == &node_.graph(), "connecting nodes of different graphs");
    MO_ASSERT(src.index() < src.node().output_count(), "connecting from a missing output");
    MO_ASSERT(src.index() <= UINT32_MAX && index_ <= UINT32_MAX && src.node().data()->out_edges.size() < UINT32_MAX,
              "port number or edge count beyond 2^32");
    disconnect();
    NodeData* from = src.node().data();
    const auto out_port = static_cast<uint32_t>(src.index()), in_port = static_cast<uint32_t>(index_);
    node_.data()->in_edges.at(index_) = InEdge{from, out_port, static_cast<uint32_t>(from->out_edges.size())};
    from->out_edges.push_back(OutEdge{node_.data(), in_port, out_port});
    ++node_.graph().impl().edges;
    node_.data()->needs_infer = true;
    node_.graph().note_change();
}

void InPort::disconnect() const {
    InEdge& e = node_.data()->in_edges.at(index_);
    if (!e.src) return;
    unlink_from_source(e);
    e = InEdge{};
    --node_.graph().impl().edges;
    node_.data()->needs_infer = true;
    node_.graph().note_change();
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
    d->in_edges.resize(op.min_inputs);
    d->outputs.resize(op.num_outputs == SIZE_MAX ? 1 : op.num_outputs);
    d->op_index = impl_->count_op(&op, 1);
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
    if (!impl_->constant_op) impl_->constant_op = &ops_->get("Constant");
    Node n = add_node(*impl_->constant_op, std::move(name));
    n.out(0).set_value(std::move(value));
    n.data()->needs_infer = false;
    return n;
}

void Graph::remove_node(Node n) {
    MO_ASSERT(&n.graph() == this);
    NodeData* d = n.data();
    for (InEdge& e : d->in_edges)
        if (e.src) unlink_from_source(e), e = InEdge{}, --impl_->edges;
    for (const OutEdge& e : d->out_edges) e.dst->in_edges[e.in_port] = InEdge{};  // the consumers keep a free input
    impl_->edges -= d->out_edges.size();
    d->out_edges.clear();
    std::erase(parameters_, n);
    std::erase(results_, n);
    std::erase(sinks_, n);
    impl_->count_op(d->op, -1);
    if (d->had_bodies) --impl_->with_bodies;
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
    const auto& old_fused = old_node.read_fused_names();
    fused.insert(fused.end(), old_fused.begin(), old_fused.end());
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

size_t Graph::count_of(const OpSchema& op) const {
    auto it = impl_->op_counts.find(&op);
    return it == impl_->op_counts.end() ? 0 : it->second.nodes;
}

uint16_t Graph::Impl::count_op(const OpSchema* op, int delta) {
    auto [it, fresh] = op_counts.try_emplace(op);
    if (fresh) {
        MO_ASSERT(op_table.size() < UINT16_MAX, "a graph with more than 65535 op types");
        it->second.index = static_cast<uint16_t>(op_table.size());
        op_table.push_back(op);
    }
    if (delta > 0) ++it->second.nodes;
    else --it->second.nodes;
    return it->second.index;
}

bool Graph::has_bodies() const { return impl_->with_bodies > 0; }

void Graph::release_framework_info() {
    bool waiting = false;
    impl_->for_each([&](NodeData* d) {
        if (d->op->type != "FrameworkNode") {
            d->framework.reset();
            d->framework_source = kNoSource;
        }
        waiting |= d->framework_source != kNoSource;
    });
    if (!waiting) impl_->framework_source = nullptr;  // what it holds of the loader goes too
}

void Graph::set_framework_source(std::function<FrameworkInfo(uint32_t)> source) {
    impl_->framework_source = std::move(source);
}

std::vector<Node> Graph::nodes() const {
    std::vector<Node> v;
    v.reserve(impl_->live);
    impl_->for_each([&](NodeData* d) { v.emplace_back(d); });
    return v;
}

std::vector<Node> Graph::topological_order() const { return GraphAccess::order(*this).nodes; }

GraphAccess::Order GraphAccess::order(const Graph& g) {
    Graph::Impl& impl = *g.impl_;
    if (impl.topo_change != g.change_count_) {
        impl.topo = {};  // freed first, so that the new order can take its room
        impl.topo = g.compute_topological_order();  // fills impl.topo_ops as it goes
        impl.topo_change = g.change_count_;
    }
    return {impl.topo, impl.topo_ops, impl.op_table};
}

namespace {

// Boost.Graph's depth-first search, stopped at its first back edge: that edge closes a cycle of
// tree edges, followed back through each node's tree edge.
struct CycleFound {
    graph_view::Edge back_edge;
};
struct StopAtBackEdge : boost::default_dfs_visitor {
    std::vector<Node>* parent;  // indexed by node id: the source of the tree edge into it
    void tree_edge(const graph_view::Edge& e, const Graph&) const { (*parent)[e.target.id()] = e.source; }
    void back_edge(const graph_view::Edge& e, const Graph&) const { throw CycleFound{e}; }
};

// A cycle of `g`, its nodes in edge order; empty when `g` has none.
std::vector<Node> find_cycle(const Graph& g) {
    std::vector<Node> parent(g.id_limit());
    std::vector<boost::default_color_type> colors;
    StopAtBackEdge visitor;
    visitor.parent = &parent;
    try {
        boost::depth_first_search(g, boost::visitor(visitor).color_map(node_map(g, colors)));
    } catch (const CycleFound& found) {
        // The back edge enters an ancestor of its source: ancestor ... source by tree edges.
        const Node ancestor = found.back_edge.target;
        std::vector<Node> cycle{found.back_edge.source};
        while (cycle.back() != ancestor) cycle.push_back(parent[cycle.back().id()]);
        std::reverse(cycle.begin(), cycle.end());  // the ancestor first, in edge direction
        return cycle;
    }
    return {};
}

// Kahn's ready nodes as a set of ids: a bit per id and a summary bit per 64-bit word, so taking
// the smallest scans a few words. A binary heap cost 17 levels per step on a transformer's
// graph, whose 85,000 constants are all ready at the start.
class ReadyIds {
public:
    explicit ReadyIds(uint64_t id_limit) : words_(id_limit / 64 + 1), summary_(words_.size() / 64 + 1) {}

    bool empty() const { return count_ == 0; }

    void insert(uint64_t id) {
        const uint64_t w = id / 64;
        words_[w] |= uint64_t{1} << (id % 64);
        summary_[w / 64] |= uint64_t{1} << (w % 64);
        lowest_word_ = std::min(lowest_word_, w);
        ++count_;
    }

    uint64_t take_smallest() {
        uint64_t s = lowest_word_ / 64;
        uint64_t bits = summary_[s] & (~uint64_t{0} << (lowest_word_ % 64));
        while (bits == 0) bits = summary_[++s];
        const uint64_t w = s * 64 + static_cast<uint64_t>(std::countr_zero(bits));
        const uint64_t id = w * 64 + static_cast<uint64_t>(std::countr_zero(words_[w]));
        words_[w] &= words_[w] - 1;
        if (words_[w] == 0) summary_[s] &= ~(uint64_t{1} << (w % 64));
        lowest_word_ = w;  // no id below the one taken is left
        --count_;
        return id;
    }

private:
    std::vector<uint64_t> words_, summary_;
    uint64_t lowest_word_ = UINT64_MAX;
    size_t count_ = 0;
};

// How far ahead in id order the consumer lists are gathered: the node, then its edges, then the
// consumers the edges point to, each fetched a stage before it is read.
constexpr uint64_t kFetchNode = 16, kFetchEdges = 8, kFetchConsumers = 4;

// The order's working copies: made after every pass that changed the graph, they would stay
// resident in glibc's heap once freed (core/large_array_allocator.hpp).
template <typename T>
using Scratch = std::vector<T, LargeArrayAllocator<T>>;

}  // namespace

// Kahn's algorithm on dense copies of the graph: each node's consumers as ids (side by side, in
// id order) and its count of inputs not yet ordered in an array by id. Decrementing a count in
// the consumer's own node was a cache miss for nearly every edge (63% of the time on a
// transformer's graph after f16 compression, whose order jumps between old and new ids); the
// copies are gathered in id order, where every miss can be fetched ahead.
std::vector<Node> Graph::compute_topological_order() const {
    const auto& nodes = impl_->nodes;
    const uint64_t limit = nodes.size();
    MO_ASSERT(limit < UINT32_MAX, "more than 2^32 node ids");
    Scratch<uint32_t> first_consumer(limit + 1);  // consumers of id: [first_consumer[id], first_consumer[id + 1])
    Scratch<uint32_t> consumers;
    consumers.reserve(impl_->edges);
    Scratch<uint32_t> waiting(limit, 0);  // inputs not yet ordered
    Scratch<uint16_t> op_place(limit, 0);
    for (uint64_t id = 0; id < limit; ++id) {
        if (id + kFetchNode < limit && nodes[id + kFetchNode]) GraphAccess::prefetch_head(nodes[id + kFetchNode].get());
        if (id + kFetchEdges < limit && nodes[id + kFetchEdges] && !nodes[id + kFetchEdges]->out_edges.empty())
            __builtin_prefetch(nodes[id + kFetchEdges]->out_edges.data());
        if (id + kFetchConsumers < limit && nodes[id + kFetchConsumers])
            for (const OutEdge& e : nodes[id + kFetchConsumers]->out_edges) __builtin_prefetch(&e.dst->id);
        first_consumer[id] = static_cast<uint32_t>(consumers.size());
        const NodeData* d = nodes[id].get();
        if (!d) continue;
        op_place[id] = d->op_index;
        for (const OutEdge& e : d->out_edges) {
            const auto c = static_cast<uint32_t>(e.dst->id);
            consumers.push_back(c);
            ++waiting[c];  // each connected input is one edge out of its source
        }
    }
    MO_ASSERT(consumers.size() == impl_->edges && consumers.size() < UINT32_MAX, "edge count ", impl_->edges, " against ",
              consumers.size(), " edges found (or more than 2^32)");
    first_consumer[limit] = static_cast<uint32_t>(consumers.size());
    ReadyIds ready(limit);
    for (uint64_t id = 0; id < limit; ++id)
        if (nodes[id] && waiting[id] == 0) ready.insert(id);
    std::vector<Node> order;
    order.reserve(impl_->live);
    std::vector<uint16_t>& ops = impl_->topo_ops;
    ops.clear();
    ops.reserve(impl_->live);
    while (!ready.empty()) {
        const uint64_t id = ready.take_smallest();
        order.emplace_back(nodes[id].get());
        ops.push_back(op_place[id]);
        for (uint32_t k = first_consumer[id]; k < first_consumer[id + 1]; ++k)
            if (--waiting[consumers[k]] == 0) ready.insert(consumers[k]);
    }
    if (order.size() != impl_->live) {
        std::vector<Node> cycle = find_cycle(*this);
        MO_ASSERT(!cycle.empty(), "nodes were left unordered, but no cycle was found");
        auto named = [](Node n) { return "'" + n.name() + "' (" + n.type() + ")"; };
        std::string path;
        for (size_t i = 0; i < cycle.size() && i < 8; ++i) path += named(cycle[i]) + " -> ";
        path += cycle.size() > 8 ? "... (" + std::to_string(cycle.size()) + " nodes)" : named(cycle.front());
        throw Error("the graph has a cycle: " + path, cycle.front().describe(),
                    "mo supports only acyclic graphs (loops must be expressed as Loop/TensorIterator ops)");
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
    // A walk from the Results and sinks against the edges, breadth first: the queue holds the
    // nodes to come, so their input lists and their producers are fetched a few nodes ahead.
    // Depth first, each step waited for two cache misses in a row (0.27 s after a rewrite of a
    // million-node transformer); on bench/graph_algorithms.cpp's compact graphs the two walks
    // and Boost's breadth_first_visit take the same time.
    std::vector<uint8_t> live(id_limit(), 0);
    Scratch<NodeData*> queue;  // every live node, in the order reached
    queue.reserve(impl_->live);
    auto visit = [&](NodeData* d) {
        if (live[d->id]) return;
        live[d->id] = 1;
        queue.push_back(d);
    };
    for (Node r : results_) visit(r.data());
    for (Node k : sinks_) visit(k.data());
    constexpr size_t kInputs = 8, kSources = 4;
    for (size_t next = 0; next < queue.size(); ++next) {
        if (next + kInputs < queue.size() && !queue[next + kInputs]->in_edges.empty())
            __builtin_prefetch(queue[next + kInputs]->in_edges.data());
        if (next + kSources < queue.size())
            for (const InEdge& e : queue[next + kSources]->in_edges)
                if (e.src) __builtin_prefetch(&e.src->id);
        for (const InEdge& e : queue[next]->in_edges)
            if (e.src) visit(e.src);
    }
    for (Node p : parameters_) live[p.id()] = 1;  // inputs stay, read or not
    std::vector<Node> dead;
    for (uint64_t id = 0; id < impl_->nodes.size(); ++id)  // by id: no node is read
        if (impl_->nodes[id] && !live[id]) dead.emplace_back(impl_->nodes[id].get());
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
