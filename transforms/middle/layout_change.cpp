#include "transforms/middle/layout_change.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <optional>

#include "transforms/middle/partial_inference.hpp"

namespace mo {

namespace {

using Perm = std::vector<int64_t>;

// The order of a Transpose whose order is constant (and whose data is not: that one folds).
std::optional<Perm> order_of(const Node& t) {
    if (!t.is("Transpose") || !t.in(0).connected() || t.in(0).value()) return std::nullopt;
    const Tensor* order = t.in(1).value();
    if (!order) return std::nullopt;
    Perm p = order->to_i64();
    std::vector<bool> seen(p.size(), false);
    for (int64_t v : p) {
        if (v < 0 || v >= static_cast<int64_t>(p.size()) || seen[static_cast<size_t>(v)]) return std::nullopt;
        seen[static_cast<size_t>(v)] = true;
    }
    return p;
}

Perm inverse(const Perm& p) {
    Perm q(p.size());
    for (size_t i = 0; i < p.size(); ++i) q[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
    return q;
}

bool is_identity(const Perm& p) {
    for (size_t i = 0; i < p.size(); ++i)
        if (p[i] != static_cast<int64_t>(i)) return false;
    return true;
}

OutPort i64_constant(Graph& g, const std::string& name, const std::vector<int64_t>& v) {
    return g.add_constant(name, Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())})).out(0);
}

// Every consumer of `from` but `except`, and its tensor names, move to `to`.
void move_consumers(const OutPort& from, const OutPort& to, const Node& except) {
    for (const InPort& t : from.targets())
        if (t.node() != except) t.connect(to);
    auto& names = to.names();
    names.insert(names.end(), from.names().begin(), from.names().end());
    from.names().clear();
}

// `op` now computes in the new layout: a Transpose by `p` behind it gives back what its
// consumers read before.
void transpose_after(Graph& g, const Node& op, const Perm& p) {
    if (is_identity(p)) return;
    const std::string name = op.name() + "/to_source_layout";
    Node t = g.add_op("Transpose", name, {op.out(0), i64_constant(g, name + "/order", p)});
    move_consumers(op.out(0), t.out(0), t);
}

// A constant operand that broadcast against the rank-r tensor in the source layout, moved to the
// new one: `value` padded with leading 1s to rank r and transposed by inverse(p).
std::optional<OutPort> permuted_constant(Graph& g, const Tensor& value, const Perm& p, const std::string& name) {
    const size_t r = p.size();
    Shape s = value.shape();
    if (s.size() > r) return std::nullopt;
    s.insert(s.begin(), r - s.size(), 1);
    Node data = g.add_constant(name + "/data", value.reshaped(s));
    Node t = g.add_op("Transpose", name + "/permute", {data.out(0), i64_constant(g, name + "/permute/order", inverse(p))});
    PartialInference::infer_node(t);
    const Tensor* folded = t.out(0).value();
    if (!folded) return std::nullopt;
    Node c = g.add_constant(name, *folded);
    g.remove_node(t);
    return c.out(0);
}

// What replaces operand `src` of an op that moves to the new layout: the input of a Transpose
// by the same order, or a permuted constant; nullopt when neither.
std::optional<OutPort> operand_in_new_layout(Graph& g, const OutPort& src, const Perm& p, const std::string& name) {
    if (auto q = order_of(src.node()); q && *q == p) return src.node().in(0).src();
    if (const Tensor* v = src.value()) return permuted_constant(g, *v, p, name);
    return std::nullopt;
}

int64_t normalized_axis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

// A handler moves the Transpose (order p, data x) that feeds input k of `op` behind it, or
// declines (false) leaving the graph unchanged.
using Handler = std::function<bool(Graph&, const Node& op, size_t k, const OutPort& x, const Perm& p)>;

bool through_unary(Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
    if (k != 0) return false;
    op.in(0).connect(x);
    transpose_after(g, op, p);
    return true;
}

bool through_elementwise(Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
    if (k > 1 || op.input_count() != 2) return false;
    auto other = operand_in_new_layout(g, op.in(1 - k).src(), p, op.name() + "/operand");
    if (!other) return false;
    op.in(k).connect(x);
    op.in(1 - k).connect(*other);
    transpose_after(g, op, p);
    return true;
}

