#include "e2e/openvino_llm_patterns.hpp"

#include <functional>
#include <limits>
#include <set>

#include "transforms/pattern.hpp"

namespace mo::test {

namespace {

// A constant (or f16-compressed constant: Convert of a Constant) whose one element is `v`.
const Tensor* constant_behind_convert(const Node& n) {
    if (n.is("Convert") && n.in(0).connected()) return n.in(0).value();
    return n.output_count() > 0 ? n.out(0).value() : nullptr;
}
NodePredicate single_value(double v) {
    return [v](const Node& n) {
        const Tensor* t = constant_behind_convert(n);
        return t && t->size() == 1 && t->to_f64()[0] == v;
    };
}
NodePredicate any_constant() {
    return [](const Node& n) { return constant_behind_convert(n) != nullptr; };
}
// A Constant node itself (wrap_type<Constant> with a value).
NodePredicate exact_constant(double v) {
    return [v](const Node& n) { return n.is("Constant") && n.out(0).value()->size() == 1 && n.out(0).value()->to_f64()[0] == v; };
}
NodePredicate int_values(std::vector<int64_t> v) {
    return [v](const Node& n) {
        const Tensor* t = n.output_count() > 0 ? n.out(0).value() : nullptr;
        return t && t->to_i64() == v;
    };
}
size_t count(const Graph& ir, const std::vector<Pattern>& patterns, const std::function<bool(const PatternMatch&)>& check = {}) {
    std::set<std::string> roots;
    for (const Pattern& p : patterns) roots.insert(p.root_types().begin(), p.root_types().end());
    size_t matched = 0;
    for (const Node& n : ir.nodes()) {
        if (!roots.count(n.type())) continue;
        for (const Pattern& p : patterns) {
            auto m = match_pattern(p, n);
            if (m && (!check || check(*m))) {
                ++matched;
                break;
            }
        }
    }
    return matched;
}

enum class Square { Power, Multiply };
enum class Inverse { DivideOne, PowerMinusOne, PowerMinusHalf, DivideX };

Pattern rms(Square square, Inverse inverse) {
    Pattern p("out");
    p.node("x").any_output("x");
    if (square == Square::Power) {
        p.node("two", {"Constant", "Convert"}, {single_value(2)});
        p.node("square", {"Power"}).edge("x", "square", 0).edge("two", "square", 1);
    } else {
        p.node("square", {"Multiply"}).edge("x", "square", 0).edge("x", "square", 1);
    }
    p.node("axes", {"Constant"}, {[](const Node& n) { return n.out(0).value()->size() == 1; }});
    p.node("mean", {"ReduceMean"}).edge("square", "mean", 0).edge("axes", "mean", 1);
    p.node("eps", {"Constant", "Convert"}, {any_constant()});
    p.node("add_eps", {"Add"}).commutative("add_eps").edge("mean", "add_eps", 0).edge("eps", "add_eps", 1);
    if (inverse == Inverse::PowerMinusHalf) {
        p.node("minus_half", {"Constant", "Convert"}, {single_value(-0.5)});
        p.node("inv", {"Power"}).edge("add_eps", "inv", 0).edge("minus_half", "inv", 1);
    } else {
        p.node("sqrt", {"Sqrt"}).edge("add_eps", "sqrt", 0);
        if (inverse == Inverse::DivideOne) {
            p.node("one", {"Constant", "Convert"}, {single_value(1)});
            p.node("inv", {"Divide"}).edge("one", "inv", 0).edge("sqrt", "inv", 1);
        } else if (inverse == Inverse::PowerMinusOne) {
            p.node("minus_one", {"Constant", "Convert"}, {single_value(-1)});
            p.node("inv", {"Power"}).edge("sqrt", "inv", 0).edge("minus_one", "inv", 1);
        }
    }
    if (inverse == Inverse::DivideX) {
        p.node("mul1", {"Divide"}).edge("x", "mul1", 0).edge("sqrt", "mul1", 1);
    } else {
        p.node("mul1", {"Multiply"}).commutative("mul1").edge("x", "mul1", 0).edge("inv", "mul1", 1);
    }
    p.node("gamma", {"Constant", "Convert"}, {any_constant()});
    p.node("out", {"Multiply"}).commutative("out").edge("gamma", "out", 0).edge("mul1", "out", 1);
    return p;
}

Pattern rope(int64_t half, bool variadic_split) {
    Pattern p("result");
    p.node("x", {}, {rank(4)}).any_output("x");
    p.node("cos", {}, {rank(4)}).any_output("cos");
    p.node("sin", {}, {rank(4)}).any_output("sin");
    p.node("minus_one", {"Constant"}, {exact_constant(-1)});
    p.node("x2neg", {"Multiply"}).commutative("x2neg").edge("minus_one", "x2neg", 1);
    p.node("rotate_half", {"Concat"}, {[](const Node& n) { return n.attr<int64_t>("axis") == -1; }});
    p.edge("x2neg", "rotate_half", 0);
    if (variadic_split) {
        p.node("axis", {"Constant"}, {int_values({3})});
        p.node("lengths", {"Constant"}, {[half](const Node& n) {
                   const auto v = n.out(0).value()->to_i64();
                   return v.size() == 2 && v[0] == half;
               }});
        p.node("split", {"VariadicSplit"}).edge("x", "split", 0).edge("axis", "split", 1).edge("lengths", "split", 2);
        p.edge("split", "x2neg", 0, 1).edge("split", "rotate_half", 1, 0);
    } else {
        auto slice = [&](const std::string& name, int64_t start, int64_t stop) {
            p.node(name + "/start", {"Constant"}, {int_values({start})});
            p.node(name + "/stop", {"Constant"}, {int_values({stop})});
            p.node(name + "/step", {"Constant"}, {int_values({1})});
            p.node(name + "/axis", {"Constant"}, {int_values({3})});
            p.node(name, {"Slice"}).edge("x", name, 0).edge(name + "/start", name, 1).edge(name + "/stop", name, 2);
            p.edge(name + "/step", name, 3).edge(name + "/axis", name, 4);
        };
        slice("x2", half, std::numeric_limits<int32_t>::max());
        slice("x1", 0, half);
        p.edge("x2", "x2neg", 0).edge("x1", "rotate_half", 1);
    }
    p.node("mul_cos", {"Multiply"}).commutative("mul_cos").edge("x", "mul_cos", 0).edge("cos", "mul_cos", 1);
    p.node("mul_sin", {"Multiply"}).commutative("mul_sin").edge("rotate_half", "mul_sin", 0).edge("sin", "mul_sin", 1);
    p.node("result", {"Add"}).commutative("result").edge("mul_cos", "result", 0).edge("mul_sin", "result", 1);
    return p;
}

enum class KvShaping { Direct, Reshape, Broadcast, BroadcastReshape };

// `side`/... nodes: the key (input 1) or value (input 2) path of the SDPA "sdpa".
void kv_path(Pattern& p, const std::string& side, size_t input, KvShaping shaping) {
    p.node(side + "/read", {"ReadValue"});
    p.node(side + "/past", {"Gather"}).edge(side + "/read", side + "/past", 0);
    p.node(side + "/concat", {"Concat"}).edge(side + "/past", side + "/concat", 0);
    std::string last = side + "/concat";
    if (shaping == KvShaping::Broadcast || shaping == KvShaping::BroadcastReshape) {
        p.node(side + "/unsqueeze", {"Unsqueeze"}).edge(last, side + "/unsqueeze", 0);
        p.node(side + "/broadcast", {"Broadcast"}).edge(side + "/unsqueeze", side + "/broadcast", 0);
        last = side + "/broadcast";
    }
    if (shaping == KvShaping::Reshape || shaping == KvShaping::BroadcastReshape) {
        p.node(side + "/reshape", {"Reshape"}).edge(last, side + "/reshape", 0);
        last = side + "/reshape";
    }
    p.edge(last, "sdpa", input);
}

Pattern paged(KvShaping k, KvShaping v) {
    Pattern p("sdpa");
    p.node("sdpa", {"ScaledDotProductAttention"});
    p.node("scale", {}, {[](const Node& n) {
               const PartialShape& s = n.out(0).shape();
               return s == PartialShape{} || s == PartialShape{1};
           }});
    p.edge("scale", "sdpa", 4);
    kv_path(p, "k", 1, k);
    kv_path(p, "v", 2, v);
    return p;
}

// The callback's checks: static head sizes (E, Ev) and a static number of KV heads.
bool paged_callback(const PatternMatch& m) {
    const Node sdpa = m["sdpa"];
    for (size_t input : {1, 2}) {
        const PartialShape& s = sdpa.in(input).shape();
        if (!s.rank_is_static() || s.rank() < 3 || !s[s.rank() - 1].is_static()) return false;
        const std::string side = input == 1 ? "k" : "v";
        Dimension heads = s[s.rank() - 3];
        if (m.nodes().count(side + "/unsqueeze")) {
            const Node unsqueeze = m[side + "/unsqueeze"];
            const Tensor* axis = unsqueeze.in(1).value();
            if (!axis || axis->size() != 1 || axis->to_i64()[0] == 0) return false;
            heads = unsqueeze.out(0).shape()[static_cast<size_t>(axis->to_i64()[0] - 1)];
        }
        if (!heads.is_static()) return false;
    }
    return true;
}

}  // namespace

size_t rms_fusion_matches(const Graph& ir) {
    std::vector<Pattern> forms;
    for (Square s : {Square::Power, Square::Multiply})
        for (Inverse i : {Inverse::DivideOne, Inverse::PowerMinusOne, Inverse::PowerMinusHalf, Inverse::DivideX})
            forms.push_back(rms(s, i));
    return count(ir, forms, [](const PatternMatch& m) {
        // axis: the last one (-1 or rank - 1)
        const int64_t axis = m["axes"].out(0).value()->to_i64()[0];
        const PartialShape& in = m["mean"].in(0).shape();
        return axis == -1 || (in.rank_is_static() && axis == static_cast<int64_t>(in.rank()) - 1);
    });
}

size_t rope_gptneox_matches(const Graph& ir, int64_t half) { return count(ir, {rope(half, false), rope(half, true)}); }

size_t paged_attention_matches(const Graph& ir) {
    std::vector<Pattern> forms;
    for (KvShaping k : {KvShaping::Direct, KvShaping::Reshape, KvShaping::Broadcast, KvShaping::BroadcastReshape})
        for (KvShaping v : {KvShaping::Direct, KvShaping::Reshape, KvShaping::Broadcast, KvShaping::BroadcastReshape})
            forms.push_back(paged(k, v));
    return count(ir, forms, paged_callback);
}

}  // namespace mo::test
