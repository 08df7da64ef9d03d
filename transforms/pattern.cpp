#include "transforms/pattern.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <set>
#include <sstream>

#include "core/graph_data.hpp"
#include "core/log.hpp"

namespace mo {

NodePredicate consumers(size_t n) {
    return [n](const Node& node) { return node.output_count() > 0 && node.out(0).target_count() == n; };
}

namespace {

// Whether broadcasting `c` against `others` leaves `others` as it is: no more dims, and each of
// c's dims 1 or the same static dim.
bool broadcasts_into(const Shape& c, const PartialShape& others) {
    if (!others.rank_is_static()) return c.empty();
    if (c.size() > others.rank()) return false;
    const size_t offset = others.rank() - c.size();
    for (size_t i = 0; i < c.size(); ++i)
        if (c[i] != 1 && others[offset + i] != Dimension(c[i])) return false;
    return true;
}

// Whether every consumer of the known value `t` (output 0 of a node) would compute the same
// output shape without it: its shape broadcasts into that of the consumer's other inputs.
bool leaves_consumer_shapes(const Node& node, const Tensor& t) {
    for (const InPort& target : node.out(0).targets()) {
        const Node consumer = target.node();
        PartialShape others;  // a scalar: what the broadcast starts from
        try {
            for (size_t i = 0; i < consumer.input_count(); ++i)
                if (i != target.index() && consumer.in(i).connected())
                    others = broadcast_numpy(others, consumer.in(i).shape());
        } catch (const Error&) {
            return false;
        }
        if (!broadcasts_into(t.shape(), others)) return false;
    }
    return true;
}

// The most elements const_value() reads: exporters write a pattern's constant as one value or a
// few broadcast ones, and a weight is not read whole to find that it is not one.
constexpr size_t kMaxPatternConstantElements = 4096;

// The values of a small constant, read with pread when they live in the mapped model: touching
// the mapping would fault in 64 KiB around each one and keep it resident until the BIN writer
// releases it (a 12 GiB LLM's 976 checks took 60 MB that way).
std::vector<double> small_constant_values(const Tensor& t) {
    const MappedFile* file = t.buffer()->source_file();
    if (!file) return t.to_f64();
    Tensor copy = Tensor::allocate(t.type(), t.shape());
    file->read(t.bytes(), copy.mutable_data<std::byte>(), t.byte_size());
    return copy.to_f64();
}

}  // namespace

NodePredicate const_value(double value, double tolerance) {
    return [value, tolerance](const Node& node) {
        const Tensor* t = node.output_count() > 0 ? node.out(0).value() : nullptr;
        if (!t || t->size() == 0 || (!is_float(t->type()) && !is_integral(t->type()))) return false;
        if (t->size() > kMaxPatternConstantElements) return false;
        const double bound = tolerance * std::max(1.0, std::abs(value));
        for (double v : small_constant_values(*t))
            if (!(std::abs(v - value) <= bound)) return false;
        return leaves_consumer_shapes(node, *t);
    };
}

NodePredicate scalar_constant() {
    return [](const Node& node) {
        const Tensor* t = node.output_count() > 0 ? node.out(0).value() : nullptr;
        return t && t->size() == 1 && leaves_consumer_shapes(node, *t);
    };
}

NodePredicate is_constant() {
    return [](const Node& node) { return node.output_count() > 0 && node.out(0).value() != nullptr; };
}

NodePredicate rank(size_t r) {
    return [r](const Node& node) {
        if (node.output_count() == 0) return false;
        const PartialShape& s = node.out(0).shape();
        return s.rank_is_static() && s.rank() == r;
    };
}

Pattern::Pattern(std::string root) : root_(std::move(root)) {}

Pattern& Pattern::node(std::string name, std::vector<std::string> types, std::vector<NodePredicate> predicates) {
    for (const NodeSpec& n : nodes_) MO_ASSERT(n.name != name, "pattern node '", name, "' declared twice");
    nodes_.push_back({std::move(name), std::move(types), std::move(predicates), false});
    ordered_.clear();
    return *this;
}

size_t Pattern::index_of(const std::string& name) const {
    for (size_t i = 0; i < nodes_.size(); ++i)
        if (nodes_[i].name == name) return i;
    MO_ASSERT(false, "pattern node '", name, "' is not declared");
    return 0;
}

Pattern& Pattern::edge(const std::string& from, const std::string& to, size_t in_port, size_t out_port) {
    edges_.push_back({index_of(from), index_of(to), out_port, in_port});
    ordered_.clear();
    return *this;
}

Pattern& Pattern::commutative(const std::string& name) {
    nodes_[index_of(name)].commutative = true;
    return *this;
}

Pattern& Pattern::any_output(const std::string& name) {
    nodes_[index_of(name)].any_output = true;
    return *this;
}

const std::vector<std::string>& Pattern::root_types() const { return nodes_[index_of(root_)].types; }

const std::vector<Pattern::EdgeSpec>& Pattern::ordered_edges() const {
    if (!ordered_.empty() || edges_.empty()) return ordered_;
    // Breadth-first over the undirected pattern from the root: every edge is taken once one of
    // its ends is reached, so matching always extends from a bound node.
    std::vector<bool> reached(nodes_.size(), false), taken(edges_.size(), false);
    std::deque<size_t> queue{index_of(root_)};
    reached[queue.front()] = true;
    while (!queue.empty()) {
        size_t n = queue.front();
        queue.pop_front();
        for (size_t e = 0; e < edges_.size(); ++e) {
            if (taken[e] || (edges_[e].from != n && edges_[e].to != n)) continue;
            taken[e] = true;
            ordered_.push_back(edges_[e]);
            for (size_t other : {edges_[e].from, edges_[e].to})
                if (!reached[other]) reached[other] = true, queue.push_back(other);
        }
    }
    for (size_t i = 0; i < nodes_.size(); ++i)
        MO_ASSERT(reached[i], "pattern node '", nodes_[i].name, "' is not connected to the root '", root_, "'");
    return ordered_;
}

Node PatternMatch::operator[](const std::string& name) const {
    auto it = nodes_.find(name);
    MO_ASSERT(it != nodes_.end(), "no pattern node '", name, "' in this match");
    return it->second;
}

OutPort PatternMatch::out(const std::string& name) const {
    auto it = ports_.find(name);
    return (*this)[name].out(it == ports_.end() ? 0 : it->second);
}

namespace {

// Backtracking search: binds pattern nodes while resolving the ordered edges one by one.
class Matcher {
public:
    explicit Matcher(const Pattern& p)
        : p_(p),
          edges_(p.ordered_edges()),
          bound_(p.nodes().size()),
          swapped_(p.nodes().size(), false),
          port_(p.nodes().size(), kUnknownPort),
          schemas_(p.nodes().size()),
          by_name_(p.nodes().size(), false) {
        while (p_.nodes()[root_].name != p_.root()) ++root_;
    }

