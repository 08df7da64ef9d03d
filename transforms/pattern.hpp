// Patterns as data: named nodes with op types and predicates, connected by edges with explicit
// ports. A match binds every pattern node to a distinct graph node; it is found by walking the
// pattern's edges outward from its root, so the cost of trying one root is bounded by the
// pattern's size (and the fan-out of the nodes it passes), and trying every root of a graph is
// linear in the graph's size.
//
//     Pattern p("mul");                                  // the root
//     p.node("mul", {"Multiply"}).commutative("mul")      // inputs 0 and 1 in either order
//      .node("x")                                         // any op
//      .node("sig", {"Sigmoid"}, {consumers(1)})
//      .edge("x", "mul", 0).edge("sig", "mul", 1).edge("x", "sig", 0);
//
// A PatternTransformation lists alternative patterns and rewrites each match.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../core/api.hpp"
#include "../core/graph.hpp"
#include "transformation.hpp"

namespace mo {

// A condition on a graph node, checked when a pattern node is bound to it.
using NodePredicate = std::function<bool(const Node&)>;

// Output 0 has exactly n consumers (a Result counts): the node may be removed by a fusion
// only when nothing outside the pattern uses it.
MO_API NodePredicate consumers(size_t n);
// Output 0 has a known value (a Constant, or anything folded) whose every element is within
// `tolerance` of `value` (relative to |value|, absolute below 1), and which changes the output
// shape of none of its consumers (its shape broadcasts into that of their other inputs): a
// fusion may then drop it as the scalar `value`. For constants read elementwise.
MO_API NodePredicate const_value(double value, double tolerance = 1e-6);
// Output 0 has a known value of one element which, like const_value's, changes the output shape
// of none of its consumers: a scalar parameter a fusion may move into an attribute or a rank-0
// input.
MO_API NodePredicate scalar_constant();
// Output 0 has a known value.
MO_API NodePredicate is_constant();
// Output 0 has a static rank r.
MO_API NodePredicate rank(size_t r);

class MO_API Pattern {
public:
    // `root` names the node matching starts from; it must be declared with node().
    explicit Pattern(std::string root);

    // A pattern node matching any op of `types` (empty: any op) that passes every predicate.
    Pattern& node(std::string name, std::vector<std::string> types = {}, std::vector<NodePredicate> predicates = {});
    // Output `out_port` of `from` feeds input `in_port` of `to`.
    Pattern& edge(const std::string& from, const std::string& to, size_t in_port, size_t out_port = 0);
    // The node's inputs 0 and 1 may be matched in either order (Add, Multiply, Maximum, ...).
    Pattern& commutative(const std::string& name);
    // Edges from the node may leave any one of its outputs (the same one on every edge), not
    // only the one edge() names: for a pattern input that may be, say, a Split's second output.
    // PatternMatch::out() tells which output was matched.
    Pattern& any_output(const std::string& name);

    const std::string& root() const { return root_; }
    const std::vector<std::string>& root_types() const;

    // The pattern as text, one node per line in declaration order:
    //     out = Multiply(x, sig)  [root, commutative]
    //     sig = Sigmoid(x)  [1 condition]
    //     x = *  [any output]
    // Inputs in port order ("_" for a port the pattern leaves open, "name:1" for output 1);
    // "*" matches any op. Conditions (consumers(1), const_value(...)) are counted, not named.
    std::string describe() const;

    struct NodeSpec {
        std::string name;
        std::vector<std::string> types;
        std::vector<NodePredicate> predicates;
        bool commutative = false;
        bool any_output = false;
    };
    struct EdgeSpec {
        size_t from, to;  // indices into nodes()
        size_t out_port, in_port;
    };
    const std::vector<NodeSpec>& nodes() const { return nodes_; }
    // The edges in the order matching resolves them: each touches a node bound before it.
    const std::vector<EdgeSpec>& ordered_edges() const;

private:
    size_t index_of(const std::string& name) const;

    std::string root_;
    std::vector<NodeSpec> nodes_;
    std::vector<EdgeSpec> edges_;
    mutable std::vector<EdgeSpec> ordered_;  // computed on first use
};

// A match: pattern node name -> graph node.
class MO_API PatternMatch {
public:
    Node operator[](const std::string& name) const;  // MO_ASSERTs the name is in the pattern
    // The matched output of the node: the one its pattern edges leave (output 0 when none does).
    OutPort out(const std::string& name) const;
    const std::map<std::string, Node>& nodes() const { return nodes_; }
    void bind(const std::string& name, Node n, size_t out_port = 0) {
        nodes_[name] = n;
        ports_[name] = out_port;
    }

private:
    std::map<std::string, Node> nodes_;
    std::map<std::string, size_t> ports_;
};

// Puts `fused` in the place of the match's node `root` (Graph::replace: consumers, tensor names,
// node name) and records every other matched node but `inputs` and constants as fused into it.
// The absorbed nodes are left without consumers, for dead-node removal.
MO_API void fuse_match(const PatternMatch& match, const std::string& root, Node fused,
                       const std::vector<std::string>& inputs);

// The match of `pattern` rooted at `root`, or nullopt. Pure: it never changes the graph.
MO_API std::optional<PatternMatch> match_pattern(const Pattern& pattern, const Node& root);

// A rewrite of the sub-graphs some pattern matches. The driver offers every node whose op is a
// root type of one of patterns() (in topological order, skipping nodes removed meanwhile), tries
// the patterns in order and calls apply() with the first match; apply() may still decline by
// returning false, and then the next pattern is tried.
class MO_API PatternTransformation : public Transformation {
public:
    // Alternatives, tried in order (e.g. the Divide and the Multiply-by-reciprocal form).
    virtual std::vector<Pattern> patterns() const = 0;
    virtual bool apply(const PatternMatch& match, const TransformContext& ctx) = 0;
    // Every op type a node of any of patterns() names.
    std::vector<std::string> named_op_types() const override;
    bool run(Graph& graph, const TransformContext& ctx) final;
};

}  // namespace mo
