#include "loaders/tf/tf_functions.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "loaders/tf/tf_attributes.hpp"
#include "loaders/tf/tf_loader.hpp"
#include "loaders/tf/tf_tensor.hpp"

namespace mo {

namespace {

// Output args of the ops with more than one (OpDef facts of tensorflow/core/ops): a function's
// node reads "node:arg:i", output i of arg `arg`. Every other op has one output arg (a tensor or
// a list), whose element i is output i.
const std::map<std::string, std::vector<std::string>>& output_args() {
    static const std::map<std::string, std::vector<std::string>> table = {
        {"FusedBatchNorm", {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"}},
        {"FusedBatchNormV2", {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"}},
        {"FusedBatchNormV3", {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2", "reserve_space_3"}},
        {"TopKV2", {"values", "indices"}},
        {"Unique", {"y", "idx"}},
        {"NonMaxSuppressionV4", {"selected_indices", "valid_outputs"}},
        {"NonMaxSuppressionV5", {"selected_indices", "selected_scores", "valid_outputs"}},
        {"Switch", {"output_false", "output_true"}},
        {"Merge", {"output", "value_index"}},
    };
    return table;
}

// A function node's input: (node or argument, output index). "x" is argument x or output 0 of
// node x, "x:i" output i, "x:arg:i" output i of arg `arg` of node x (whose op is `op_of(x)`).
template <typename OpOf>
std::pair<std::string, size_t> function_input(const std::string& input, const OpOf& op_of, const std::string& where) {
    auto number = [&](std::string_view s) {
        uint64_t k = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), k);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size() || k >= static_cast<uint64_t>(kMaxTfOutputs))
            throw Error("input '" + input + "' is not of the form node, node:index or node:output:index", where,
                        "the model is corrupt; re-export it");
        return static_cast<size_t>(k);
    };
    const auto first = input.find(':');
    if (first == std::string::npos) return {input, 0};
    const std::string node = input.substr(0, first);
    const auto second = input.find(':', first + 1);
    if (second == std::string::npos) return {node, number(std::string_view(input).substr(first + 1))};
    const std::string arg = input.substr(first + 1, second - first - 1);
    size_t k = number(std::string_view(input).substr(second + 1));
    if (auto it = output_args().find(op_of(node)); it != output_args().end()) {
        auto pos = std::find(it->second.begin(), it->second.end(), arg);
        if (pos == it->second.end())
            throw Error("input '" + input + "' names output '" + arg + "', which " + op_of(node) + " does not have", where,
                        "the model is corrupt; re-export it");
        k += static_cast<size_t>(pos - it->second.begin());
    }
    return {node, k};
}

}  // namespace

TfFunctions::TfFunctions(const mo_tf::GraphDef& graph, std::string path, const std::map<std::string, Tensor>& weights)
    : path_(std::move(path)), weights_(weights) {
    for (const auto& f : graph.library().function())
        if (!functions_.emplace(f.signature().name(), &f).second)
            throw Error("two functions are named '" + f.signature().name() + "'", path_, "the model is corrupt; re-export it");
}

bool TfFunctions::is_functional(const std::string& op) {
    return op == "If" || op == "StatelessIf" || op == "While" || op == "StatelessWhile" || op == "PartitionedCall" ||
           op == "StatefulPartitionedCall";
}

const mo_tf::FunctionDef& TfFunctions::function(const std::string& name, const std::string& where) const {
    auto it = functions_.find(name);
    if (it == functions_.end())
        throw Error("function '" + name + "' is not in the graph's library", where, "the model is incomplete; re-export it");
    return *it->second;
}

std::string TfFunctions::func_attr(const mo_tf::NodeDef& def, const char* attr, const std::string& where) const {
    auto it = def.attr().find(attr);
    if (it == def.attr().end() || !it->second.has_func())
        throw Error("the node has no function attribute '" + std::string(attr) + "'", where, "the model is corrupt; re-export it");
    return it->second.func().name();
}

std::vector<OutPort> TfFunctions::instantiate(const std::string& name, Graph& graph, const std::vector<OutPort>& args,
                                              const std::string& prefix, size_t depth, const std::string& where) {
    const mo_tf::FunctionDef& f = function(name, where);
    const std::string in_function = "function '" + name + "' in " + path_;
    if (static_cast<size_t>(f.signature().input_arg_size()) != args.size())
        throw Error("function '" + name + "' takes " + std::to_string(f.signature().input_arg_size()) + " argument(s), the node gives " +
                        std::to_string(args.size()),
                    where, "the model is corrupt; re-export it");
    std::map<std::string, OutPort> arguments;
    for (int i = 0; i < f.signature().input_arg_size(); ++i) arguments[f.signature().input_arg(i).name()] = args[static_cast<size_t>(i)];
    std::map<std::string, const mo_tf::NodeDef*> defs;
    for (const auto& n : f.node_def())
        if (!defs.emplace(n.name(), &n).second)
            throw Error("two nodes are named '" + n.name() + "'", in_function, "the model is corrupt; re-export it");
    auto op_of = [&](const std::string& node) {
        auto it = defs.find(node);
        return it == defs.end() ? std::string() : it->second->op();
    };
    // How many outputs each node has: the highest index read, by a node or a return value.
    std::map<std::string, size_t> counts;
    auto count_read = [&](const std::string& input, const std::string& at) {
        if (input.empty() || input[0] == '^') return;
        auto [node, k] = function_input(input, op_of, at);
        if (defs.count(node)) counts[node] = std::max(counts[node], k + 1);
    };
    for (const auto& n : f.node_def())
        for (const auto& in : n.input()) count_read(in, "node '" + n.name() + "' of " + in_function);
    for (const auto& [arg, tensor] : f.ret()) count_read(tensor, in_function);
    for (const auto& [node, count] : counts) extra_outputs_ += count - 1;
    if (extra_outputs_ > static_cast<size_t>(kMaxTfExtraOutputs))
        throw Error("the functions' nodes read more than " + std::to_string(kMaxTfExtraOutputs) +
                        " outputs beyond each node's first",
                    in_function, "the model is corrupt; re-export it");
    // Functions instantiated in several places (a While's cond twice, calls nested in calls)
    // multiply their nodes: a hostile library could ask for 2^64 of them.
    instantiated_ += static_cast<size_t>(f.node_def_size());
    if (instantiated_ > kMaxInstantiatedNodes)
        throw Error("instantiating the functions would make more than " + std::to_string(kMaxInstantiatedNodes) + " nodes", where,
                    "the model is corrupt, or its functions call each other too often");
    std::map<std::string, Node> nodes;
    std::map<std::string, std::vector<OutPort>> calls;  // inlined calls' outputs, by node name
    for (const auto& n : f.node_def()) {
        const std::string at = "node '" + n.name() + "' (" + n.op() + ") of " + in_function;
        Node node;
        if (n.op() == "Const") {
            // TF.js keeps a function's constants in its weights too, by node name.
            auto value = n.attr().find("value");
            auto weight = weights_.find(n.name());
            if (weight != weights_.end())
                node = graph.add_constant(prefix + n.name(), weight->second);
            else if (value != n.attr().end() && value->second.has_tensor())
                node = graph.add_constant(prefix + n.name(), tf_tensor_value(value->second.tensor(), at, graph.max_constant_bytes));
            else
                throw Error("the constant has no value", at, "the model is corrupt; re-export it");
        } else {
            node = graph.add_node("FrameworkNode", prefix + n.name());
            auto& fw = node.framework();
            fw.framework = "tf";
            fw.type = n.op();
            fw.opset = 1;
            fw.attributes = tf_attributes(n, graph.max_constant_bytes);
            size_t inputs = 0;
            for (const auto& in : n.input()) inputs += !in.empty() && in[0] != '^';
            node.set_input_count(inputs);
            auto c = counts.find(n.name());
            node.set_output_count(c == counts.end() ? 1 : std::max<size_t>(1, c->second));
        }
        nodes[n.name()] = node;
    }
    auto resolve = [&](const std::string& input, const std::string& at) -> OutPort {
        auto [node, k] = function_input(input, op_of, at);
        if (auto a = arguments.find(input); a != arguments.end()) return a->second;
        if (auto call = calls.find(node); call != calls.end()) {
            if (k >= call->second.size())
                throw Error("input '" + input + "' reads an output the called function does not give", at,
                            "the model is corrupt; re-export it");
            return call->second[k];
        }
        auto it = nodes.find(node);
        if (it == nodes.end() || k >= it->second.output_count())
            throw Error("input '" + input + "' names neither an argument nor a node output of the function", at,
                        "the model is corrupt; re-export it");
        return it->second.out(k);
    };
    for (const auto& n : f.node_def()) {
        Node node = nodes.at(n.name());
        if (!node.is("FrameworkNode")) continue;
        const std::string at = "node '" + n.name() + "' (" + n.op() + ") of " + in_function;
        size_t port = 0;
        for (const auto& in : n.input())
            if (!in.empty() && in[0] != '^') node.in(port++).connect(resolve(in, at));
    }
    for (const auto& n : f.node_def())
        if (is_functional(n.op()))
            if (auto outs = expand(graph, nodes.at(n.name()), n, depth)) calls[n.name()] = std::move(*outs);
    std::vector<OutPort> outputs;
    for (const auto& arg : f.signature().output_arg()) {
        auto it = f.ret().find(arg.name());
        if (it == f.ret().end())
            throw Error("output '" + arg.name() + "' has no return value", in_function, "the model is corrupt; re-export it");
        outputs.push_back(resolve(it->second, in_function));
    }
    return outputs;
}

std::optional<std::vector<OutPort>> TfFunctions::expand(Graph& graph, Node node, const mo_tf::NodeDef& def, size_t depth) {
    if (depth + 1 > kMaxBodyNesting)
        throw Error("functions are nested more than " + std::to_string(kMaxBodyNesting) + " levels deep",
                    "node '" + def.name() + "' in " + path_, "a function that calls itself cannot be converted");
    if (def.op() == "If" || def.op() == "StatelessIf") build_if(graph, node, def, depth + 1);
    else if (def.op() == "While" || def.op() == "StatelessWhile") build_while(graph, node, def, depth + 1);
    else return inline_call(graph, node, def, depth + 1);
    return std::nullopt;
}

namespace {

// Parameters p_0 ... p_{n-1} of a body graph, their type and shape left to partial inference.
std::vector<OutPort> add_parameters(Graph& g, size_t n, const std::string& name) {
    std::vector<OutPort> params;
    for (size_t i = 0; i < n; ++i) {
        Node p = g.add_op("Parameter", name + "/input_" + std::to_string(i), {},
                          {{"shape", AttrValue(PartialShape::dynamic_rank())}, {"element_type", AttrValue(ElementType::dynamic)}});
        g.parameters().push_back(p);
        params.push_back(p.out(0));
    }
    return params;
}

void add_results(Graph& g, const std::vector<OutPort>& values, const std::string& name) {
    for (size_t k = 0; k < values.size(); ++k)
        g.results().push_back(g.add_op("Result", name + "/output_" + std::to_string(k), {values[k]}));
}

// The node has as many outputs as the function gives; the graph may read fewer, never more.
void set_outputs(Node node, size_t n, const std::string& where) {
    if (node.output_count() > n)
        throw Error("the graph reads output " + std::to_string(node.output_count() - 1) + " of a node whose function gives " +
                        std::to_string(n),
                    where, "the model is corrupt; re-export it");
    node.set_output_count(n);
    for (size_t j = 0; j < n; ++j)
        if (node.out(j).names().empty()) node.out(j).names() = {node.name() + ":" + std::to_string(j)};
}

}  // namespace

void TfFunctions::build_if(Graph& graph, Node node, const mo_tf::NodeDef& def, size_t depth) {
    const std::string where = "node '" + def.name() + "' (" + def.op() + ") in " + path_;
    if (node.input_count() < 1) throw Error("If has no condition input", where, "the model is corrupt; re-export it");
    const size_t n = node.input_count() - 1;
    size_t outputs = SIZE_MAX;
    for (const auto& [attr, role] : {std::pair<const char*, const char*>{"then_branch", "then_body"}, {"else_branch", "else_body"}}) {
        const std::string fn = func_attr(def, attr, where);
        Graph* g = node.add_body(role).graph.get();
        g->set_owner_role(role);
        auto params = add_parameters(*g, n, role);
        auto outs = instantiate(fn, *g, params, "", depth, where);
        if (outputs != SIZE_MAX && outs.size() != outputs)
            throw Error("the branches give " + std::to_string(outputs) + " and " + std::to_string(outs.size()) + " outputs", where,
                        "the model is corrupt; re-export it");
        outputs = outs.size();
        add_results(*g, outs, role);
        Body& body = node.bodies().back();
        for (size_t i = 0; i < n; ++i) body.inputs.push_back(BodyInput{BodyInput::Kind::Invariant, 1 + i, i});
        for (size_t k = 0; k < outs.size(); ++k) body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, k, k});
    }
    set_outputs(node, outputs, where);
}

void TfFunctions::build_while(Graph& graph, Node node, const mo_tf::NodeDef& def, size_t depth) {
    const std::string where = "node '" + def.name() + "' (" + def.op() + ") in " + path_;
    const std::string cond = func_attr(def, "cond", where), body_fn = func_attr(def, "body", where);
    const size_t n = node.input_count();
    std::vector<OutPort> initial;
    for (size_t i = 0; i < n; ++i) initial.push_back(node.in(i).src());
    // Loop-5 checks its execution condition before the first iteration and the body's condition
    // output before each next one: TensorFlow's cond(x) before every iteration.
    auto first = instantiate(cond, graph, initial, def.name() + "/initial_cond/", depth, where);
    if (first.size() != 1) throw Error("the cond function gives " + std::to_string(first.size()) + " outputs, not 1", where, "the model is corrupt; re-export it");
    node.set_input_count(n + 2);
    node.in(0).connect(graph.add_constant(def.name() + "/trip_count", Tensor::scalar<int64_t>(-1)).out(0));
    node.in(1).connect(first[0]);
    for (size_t i = 0; i < n; ++i) node.in(2 + i).connect(initial[i]);
    Graph* g = node.add_body("body").graph.get();
    g->set_owner_role("body");
    auto params = add_parameters(*g, n, "body");
    auto next = instantiate(body_fn, *g, params, "", depth, where);
    if (next.size() != n)
        throw Error("the body function gives " + std::to_string(next.size()) + " values for " + std::to_string(n) + " loop variables",
                    where, "the model is corrupt; re-export it");
    auto again = instantiate(cond, *g, next, "cond/", depth, where);
    if (again.size() != 1) throw Error("the cond function gives " + std::to_string(again.size()) + " outputs, not 1", where, "the model is corrupt; re-export it");
    std::vector<OutPort> results = next;
    results.push_back(again[0]);
    add_results(*g, results, "body");
    Body& body = node.bodies().back();
    for (size_t i = 0; i < n; ++i) {
        body.inputs.push_back(BodyInput{BodyInput::Kind::Merged, 2 + i, i, i});
        body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, i, i});
    }
    body.outputs.push_back(BodyOutput{BodyOutput::Kind::Condition, 0, n});
    set_outputs(node, n, where);
    lower_mapped_lists(graph, node);
}