// PRelu's slope: a single value is layout-free; a constant of the data's rank (TFLite's and
// TensorFlow's alpha, padded with leading 1s: numpy broadcasting) is permuted like an
// elementwise operand. A 1-D slope of length dim 1 is OpenVINO's per-channel form, which reads
// another axis in each layout: it stops the move.
bool through_prelu(Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
    const Tensor* slope = op.in(1).value();
    if (k != 0 || !slope) return false;
    if (slope->size() == 1) return through_unary(g, op, k, x, p);
    if (slope->shape().size() != p.size() || p.size() < 2) return false;
    auto permuted = permuted_constant(g, *slope, p, op.name() + "/slope");
    if (!permuted) return false;
    op.in(0).connect(x);
    op.in(1).connect(*permuted);
    transpose_after(g, op, p);
    return true;
}

bool through_concat(Graph& g, const Node& op, size_t, const OutPort&, const Perm& p) {
    std::vector<OutPort> inputs;
    for (size_t i = 0; i < op.input_count(); ++i) {
        auto in = operand_in_new_layout(g, op.in(i).src(), p, op.name() + "/input" + std::to_string(i));
        if (!in) return false;
        inputs.push_back(*in);
    }
    const int64_t axis = normalized_axis(op.attr<int64_t>("axis"), p.size());
    if (axis < 0 || axis >= static_cast<int64_t>(p.size())) return false;
    for (size_t i = 0; i < inputs.size(); ++i) op.in(i).connect(inputs[i]);
    op.set_attr("axis", p[static_cast<size_t>(axis)]);
    transpose_after(g, op, p);
    return true;
}

bool through_softmax(Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
    const int64_t axis = normalized_axis(op.attr<int64_t>("axis"), p.size());
    if (k != 0 || axis < 0 || axis >= static_cast<int64_t>(p.size())) return false;
    op.in(0).connect(x);
    op.set_attr("axis", p[static_cast<size_t>(axis)]);
    transpose_after(g, op, p);
    return true;
}

// Axis i of the transposed tensor is axis p[i] of its input: pads and axes follow.
bool through_pad(Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
    const Tensor *begin = op.in(1).value(), *end = op.in(2).value();
    if (k != 0 || !begin || !end || begin->size() != p.size() || end->size() != p.size()) return false;
    const auto b = begin->to_i64(), e = end->to_i64();
    std::vector<int64_t> nb(p.size()), ne(p.size());
    for (size_t i = 0; i < p.size(); ++i) nb[static_cast<size_t>(p[i])] = b[i], ne[static_cast<size_t>(p[i])] = e[i];
    op.in(0).connect(x);
    op.in(1).connect(i64_constant(g, op.name() + "/pads_begin", nb));
    op.in(2).connect(i64_constant(g, op.name() + "/pads_end", ne));
    transpose_after(g, op, p);
    return true;
}

std::optional<std::vector<int64_t>> permuted_axes(const Tensor* axes, const Perm& p) {
    if (!axes) return std::nullopt;
    std::vector<int64_t> out;
    for (int64_t a : axes->to_i64()) {
        a = normalized_axis(a, p.size());
        if (a < 0 || a >= static_cast<int64_t>(p.size())) return std::nullopt;
        out.push_back(p[static_cast<size_t>(a)]);
    }
    return out;
}

bool through_reduce(Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
    auto axes = permuted_axes(op.in(1).value(), p);
    if (k != 0 || !axes) return false;
    op.in(0).connect(x);
    op.in(1).connect(i64_constant(g, op.name() + "/axes", *axes));
    if (op.attr<bool>("keep_dims")) {
        transpose_after(g, op, p);
        return true;
    }
    // The kept axes, in the source order, are input axes p[i]; the op keeps them ascending.
    std::vector<int64_t> kept;
    for (size_t i = 0; i < p.size(); ++i)
        if (std::find(axes->begin(), axes->end(), p[i]) == axes->end()) kept.push_back(p[i]);
    std::vector<int64_t> ascending = kept;
    std::sort(ascending.begin(), ascending.end());
    Perm q;
    for (int64_t a : kept) q.push_back(std::find(ascending.begin(), ascending.end(), a) - ascending.begin());
    transpose_after(g, op, q);
    return true;
}