    // Reusable: a failed match leaves nothing bound (every step undoes itself), a found one is
    // cleared before the next.
    std::optional<PatternMatch> run(const Node& root) {
        if (&root.graph().ops() != ops_) resolve_types(root.graph().ops());
        if (first_edge_fails(root)) return std::nullopt;
        if (!bind_and_continue(root_, root, 0)) return std::nullopt;
        PatternMatch m;
        for (size_t i = 0; i < bound_.size(); ++i)
            m.bind(p_.nodes()[i].name, bound_[i], port_[i] == kUnknownPort ? 0 : port_[i]);
        std::fill(bound_.begin(), bound_.end(), Node());
        std::fill(swapped_.begin(), swapped_.end(), false);
        std::fill(port_.begin(), port_.end(), kUnknownPort);
        return m;
    }

    // The first step of matching when it is an edge into a root whose inputs keep their order,
    // from a typed node: whether the root's input there is missing or of another type. Most
    // tries end there (SDPA's MatMul roots not reading a Softmax), and this asks it without
    // binding anything.
    bool first_edge_fails(const Node& root) const {
        if (edges_.empty() || edges_[0].to != root_ || p_.nodes()[root_].commutative) return false;
        const Pattern::EdgeSpec& e = edges_[0];
        if (p_.nodes()[e.from].types.empty() || e.from == root_) return false;
        const std::vector<InEdge>& inputs = GraphAccess::data(root)->in_edges;
        if (e.in_port >= inputs.size() || !inputs[e.in_port].src) return true;
        return !has_type(e.from, GraphAccess::node(inputs[e.in_port].src));
    }