namespace {

bool is_tf(const Node& n, const char* type) { return n.is("FrameworkNode") && n.framework().type == type; }

// `port` through TensorFlow Identities (the lowered form reads loop variables through them).
OutPort through_identities(OutPort port) {
    for (size_t hops = 0; hops < 64 && is_tf(port.node(), "Identity") && port.node().input_count() == 1; ++hops)
        port = port.node().in(0).src();
    return port;
}

// Whether `port` is a constant scalar of value `v`.
bool is_scalar(const OutPort& port, int64_t v) {
    const Tensor* t = port.value();
    return t && t->size() == 1 && is_integral(t->type()) && t->to_i64()[0] == v;
}

// Whether loop variable j of `loop` counts the iterations: 0 first, then itself + 1.
bool counts_iterations(const Node& loop, const Body& body, size_t j) {
    if (!is_scalar(loop.in(2 + j).src(), 0)) return false;
    const Graph& g = *body.graph;
    const Node step = through_identities(g.results()[j].in(0).src()).node();
    if (!is_tf(step, "AddV2") && !is_tf(step, "Add")) return false;
    for (size_t a = 0; a < 2; ++a)
        if (through_identities(step.in(a).src()) == g.parameters()[j].out(0) && is_scalar(step.in(1 - a).src(), 1)) return true;
    return false;
}

// Whether every reader of `list`, through Identities (a lifted Exit is one), is a TensorListStack.
bool only_stacked(const OutPort& list, size_t depth = 0) {
    for (const InPort& t : list.targets()) {
        if (is_tf(t.node(), "Identity") && depth < 64) {
            if (!only_stacked(t.node().out(0), depth + 1)) return false;
        } else if (!is_tf(t.node(), "TensorListStack") || t.index() != 0) {
            return false;
        }
    }
    return true;
}

}  // namespace

