#include "loaders/tflite/tflite_loader.hpp"

#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

#include "core/error.hpp"
#include "core/eval_budget.hpp"
#include "core/infer.hpp"
#include "core/mapped_file.hpp"
#include "core/subgraph.hpp"
#include "loaders/input_overrides.hpp"
#include "loaders/tflite/tflite_attributes.hpp"
#include "loaders/tflite/tflite_custom_options.hpp"
#include "loaders/tflite/tflite_quantization.hpp"
#include "loaders/tflite/tflite_schema_generated.h"
#include "loaders/tflite/tflite_sparse.hpp"

namespace mo {

namespace {

ElementType element_type(tflite::TensorType t, const std::string& where) {
    using T = tflite::TensorType;
    switch (t) {
        case T::FLOAT32: return ElementType::f32;
        case T::FLOAT16: return ElementType::f16;
        case T::FLOAT64: return ElementType::f64;
        case T::BFLOAT16: return ElementType::bf16;
        case T::INT8: return ElementType::i8;
        case T::INT16: return ElementType::i16;
        case T::INT32: return ElementType::i32;
        case T::INT64: return ElementType::i64;
        case T::UINT8: return ElementType::u8;
        case T::UINT16: return ElementType::u16;
        case T::UINT32: return ElementType::u32;
        case T::UINT64: return ElementType::u64;
        case T::BOOL: return ElementType::boolean;
        case T::INT4: return ElementType::i4;
        default:
            throw Error(std::string("tensor type ") + tflite::EnumNameTensorType(t) + " is not supported", where,
                        "mo reads numeric and bool tensors");
    }
}

// shape_signature when the file has one (-1: a dynamic dimension), else shape. The two must
// agree on the rank and on every static dimension: quantization and buffers are checked against
// shape, the graph uses the signature.
PartialShape shape_of(const tflite::Tensor& t, const std::string& where) {
    const auto* shape = t.shape();
    const auto* signature = t.shape_signature() && t.shape_signature()->size() ? t.shape_signature() : nullptr;
    if (signature) {
        bool agree = shape && shape->size() == signature->size();
        for (uint32_t i = 0; agree && i < signature->size(); ++i)
            agree = signature->Get(i) < 0 || signature->Get(i) == shape->Get(i);
        if (!agree) {
            auto text = [](const flatbuffers::Vector<int32_t>* dims) {
                std::string s;
                if (dims)
                    for (int32_t d : *dims) s += (s.empty() ? "" : ", ") + std::to_string(d);
                return "[" + s + "]";
            };
            throw Error("shape_signature " + text(signature) + " does not match shape " + text(shape), where,
                        "the model is corrupt; re-export it");
        }
    }
    std::vector<Dimension> out;
    if (const auto* dims = signature ? signature : shape)
        for (int32_t d : *dims) out.push_back(d < 0 ? Dimension() : Dimension(d));
    return PartialShape(std::move(out));
}

// True when the tensor's shape has a dimension of 0 (a static one: -1 in shape_signature is dynamic).
bool has_no_elements(const tflite::Tensor& t) {
    if (!t.shape()) return false;
    for (uint32_t i = 0; i < t.shape()->size(); ++i) {
        const bool dynamic = t.shape_signature() && i < t.shape_signature()->size() && t.shape_signature()->Get(i) < 0;
        if (t.shape()->Get(i) == 0 && !dynamic) return true;
    }
    return false;
}

// One TFLite subgraph being built into a graph: the main subgraph into the model's graph, an IF
// or WHILE subgraph into a body of its node, a CALL_ONCE init subgraph into the main graph
// (where it runs first).
struct Scope {
    const tflite::SubGraph* subgraph = nullptr;
    uint32_t index = 0;  // in the model's subgraphs
    Graph* graph = nullptr;
    size_t depth = 0;    // bodies around it
    bool body = false;   // an IF / WHILE body: its inputs and outputs are real values, as the node's
    bool init = false;   // a CALL_ONCE init subgraph: its ASSIGN_VARIABLEs give initial values
    std::map<int32_t, OutPort> producers;
    std::map<int32_t, std::string> handles;  // VAR_HANDLE outputs: the variable each names
};

// A resource variable (VAR_HANDLE's container and shared_name) as the main subgraph's operators
// see it in their order.
struct Variable {
    std::optional<OutPort> initial;  // what a CALL_ONCE init subgraph assigned
    std::optional<OutPort> value;    // what the main subgraph assigned last
    std::optional<Node> state;       // READ_VARIABLE of the state kept across calls, when main reads it before assigning it
    bool assigned_by_main = false;
};

// The attributes of the READ_VARIABLE / ASSIGN_VARIABLE nodes of a variable's state: variable_id.
class VariableAttributes final : public FrameworkAttributes {
public:
    explicit VariableAttributes(std::string id) : id_(std::move(id)) {}
    std::optional<FrameworkAttr> get(std::string_view name) const override {
        if (name == "variable_id") return id_;
        return std::nullopt;
    }

private:
    std::string id_;
};

// Operators whose options name subgraphs: the option fields, in body order, and each body's role.
const std::vector<std::pair<const char*, const char*>>* body_fields(const std::string& type) {
    static const std::map<std::string, std::vector<std::pair<const char*, const char*>>> fields{
        {"IF", {{"then_subgraph_index", "then_body"}, {"else_subgraph_index", "else_body"}}},
        {"WHILE", {{"cond_subgraph_index", "cond"}, {"body_subgraph_index", "body"}}},
    };
    auto it = fields.find(type);
    return it == fields.end() ? nullptr : &it->second;
}

// Operators built in all may exceed the file's by this factor, plus a margin (a subgraph used by
// two operators is built twice, a WHILE's cond twice): the bound on a hostile file whose IFs call
// one subgraph from both branches, level after level, doubling at each.
constexpr size_t kBuiltOperatorsPerOperator = 4, kBuiltOperatorsMargin = 10'000;

class TfliteGraphBuilder {
public:
    TfliteGraphBuilder(const std::string& path, const ConversionOptions& options, const OpRegistry& ops)
        : path_(path), options_(options), graph_(std::make_unique<Graph>(ops)) {
        graph_->max_constant_bytes = options.max_constant_bytes;
    }