    // Whether a node of `op` may be the root: one of the root's types (any op when it names
    // none). Asked after possible_in(), which resolved the types in the graph's registry.
    bool root_may_be(const OpSchema* op) const {
        const Pattern::NodeSpec& spec = p_.nodes()[root_];
        if (spec.types.empty()) return true;
        if (by_name_[root_]) return std::find(spec.types.begin(), spec.types.end(), op->type) != spec.types.end();
        return std::find(schemas_[root_].begin(), schemas_[root_].end(), op) != schemas_[root_].end();
    }

    // Whether every typed pattern node names an op some node of `g` has: no match is possible
    // otherwise.
    bool possible_in(const Graph& g) {
        if (&g.ops() != ops_) resolve_types(g.ops());
        for (size_t i = 0; i < schemas_.size(); ++i) {
            if (p_.nodes()[i].types.empty() || by_name_[i]) continue;
            bool present = false;
            for (const OpSchema* op : schemas_[i]) present = present || g.count_of(*op) > 0;
            if (!present) return false;
        }
        return true;
    }

private:
    // A node's op is its registry's schema, so the pattern's types are compared as schema
    // pointers; a type the registry does not know is compared by name.
    void resolve_types(const OpRegistry& ops) {
        ops_ = &ops;
        for (size_t i = 0; i < schemas_.size(); ++i) {
            schemas_[i].clear();
            by_name_[i] = false;
            for (const std::string& type : p_.nodes()[i].types) {
                const OpSchema* op = ops.find(type);
                if (op) schemas_[i].push_back(op);
                by_name_[i] = by_name_[i] || !op;
            }
        }
    }

    bool has_type(size_t i, const Node& n) const {
        const Pattern::NodeSpec& spec = p_.nodes()[i];
        if (spec.types.empty()) return true;
        if (by_name_[i]) return std::find(spec.types.begin(), spec.types.end(), n.type()) != spec.types.end();
        return std::find(schemas_[i].begin(), schemas_[i].end(), &n.op()) != schemas_[i].end();
    }

    bool accepts(size_t i, const Node& n) const {
        const Pattern::NodeSpec& spec = p_.nodes()[i];
        if (!has_type(i, n)) return false;
        // One graph node per pattern node, except that constants may be shared (an exporter may
        // reuse one initializer for two roles; a fusion never removes a constant still in use).
        // The node's value is read only when it is bound already: it lies in another cache line.
        for (size_t j = 0; j < bound_.size(); ++j) {
            if (bound_[j] != n) continue;
            if (!(n.output_count() > 0 && n.out(0).value())) return false;
            break;
        }
        for (const NodePredicate& pred : spec.predicates)
            if (!pred(n)) return false;
        return true;
    }

    // The graph input port that pattern input `in_port` of node `i` stands for.
    size_t graph_port(size_t i, size_t in_port) const {
        return swapped_[i] && in_port < 2 ? 1 - in_port : in_port;
    }

    // Binds node i to n (trying both input orders of a commutative node), then resolves the
    // remaining edges from `next`. Unbinds on failure.
    bool bind_and_continue(size_t i, const Node& n, size_t next) {
        if (!accepts(i, n)) return false;
        bound_[i] = n;
        const bool orders = p_.nodes()[i].commutative && n.input_count() >= 2;
        for (bool swap : {false, true}) {
            if (swap && !orders) break;
            swapped_[i] = swap;
            if (resolve(next)) return true;
        }
        bound_[i] = Node();
        swapped_[i] = false;
        return false;
    }