// tf.map_fn's output list: reserved with an element shape known only when the loop runs, set
// once per iteration at the iteration's index, stacked after the loop. TensorFlow requires every
// element of such a list to be set before the stack, so the loop runs exactly num_elements
// iterations and the list is the Loop's concatenated output: the body's item, Unsqueezed. The
// list stops being a loop variable.
void TfFunctions::lower_mapped_lists(Graph& graph, Node loop) {
    Body& body = loop.bodies().back();
    Graph& g = *body.graph;
    const size_t n = g.parameters().size();
    for (size_t k = n; k-- > 0;) {
        const Node reserve = loop.in(2 + k).src().node();
        if (!is_tf(reserve, "TensorListReserve") || !reserve.in(0).value()) continue;
        const Tensor& shape = *reserve.in(0).value();
        const auto dims = shape.to_i64();
        if (!shape.shape().empty() && std::none_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) continue;
        const Node param = g.parameters()[k];
        auto uses = param.out(0).targets();
        if (uses.size() != 1 || uses[0].index() != 0 || !is_tf(uses[0].node(), "TensorListSetItem")) continue;
        const Node set = uses[0].node();
        auto set_uses = set.out(0).targets();
        if (set_uses.size() != 1 || set_uses[0].node() != g.results()[k] || set.input_count() != 3) continue;
        const OutPort index = through_identities(set.in(1).src());
        if (!index.node().is("Parameter")) continue;
        size_t j = 0;
        while (j < n && g.parameters()[j] != index.node()) ++j;
        if (j == n || !counts_iterations(loop, body, j)) continue;
        if (!only_stacked(loop.out(k))) continue;
        const std::string name = g.results()[k].name() + "/stack";
        Node axis = g.add_constant(name + "/axis", Tensor::from_vector<int64_t>({0}, {1}));
        g.results()[k].in(0).connect(g.add_op("Unsqueeze", name, {set.in(2).src(), axis.out(0)}).out(0));
        g.remove_node(set);
        for (BodyOutput& out : body.outputs)
            if (out.kind == BodyOutput::Kind::Last && out.result == k) out.kind = BodyOutput::Kind::Concat;
        remove_body_parameter(body, k);
        remove_subgraph_op_input(loop, 2 + k);
        if (!reserve.out(0).has_targets()) graph.remove_node(reserve);
    }
}

std::vector<OutPort> TfFunctions::inline_call(Graph& graph, Node node, const mo_tf::NodeDef& def, size_t depth) {
    const std::string where = "node '" + def.name() + "' (" + def.op() + ") in " + path_;
    std::vector<OutPort> args;
    for (size_t i = 0; i < node.input_count(); ++i) args.push_back(node.in(i).src());
    auto outs = instantiate(func_attr(def, "f", where), graph, args, def.name() + "/", depth, where);
    set_outputs(node, outs.size(), where);
    // The call's consumers and names move to the function's outputs, and the call goes.
    for (size_t j = 0; j < outs.size(); ++j) {
        node.out(j).replace_all_uses_with(outs[j]);
        auto& names = outs[j].names();
        names.insert(names.end(), node.out(j).names().begin(), node.out(j).names().end());
    }
    graph.remove_node(node);
    return outs;
}

}  // namespace mo
