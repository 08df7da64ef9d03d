#include "emit/onnx/onnx_graph_writer.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace mo::onnx_emit {

namespace {

// Nodes that reach a Result or a sink, plus every Parameter, producers first (the IR emitter's
// choice of what a model keeps).
std::vector<Node> live_order(const Graph& graph) {
    std::vector<char> live(graph.id_limit(), 0);
    std::vector<Node> stack(graph.results().begin(), graph.results().end());
    stack.insert(stack.end(), graph.sinks().begin(), graph.sinks().end());
    for (const Node& r : stack) live[r.id()] = 1;
    while (!stack.empty()) {
        Node n = stack.back();
        stack.pop_back();
        for (size_t i = 0; i < n.input_count(); ++i) {
            auto src = n.in(i).source();
            if (src && !live[src->node().id()]) {
                live[src->node().id()] = 1;
                stack.push_back(src->node());
            }
        }
    }
    for (const Node& p : graph.parameters()) live[p.id()] = 1;
    std::vector<Node> order;
    for (const Node& n : graph.topological_order())
        if (live[n.id()]) order.push_back(n);
    return order;
}

void collect_unsupported(const Graph& graph, std::vector<std::string>& missing, Node& first) {
    for (const Node& n : live_order(graph)) {
        for (const Body& b : n.bodies()) collect_unsupported(*b.graph, missing, first);
        if (n.is("Parameter") || n.is("Constant") || n.is("Result")) continue;
        if (!find_rule(n.type())) {
            if (!first) first = n;
            missing.push_back(n.describe());
        }
    }
}

// The stored form of a constant: ONNX 1.12 has no 4-bit or 1-bit tensors.
Tensor storable(const Tensor& t) {
    switch (t.type()) {
    case ElementType::i4: return t.convert(ElementType::i8);
    case ElementType::u4: return t.convert(ElementType::u8);
    case ElementType::u1: return t.convert(ElementType::boolean);
    default: return t;
    }
}

ElementType stored_type(ElementType t) {
    switch (t) {
    case ElementType::i4: return ElementType::i8;
    case ElementType::u4: return ElementType::u8;
    case ElementType::u1: return ElementType::boolean;
    default: return t;
    }
}

}  // namespace

int onnx_type(ElementType t, const std::string& where) {
    using T = onnx::TensorProto;
    switch (t) {
    case ElementType::boolean: return T::BOOL;
    case ElementType::bf16: return T::BFLOAT16;
    case ElementType::f16: return T::FLOAT16;
    case ElementType::f32: return T::FLOAT;
    case ElementType::f64: return T::DOUBLE;
    case ElementType::i4:
    case ElementType::i8: return T::INT8;
    case ElementType::i16: return T::INT16;
    case ElementType::i32: return T::INT32;
    case ElementType::i64: return T::INT64;
    case ElementType::u1: return T::BOOL;
    case ElementType::u4:
    case ElementType::u8: return T::UINT8;
    case ElementType::u16: return T::UINT16;
    case ElementType::u32: return T::UINT32;
    case ElementType::u64: return T::UINT64;
    default: break;
    }
    throw Error("element type '" + std::string(ir_name(t)) + "' has no ONNX tensor type here", where,
                "convert the model with a numeric type at this point");
}

onnx::ValueInfoProto value_info(const std::string& name, ElementType t, const PartialShape& s, bool with_shape) {
    onnx::ValueInfoProto v;
    v.set_name(name);
    auto* tensor = v.mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx_type(t, "value '" + name + "'"));
    if (with_shape && s.rank_is_static()) {
        auto* shape = tensor->mutable_shape();
        for (const Dimension& d : s.dims()) {
            auto* dim = shape->add_dim();
            if (d.is_static()) dim->set_dim_value(d.get_length());
        }
    }
    return v;
}

std::vector<std::string>& GraphWriter::names_of(const Node& n) {
    auto& names = names_[NodeKey{&n.graph(), n.id()}];
    if (names.size() < n.output_count()) names.resize(n.output_count());
    return names;
}

std::string GraphWriter::fresh(const std::string& hint) {
    std::string base = hint.empty() ? std::string("v") : hint;
    if (used_.insert(base).second) return base;
    for (size_t i = 1;; ++i) {
        std::string candidate = base + "_" + std::to_string(i);
        if (used_.insert(candidate).second) return candidate;
    }
}