    bool resolve(size_t k) {
        if (k == edges_.size()) return true;
        const Pattern::EdgeSpec& e = edges_[k];
        const Node& from = bound_[e.from];
        const Node& to = bound_[e.to];
        if (to) {  // read from the graph's storage: most tries end at this first step
            const std::vector<InEdge>& inputs = GraphAccess::data(to)->in_edges;
            const size_t port = graph_port(e.to, e.in_port);
            if (port >= inputs.size() || !inputs[port].src) return false;
            const Node src = GraphAccess::node(inputs[port].src);
            const size_t index = inputs[port].out_port;
            if (!output_allowed(e, index)) return false;
            if (from) return src == from && with_port(e, index, [&] { return resolve(k + 1); });
            return with_port(e, index, [&] { return bind_and_continue(e.from, src, k + 1); });
        }
        // `from` is bound, `to` is not: try each consumer of the output(s) the edge may leave.
        for (size_t out = 0; out < from.output_count(); ++out)
            if (output_allowed(e, out) && with_port(e, out, [&] { return bind_consumer(e, from.out(out), k); }))
                return true;
        return false;
    }

    // Whether edge `e` may leave output `out` of its source: the named one, or for an
    // any_output node, any output (the one already chosen, once one is).
    bool output_allowed(const Pattern::EdgeSpec& e, size_t out) const {
        if (!p_.nodes()[e.from].any_output) return out == e.out_port;
        return port_[e.from] == kUnknownPort || port_[e.from] == out;
    }

    // Records `out` as the chosen output of e.from while `next` resolves the rest; undone on failure.
    template <typename Continue>
    bool with_port(const Pattern::EdgeSpec& e, size_t out, Continue next) {
        const size_t before = port_[e.from];
        if (p_.nodes()[e.from].any_output) port_[e.from] = out;
        if (next()) return true;
        port_[e.from] = before;
        return false;
    }

    bool bind_consumer(const Pattern::EdgeSpec& e, const OutPort& out, size_t k) {
        const bool commutative = p_.nodes()[e.to].commutative;
        for (const InPort& target : out.targets()) {
            if (target.index() != e.in_port && !(commutative && e.in_port < 2 && target.index() == 1 - e.in_port))
                continue;
            if (!accepts(e.to, target.node())) continue;
            bound_[e.to] = target.node();
            swapped_[e.to] = target.index() != e.in_port;
            if (resolve(k + 1)) return true;
            bound_[e.to] = Node();
            swapped_[e.to] = false;
        }
        return false;
    }

    const Pattern& p_;
    const std::vector<Pattern::EdgeSpec>& edges_;
    std::vector<Node> bound_;
    std::vector<bool> swapped_;
    std::vector<size_t> port_;  // the output an any_output node's edges leave
    size_t root_ = 0;            // the root's index in p_.nodes()
    const OpRegistry* ops_ = nullptr;                // the registry schemas_ come from
    std::vector<std::vector<const OpSchema*>> schemas_;  // per pattern node, its types' schemas
    std::vector<bool> by_name_;                      // per pattern node: a type ops_ does not know
    static constexpr size_t kUnknownPort = SIZE_MAX;
};

}  // namespace

void fuse_match(const PatternMatch& match, const std::string& root, Node fused, const std::vector<std::string>& inputs) {
    Node old = match[root];
    for (const auto& [name, n] : match.nodes()) {
        if (name == root || std::find(inputs.begin(), inputs.end(), name) != inputs.end() || n.out(0).value()) continue;
        fused.fused_names().push_back(n.name());
    }
    old.graph().replace(old, fused);
}

std::optional<PatternMatch> match_pattern(const Pattern& pattern, const Node& root) {
    return Matcher(pattern).run(root);
}

std::string Pattern::describe() const {
    std::ostringstream os;
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const NodeSpec& n = nodes_[i];
        os << n.name << " = ";
        for (size_t t = 0; t < n.types.size(); ++t) os << (t ? "|" : "") << n.types[t];
        if (n.types.empty()) os << "*";
        std::vector<std::string> inputs;
        for (const EdgeSpec& e : edges_) {
            if (e.to != i) continue;
            if (inputs.size() <= e.in_port) inputs.resize(e.in_port + 1, "_");
            inputs[e.in_port] = nodes_[e.from].name + (e.out_port ? ":" + std::to_string(e.out_port) : "");
        }
        if (!inputs.empty()) {
            os << "(";
            for (size_t k = 0; k < inputs.size(); ++k) os << (k ? ", " : "") << inputs[k];
            os << ")";
        }
        std::vector<std::string> notes;
        if (n.name == root_) notes.push_back("root");
        if (n.commutative) notes.push_back("commutative");
        if (n.any_output) notes.push_back("any output");
        if (!n.predicates.empty())
            notes.push_back(std::to_string(n.predicates.size()) + (n.predicates.size() == 1 ? " condition" : " conditions"));
        if (!notes.empty()) {
            os << "  [";
            for (size_t k = 0; k < notes.size(); ++k) os << (k ? ", " : "") << notes[k];
            os << "]";
        }
        os << "\n";
    }
    return os.str();
}

