#include "transforms/back/make_stateful.hpp"

#include <algorithm>

#include "core/log.hpp"

namespace mo {

namespace {

Node find_named(const std::vector<Node>& nodes, const std::string& name) {
    for (const Node& n : nodes)
        if (n.answers_to(name)) return n;
    return Node();
}

std::string display_name(const Node& n) {
    const auto& names = n.is("Result") ? n.in(0).src().names() : n.out(0).names();
    return names.empty() ? n.name() : names.front();
}

// past<suffix> / past_key_values<suffix> -> present<suffix>.
std::vector<std::pair<Node, Node>> pairs_by_convention(const Graph& graph) {
    std::vector<std::pair<Node, Node>> pairs;
    for (const Node& p : graph.parameters()) {
        const std::string name = display_name(p);
        for (const std::string prefix : {"past_key_values", "past"}) {
            if (name.rfind(prefix, 0) != 0) continue;
            if (Node r = find_named(graph.results(), "present" + name.substr(prefix.size()))) {
                pairs.emplace_back(p, r);
                break;
            }
        }
    }
    return pairs;
}

std::vector<std::pair<Node, Node>> pairs_by_name(const Graph& graph, const TransformOptions& options) {
    std::vector<std::pair<Node, Node>> pairs;
    for (const auto& [param, result] : options.stateful_pairs) {
        Node p = find_named(graph.parameters(), param);
        if (!p)
            throw Error("MakeStateful: '" + param + "' is not a model input", graph.source_path,
                        "param_res_names must pair model input names with model output names");
        Node r = find_named(graph.results(), result);
        if (!r)
            throw Error("MakeStateful: '" + result + "' is not a model output", graph.source_path,
                        "param_res_names must pair model input names with model output names");
        pairs.emplace_back(p, r);
    }
    return pairs;
}

// Each input and each output in one pair at most: run() removes them pair by pair.
void check_distinct(const std::vector<std::pair<Node, Node>>& pairs, const Graph& graph) {
    auto describe = [](const std::pair<Node, Node>& pair) {
        return "'" + display_name(pair.first) + "':'" + display_name(pair.second) + "'";
    };
    for (size_t i = 0; i < pairs.size(); ++i)
        for (size_t j = 0; j < i; ++j) {
            const bool same_input = pairs[i].first == pairs[j].first;
            if (!same_input && pairs[i].second != pairs[j].second) continue;
            const Node& shared = same_input ? pairs[i].first : pairs[i].second;
            throw Error("MakeStateful: the pairs " + describe(pairs[j]) + " and " + describe(pairs[i]) + " both use the " +
                            (same_input ? "input '" : "output '") + display_name(shared) + "'",
                        graph.source_path,
                        "a variable is one input and one output: name each in one pair only, as in --transform "
                        "\"MakeStateful[param_res_names={'past.0.key':'present.0.key'}]\"");
        }
}

// The input that carries the batch: input_ids, else inputs_embeds (as optimum-intel's patch picks
// it), else the first other model input whose dim 0 is dynamic; an empty Node when there is none.
Node batch_input(const Graph& graph, const std::vector<Node>& state_params) {
    for (const char* name : {"input_ids", "inputs_embeds"})
        if (Node p = find_named(graph.parameters(), name)) return p;
    for (const Node& p : graph.parameters()) {
        if (std::find(state_params.begin(), state_params.end(), p) != state_params.end()) continue;
        const PartialShape& s = p.out(0).shape();
        if (s.rank_is_static() && s.rank() > 0 && !s[0].is_static()) return p;
    }
    return Node();
}

// The batch size of this call: dim 0 of the batch input when it is dynamic, as a 1-element i64
// tensor; nothing otherwise.
std::optional<OutPort> batch_dimension(Graph& graph, const Node& p) {
    if (!p) return std::nullopt;
    const PartialShape& s = p.out(0).shape();
    if (!s.rank_is_static() || s.rank() == 0 || s[0].is_static()) return std::nullopt;
    Node shape = graph.add_op("ShapeOf", p.name() + "/batch/shape", {p.out(0)}, {{"output_type", AttrValue(ElementType::i64)}});
    Node first = graph.add_op("Gather", p.name() + "/batch",
                              {shape.out(0), graph.add_constant(p.name() + "/batch/index", Tensor::from_vector<int64_t>({0}, {1})).out(0),
                               graph.add_constant(p.name() + "/batch/axis", Tensor::scalar<int64_t>(0)).out(0)},
                              {{"batch_dims", AttrValue(int64_t{0})}});
    return first.out(0);
}

// The beam_idx input optimum-intel's fuse_cache_reorder adds: i32 [batch], batch = dim 0 of the
// batch input (dynamic when there is none), appended after the model's other inputs.
Node add_beam_idx(Graph& graph, const Node& batch_input) {
    if (find_named(graph.parameters(), "beam_idx"))
        throw Error("MakeStateful: the model already has an input named 'beam_idx'", graph.source_path,
                    "MakeStateful adds beam_idx itself (the beams' order of the cache); rename that input");
    Dimension batch;
    if (batch_input) {
        const PartialShape& s = batch_input.out(0).shape();
        if (s.rank_is_static() && s.rank() > 0) batch = s[0];
    }
    const PartialShape shape{batch};
    Node p = graph.add_op("Parameter", "beam_idx", {}, {{"shape", AttrValue(shape)}, {"element_type", AttrValue(ElementType::i32)}});
    p.out(0).set_type_and_shape(ElementType::i32, shape);
    p.out(0).names() = {"beam_idx"};
    graph.parameters().push_back(p);
    return p;
}

// Zeros of the variable's shape: dynamic dim 0 = the batch; another dim dynamic in the input but
// static in the output that feeds the variable (GenAI 0.15+'s symbolic kv_cache_dim, which is the
// head size) takes the output's size, as every value the variable will hold has it; other dynamic
// dims 0.
OutPort empty_state(Graph& graph, const Node& param, const OutPort& output, const std::optional<OutPort>& batch) {
    const PartialShape& shape = param.out(0).shape();
    const PartialShape& assigned = output.shape();
    const std::string base = param.name() + "/init";
    std::vector<OutPort> dims;
    std::vector<int64_t> known;
    auto flush_known = [&] {
        if (known.empty()) return;
        dims.push_back(graph.add_constant(base + "/dims" + std::to_string(dims.size()),
                                          Tensor::from_vector<int64_t>(known, {static_cast<int64_t>(known.size())})).out(0));
        known.clear();
    };
    for (size_t i = 0; i < shape.rank(); ++i) {
        if (i == 0 && !shape[0].is_static() && batch) {
            flush_known();
            dims.push_back(*batch);
        } else {
            const bool from_output = !shape[i].is_static() && assigned.rank_is_static() && i < assigned.rank() &&
                                     assigned[i].is_static();
            known.push_back(shape[i].is_static() ? shape[i].get_length() : from_output ? assigned[i].get_length() : 0);
        }
    }
    flush_known();
    OutPort target = dims.size() == 1 ? dims[0] : graph.add_op("Concat", base + "/shape", dims, {{"axis", AttrValue(int64_t{0})}}).out(0);
    Tensor zero = Tensor::allocate(param.out(0).type(), {});
    OutPort value = graph.add_constant(base + "/zero", zero).out(0);
    return graph.add_op("Broadcast", base, {value, target}, {{"mode", AttrValue(std::string("numpy"))}}).out(0);
}

}  // namespace

bool MakeStateful::run(Graph& graph, const TransformContext& ctx) {
    auto pairs = ctx.options.stateful_pairs.empty() ? pairs_by_convention(graph) : pairs_by_name(graph, ctx.options);
    if (pairs.empty())
        throw Error("MakeStateful found no input/output pair to turn into a variable", graph.source_path,
                    "name them: --transform \"MakeStateful[param_res_names={'input':'output'}]\"");
    check_distinct(pairs, graph);
    std::vector<Node> state_params;
    for (const auto& [p, r] : pairs) state_params.push_back(p);
    for (const auto& [p, r] : pairs) {  // every pair checked before anything changes
        const std::string param = display_name(p), result = display_name(r);
        const OutPort value = r.in(0).src();
        const PartialShape& shape = p.out(0).shape();
        if (value.type() != p.out(0).type() || !shape.rank_is_static() || !value.shape().rank_is_static() ||
            value.shape().rank() != shape.rank())
            throw Error("MakeStateful: input '" + param + "' (" + std::string(ir_name(p.out(0).type())) + " [" +
                            shape.to_string() + "]) and output '" + result + "' (" + std::string(ir_name(value.type())) +
                            " [" + value.shape().to_string() + "]) cannot be one variable",
                        p.describe(), "pair inputs and outputs of the same element type and rank");
        if (shape.rank() == 0)
            throw Error("MakeStateful: input '" + param + "' is a scalar; beam_idx reorders a variable along its dim 0",
                        p.describe(), "pair inputs and outputs whose dim 0 is the batch");
    }
    const Node batch_source = batch_input(graph, state_params);
    const Node beam_idx = add_beam_idx(graph, batch_source);
    const std::optional<OutPort> batch = batch_dimension(graph, batch_source);
    const OutPort batch_axis = graph.add_constant("beam_idx/axis", Tensor::scalar<int64_t>(0)).out(0);
    for (const auto& [p, r] : pairs) {
        const std::string param = display_name(p), result = display_name(r);
        const OutPort value = r.in(0).src();
        const PartialShape& shape = p.out(0).shape();
        const std::string variable = param + result;
        Node read = graph.add_op("ReadValue", param, {empty_state(graph, p, value, batch)},
                                 {{"variable_id", AttrValue(variable)},
                                  {"variable_type", AttrValue(p.out(0).type())},
                                  {"variable_shape", AttrValue(shape)}});
        // The state as the beams reorder it: Gather(variable, beam_idx, axis 0) before any use.
        Node reordered = graph.add_op("Gather", param + "/beams", {read.out(0), beam_idx.out(0), batch_axis},
                                      {{"batch_dims", AttrValue(int64_t{0})}});
        p.out(0).replace_all_uses_with(reordered.out(0));
        Node assign = graph.add_op("Assign", result + "/assign", {value}, {{"variable_id", AttrValue(variable)}});
        graph.sinks().push_back(assign);
        graph.remove_node(r);
        graph.remove_node(p);
    }
    MO_LOG(Info, "MakeStateful: ", pairs.size(), " inputs and outputs became variables");
    return true;
}

}  // namespace mo