    std::unique_ptr<Graph> run() {
        file_ = MappedFile::open(path_);
        verify();
        model_ = tflite::GetModel(file_->data());
        if (!model_->subgraphs() || model_->subgraphs()->size() == 0)
            throw Error("the model has no subgraph", path_, "re-export the model");
        graph_->source_path = path_;
        graph_->source_framework = "tflite";
        graph_->source_layout = "NHWC";
        graph_->keep_alive.push_back(file_);
        size_t file_operators = 0;
        for (const tflite::SubGraph* g : *model_->subgraphs()) file_operators += g->operators() ? g->operators()->size() : 0;
        max_built_operators_ = kBuiltOperatorsPerOperator * file_operators + kBuiltOperatorsMargin;
        Scope main = scope(0, *graph_, 0);
        if (!main.subgraph->tensors()) throw Error("the main subgraph has no tensors", path_, "re-export the model");
        add_parameters(main);
        add_operators(main);
        add_results(main);
        add_variable_states(main);
        return std::move(graph_);
    }

private:
    void verify() {
        const auto* bytes = reinterpret_cast<const uint8_t*>(file_->data());
        if (file_->size() < 8 || !tflite::ModelBufferHasIdentifier(bytes))
            throw Error("not a TFLite model: the file lacks the TFL3 identifier", path_,
                        "pass a .tflite flatbuffer, or --framework for another format");
        // Depth and table limits well above real models, below what a hostile file could exhaust.
        flatbuffers::Verifier verifier(bytes, file_->size(), /*max_depth=*/128, /*max_tables=*/100'000'000);
        if (!tflite::VerifyModelBuffer(verifier))
            throw Error("the TFLite flatbuffer is corrupt or truncated (the flatbuffers verifier rejected it)", path_,
                        "re-export or re-download the model");
    }

    Scope scope(int64_t index, Graph& graph, size_t depth) const {
        Scope s;
        s.index = static_cast<uint32_t>(index);
        s.subgraph = model_->subgraphs()->Get(s.index);
        s.graph = &graph;
        s.depth = depth;
        return s;
    }

    // "subgraph 2 of FILE" for a body, the file for the main subgraph.
    std::string in(const Scope& s) const {
        return s.index == 0 ? path_ : "subgraph " + std::to_string(s.index) + " of " + path_;
    }

