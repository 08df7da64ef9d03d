#include "extractors/extract_context.hpp"

#include <algorithm>
#include <type_traits>

namespace mo {

ExtractContext::ExtractContext(Graph& graph, Node node) : graph_(graph), node_(node), name_(node.name()) {}

std::string ExtractContext::where() const {
    return "node '" + name_ + "' (" + node_.framework().type + ", opset " + std::to_string(opset()) + ")";
}

void ExtractContext::fail(const std::string& what, const std::string& hint) const {
    throw Error(what, where(), hint);
}

void ExtractContext::unsupported(const std::string& what) const {
    fail(what + " is not supported",
         "see docs/" + node_.framework().framework + ".md for the supported " + node_.framework().framework +
             " features");
}

std::optional<FrameworkAttr> ExtractContext::find(std::string_view attr) const {
    const auto& attributes = node_.framework().attributes;
    if (!attributes) return std::nullopt;
    try {
        return attributes->get(attr);
    } catch (const Error& e) {
        throw e.with_context(where());
    }
}

template <typename T> T ExtractContext::get(std::string_view attr) const {
    std::optional<FrameworkAttr> a = find(attr);
    if (!a) fail("required attribute '" + std::string(attr) + "' is missing", "fix the model");
    if (T* v = std::get_if<T>(&*a)) return std::move(*v);
    // An int attribute where a float is expected is harmless; anything else is a bad model.
    if constexpr (std::is_same_v<T, double>)
        if (const int64_t* v = std::get_if<int64_t>(&*a)) return static_cast<double>(*v);
    fail("attribute '" + std::string(attr) + "' is " + framework_attr_kind(*a) + ", expected " +
             framework_attr_kind(FrameworkAttr(T{})),
         "fix the model");
}

bool ExtractContext::has(std::string_view attr) const { return find(attr).has_value(); }

int64_t ExtractContext::i(std::string_view attr) const { return get<int64_t>(attr); }

int64_t ExtractContext::i(std::string_view attr, int64_t def) const { return has(attr) ? i(attr) : def; }

double ExtractContext::f(std::string_view attr, double def) const { return has(attr) ? get<double>(attr) : def; }

std::string ExtractContext::s(std::string_view attr, std::string def) const {
    return has(attr) ? get<std::string>(attr) : def;
}

std::vector<int64_t> ExtractContext::ints(std::string_view attr, std::vector<int64_t> def) const {
    return has(attr) ? get<std::vector<int64_t>>(attr) : def;
}

std::vector<double> ExtractContext::floats(std::string_view attr, std::vector<double> def) const {
    return has(attr) ? get<std::vector<double>>(attr) : def;
}

std::vector<std::string> ExtractContext::strings(std::string_view attr, std::vector<std::string> def) const {
    return has(attr) ? get<std::vector<std::string>>(attr) : def;
}

Tensor ExtractContext::tensor(std::string_view attr) const { return get<Tensor>(attr); }

OutPort ExtractContext::input(size_t i) const {
    if (!has_input(i)) fail("input " + std::to_string(i) + " is required but absent", "fix the model");
    return node_.in(i).src();
}

const Tensor* ExtractContext::input_value(size_t i) const { return has_input(i) ? node_.in(i).value() : nullptr; }

std::vector<int64_t> ExtractContext::input_ints(size_t i) const {
    const Tensor* t = input_value(i);
    if (!t) fail("input " + std::to_string(i) + " must be a constant", "mo needs this value at conversion time");
    return t->to_i64();
}

bool ExtractContext::output_used(size_t j) const {
    return j < node_.output_count() && node_.out(j).has_targets();
}

Node ExtractContext::add(std::string_view type, const std::string& suffix, const std::vector<OutPort>& inputs,
                             const AttrMap& attrs) {
    const OpSchema& op = graph_.ops().get(type);
    Node n = graph_.add_node(op, suffix.empty() ? name_ : name_ + "/" + suffix);
    n.set_input_count(inputs.size());
    for (size_t k = 0; k < inputs.size(); ++k) n.in(k).connect(inputs[k]);
    for (const auto& [key, value] : attrs) set(n, key, value);
    created_.push_back(n);
    return n;
}

OutPort ExtractContext::constant(const std::string& suffix, Tensor value) {
    Node c = graph_.add_constant(suffix.empty() ? name_ : name_ + "/" + suffix, std::move(value));
    created_.push_back(c);
    return c.out(0);
}

OutPort ExtractContext::i64s(const std::string& suffix, const std::vector<int64_t>& values) {
    return constant(suffix, Tensor::from_vector<int64_t>(values, {static_cast<int64_t>(values.size())}));
}

OutPort ExtractContext::i64(const std::string& suffix, int64_t value) {
    return constant(suffix, Tensor::scalar<int64_t>(value));
}

OutPort ExtractContext::scalar_like(const std::string& suffix, double value, const OutPort& like) {
    ElementType t = like.type();
    if (t != ElementType::dynamic) return constant(suffix, Tensor::scalar<double>(value).convert(t));
    OutPort f = constant(suffix, Tensor::scalar<float>(static_cast<float>(value)));
    // Without ConvertLike, f32 is the best guess for a type only known after inference.
    return graph_.ops().find("ConvertLike") ? op("ConvertLike", suffix + "/convert", {f, like}) : f;
}

int64_t ExtractContext::rank_of(const OutPort& p) {
    return p.shape().rank_is_static() ? static_cast<int64_t>(p.shape().rank()) : -1;
}

OutPort ExtractContext::dim(const std::string& suffix, const OutPort& x, int64_t axis) {
    OutPort shape = op("ShapeOf", suffix + "/shape", {x}, {{"output_type", ElementType::i64}});
    return op("Gather", suffix, {shape, i64(suffix + "/index", axis), i64(suffix + "/axis", 0)}, {{"batch_dims", int64_t{0}}});
}

OutPort ExtractContext::axes_from(const std::string& suffix, const OutPort& x, int64_t from) {
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

Node ExtractContext::become(std::string_view type, const AttrMap& attrs) {
    const OpSchema& op = graph_.ops().get(type);
    size_t n_inputs = node_.input_count();
    while (n_inputs > 0 && !node_.in(n_inputs - 1).connected()) --n_inputs;
    if (n_inputs < op.min_inputs || n_inputs > op.max_inputs)
        fail("has " + std::to_string(n_inputs) + " inputs, " + std::string(type) + " takes " + op.input_count_text(),
             "fix the model");
    // Outputs the canonical op lacks must be unused (e.g. optional training outputs).
    if (op.num_outputs != SIZE_MAX)
        for (size_t j = op.num_outputs; j < node_.output_count(); ++j)
            if (output_used(j)) unsupported("output " + std::to_string(j));
    node_.set_input_count(n_inputs);
    node_.set_op(op);
    for (const auto& [key, value] : attrs) set(node_, key, value);
    return node_;
}

void ExtractContext::set_output(size_t j, const OutPort& port) {
    if (j >= node_.output_count()) return;  // an output the model leaves out: nothing reads it
    OutPort old = node_.out(j);
    for (auto& n : old.names())
        if (std::find(port.names().begin(), port.names().end(), n) == port.names().end()) port.names().push_back(n);
    old.names().clear();
    old.replace_all_uses_with(port);
    auto& fused = port.node().fused_names();
    if (std::find(fused.begin(), fused.end(), name_) == fused.end()) fused.push_back(name_);
}

void ExtractContext::set(const Node& n, std::string_view name, AttrValue value) {
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
