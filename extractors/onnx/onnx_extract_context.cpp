#include "extractors/onnx/onnx_extract_context.hpp"

#include <onnx/onnx_pb.h>

#include "loaders/onnx/onnx_tensor.hpp"

namespace mo {

namespace {

const char* attr_type_name(int t) {
    switch (t) {
        case onnx::AttributeProto::FLOAT: return "float";
        case onnx::AttributeProto::INT: return "int";
        case onnx::AttributeProto::STRING: return "string";
        case onnx::AttributeProto::TENSOR: return "tensor";
        case onnx::AttributeProto::GRAPH: return "graph";
        case onnx::AttributeProto::FLOATS: return "floats";
        case onnx::AttributeProto::INTS: return "ints";
        case onnx::AttributeProto::STRINGS: return "strings";
        default: return "other";
    }
}

// Old exporters leave AttributeProto.type unset; infer it from the filled field.
int effective_type(const onnx::AttributeProto& a) {
    if (a.type() != onnx::AttributeProto::UNDEFINED) return a.type();
    if (a.ints_size()) return onnx::AttributeProto::INTS;
    if (a.floats_size()) return onnx::AttributeProto::FLOATS;
    if (a.strings_size()) return onnx::AttributeProto::STRINGS;
    if (a.has_t()) return onnx::AttributeProto::TENSOR;
    if (a.has_s()) return onnx::AttributeProto::STRING;
    if (a.has_f()) return onnx::AttributeProto::FLOAT;
    return onnx::AttributeProto::INT;
}

}  // namespace

OnnxExtractContext::OnnxExtractContext(Graph& graph, Node node)
    : graph_(graph), node_(node), proto_(std::any_cast<const onnx::NodeProto*>(node.framework().record)),
      name_(node.name()) {}

std::string OnnxExtractContext::where() const {
    return "node '" + name_ + "' (" + node_.framework().type + ", opset " + std::to_string(opset()) + ")";
}

void OnnxExtractContext::fail(const std::string& what, const std::string& hint) const {
    throw Error(what, where(), hint);
}

void OnnxExtractContext::unsupported(const std::string& what) const {
    fail(what + " is not supported", "see docs/onnx.md for the supported ONNX features");
}

const onnx::AttributeProto* OnnxExtractContext::find(std::string_view attr) const {
    for (const auto& a : proto_->attribute())
        if (a.name() == attr) return &a;
    return nullptr;
}

const onnx::AttributeProto& OnnxExtractContext::get(std::string_view attr, int type) const {
    const auto* a = find(attr);
    if (!a) fail("required attribute '" + std::string(attr) + "' is missing", "fix the model");
    // An int attribute where a float is expected is harmless; anything else is a bad model.
    int t = effective_type(*a);
    if (t != type && !(type == onnx::AttributeProto::FLOAT && t == onnx::AttributeProto::INT))
        fail("attribute '" + std::string(attr) + "' is " + attr_type_name(t) + ", expected " + attr_type_name(type),
             "fix the model");
    return *a;
}

bool OnnxExtractContext::has(std::string_view attr) const { return find(attr) != nullptr; }

int64_t OnnxExtractContext::i(std::string_view attr) const { return get(attr, onnx::AttributeProto::INT).i(); }

int64_t OnnxExtractContext::i(std::string_view attr, int64_t def) const { return has(attr) ? i(attr) : def; }

double OnnxExtractContext::f(std::string_view attr, double def) const {
    if (!has(attr)) return def;
    const auto& a = get(attr, onnx::AttributeProto::FLOAT);
    return effective_type(a) == onnx::AttributeProto::INT ? static_cast<double>(a.i()) : a.f();
}

std::string OnnxExtractContext::s(std::string_view attr, std::string def) const {
    return has(attr) ? get(attr, onnx::AttributeProto::STRING).s() : def;
}

std::vector<int64_t> OnnxExtractContext::ints(std::string_view attr, std::vector<int64_t> def) const {
    if (!has(attr)) return def;
    const auto& a = get(attr, onnx::AttributeProto::INTS);
    return {a.ints().begin(), a.ints().end()};
}

std::vector<double> OnnxExtractContext::floats(std::string_view attr, std::vector<double> def) const {
    if (!has(attr)) return def;
    const auto& a = get(attr, onnx::AttributeProto::FLOATS);
    return {a.floats().begin(), a.floats().end()};
}

std::vector<std::string> OnnxExtractContext::strings(std::string_view attr, std::vector<std::string> def) const {
    if (!has(attr)) return def;
    const auto& a = get(attr, onnx::AttributeProto::STRINGS);
    return {a.strings().begin(), a.strings().end()};
}

Tensor OnnxExtractContext::tensor(std::string_view attr) const {
    return onnx_tensor_value(get(attr, onnx::AttributeProto::TENSOR).t(),
                             where() + ", attribute '" + std::string(attr) + "'");
}

OutPort OnnxExtractContext::input(size_t i) const {
    if (!has_input(i)) fail("input " + std::to_string(i) + " is required but absent", "fix the model");
    return node_.in(i).src();
}

const Tensor* OnnxExtractContext::input_value(size_t i) const { return has_input(i) ? node_.in(i).value() : nullptr; }

std::vector<int64_t> OnnxExtractContext::input_ints(size_t i) const {
    const Tensor* t = input_value(i);
    if (!t) fail("input " + std::to_string(i) + " must be a constant", "mo needs this value at conversion time");
    return t->to_i64();
}

bool OnnxExtractContext::output_used(size_t j) const {
    return j < node_.output_count() && node_.out(j).has_targets();
}

Node OnnxExtractContext::add(std::string_view type, const std::string& suffix, const std::vector<OutPort>& inputs,
                             const AttrMap& attrs) {
    const OpSchema& op = graph_.ops().get(type);
    Node n = graph_.add_node(op, suffix.empty() ? name_ : name_ + "/" + suffix);
    n.set_input_count(inputs.size());
    for (size_t k = 0; k < inputs.size(); ++k) n.in(k).connect(inputs[k]);
    for (const auto& [key, value] : attrs) set(n, key, value);
    created_.push_back(n);
    return n;
}

OutPort OnnxExtractContext::constant(const std::string& suffix, Tensor value) {
    Node c = graph_.add_constant(suffix.empty() ? name_ : name_ + "/" + suffix, std::move(value));
    created_.push_back(c);
    return c.out(0);
}

OutPort OnnxExtractContext::i64s(const std::string& suffix, const std::vector<int64_t>& values) {
    return constant(suffix, Tensor::from_vector<int64_t>(values, {static_cast<int64_t>(values.size())}));
}

OutPort OnnxExtractContext::i64(const std::string& suffix, int64_t value) {
    return constant(suffix, Tensor::scalar<int64_t>(value));
}

OutPort OnnxExtractContext::scalar_like(const std::string& suffix, double value, const OutPort& like) {
    ElementType t = like.type();
    if (t != ElementType::dynamic) return constant(suffix, Tensor::scalar<double>(value).convert(t));
    OutPort f = constant(suffix, Tensor::scalar<float>(static_cast<float>(value)));
    // Without ConvertLike, f32 is the best guess for a type only known after inference.
    return graph_.ops().find("ConvertLike") ? op("ConvertLike", suffix + "/convert", {f, like}) : f;
}

int64_t OnnxExtractContext::rank_of(const OutPort& p) {
    return p.shape().rank_is_static() ? static_cast<int64_t>(p.shape().rank()) : -1;
}

OutPort OnnxExtractContext::axes_from(const std::string& suffix, const OutPort& x, int64_t from) {
    int64_t rank = rank_of(x);
    if (rank >= 0) {
        std::vector<int64_t> axes;
        for (int64_t a = from; a < rank; ++a) axes.push_back(a);
        return i64s(suffix, axes);
    }
    // rank = ShapeOf(ShapeOf(x)) as a scalar; axes = Range(from, rank, 1).
    OutPort shape = op("ShapeOf", suffix + "/shape", {x}, {{"output_type", ElementType::i64}});
    OutPort rank_1d = op("ShapeOf", suffix + "/rank", {shape}, {{"output_type", ElementType::i64}});
    OutPort rank_scalar = op("Squeeze", suffix + "/rank_scalar", {rank_1d, i64s(suffix + "/rank_axis", {0})});
    return op("Range", suffix, {i64(suffix + "/start", from), rank_scalar, i64(suffix + "/step", 1)},
              {{"output_type", ElementType::i64}});
}

Node OnnxExtractContext::become(std::string_view type, const AttrMap& attrs) {
    const OpSchema& op = graph_.ops().get(type);
    size_t n_inputs = node_.input_count();
    while (n_inputs > 0 && !node_.in(n_inputs - 1).connected()) --n_inputs;
    if (n_inputs < op.min_inputs || n_inputs > op.max_inputs)
        fail("has " + std::to_string(n_inputs) + " inputs, " + std::string(type) + " takes " +
             std::to_string(op.min_inputs) + ".." + std::to_string(op.max_inputs), "fix the model");
    // Outputs the canonical op lacks must be unused (e.g. optional training outputs).
    if (op.num_outputs != SIZE_MAX)
        for (size_t j = op.num_outputs; j < node_.output_count(); ++j)
            if (output_used(j)) unsupported("output " + std::to_string(j));
    node_.set_input_count(n_inputs);
    node_.set_op(op);
    for (const auto& [key, value] : attrs) set(node_, key, value);
    return node_;
}

void OnnxExtractContext::set_output(size_t j, const OutPort& port) {
    MO_ASSERT(j < node_.output_count());
    OutPort old = node_.out(j);
    for (auto& n : old.names())
        if (std::find(port.names().begin(), port.names().end(), n) == port.names().end()) port.names().push_back(n);
    old.names().clear();
    old.replace_all_uses_with(port);
    auto& fused = port.node().fused_names();
    if (std::find(fused.begin(), fused.end(), name_) == fused.end()) fused.push_back(name_);
}

void OnnxExtractContext::set(const Node& n, std::string_view name, AttrValue value) {
    const AttrSpec* spec = n.op().find_attr(name);
    if (spec) {
        const AttrKind want = spec->kind;
        if (want == AttrKind::Bool) {
            if (auto* v = std::get_if<int64_t>(&value)) value = (*v != 0);
        } else if (want == AttrKind::Int) {
            if (auto* v = std::get_if<bool>(&value)) value = static_cast<int64_t>(*v);
        } else if (want == AttrKind::Float) {
            if (auto* v = std::get_if<int64_t>(&value)) value = static_cast<double>(*v);
        } else if (want == AttrKind::Type) {
            if (auto* v = std::get_if<std::string>(&value)) value = element_type_from_string(*v);
        } else if (want == AttrKind::String) {
            if (auto* v = std::get_if<ElementType>(&value)) value = std::string(ir_name(*v));
        } else if (want == AttrKind::Floats) {
            if (auto* v = std::get_if<std::vector<int64_t>>(&value)) value = std::vector<double>(v->begin(), v->end());
        }
    }
    n.set_attr_value(name, std::move(value));
}

}  // namespace mo