    const tflite::Tensor& tensor(const Scope& s, int32_t index, const std::string& where) const {
        const auto* tensors = s.subgraph->tensors();
        if (!tensors || index < 0 || static_cast<uint32_t>(index) >= tensors->size())
            throw Error("tensor index " + std::to_string(index) + " is outside the subgraph's " +
                            std::to_string(tensors ? tensors->size() : 0) + " tensors",
                        where + " in " + in(s), "the model is corrupt; re-export it");
        return *tensors->Get(static_cast<uint32_t>(index));
    }

    static std::string tensor_name(const tflite::Tensor& t, int32_t index) {
        return t.name() && t.name()->size() ? t.name()->str() : "tensor_" + std::to_string(index);
    }

    void add_parameters(Scope& s) {
        std::vector<int32_t> indices;
        std::vector<std::string> names;
        std::vector<PartialShape> shapes;
        if (s.subgraph->inputs())
            for (int32_t i : *s.subgraph->inputs()) {
                const auto& t = tensor(s, i, "subgraph input");
                indices.push_back(i);
                names.push_back(tensor_name(t, i));
                shapes.push_back(shape_of(t, "input '" + names.back() + "' of " + in(s)));
            }
        if (!s.body) apply_input_overrides(names, shapes, options_, path_);
        for (size_t k = 0; k < indices.size(); ++k) {
            const auto& t = tensor(s, indices[k], "subgraph input");
            ElementType type = element_type(t.type(), "input '" + names[k] + "' of " + in(s));
            auto q = quantization(s, indices[k], "subgraph input in " + in(s));
            // A body receives what its node reads: real values.
            if (q && s.body) type = ElementType::f32;
            const std::string name = s.body ? unique(names[k]) : names[k];
            Node p = s.graph->add_op("Parameter", name, {},
                                     {{"shape", AttrValue(shapes[k])}, {"element_type", AttrValue(type)}});
            p.out(0).set_type_and_shape(type, shapes[k]);
            p.out(0).names() = {names[k]};
            s.graph->parameters().push_back(p);
            s.producers[indices[k]] = p.out(0);
            // A quantized input stays as stored (an int8 Parameter); its consumers read real values.
            if (q && !s.body)
                s.producers[indices[k]] = quantization_node(s, kDequantizeStored, p.out(0), q, names[k], "dequantized");
            used_names_.insert(name);
        }
    }

    // The bytes of buffer `index`, or an empty span when it holds none.
    std::span<const std::byte> buffer_bytes(uint32_t index, const std::string& where) const {
        const auto* buffers = model_->buffers();
        if (!buffers || index >= buffers->size())
            throw Error("buffer index " + std::to_string(index) + " is outside the model's buffers", where,
                        "the model is corrupt; re-export it");
        const tflite::Buffer* b = buffers->Get(index);
        if (b->data() && b->data()->size())
            return {reinterpret_cast<const std::byte*>(b->data()->data()), b->data()->size()};
        if (b->offset() > 1) {  // data outside the flatbuffer (models over 2 GB)
            if (b->offset() > file_->size() || b->size() > file_->size() - b->offset())
                throw Error("buffer " + std::to_string(index) + " lies outside the file", where,
                            "the model is truncated; re-download it");
            return {file_->data() + b->offset(), static_cast<size_t>(b->size())};
        }
        return {};
    }

