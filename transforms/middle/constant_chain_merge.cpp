#include "transforms/middle/constant_chain_merge.hpp"

#include "transforms/middle/partial_inference.hpp"

namespace mo {

namespace {

bool has_no_value(const Node& n) { return n.out(0).value() == nullptr; }

}  // namespace

std::vector<Pattern> ConstantChainMerge::patterns() const {
    std::vector<Pattern> alternatives;
    for (const char* type : {"Add", "Multiply"}) {
        Pattern p("outer");
        p.node("outer", {type}).commutative("outer");
        p.node("inner", {type}, {consumers(1), has_no_value}).commutative("inner");
        p.node("x").any_output("x");
        p.node("c1", {}, {is_constant()}).node("c2", {}, {is_constant()});
        p.edge("x", "inner", 0).edge("c1", "inner", 1).edge("inner", "outer", 0).edge("c2", "outer", 1);
        alternatives.push_back(std::move(p));
    }
    return alternatives;
}

bool ConstantChainMerge::apply(const PatternMatch& m, const TransformContext&) {
    Node outer = m["outer"];
    Graph& g = outer.graph();
    // The combined constant, computed by the op itself (broadcasting and type rules included).
    Node combine = g.add_op(outer.type(), outer.name() + "/constants", {m.out("c1"), m.out("c2")});
    PartialInference::infer_node(combine);
    const Tensor* combined = combine.out(0).value();
    if (!combined) {
        g.remove_node(combine);
        return false;
    }
    Node merged_const = g.add_constant(outer.name() + "/merged", *combined);
    g.remove_node(combine);
    Node merged = g.add_op(outer.type(), outer.name() + "/merged_op", {m.out("x"), merged_const.out(0)});
    fuse_match(m, "outer", merged, {"x"});
    return true;
}

}  // namespace mo