bool through_interpolate(Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
    if (k != 0 || op.input_count() < 3 || !op.in(2).connected()) return false;
    auto axes = permuted_axes(op.in(2).value(), p);
    if (!axes) return false;
    op.in(0).connect(x);
    op.in(2).connect(i64_constant(g, op.name() + "/axes", *axes));
    transpose_after(g, op, p);
    return true;
}

// FakeQuantize's ranges (inputs 1-4) broadcast against x: a single value is layout-free, others
// are permuted like an elementwise operand.
bool through_fake_quantize(Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
    if (k != 0) return false;
    std::vector<OutPort> ranges;
    for (size_t i = 1; i < 5; ++i) {
        const OutPort src = op.in(i).src();
        if (const Tensor* v = src.value(); v && v->size() == 1 && v->shape().size() <= p.size()) {
            ranges.push_back(src);
            continue;
        }
        auto range = operand_in_new_layout(g, src, p, op.name() + "/range" + std::to_string(i));
        if (!range) return false;
        ranges.push_back(*range);
    }
    op.in(0).connect(x);
    for (size_t i = 1; i < 5; ++i) op.in(i).connect(ranges[i - 1]);
    transpose_after(g, op, p);
    return true;
}

// ShapeOf(Transpose(x, p)) = Gather(ShapeOf(x), p): the shape is read in the source order
// without moving the data. The Transpose stays for its other consumers, if any.
bool through_shape_of(Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
    if (k != 0) return false;
    const std::string name = op.name() + "/source_order";
    op.in(0).connect(x);
    Node gather = g.add_op("Gather", name,
                           {op.out(0), i64_constant(g, name + "/indices", p),
                            g.add_constant(name + "/axis", Tensor::scalar<int64_t>(0)).out(0)},
                           {{"batch_dims", int64_t{0}}});
    move_consumers(op.out(0), gather.out(0), gather);
    return true;
}

// The handler table: adding an op to the layout change is adding a row.
const std::map<std::string, Handler, std::less<>>& handlers() {
    static const std::map<std::string, Handler, std::less<>> table = [] {
        std::map<std::string, Handler, std::less<>> t;
        for (const char* op : {"Relu", "Clamp", "Sigmoid", "Tanh", "HSwish", "HSigmoid", "Swish", "Mish", "SoftPlus",
                               "Gelu", "Elu", "Selu", "Exp", "Log", "Sqrt", "Abs", "Negative", "Floor", "Ceiling",
                               "Round", "Sign", "Sin", "Cos", "Erf", "Convert", "LogicalNot"})
            t[op] = through_unary;
        for (const char* op : {"Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Power",
                               "SquaredDifference", "FloorMod", "Mod", "Equal", "NotEqual", "Less", "LessEqual",
                               "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor"})
            t[op] = through_elementwise;
        for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                               "ReduceL2", "ReduceLogicalAnd", "ReduceLogicalOr"})
            t[op] = through_reduce;
        t["PRelu"] = through_prelu;
        t["Concat"] = through_concat;
        t["Softmax"] = through_softmax;
        t["LogSoftmax"] = through_softmax;
        t["Pad"] = through_pad;
        t["Interpolate"] = through_interpolate;
        t["ShapeOf"] = through_shape_of;
        t["FakeQuantize"] = through_fake_quantize;
        return t;
    }();
    return table;
}

// The op's row, else what its schema says (a plugin's op): nullptr when the move stops there.
const Handler* handler_of(const Node& op) {
    static const Handler transparent = [](Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
        return op.output_count() == 1 && through_unary(g, op, k, x, p);
    };
    static const Handler elementwise = [](Graph& g, const Node& op, size_t k, const OutPort& x, const Perm& p) {
        return op.output_count() == 1 && through_elementwise(g, op, k, x, p);
    };
    auto it = handlers().find(op.type());
    if (it != handlers().end()) return &it->second;
    switch (op.op().layout) {
        case LayoutRole::Transparent: return &transparent;
        case LayoutRole::Elementwise: return &elementwise;
        case LayoutRole::Stops: break;
    }
    return nullptr;
}