    // The producer of tensor `index`: a Parameter, an operator's output, or a Constant made from
    // the tensor's buffer on first use; nullopt for a tensor nothing produces.
    std::optional<OutPort> producer(Scope& s, int32_t index, const std::string& where) {
        if (auto it = s.producers.find(index); it != s.producers.end()) return it->second;
        const auto& t = tensor(s, index, where);
        const std::string name = tensor_name(t, index);
        const std::string at = "tensor '" + name + "' in " + in(s);
        const auto bytes = buffer_bytes(t.buffer(), at);
        // A tensor of no elements needs no bytes: an empty constant (RESHAPE's shape [] of a
        // reshape to a scalar, as onnx-tf's models have), not a missing one. A variable without
        // data (an LSTM's or RNN's state) holds zeros at the first invocation.
        if (bytes.empty() && !has_no_elements(t) && !t.is_variable()) return std::nullopt;
        const PartialShape shape = shape_of(t, at);
        if (!shape.is_static()) throw Error("a constant tensor has a dynamic shape", at, "re-export the model");
        const ElementType type = element_type(t.type(), at);
        const Shape dims = shape.to_shape();
        Tensor value;
        if (bytes.empty()) {
            const int64_t elements = located(at, [&] { return shape_size(dims); });
            if (!fits_bytes(type, elements, options_.max_constant_bytes))
                throw Error("the variable tensor has " + std::to_string(elements) + " elements, more than --max_constant_size (" +
                                std::to_string(options_.max_constant_bytes) + " bytes)",
                            at, "raise --max_constant_size if the model is genuine");
            value = Tensor::allocate(type, dims);
        } else if (t.sparsity()) {  // densified now: DENSIFY then passes it on
            value = densify_tflite(*t.sparsity(), type, dims, bytes, at, options_.max_constant_bytes);
        } else {
            const size_t need = located(at, [&] { return byte_size(type, static_cast<size_t>(shape_size(dims))); });
            if (need != bytes.size())
                throw Error("the buffer holds " + std::to_string(bytes.size()) + " bytes, the shape and type need " +
                                std::to_string(need),
                            at, "the model is corrupt; re-export it");
            value = Tensor(type, dims, std::make_shared<ViewBuffer>(file_, bytes.data(), bytes.size())).aligned_if_small();
        }
        Node c = s.graph->add_constant(unique(name), std::move(value));
        c.out(0).names() = {name};
        s.producers[index] = c.out(0);
        // A quantized constant stays as stored; its consumers read real values.
        if (auto q = quantization(s, index, where))
            s.producers[index] = quantization_node(s, kDequantizeStored, c.out(0), q, name, "dequantized");
        return s.producers[index];
    }

    // The quantization of tensor `index` as the attributes of a quantization node, or null;
    // `where` (with the file) names the operator or model input that reads or writes it.
    std::shared_ptr<const FrameworkAttributes> quantization(const Scope& s, int32_t index, const std::string& where,
                                                            const std::string& producer = {}) const {
        const auto& t = tensor(s, index, where);
        const std::string name = tensor_name(t, index);
        ElementType type = ElementType::dynamic;
        try {
            type = element_type(t.type(), where);
        } catch (const Error&) {
            return nullptr;  // a type mo does not read is reported where it is used
        }
        return tflite_quantization(t, type, name, where, producer);
    }

    // A framework node of the quantization domain (tflite_quantization.hpp) reading `src`, named
    // <tensor>/<suffix>.
    OutPort quantization_node(Scope& s, const char* type, const OutPort& src,
                              std::shared_ptr<const FrameworkAttributes> q, const std::string& tensor,
                              const std::string& suffix) {
        Node n = s.graph->add_node("FrameworkNode", unique(tensor + "/" + suffix));
        FrameworkInfo& fw = n.framework();
        fw.framework = "tflite";
        fw.domain = kTfliteQuantizationDomain;
        fw.type = type;
        fw.opset = 1;
        fw.attributes = std::move(q);
        n.set_input_count(1);
        n.set_output_count(1);
        n.in(0).connect(src);
        n.out(0).set_type_and_shape(ElementType::f32, src.shape());
        return n.out(0);
    }

    // `base`, or base_<k> with the first k not taken: each base remembers its next k, so that the
    // bodies built for every use of a subgraph (the same names again and again) cost no search.
    std::string unique(const std::string& base) {
        std::string name = base;
        int& k = next_suffix_[base];
        while (used_names_.count(name)) name = base + "_" + std::to_string(++k);
        used_names_.insert(name);
        return name;
    }

    const tflite::OperatorCode& operator_code(const tflite::Operator& op, const std::string& where) const {
        const auto* codes = model_->operator_codes();
        if (!codes || op.opcode_index() >= codes->size())
            throw Error("operator code index " + std::to_string(op.opcode_index()) + " is outside the model's codes",
                        where, "the model is corrupt; re-export it");
        return *codes->Get(op.opcode_index());
    }

    // The builtin operator (codes below 127 may live only in the old byte field; the larger of
    // the two is the code).
    tflite::BuiltinOperator builtin(const tflite::Operator& op, const std::string& where) const {
        const tflite::OperatorCode& code = operator_code(op, where);
        return static_cast<tflite::BuiltinOperator>(std::max(static_cast<int32_t>(code.builtin_code()),
                                                             static_cast<int32_t>(code.deprecated_builtin_code())));
    }

