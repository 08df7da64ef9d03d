#include "loaders/tflite/tflite_loader.hpp"

#include <fstream>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/infer.hpp"
#include "core/mapped_file.hpp"
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

class TfliteGraphBuilder {
public:
    TfliteGraphBuilder(const std::string& path, const ConversionOptions& options, const OpRegistry& ops)
        : path_(path), options_(options), graph_(std::make_unique<Graph>(ops)) {}

    std::unique_ptr<Graph> run() {
        file_ = MappedFile::open(path_);
        verify();
        model_ = tflite::GetModel(file_->data());
        if (!model_->subgraphs() || model_->subgraphs()->size() == 0)
            throw Error("the model has no subgraph", path_, "re-export the model");
        subgraph_ = model_->subgraphs()->Get(0);
        if (!subgraph_->tensors()) throw Error("the main subgraph has no tensors", path_, "re-export the model");
        graph_->source_path = path_;
        graph_->source_framework = "tflite";
        graph_->source_layout = "NHWC";
        graph_->keep_alive.push_back(file_);
        add_parameters();
        add_operators();
        add_results();
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

    const tflite::Tensor& tensor(int32_t index, const std::string& where) const {
        if (index < 0 || static_cast<uint32_t>(index) >= subgraph_->tensors()->size())
            throw Error("tensor index " + std::to_string(index) + " is outside the subgraph's " +
                            std::to_string(subgraph_->tensors()->size()) + " tensors",
                        where + " in " + path_, "the model is corrupt; re-export it");
        return *subgraph_->tensors()->Get(static_cast<uint32_t>(index));
    }

    static std::string tensor_name(const tflite::Tensor& t, int32_t index) {
        return t.name() && t.name()->size() ? t.name()->str() : "tensor_" + std::to_string(index);
    }

    void add_parameters() {
        std::vector<int32_t> indices;
        std::vector<std::string> names;
        std::vector<PartialShape> shapes;
        if (subgraph_->inputs())
            for (int32_t i : *subgraph_->inputs()) {
                const auto& t = tensor(i, "subgraph input");
                indices.push_back(i);
                names.push_back(tensor_name(t, i));
                shapes.push_back(shape_of(t, "input '" + names.back() + "' of " + path_));
            }
        apply_input_overrides(names, shapes, options_, path_);
        for (size_t k = 0; k < indices.size(); ++k) {
            const auto& t = tensor(indices[k], "subgraph input");
            const ElementType type = element_type(t.type(), "input '" + names[k] + "' of " + path_);
            Node p = graph_->add_op("Parameter", names[k], {},
                                    {{"shape", AttrValue(shapes[k])}, {"element_type", AttrValue(type)}});
            p.out(0).set_type_and_shape(type, shapes[k]);
            p.out(0).names() = {names[k]};
            graph_->parameters().push_back(p);
            producers_[indices[k]] = p.out(0);
            // A quantized input stays as stored (an int8 Parameter); its consumers read real values.
            if (auto q = quantization(indices[k], "subgraph input in " + path_))
                producers_[indices[k]] = quantization_node(kDequantizeStored, p.out(0), q, names[k], "dequantized");
            used_names_.insert(names[k]);
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
    std::optional<OutPort> producer(int32_t index, const std::string& where) {
        if (auto it = producers_.find(index); it != producers_.end()) return it->second;
        const auto& t = tensor(index, where);
        const std::string name = tensor_name(t, index);
        const std::string at = "tensor '" + name + "' in " + path_;
        const auto bytes = buffer_bytes(t.buffer(), at);
        // A variable without data (an LSTM's state) holds zeros at the first invocation.
        if (bytes.empty() && t.is_variable()) return variable_zeros(index, t, name, at);
        if (bytes.empty()) return std::nullopt;
        const PartialShape shape = shape_of(t, at);
        if (!shape.is_static()) throw Error("a constant tensor has a dynamic shape", at, "re-export the model");
        const ElementType type = element_type(t.type(), at);
        const Shape s = shape.to_shape();
        Tensor value;
        if (t.sparsity()) {  // densified now: DENSIFY then passes it on
            value = densify_tflite(*t.sparsity(), type, s, bytes, at);
        } else {
            const size_t need = located(at, [&] { return byte_size(type, static_cast<size_t>(shape_size(s))); });
            if (need != bytes.size())
                throw Error("the buffer holds " + std::to_string(bytes.size()) + " bytes, the shape and type need " +
                                std::to_string(need),
                            at, "the model is corrupt; re-export it");
            value = Tensor(type, s, std::make_shared<ViewBuffer>(file_, bytes.data(), bytes.size())).aligned_if_small();
        }
        Node c = graph_->add_constant(unique(name), std::move(value));
        c.out(0).names() = {name};
        producers_[index] = c.out(0);
        // A quantized constant stays as stored; its consumers read real values.
        if (auto q = quantization(index, where))
            producers_[index] = quantization_node(kDequantizeStored, c.out(0), q, name, "dequantized");
        return producers_[index];
    }

    // A zero Constant for variable tensor `index`: the value TFLite gives a variable before the
    // first invocation writes it (the IR computes one invocation from that state).
    OutPort variable_zeros(int32_t index, const tflite::Tensor& t, const std::string& name, const std::string& at) {
        const PartialShape shape = shape_of(t, at);
        if (!shape.is_static()) throw Error("a variable tensor has a dynamic shape", at, "re-export the model");
        const ElementType type = element_type(t.type(), at);
        const Shape s = shape.to_shape();
        const int64_t elements = located(at, [&] { return shape_size(s); });
        if (!fits_max_folded_bytes(type, elements))
            throw Error("the variable tensor has " + std::to_string(elements) + " elements, more than --max_constant_size (" +
                            std::to_string(max_folded_bytes()) + " bytes)",
                        at, "raise --max_constant_size if the model is genuine");
        Node c = graph_->add_constant(unique(name), Tensor::allocate(type, s));
        c.out(0).names() = {name};
        producers_[index] = c.out(0);
        return c.out(0);
    }

    // The quantization of tensor `index` as the attributes of a quantization node, or null;
    // `where` (with the file) names the operator or model input that reads or writes it.
    std::shared_ptr<const FrameworkAttributes> quantization(int32_t index, const std::string& where,
                                                            const std::string& producer = {}) const {
        const auto& t = tensor(index, where);
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
    OutPort quantization_node(const char* type, const OutPort& src, std::shared_ptr<const FrameworkAttributes> q,
                              const std::string& tensor, const std::string& suffix) {
        Node n = graph_->add_node("FrameworkNode", unique(tensor + "/" + suffix));
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

    std::string unique(const std::string& base) {
        std::string name = base;
        for (int k = 1; used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
        used_names_.insert(name);
        return name;
    }

    void describe_operator(const tflite::Operator& op, FrameworkInfo& fw, const std::string& where) const {
        const auto* codes = model_->operator_codes();
        if (!codes || op.opcode_index() >= codes->size())
            throw Error("operator code index " + std::to_string(op.opcode_index()) + " is outside the model's codes",
                        where, "the model is corrupt; re-export it");
        const tflite::OperatorCode* code = codes->Get(op.opcode_index());
        // Codes below 127 may live only in the old byte field; the larger of the two is the code.
        const auto builtin = std::max(static_cast<int32_t>(code->builtin_code()),
                                      static_cast<int32_t>(code->deprecated_builtin_code()));
        fw.framework = "tflite";
        fw.opset = code->version();
        if (builtin == static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM)) {
            fw.domain = "custom";
            fw.type = code->custom_code() ? code->custom_code()->str() : "";
            if (fw.type == kEdgeTpuCustomCode)
                throw Error("this model was compiled for the Edge TPU (" + fw.type +
                                "): its layers run inside the Edge TPU's own operator",
                            where, "convert the CPU .tflite it was compiled from (the same name without _edgetpu)");
            if (const auto* options = op.custom_options())
                fw.attributes = tflite_custom_attributes({options->data(), options->size()});
            return;
        }
        const char* name = tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(builtin));
        fw.type = name && *name ? name : "BUILTIN_" + std::to_string(builtin);
        const auto options_type = static_cast<uint8_t>(op.builtin_options_type());
        const flatbuffers::TypeTable* table = nullptr;
        // num_elems counts NONE too: type_refs has num_elems - 1 entries (the verifier lets an
        // unknown union type through).
        if (options_type > 0 && options_type < tflite::BuiltinOptionsTypeTable()->num_elems)
            table = tflite::BuiltinOptionsTypeTable()->type_refs[options_type - 1]();
        fw.attributes = tflite_attributes(static_cast<const flatbuffers::Table*>(op.builtin_options()), table);
    }

    void add_operators() {
        if (!subgraph_->operators()) return;
        const auto& ops = *subgraph_->operators();
        std::vector<Node> nodes;
        for (uint32_t i = 0; i < ops.size(); ++i) {
            const tflite::Operator& op = *ops.Get(i);
            const std::string where = "operator " + std::to_string(i);
            const size_t outputs = op.outputs() ? op.outputs()->size() : 0;
            if (outputs == 0)
                throw Error("the operator has no outputs", where + " in " + path_, "the model is corrupt; re-export it");
            std::string name = where;
            if (outputs) name = tensor_name(tensor(op.outputs()->Get(0), where), op.outputs()->Get(0));
            Node node = graph_->add_node("FrameworkNode", unique(name));
            describe_operator(op, node.framework(), where + " ('" + name + "') in " + path_);
            node.framework().record = &op;
            node.set_input_count(op.inputs() ? op.inputs()->size() : 0);
            node.set_output_count(outputs);
            for (size_t j = 0; j < outputs; ++j) {
                const int32_t t = op.outputs()->Get(static_cast<uint32_t>(j));
                if (producers_.count(t))
                    throw Error("tensor '" + tensor_name(tensor(t, where), t) + "' is produced twice",
                                where + " ('" + name + "') in " + path_, "the model is corrupt; re-export it");
                const tflite::Tensor& out = tensor(t, where);
                node.out(j).names() = {tensor_name(out, t)};
                // The declared type and shape, for extractors that need them (CAST); inference
                // recomputes both once the node is extracted.
                const std::string at = where + " ('" + name + "', " + node.framework().type + ") in " + path_;
                const PartialShape shape = shape_of(out, "tensor '" + tensor_name(out, t) + "' of " + at);
                bool typed = true;
                try {
                    node.out(j).set_type_and_shape(element_type(out.type(), where), shape);
                } catch (const Error&) {
                    typed = false;  // a type mo does not read: reported if an extractor ever needs it
                }
                producers_[t] = node.out(j);
                // A quantized output is snapped to its grid; consumers read it by the tensor's name.
                if (auto q = typed ? quantization(t, at, node.framework().type) : nullptr) {
                    producers_[t] = quantization_node(kFakeQuantizeTensor, node.out(j), q, node.out(j).names()[0],
                                                      "fake_quantize");
                    producers_[t].names() = std::move(node.out(j).names());
                    node.out(j).names().clear();
                }
            }
            nodes.push_back(node);
        }
        for (uint32_t i = 0; i < ops.size(); ++i) {
            const tflite::Operator& op = *ops.Get(i);
            if (!op.inputs()) continue;
            const std::string where = "operator " + std::to_string(i) + " ('" + nodes[i].name() + "', " +
                                      nodes[i].framework().type + ") in " + path_;
            for (uint32_t j = 0; j < op.inputs()->size(); ++j) {
                const int32_t t = op.inputs()->Get(j);
                if (t < 0) continue;  // an absent optional input
                // The graph carries a quantized tensor's real values; CAST would need its integers.
                if (nodes[i].framework().type == "CAST" && quantization(t, where))
                    throw Error("CAST of the quantized tensor '" + tensor_name(tensor(t, where), t) +
                                    "' (it converts the stored integers, not the real values) is not supported",
                                where, "see docs/tflite.md for the supported quantized models");
                auto src = producer(t, where);
                if (!src)
                    throw Error("input tensor '" + tensor_name(tensor(t, where), t) +
                                    "' has no data and is produced by no operator",
                                where, "the model is incomplete; re-export it");
                nodes[i].in(j).connect(*src);
            }
        }
    }

    void add_results() {
        if (!subgraph_->outputs()) return;
        for (int32_t i : *subgraph_->outputs()) {
            auto src = producer(i, "subgraph output");
            const std::string name = tensor_name(tensor(i, "subgraph output"), i);
            if (!src)
                throw Error("output tensor '" + name + "' is produced by no operator", path_, "re-export the model");
            // A quantized output returns its stored integers, as the model does.
            if (auto q = quantization(i, "subgraph output in " + path_)) {
                OutPort stored = quantization_node(kQuantizeOutput, *src, q, name, "quantized");
                stored.names() = std::move(src->names());
                src->names().clear();
                src = stored;
            }
            Node r = graph_->add_op("Result", name + "/sink_port_0", {*src});
            graph_->results().push_back(r);
        }
    }

    std::string path_;
    const ConversionOptions& options_;
    std::unique_ptr<Graph> graph_;
    std::shared_ptr<const MappedFile> file_;
    const tflite::Model* model_ = nullptr;
    const tflite::SubGraph* subgraph_ = nullptr;
    std::map<int32_t, OutPort> producers_;
    std::set<std::string> used_names_;
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