// Transpose(Transpose(y, q), p) = Transpose(y, q[p]); an identity disappears.
bool merge_with_producer(Graph& g, const Node& t, const Perm& p) {
    const Node producer = t.in(0).src().node();
    auto q = order_of(producer);
    if (!q || q->size() != p.size()) return false;
    Perm combined(p.size());
    for (size_t i = 0; i < p.size(); ++i) combined[i] = (*q)[static_cast<size_t>(p[i])];
    const OutPort y = producer.in(0).src();
    if (is_identity(combined)) {
        move_consumers(t.out(0), y, Node());
        return true;
    }
    t.in(0).connect(y);
    t.in(1).connect(i64_constant(g, t.name() + "/order", combined));
    return true;
}

// Another Transpose of the same tensor by the same order (two convolutions reading one input):
// its consumers move to `t`.
bool merge_siblings(const Node& t, const Perm& p) {
    bool merged = false;
    for (const InPort& sibling : t.in(0).src().targets()) {
        const Node other = sibling.node();
        if (other == t || sibling.index() != 0 || order_of(other) != p) continue;
        move_consumers(other.out(0), t.out(0), Node());
        merged = true;
    }
    return merged;
}

// Moves `t` past every consumer with a row; the ops it moved past are appended to `moved_past`
// (the Transposes behind them are the next to move).
bool sink(Graph& g, const Node& t, const Perm& p, std::vector<Node>& moved_past) {
    bool moved = false;
    const OutPort x = t.in(0).src();
    for (const InPort& target : t.out(0).targets()) {
        const Node op = target.node();
        const Handler* handler = handler_of(op);
        if (handler && (*handler)(g, op, target.index(), x, p)) {
            moved = true;
            moved_past.push_back(op);
        }
    }
    return moved;
}

// A Transpose that moves only axes of extent 1 keeps the element order: it is a Reshape (the
// [1, 1, 1, C] heads of landmark models, read back in NHWC).
bool reshape_if_order_kept(Graph& g, const Node& t) {
    auto p = order_of(t);
    const PartialShape& in = t.in(0).shape();
    if (!p || !in.is_static() || in.rank() != p->size()) return false;
    const Shape s = in.to_shape();
    int64_t last = -1;
    for (int64_t axis : *p) {
        if (s[static_cast<size_t>(axis)] == 1) continue;
        if (axis < last) return false;
        last = axis;
    }
    std::vector<int64_t> out;
    for (int64_t axis : *p) out.push_back(s[static_cast<size_t>(axis)]);
    t.in(1).connect(i64_constant(g, t.name() + "/shape", out));
    t.set_op(g.ops().get("Reshape"));
    t.set_attr("special_zero", false);
    return true;
}

}  // namespace

bool LayoutChange::run(Graph& graph, const TransformContext&) {
    // A worklist of Transposes, in topological order first: a Transpose that moves or merges
    // puts the Transposes it created (behind the ops it passed) or changed back on the list, so
    // each move costs its own work, not a walk over the graph. The bound only guards against a
    // handler that would undo another.
    std::deque<uint64_t> work;
    for (const Node& n : graph.topological_order())
        if (n.is("Transpose")) work.push_back(n.id());
    bool changed = false;
    size_t steps = 0;
    const size_t max_steps = 64 * (graph.node_count() + 1);
    while (!work.empty() && steps++ < max_steps) {
        Node t = graph.find_by_id(work.front());
        work.pop_front();
        if (!t || !t.out(0).has_targets()) continue;
        auto p = order_of(t);
        if (!p) continue;
        if (merge_with_producer(graph, t, *p)) {
            changed = true;
            work.push_back(t.id());
            continue;
        }
        changed |= merge_siblings(t, *p);
        // A Transpose reading this one may merge with it now.
        for (const InPort& target : t.out(0).targets())
            if (target.node().is("Transpose")) work.push_back(target.node().id());
        std::vector<Node> moved_past;
        changed |= sink(graph, t, *p, moved_past);
        for (const Node& op : moved_past)
            for (const InPort& target : op.out(0).targets())
                if (target.node().is("Transpose")) work.push_back(target.node().id());
    }
    for (const Node& n : graph.nodes())
        if (n.is("Transpose") && n.out(0).has_targets()) changed |= reshape_if_order_kept(graph, n);
    if (changed) graph.remove_dead_nodes();
    return changed;
}

}  // namespace mo