    void describe_operator(const tflite::Operator& op, FrameworkInfo& fw, const std::string& where) const {
        const tflite::OperatorCode& code = operator_code(op, where);
        const auto builtin_code = static_cast<int32_t>(builtin(op, where));
        fw.framework = "tflite";
        fw.opset = code.version();
        if (builtin_code == static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM)) {
            fw.domain = "custom";
            fw.type = code.custom_code() ? code.custom_code()->str() : "";
            if (fw.type == kEdgeTpuCustomCode)
                throw Error("this model was compiled for the Edge TPU (" + fw.type +
                                "): its layers run inside the Edge TPU's own operator",
                            where, "convert the CPU .tflite it was compiled from (the same name without _edgetpu)");
            if (const auto* options = op.custom_options())
                fw.attributes = tflite_custom_attributes({options->data(), options->size()});
            return;
        }
        const char* name = tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(builtin_code));
        fw.type = name && *name ? name : "BUILTIN_" + std::to_string(builtin_code);
        fw.attributes = options_of(op);
    }

    static std::shared_ptr<const FrameworkAttributes> options_of(const tflite::Operator& op) {
        const auto options_type = static_cast<uint8_t>(op.builtin_options_type());
        const flatbuffers::TypeTable* table = nullptr;
        // num_elems counts NONE too: type_refs has num_elems - 1 entries (the verifier lets an
        // unknown union type through).
        if (options_type > 0 && options_type < tflite::BuiltinOptionsTypeTable()->num_elems)
            table = tflite::BuiltinOptionsTypeTable()->type_refs[options_type - 1]();
        return tflite_attributes(static_cast<const flatbuffers::Table*>(op.builtin_options()), table);
    }

    void add_operators(Scope& s) {
        if (!s.subgraph->operators()) return;
        const auto& ops = *s.subgraph->operators();
        built_operators_ += ops.size();
        if (built_operators_ > max_built_operators_)
            throw Error("the model's IF / WHILE subgraphs come to more than " + std::to_string(max_built_operators_) +
                            " operators once each use is built",
                        path_, "mo builds a subgraph once per operator that uses it; the model nests them too much");
        std::vector<Node> nodes;
        std::set<std::string> assigned_later;  // variables the main subgraph assigns
        if (s.index == 0 && !s.init) assigned_later = variables_assigned(s);
        for (uint32_t i = 0; i < ops.size(); ++i) {
            const tflite::Operator& op = *ops.Get(i);
            const std::string where = "operator " + std::to_string(i);
            const size_t outputs = op.outputs() ? op.outputs()->size() : 0;
            if (is_variable_op(builtin(op, where + " in " + in(s)))) {
                variable_op(s, op, where, assigned_later);
                nodes.emplace_back();
                continue;
            }
            if (outputs == 0)
                throw Error("the operator has no outputs", where + " in " + in(s), "the model is corrupt; re-export it");
            std::string name = tensor_name(tensor(s, op.outputs()->Get(0), where), op.outputs()->Get(0));
            Node node = s.graph->add_node("FrameworkNode", unique(name));
            describe_operator(op, node.framework(), where + " ('" + name + "') in " + in(s));
            node.set_input_count(op.inputs() ? op.inputs()->size() : 0);
            node.set_output_count(outputs);
            for (size_t j = 0; j < outputs; ++j) {
                const int32_t t = op.outputs()->Get(static_cast<uint32_t>(j));
                if (s.producers.count(t))
                    throw Error("tensor '" + tensor_name(tensor(s, t, where), t) + "' is produced twice",
                                where + " ('" + name + "') in " + in(s), "the model is corrupt; re-export it");
                const tflite::Tensor& out = tensor(s, t, where);
                node.out(j).names() = {tensor_name(out, t)};
                // The declared type and shape, for extractors that need them (CAST); inference
                // recomputes both once the node is extracted.
                const std::string at = where + " ('" + name + "', " + node.framework().type + ") in " + in(s);
                const PartialShape shape = shape_of(out, "tensor '" + tensor_name(out, t) + "' of " + at);
                bool typed = true;
                try {
                    node.out(j).set_type_and_shape(element_type(out.type(), where), shape);
                } catch (const Error&) {
                    typed = false;  // a type mo does not read: reported if an extractor ever needs it
                }
                s.producers[t] = node.out(j);
                // A quantized output is snapped to its grid; consumers read it by the tensor's name.
                if (auto q = typed ? quantization(s, t, at, node.framework().type) : nullptr) {
                    s.producers[t] = quantization_node(s, kFakeQuantizeTensor, node.out(j), q, node.out(j).names()[0],
                                                       "fake_quantize");
                    s.producers[t].names() = std::move(node.out(j).names());
                    node.out(j).names().clear();
                }
            }
            nodes.push_back(node);
        }
        for (uint32_t i = 0; i < ops.size(); ++i) {
            const tflite::Operator& op = *ops.Get(i);
            if (!nodes[i]) continue;  // a variable operator, resolved above
            const std::string where = "operator " + std::to_string(i) + " ('" + nodes[i].name() + "', " +
                                      nodes[i].framework().type + ") in " + in(s);
            for (uint32_t j = 0; op.inputs() && j < op.inputs()->size(); ++j) {
                const int32_t t = op.inputs()->Get(j);
                if (t < 0) continue;  // an absent optional input
                // The graph carries a quantized tensor's real values; CAST would need its integers.
                if (nodes[i].framework().type == "CAST" && quantization(s, t, where))
                    throw Error("CAST of the quantized tensor '" + tensor_name(tensor(s, t, where), t) +
                                    "' (it converts the stored integers, not the real values) is not supported",
                                where, "see docs/tflite.md for the supported quantized models");
                nodes[i].in(j).connect(input(s, t, where));
            }
            if (const auto* fields = body_fields(nodes[i].framework().type)) add_bodies(s, nodes[i], *fields, where);
        }
    }