std::string GraphWriter::value_name(const OutPort& port) {
    auto& names = names_of(port.node());
    std::string& name = names[port.index()];
    if (name.empty()) {
        const auto& tensor_names = port.names();
        std::string hint = !tensor_names.empty() ? tensor_names.front()
                           : port.index() == 0  ? port.node().name()
                                                : port.node().name() + ":" + std::to_string(port.index());
        name = fresh(hint);
        if (port.node().is("Constant")) {  // constants become initializers of the main graph when read
            const Tensor* v = port.value();
            if (!v) throw Error("constant has no value", port.node().describe());
            initializers_.push_back(Initializer{name, storable(*v)});
        }
    }
    return name;
}

std::string GraphWriter::add_initializer(const std::string& hint, const Tensor& value) {
    constexpr size_t kSmall = 64;  // bytes
    std::string key;
    if (value.byte_size() <= kSmall && value.type() != ElementType::string) {
        key.push_back(static_cast<char>(value.type()));
        for (int64_t d : value.shape()) key.append(reinterpret_cast<const char*>(&d), sizeof d);
        key.push_back('|');
        key.append(reinterpret_cast<const char*>(value.bytes()), value.byte_size());
        if (auto it = small_initializers_.find(key); it != small_initializers_.end()) return it->second;
    }
    std::string name = fresh(hint);
    initializers_.push_back(Initializer{name, storable(value)});
    if (!key.empty()) small_initializers_.emplace(std::move(key), name);
    return name;
}

void GraphWriter::add_named_initializer(const std::string& name, const Tensor& value) {
    initializers_.push_back(Initializer{name, storable(value)});
}

void GraphWriter::write_nodes(const Graph& graph, onnx::GraphProto& out) {
    plan_weight_dequantization(graph, dequantization_);
    const auto& absorbed = dequantization_.absorbed[&graph];
    const auto& dequantize = dequantization_.multiply[&graph];
    for (const Node& n : live_order(graph)) {
        if (n.is("Parameter") || n.is("Result") || absorbed.count(n.id())) continue;
        if (auto plan = dequantize.find(n.id()); plan != dequantize.end()) {
            OnnxNodeContext ctx(*this, out, n);
            located(n.describe(), [&] { emit_dequantize(ctx, plan->second, value_name(plan->second.weights.out(0))); });
            continue;
        }
        if (n.is("Constant")) continue;  // an initializer once something reads it (value_name)
        const OnnxRule* rule = find_rule(n.type());
        MO_ASSERT(rule, n.describe(), " has no ONNX rule");
        need_opset(rule->since);
        OnnxNodeContext ctx(*this, out, n);
        located(n.describe(), [&] { rule->emit(ctx); });
    }
}

void GraphWriter::write_main(const Graph& graph, onnx::GraphProto& out) {
    std::vector<std::string> missing;
    Node first;
    collect_unsupported(graph, missing, first);
    if (!missing.empty()) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        throw Error("op with no ONNX form: " + list, first.describe(),
                    "write IR for this model (--output_format ir), or cut the graph before it with --output");
    }
    // Model inputs keep the source's names: they are named before anything else.
    for (const Node& p : graph.parameters()) {
        std::string name = value_name(p.out(0));
        *out.add_input() = value_info(name, stored_type(p.out(0).type()), p.out(0).shape());
    }
    write_nodes(graph, out);
    // Stateless form of variables: each ReadValue is a model input, each Assign an output
    // (rules_control_flow.cpp adds them as they are written); they follow the model's own.
    std::vector<onnx::ValueInfoProto> state_outputs(out.output().begin(), out.output().end());
    out.clear_output();
    std::unordered_set<std::string> outputs;
    for (const auto& o : state_outputs) outputs.insert(o.name());
    std::unordered_set<std::string> produced;
    for (const auto& node : out.node())
        for (const auto& o : node.output()) produced.insert(o);
    for (const Node& r : graph.results()) {
        OutPort src = r.in(0).src();
        std::string value = value_name(src);
        if (!produced.count(value) || outputs.count(value)) {
            // A model input, an initializer or a value already output: ONNX needs a node's output.
            std::string hint = src.names().empty() ? r.name() : src.names().front();
            std::string copy = fresh(hint);
            auto* id = out.add_node();
            id->set_op_type("Identity");
            id->set_name(copy);
            id->add_input(value);
            id->add_output(copy);
            value = copy;
        }
        outputs.insert(value);
        *out.add_output() = value_info(value, stored_type(src.type()), src.shape());
    }
    for (auto& o : state_outputs) *out.add_output() = std::move(o);
}

