#include "core/evaluator.hpp"

#include <unordered_map>

#include "core/error.hpp"
#include "core/infer.hpp"
#include "core/plugin_code.hpp"

namespace mo {

namespace {

std::string shape_text(const Shape& s) {
    std::string text = "[";
    text += PartialShape(s).to_string();
    return text + "]";
}

void check_inputs(const Graph& graph, const std::vector<Tensor>& inputs) {
    const auto& params = graph.parameters();
    if (inputs.size() != params.size())
        throw Error("the model has " + std::to_string(params.size()) + " inputs but " + std::to_string(inputs.size()) +
                        " values were given",
                    graph.source_path, "give one value per model input, in the model's input order");
    for (size_t i = 0; i < params.size(); ++i) {
        const OutPort port = params[i].out(0);
        const Tensor& t = inputs[i];
        if (t.empty())
            throw Error("no value given for input " + std::to_string(i), params[i].describe(), "give a tensor for it");
        if (port.type() != ElementType::dynamic && t.type() != port.type())
            throw Error("input " + std::to_string(i) + " is " + std::string(ir_name(t.type())) + " but the model expects " +
                            std::string(ir_name(port.type())),
                        params[i].describe(), "convert the input data to the model's element type");
        if (!shape_fits(port.shape(), t.shape()))
            throw Error("input " + std::to_string(i) + " has shape " + shape_text(t.shape()) +
                            " which does not fit the model's [" + port.shape().to_string() + "]",
                        params[i].describe(), "give data of a fitting shape");
    }
}

// Nodes a Result or a sink depends on, as a flag per node id.
std::unordered_map<uint64_t, bool> needed_nodes(const Graph& graph) {
    std::unordered_map<uint64_t, bool> needed;
    std::vector<Node> stack(graph.results().begin(), graph.results().end());
    stack.insert(stack.end(), graph.sinks().begin(), graph.sinks().end());
    while (!stack.empty()) {
        Node n = stack.back();
        stack.pop_back();
        if (needed[n.id()]) continue;
        needed[n.id()] = true;
        for (size_t i = 0; i < n.input_count(); ++i)
            if (auto src = n.in(i).source()) stack.push_back(src->node());
    }
    return needed;
}

// Key of one output port in the live-tensor table.
struct PortKey {
    uint64_t node;
    size_t port;
    bool operator==(const PortKey&) const = default;
};
struct PortKeyHash {
    size_t operator()(const PortKey& k) const { return std::hash<uint64_t>()(k.node * 1315423911u + k.port); }
};

struct LiveTensor {
    Tensor value;
    size_t consumers_left = 0;
};

// A ReadValue's value: the variable's, else its initial value, else zeros of its shape.
Tensor read_variable(Node n, const std::vector<Tensor>& inputs, const VariableState& state) {
    const std::string id = n.attr<std::string>("variable_id");
    const auto type = n.attr<ElementType>("variable_type");
    const auto shape = n.attr<PartialShape>("variable_shape");
    Tensor value;
    if (auto it = state.find(id); it != state.end()) value = it->second;
    else if (!inputs.empty() && !inputs[0].empty()) value = inputs[0];
    else if (shape.is_static()) value = Tensor::allocate(type, shape.to_shape());
    else
        throw Error("variable '" + id + "' has no value yet and no initial value, and its shape [" + shape.to_string() +
                        "] is not static",
                    n.describe(), "give the ReadValue an initial value");
    if (value.type() != type || !shape_fits(shape, value.shape()))
        throw Error("variable '" + id + "' holds " + std::string(ir_name(value.type())) + " " + shape_text(value.shape()) +
                        ", which does not fit its declared " + std::string(ir_name(type)) + " [" + shape.to_string() + "]",
                    n.describe(), "the state given does not belong to this model");
    return value;
}

std::vector<Tensor> run_node(Node n, const std::vector<Tensor>& inputs) {
    const OpSchema& op = n.op();
    if (op.type == "Constant") {
        const Tensor* v = n.out(0).value();
        if (!v) throw Error("constant has no value", n.describe(), "the model is malformed");
        return {*v};
    }
    if (op.type == "Parameter")
        throw Error("a Parameter that is not among the model's inputs feeds an output", n.describe(),
                    "list it in graph.parameters() or remove it");
    if (!op.eval)
        throw Error("op '" + op.type + "' cannot be evaluated", n.describe(),
                    "the op schema has no evaluation; validation of this model is not possible yet");
    try {
        // Views that kept a file's misaligned bytes (Reshape and the like pass buffers on) are
        // copied before an eval reads values through data<T>().
        std::vector<Tensor> aligned;
        aligned.reserve(inputs.size());
        for (const Tensor& t : inputs) aligned.push_back(t.aligned());
        return run_plugin_code(op.origin, [&] { return PluginCodeSite{"the evaluation of op '" + op.type + "'", {}}; },  // the node: below
                               [&] { return op.eval(n, aligned); });
    } catch (const Error& e) {
        throw e.with_context(n.describe());
    } catch (const std::logic_error&) {
        throw;  // an MO_ASSERT: a bug, keep its message
    } catch (const std::exception& e) {
        throw Error(std::string("evaluation failed: ") + e.what(), n.describe());
    }
}

}  // namespace

std::vector<Tensor> evaluate(const Graph& graph, const std::vector<Tensor>& inputs, EvaluationStats* stats) {
    VariableState fresh;
    return evaluate(graph, inputs, fresh, stats);
}

std::vector<Tensor> evaluate(const Graph& graph, const std::vector<Tensor>& inputs, VariableState& state,
                             EvaluationStats* stats) {
    check_inputs(graph, inputs);
    VariableState assigned;  // stored into `state` at the end: every ReadValue of this call reads the old values
    std::unordered_map<uint64_t, size_t> param_index;
    for (size_t i = 0; i < graph.parameters().size(); ++i) param_index[graph.parameters()[i].id()] = i;
    std::unordered_map<uint64_t, size_t> result_index;
    for (size_t i = 0; i < graph.results().size(); ++i) result_index[graph.results()[i].id()] = i;

    auto needed = needed_nodes(graph);
    std::vector<Node> order;
    for (Node n : graph.topological_order())
        if (needed[n.id()]) order.push_back(n);

    // How many inputs of needed nodes read each port: the tensor dies when this reaches zero.
    std::unordered_map<PortKey, LiveTensor, PortKeyHash> live;
    for (Node n : order)
        for (size_t i = 0; i < n.input_count(); ++i)
            if (auto src = n.in(i).source()) ++live[{src->node().id(), src->index()}].consumers_left;

    EvaluationStats local;
    size_t live_count = 0;
    std::vector<Tensor> results(graph.results().size());
    for (Node n : order) {
        std::vector<Tensor> args(n.input_count());
        for (size_t i = 0; i < n.input_count(); ++i) {
            auto src = n.in(i).source();
            if (!src) continue;
            auto it = live.find({src->node().id(), src->index()});
            MO_ASSERT(it != live.end() && !it->second.value.empty(), n.describe(), ": input ", i, " was not computed");
            args[i] = it->second.value;
            if (--it->second.consumers_left == 0) {
                live.erase(it);
                --live_count;
            }
        }
        if (auto r = result_index.find(n.id()); r != result_index.end()) {
            if (args.empty() || args[0].empty())
                throw Error("result has no input", n.describe(), "the model is malformed");
            results[r->second] = std::move(args[0]);
            continue;
        }
        std::vector<Tensor> outputs;
        if (auto p = param_index.find(n.id()); p != param_index.end()) outputs = {inputs[p->second]};
        else if (n.is("ReadValue")) outputs = {read_variable(n, args, state)};
        else if (n.is("Assign")) outputs = {assigned[n.attr<std::string>("variable_id")] = args.at(0)};
        else outputs = run_node(n, args);
        args.clear();  // our references must not keep dead inputs alive
        check_eval_outputs(n, outputs);
        ++local.nodes_evaluated;
        for (size_t j = 0; j < outputs.size(); ++j) {
            auto it = live.find({n.id(), j});
            if (it == live.end()) continue;  // nobody needed reads this output
            it->second.value = std::move(outputs[j]);
            ++live_count;
        }
        local.peak_live_tensors = std::max(local.peak_live_tensors, live_count);
    }
    for (size_t i = 0; i < results.size(); ++i)
        MO_ASSERT(!results[i].empty(), graph.results()[i].describe(), " got no value");
    for (auto& [id, value] : assigned) state[id] = std::move(value);
    if (stats) *stats = local;
    return results;
}

}  // namespace mo