    OutPort input(Scope& s, int32_t t, const std::string& where) {
        auto src = producer(s, t, where);
        if (!src)
            throw Error("input tensor '" + tensor_name(tensor(s, t, where), t) +
                            "' has no data and is produced by no operator",
                        where, "the model is incomplete; re-export it");
        return *src;
    }

    // IF's and WHILE's subgraphs become bodies of the node, each built anew: its inputs become
    // Parameters, its outputs Results (the extractor maps them onto the node's ports).
    void add_bodies(Scope& s, Node node, const std::vector<std::pair<const char*, const char*>>& fields,
                    const std::string& where) {
        if (s.depth + 1 > kMaxBodyNesting)
            throw Error("subgraphs nest more than " + std::to_string(kMaxBodyNesting) + " levels deep", where,
                        "a subgraph that calls itself never ends; the model is corrupt");
        for (const auto& [field, role] : fields) {
            const auto a = node.framework().attributes ? node.framework().attributes->get(field) : std::nullopt;
            const int64_t* index = a ? std::get_if<int64_t>(&*a) : nullptr;
            const int64_t count = model_->subgraphs()->size();
            if (!index || *index < 0 || *index >= count)
                throw Error(std::string(field) + " " + (index ? std::to_string(*index) : "(absent)") +
                                " is not one of the model's " + std::to_string(count) + " subgraphs",
                            where, "the model is corrupt; re-export it");
            Body& b = node.add_body(role);
            Scope body = scope(*index, *b.graph, s.depth + 1);
            body.body = true;
            if (!body.subgraph->tensors() && body.subgraph->operators() && body.subgraph->operators()->size())
                throw Error("the subgraph has operators but no tensors", in(body), "the model is corrupt; re-export it");
            add_parameters(body);
            add_operators(body);
            add_results(body);
        }
    }

    void add_results(Scope& s) {
        if (!s.subgraph->outputs()) return;
        for (int32_t i : *s.subgraph->outputs()) {
            auto src = producer(s, i, "subgraph output");
            const std::string name = tensor_name(tensor(s, i, "subgraph output"), i);
            if (!src)
                throw Error("output tensor '" + name + "' is produced by no operator", in(s), "re-export the model");
            // A quantized output returns its stored integers, as the model does; a body's, its
            // real values, as the node's consumers read them.
            if (auto q = s.body ? nullptr : quantization(s, i, "subgraph output in " + in(s))) {
                OutPort stored = quantization_node(s, kQuantizeOutput, *src, q, name, "quantized");
                stored.names() = std::move(src->names());
                src->names().clear();
                src = stored;
            }
            Node r = s.graph->add_op("Result", name + "/sink_port_0", {*src});
            s.graph->results().push_back(r);
        }
    }