std::vector<std::string> GraphWriter::write_body(const Graph& body, onnx::GraphProto& out,
                                                 const std::vector<std::string>& parameter_values) {
    MO_ASSERT(parameter_values.size() == body.parameters().size(), "body parameters");
    for (size_t i = 0; i < parameter_values.size(); ++i) names_of(body.parameters()[i])[0] = parameter_values[i];
    write_nodes(body, out);
    std::vector<std::string> results;
    for (const Node& r : body.results()) results.push_back(value_name(r.in(0).src()));
    return results;
}

// ---- OnnxNodeContext ---------------------------------------------------------------------------

std::string OnnxNodeContext::in(size_t i) const {
    if (!has_in(i)) return {};
    return writer_.value_name(node.in(i).src());
}

std::vector<int64_t> OnnxNodeContext::const_ints(size_t i, const std::string& what) const {
    const Tensor* v = in_value(i);
    if (!v) fail(what + " (input " + std::to_string(i) + ") is computed at run time; ONNX needs it constant here");
    return v->to_i64();
}

std::vector<double> OnnxNodeContext::const_floats(size_t i, const std::string& what) const {
    const Tensor* v = in_value(i);
    if (!v) fail(what + " (input " + std::to_string(i) + ") is computed at run time; ONNX needs it constant here");
    return v->to_f64();
}

std::string OnnxNodeContext::out(size_t j) const { return writer_.value_name(node.out(j)); }

void OnnxNodeContext::bind_out(size_t j, const std::string& name) { writer_.bind(node.out(j), name); }

std::string OnnxNodeContext::add(const std::string& op_type, std::vector<std::string> inputs,
                                 std::vector<std::string> outputs, std::vector<onnx::AttributeProto> attrs,
                                 const std::string& domain) {
    auto* n = graph_.add_node();
    n->set_op_type(op_type);
    n->set_name(writer_.fresh(node.name() + "/" + op_type));
    if (!domain.empty()) n->set_domain(domain);
    // Trailing absent optional inputs are left out; inner ones stay as "".
    while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
    for (auto& i : inputs) n->add_input(std::move(i));
    for (auto& o : outputs) n->add_output(o);
    for (auto& a : attrs) *n->add_attribute() = std::move(a);
    return outputs.empty() ? std::string() : outputs.front();
}

std::string OnnxNodeContext::add_tmp(const std::string& op_type, std::vector<std::string> inputs,
                                     std::vector<onnx::AttributeProto> attrs, const std::string& hint) {
    return add(op_type, std::move(inputs), {fresh(node.name() + "/" + (hint.empty() ? op_type : hint))}, std::move(attrs));
}

std::string OnnxNodeContext::fresh(const std::string& hint) const { return writer_.fresh(hint); }

std::string OnnxNodeContext::constant(const Tensor& value, const std::string& hint) {
    return writer_.add_initializer(node.name() + "/" + (hint.empty() ? "const" : hint), value);
}

void OnnxNodeContext::input_default(const std::string& name, const Tensor& value) { writer_.add_named_initializer(name, value); }

std::string OnnxNodeContext::ints(const std::vector<int64_t>& v, const std::string& hint) {
    return constant(Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}), hint);
}

std::string OnnxNodeContext::int_scalar(int64_t value, const std::string& hint) {
    return constant(Tensor::scalar<int64_t>(value), hint);
}

std::string OnnxNodeContext::scalar(double value, ElementType t, const std::string& hint) {
    return constant(Tensor::scalar<double>(value).convert(t), hint);
}

std::string OnnxNodeContext::values(const std::vector<double>& v, ElementType t, const std::string& hint) {
    return constant(Tensor::from_vector<double>(v, {static_cast<int64_t>(v.size())}).convert(t), hint);
}

std::string OnnxNodeContext::cast(const std::string& value, ElementType from, ElementType t) {
    if (stored_type(from) == stored_type(t)) return value;
    return add_tmp("Cast", {value}, {a_int("to", onnx_type(t, node.describe()))}, "cast");
}