std::vector<std::string> PatternTransformation::named_op_types() const {
    std::set<std::string> types;
    for (const Pattern& p : patterns())
        for (const Pattern::NodeSpec& n : p.nodes()) types.insert(n.types.begin(), n.types.end());
    return {types.begin(), types.end()};
}

bool PatternTransformation::run(Graph& graph, const TransformContext& ctx) {
    const std::vector<Pattern> alternatives = patterns();
    std::set<std::string> root_types;
    for (const Pattern& p : alternatives) {
        p.ordered_edges();  // checks the pattern once, before any node is tried
        root_types.insert(p.root_types().begin(), p.root_types().end());
    }
    const std::vector<const OpSchema*> roots = present_ops(graph, {root_types.begin(), root_types.end()});
    if (roots.empty()) return false;
    std::vector<uint64_t> candidates;
    const GraphAccess::Order order = GraphAccess::order(graph);
    for (size_t i = 0; i < order.nodes.size(); ++i)
        if (std::find(roots.begin(), roots.end(), order.op(i)) != roots.end()) candidates.push_back(order.nodes[i].id());
    // One matcher per alternative for the whole walk; an alternative that names an op no node
    // has is not tried until a rewrite adds nodes (SDPA's 36 forms are 4 in a graph without
    // Multiply, Divide and Select).
    std::vector<Matcher> matchers(alternatives.begin(), alternatives.end());
    std::vector<bool> possible(matchers.size());
    auto check_possible = [&] {
        for (size_t i = 0; i < matchers.size(); ++i) possible[i] = possible[i] || matchers[i].possible_in(graph);
    };
    check_possible();
    bool changed = false;
    size_t tried = 0, applied_count = 0;
    for (uint64_t id : candidates) {
        Node n = graph.find_by_id(id);
        if (!n) continue;  // removed by an earlier rewrite
        const OpSchema* op = &n.op();  // now: a rewrite may have changed it
        for (size_t i = 0; i < matchers.size(); ++i) {
            if (!possible[i] || !matchers[i].root_may_be(op)) continue;
            ++tried;
            std::optional<PatternMatch> m = matchers[i].run(n);
            bool applied = false;
            try {
                applied = m && apply(*m, ctx);
            } catch (const Error& e) {
                throw e.with_context(n.describe());
            }
            if (applied) {
                changed = true;
                ++applied_count;
                if (std::find(possible.begin(), possible.end(), false) != possible.end()) check_possible();
                break;
            }
        }
    }
    MO_LOG(Debug, id(), ": ", candidates.size(), " candidate roots, ", tried, " patterns tried on them, ", applied_count,
           " rewrites");
    return changed;
}

}  // namespace mo