    // ---------------------------------------------------------------- resource variables
    //
    // TFLite runs CALL_ONCE's init subgraph at the first call; it assigns the variables their
    // initial values (VAR_HANDLE names a variable, ASSIGN_VARIABLE writes it, READ_VARIABLE reads
    // it, in operator order). The init subgraph is built into the main graph (it takes no
    // inputs: its values are constants once folded). A READ_VARIABLE reads the value last
    // assigned before it; one of a variable that the main subgraph assigns later reads the state
    // kept from the previous call: ReadValue of the initial value, with an Assign of the last
    // value (a sink of the graph). Variables in IF / WHILE bodies are refused.

    static bool is_variable_op(tflite::BuiltinOperator code) {
        using B = tflite::BuiltinOperator;
        return code == B::VAR_HANDLE || code == B::READ_VARIABLE || code == B::ASSIGN_VARIABLE || code == B::CALL_ONCE;
    }

    static std::string variable_key(const tflite::Operator& op) {
        const auto* o = op.builtin_options_as_VarHandleOptions();
        const std::string container = o && o->container() ? o->container()->str() : "";
        const std::string name = o && o->shared_name() ? o->shared_name()->str() : "";
        return container.empty() ? name : container + "/" + name;
    }

    // The variables the main subgraph's ASSIGN_VARIABLEs write.
    std::set<std::string> variables_assigned(const Scope& s) const {
        std::set<std::string> assigned;
        std::map<int32_t, std::string> handles;
        const auto& ops = *s.subgraph->operators();
        for (uint32_t i = 0; i < ops.size(); ++i) {
            const tflite::Operator& op = *ops.Get(i);
            const std::string where = "operator " + std::to_string(i) + " in " + in(s);
            const auto code = builtin(op, where);
            if (code == tflite::BuiltinOperator::VAR_HANDLE && op.outputs() && op.outputs()->size() == 1)
                handles[op.outputs()->Get(0)] = variable_key(op);
            if (code == tflite::BuiltinOperator::ASSIGN_VARIABLE && op.inputs() && op.inputs()->size() == 2)
                if (auto it = handles.find(op.inputs()->Get(0)); it != handles.end()) assigned.insert(it->second);
        }
        return assigned;
    }

    void variable_op(Scope& s, const tflite::Operator& op, const std::string& at, const std::set<std::string>& assigned_later) {
        using B = tflite::BuiltinOperator;
        const std::string where = at + " in " + in(s);
        const B code = builtin(op, where);
        const std::string type = tflite::EnumNameBuiltinOperator(code);
        if (s.body)
            throw Error(type + " in an IF / WHILE subgraph (resource variables in control flow) is not supported", where,
                        "mo converts variables that the main subgraph and its CALL_ONCE init subgraph use");
        const size_t n_in = op.inputs() ? op.inputs()->size() : 0, n_out = op.outputs() ? op.outputs()->size() : 0;
        auto expect = [&](size_t inputs, size_t outputs) {
            if (n_in != inputs || n_out != outputs)
                throw Error(type + " has " + std::to_string(n_in) + " inputs and " + std::to_string(n_out) +
                                " outputs, not " + std::to_string(inputs) + " and " + std::to_string(outputs),
                            where, "the model is corrupt; re-export it");
        };
        auto variable_of = [&](int32_t handle) -> std::pair<const std::string, Variable>& {
            auto it = s.handles.find(handle);
            if (it == s.handles.end())
                throw Error(type + " reads a resource that no VAR_HANDLE before it makes", where,
                            "the model is corrupt; re-export it");
            return *variables_.try_emplace(it->second).first;
        };
        switch (code) {
            case B::CALL_ONCE: {
                expect(0, 0);
                if (s.init) throw Error("CALL_ONCE inside a CALL_ONCE init subgraph is not supported", where, "");
                const auto* o = op.builtin_options_as_CallOnceOptions();
                const int64_t index = o ? o->init_subgraph_index() : -1, count = model_->subgraphs()->size();
                if (index <= 0 || index >= count)
                    throw Error("init_subgraph_index " + std::to_string(index) + " is not one of the model's " +
                                    std::to_string(count - 1) + " subgraphs besides the main one",
                                where, "the model is corrupt; re-export it");
                Scope init = scope(index, *s.graph, s.depth);
                init.init = true;
                if (init.subgraph->inputs() && init.subgraph->inputs()->size())
                    throw Error("the CALL_ONCE init subgraph takes inputs", in(init), "the model is corrupt; re-export it");
                add_operators(init);
                return;
            }
            case B::VAR_HANDLE:
                expect(0, 1);
                s.handles[op.outputs()->Get(0)] = variable_key(op);
                return;
            case B::ASSIGN_VARIABLE: {
                expect(2, 0);
                auto& [name, v] = variable_of(op.inputs()->Get(0));
                const OutPort value = input(s, op.inputs()->Get(1), where);
                if (s.init) v.initial = value;
                else v.value = value, v.assigned_by_main = true;
                return;
            }
            case B::READ_VARIABLE: {
                expect(1, 1);
                auto& [name, v] = variable_of(op.inputs()->Get(0));
                const int32_t out = op.outputs()->Get(0);
                if (s.producers.count(out))
                    throw Error("tensor '" + tensor_name(tensor(s, out, where), out) + "' is produced twice", where,
                                "the model is corrupt; re-export it");
                std::optional<OutPort> value = s.init ? v.initial : v.value;
                if (!value && !s.init && assigned_later.count(name)) value = state(s, name, v, where);
                if (!value && !s.init) value = v.initial;
                if (!value)
                    throw Error("READ_VARIABLE reads the variable '" + name + "' before anything assigns it", where,
                                "TFLite fails on this too; assign the variable in the model's CALL_ONCE init subgraph");
                s.producers[out] = *value;
                return;
            }
            default: return;
        }
    }