void OnnxNodeContext::need_opset(int version) { writer_.need_opset(version); }
void OnnxNodeContext::need_microsoft() { writer_.need_microsoft(); }

onnx::GraphProto OnnxNodeContext::body(const Graph& body, const std::string& name,
                                       const std::vector<std::string>& parameter_values,
                                       const std::vector<onnx::ValueInfoProto>& inputs,
                                       const std::vector<onnx::NodeProto>& prologue) {
    onnx::GraphProto g;
    g.set_name(writer_.fresh(node.name() + "/" + name));
    for (const auto& i : inputs) *g.add_input() = i;
    for (const auto& n : prologue) *g.add_node() = n;
    body_results_ = writer_.write_body(body, g, parameter_values);
    return g;
}

onnx::NodeProto make_node(const std::string& op_type, const std::string& name, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, std::vector<onnx::AttributeProto> attrs) {
    onnx::NodeProto n;
    n.set_op_type(op_type);
    n.set_name(name);
    for (const auto& i : inputs) n.add_input(i);
    for (const auto& o : outputs) n.add_output(o);
    for (auto& a : attrs) *n.add_attribute() = std::move(a);
    return n;
}

onnx::ValueInfoProto typed_value(const std::string& name, ElementType t, const PartialShape& s) {
    return value_info(name, t, s, s.rank_is_static());
}

void OnnxNodeContext::fail(const std::string& what, const std::string& hint) const {
    throw Error("cannot write as ONNX: " + what, node.describe(),
                hint.empty() ? "write IR for this model (--output_format ir)" : hint);
}

// ---- Attributes --------------------------------------------------------------------------------

onnx::AttributeProto a_int(const std::string& name, int64_t v) {
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(v);
    return a;
}

onnx::AttributeProto a_float(const std::string& name, double v) {
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::FLOAT);
    a.set_f(static_cast<float>(v));
    return a;
}

onnx::AttributeProto a_str(const std::string& name, const std::string& v) {
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::STRING);
    a.set_s(v);
    return a;
}

onnx::AttributeProto a_ints(const std::string& name, const std::vector<int64_t>& v) {
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a.add_ints(x);
    return a;
}

onnx::AttributeProto a_floats(const std::string& name, const std::vector<double>& v) {
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::FLOATS);
    for (double x : v) a.add_floats(static_cast<float>(x));
    return a;
}

onnx::AttributeProto a_strs(const std::string& name, const std::vector<std::string>& v) {
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::STRINGS);
    for (const auto& x : v) a.add_strings(x);
    return a;
}

onnx::AttributeProto a_graph(const std::string& name, onnx::GraphProto g) {
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::GRAPH);
    *a.mutable_g() = std::move(g);
    return a;
}

// ---- The table -----------------------------------------------------------------------------------

const std::vector<OnnxRule>& all_rules() {
    static const std::vector<OnnxRule> rules = [] {
        std::vector<OnnxRule> all;
        for (auto family : {eltwise_rules, shape_rules, nn_rules, quantization_rules, control_flow_rules, detection_rules,
                            sequence_rules})
            for (auto& r : family()) all.push_back(std::move(r));
        std::sort(all.begin(), all.end(), [](const OnnxRule& a, const OnnxRule& b) { return a.type < b.type; });
        for (size_t i = 1; i < all.size(); ++i)
            MO_ASSERT(all[i - 1].type != all[i].type, "two ONNX rules for ", all[i].type);
        return all;
    }();
    return rules;
}

const OnnxRule* find_rule(std::string_view type) {
    const auto& rules = all_rules();
    auto it = std::lower_bound(rules.begin(), rules.end(), type, [](const OnnxRule& r, std::string_view t) { return r.type < t; });
    return it != rules.end() && it->type == type ? &*it : nullptr;
}

EmitFn same_as(std::string onnx_type, std::vector<onnx::AttributeProto> attrs) {
    return [onnx_type, attrs](OnnxNodeContext& c) {
        std::vector<std::string> inputs, outputs;
        for (size_t i = 0; i < c.node.input_count(); ++i) inputs.push_back(c.in(i));
        for (size_t j = 0; j < c.node.output_count(); ++j) outputs.push_back(c.out(j));
        c.add(onnx_type, inputs, outputs, attrs);
    };
}

}  // namespace mo::onnx_emit