    // The state of variable `name` as the call starts: a READ_VARIABLE node reading the initial
    // value (the extractor makes it a ReadValue); Assign of the last value follows at the end.
    OutPort state(Scope& s, const std::string& name, Variable& v, const std::string& where) {
        if (!v.state) {
            if (!v.initial)
                throw Error("READ_VARIABLE reads the variable '" + name + "' before anything assigns it", where,
                            "TFLite fails on this too; assign the variable in the model's CALL_ONCE init subgraph");
            Node read = s.graph->add_node("FrameworkNode", unique(name + "/state"));
            read.framework().framework = "tflite";
            read.framework().type = "READ_VARIABLE";
            read.framework().opset = 1;
            read.framework().attributes = variable_attributes(name);
            read.set_input_count(1);
            read.set_output_count(1);
            read.in(0).connect(*v.initial);
            v.state = read;
        }
        return v.state->out(0);
    }

    static std::shared_ptr<const FrameworkAttributes> variable_attributes(const std::string& name) {
        return std::make_shared<VariableAttributes>(name);
    }

    // Each variable whose state the main subgraph reads keeps its last value for the next call.
    void add_variable_states(Scope& s) {
        for (auto& [name, v] : variables_) {
            if (!v.state || !v.value) continue;
            Node assign = s.graph->add_node("FrameworkNode", unique(name + "/assign"));
            assign.framework().framework = "tflite";
            assign.framework().type = "ASSIGN_VARIABLE";
            assign.framework().opset = 1;
            assign.framework().attributes = variable_attributes(name);
            assign.set_input_count(1);
            assign.set_output_count(1);
            assign.in(0).connect(*v.value);
            s.graph->sinks().push_back(assign);
        }
    }

    std::string path_;
    const ConversionOptions& options_;
    std::unique_ptr<Graph> graph_;
    std::shared_ptr<const MappedFile> file_;
    const tflite::Model* model_ = nullptr;
    std::map<std::string, Variable> variables_;
    std::set<std::string> used_names_;
    std::unordered_map<std::string, int> next_suffix_;
    size_t built_operators_ = 0, max_built_operators_ = 0;
};

bool looks_like_tflite(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char header[8] = {};
    return in.read(header, 8) && std::string(header + 4, 4) == "TFL3";
}

}  // namespace

std::unique_ptr<Graph> load_tflite(const std::string& path, const ConversionOptions& options, const OpRegistry& ops) {
    return TfliteGraphBuilder(path, options, ops).run();
}

void register_tflite_loader(LoaderRegistry& r) {
    Loader l;
    l.framework = "tflite";
    l.extensions = {".tflite"};
    l.recognizes = looks_like_tflite;
    l.load = load_tflite;
    l.description = "TensorFlow Lite (.tflite)";
    r.add(std::move(l));
}

}  // namespace mo
