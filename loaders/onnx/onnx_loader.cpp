// ONNX model file -> graph of FrameworkNodes. Initializer weights stay in the memory-mapped
// file: the wire scanner lifts their raw_data out before protobuf parses the rest.
#include "loaders/onnx/onnx_loader.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <deque>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include "core/log.hpp"
#include "core/mapped_file.hpp"
#include "loaders/input_overrides.hpp"
#include "loaders/onnx/onnx_attributes.hpp"
#include "loaders/onnx/onnx_tensor.hpp"
#include "loaders/protobuf_text.hpp"
#include "loaders/protobuf_wire.hpp"

namespace mo {

namespace {

constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxTestedOpset = 17;

bool is_text_format(const std::string& path) {
    auto ext = std::filesystem::path(path).extension().string();
    return ext == ".prototxt" || ext == ".pbtxt";
}

// The parsed model plus where each initializer's raw data lives in the mapped file.
struct ParsedModel {
    std::shared_ptr<onnx::ModelProto> model;
    std::shared_ptr<const MappedFile> file;
    std::vector<std::optional<protobuf_wire::ByteRange>> initializer_raw;
};

// Whether a model protobuf refused parses when messages may nest deeper than protobuf's default
// 100: then the model nests too deeply (If / Loop / Scan bodies, most likely), its bytes are fine.
bool nested_too_deeply(const std::string& bytes, bool text) {
    constexpr int kDeeper = 1024;
    onnx::ModelProto model;
    if (text) return !protobuf_text::parse(bytes, model, kDeeper);
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
    in.SetRecursionLimit(kDeeper);
    return model.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

// `detail`: the text parser's first error.
Error parse_failure(const std::string& bytes, bool text, const std::string& path, const std::string& detail = {}) {
    if (nested_too_deeply(bytes, text))
        return Error("the model nests messages more deeply than protobuf parses (100 levels; each If / Loop / Scan "
                     "body nested in another takes 3)",
                     path, "re-export the model with less deeply nested control flow");
    // A Caffe deploy.prototxt shares the extension.
    if (text && (bytes.find("layer {") != std::string::npos || bytes.find("layers {") != std::string::npos))
        return Error("cannot parse the ONNX text-format model: " + detail, path,
                     "this looks like a Caffe net: pass --framework caffe, or --input_model m.caffemodel --input_proto deploy.prototxt");
    return Error(text ? "cannot parse the ONNX text-format model: " + detail : "cannot parse the ONNX model", path,
                 "check that the file is an ONNX model (binary .onnx or text .prototxt)");
}

ParsedModel parse_model(const std::string& path) {
    ParsedModel p;
    p.file = MappedFile::open(path);
    // Parsed into an arena: one allocation per block instead of one per message and string, so
    // a model of a million nodes parses, lives and is freed faster and in less memory.
    struct ArenaModel {
        google::protobuf::Arena arena;
        onnx::ModelProto* model = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
    };
    auto holder = std::make_shared<ArenaModel>();
    p.model = std::shared_ptr<onnx::ModelProto>(holder, holder->model);
    const std::string hint = "check that the file is an ONNX model (binary .onnx or text .prototxt)";
    if (is_text_format(path)) {
        std::string text(reinterpret_cast<const char*>(p.file->data()), p.file->size());
        if (auto error = protobuf_text::parse(text, *p.model)) throw parse_failure(text, true, path, *error);
        return p;
    }
    // ModelProto.graph(7).initializer(5).raw_data(9), one item per initializer.
    auto stripped = protobuf_wire::lift_bytes_fields(p.file->data(), p.file->size(), {7, 5, 9}, 1, path, "ONNX");
    if (stripped.bytes.size() > static_cast<size_t>(INT32_MAX))
        throw Error("the ONNX model's structure exceeds 2 GB", path, "store large weights as external data");
    if (!p.model->ParseFromString(stripped.bytes)) throw parse_failure(stripped.bytes, false, path);
    p.initializer_raw = std::move(stripped.items);
    if (p.initializer_raw.size() != static_cast<size_t>(p.model->graph().initializer_size()))
        throw Error("initializer count mismatch after parsing", path, hint);
    return p;
}

std::string canonical_domain(const std::string& d) { return d == "ai.onnx" ? std::string() : d; }

PartialShape shape_of(const onnx::ValueInfoProto& vi) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return PartialShape::dynamic_rank();
    std::vector<Dimension> dims;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
        if (d.has_dim_value() && d.dim_value() >= 0) dims.emplace_back(d.dim_value());
        else dims.emplace_back();  // symbolic or unknown
    }
    return PartialShape(std::move(dims));
}

// One ONNX graph being built: the model's graph, or a body (a GRAPH attribute of If, Loop or
// Scan). A body reads the values of enclosing graphs by name; each such outer value becomes a
// Parameter of the body and an input of the node that owns it.
struct Scope {
    Graph* graph = nullptr;
    const onnx::GraphProto* proto = nullptr;
    Scope* parent = nullptr;
    Node owner;          // in the parent's graph
    Body* body = nullptr;  // owner's body built from this scope
    size_t first_capture = 0;  // owner's inputs from here on are outer values its bodies read
    // Keyed by views of the model's own strings (the parsed model outlives the builder): on a
    // million-node graph, copies of every tensor name would cost more than the graph.
    std::unordered_map<std::string_view, OutPort> producers;
    std::unordered_map<std::string_view, int> initializers;
    std::vector<std::optional<protobuf_wire::ByteRange>> initializer_raw;  // the model's graph only
};

class OnnxGraphBuilder {
public:
    OnnxGraphBuilder(const std::string& path, const ConversionOptions& options, const OpRegistry& ops)
        : path_(path), options_(options), graph_(std::make_unique<Graph>(ops)), tensors_(path, options.external_data_dir) {
        graph_->max_constant_bytes = options.max_constant_bytes;
    }

    std::unique_ptr<Graph> run() {
        parsed_ = parse_model(path_);
        graph_->source_path = path_;
        graph_->source_framework = "onnx";
        graph_->keep_alive.push_back(parsed_.model);
        graph_->keep_alive.push_back(parsed_.file);
        read_opsets();
        Scope top;
        top.graph = graph_.get();
        top.proto = &parsed_.model->graph();
        top.initializer_raw = std::move(parsed_.initializer_raw);
        top.producers.reserve(static_cast<size_t>(top.proto->node_size()) + top.proto->input_size() + top.proto->initializer_size());
        for (int i = 0; i < top.proto->initializer_size(); ++i) top.initializers.emplace(top.proto->initializer(i).name(), i);
        add_parameters(top);
        add_nodes(top);
        add_results(top);
        return std::move(graph_);
    }

private:
    void read_opsets() {
        for (const auto& o : parsed_.model->opset_import()) opsets_[canonical_domain(o.domain())] = o.version();
        auto it = opsets_.find("");
        if (it == opsets_.end()) {
            // IR versions before 3 imply opset 1; otherwise nodes of the default domain are
            // reported as using a domain the model does not import.
            if (parsed_.model->opset_import_size() == 0 && parsed_.model->ir_version() < 3) opsets_[""] = 1;
            return;
        }
        if (it->second < kMinOpset)
            MO_LOG(Warning, "ai.onnx opset ", it->second, " is older than the supported opsets 7..17: ", path_);
        if (it->second > kMaxTestedOpset)
            MO_LOG(Warning, "ai.onnx opset ", it->second, " is newer than the tested opsets 7..17: ", path_);
    }

    std::string scope_name(const Scope& s) const {
        return s.parent ? "the body of node '" + s.owner.name() + "' in " + path_ : path_;
    }

    Node add_parameter(Scope& s, const std::string& name, ElementType type, const PartialShape& shape) {
        Node p = s.graph->add_op("Parameter", name, {}, {{"shape", AttrValue(shape)}, {"element_type", AttrValue(type)}});
        p.out(0).set_type_and_shape(type, shape);
        p.out(0).names() = {name};
        s.graph->parameters().push_back(p);
        s.producers[name] = p.out(0);
        return p;
    }

    void add_parameters(Scope& s) {
        std::vector<const onnx::ValueInfoProto*> inputs;
        for (const auto& vi : s.proto->input())
            if (!s.initializers.count(vi.name())) inputs.push_back(&vi);
        std::vector<PartialShape> shapes;
        for (const auto* vi : inputs) shapes.push_back(shape_of(*vi));
        std::vector<std::string> names;
        for (const auto* vi : inputs) names.push_back(vi->name());
        if (!s.parent) apply_input_overrides(names, shapes, options_, path_);
        for (size_t i = 0; i < inputs.size(); ++i) {
            const auto& vi = *inputs[i];
            std::string where = "input '" + vi.name() + "' of " + scope_name(s);
            ElementType type = ElementType::dynamic;
            // A body may carry a sequence (a list a Loop appends to): its Parameter is marked, and
            // the Loop extractor lowers the pattern it knows or the sequence ops stay unsupported.
            const bool sequence = s.parent && vi.type().has_sequence_type();
            if (vi.type().has_tensor_type()) type = onnx_element_type(vi.type().tensor_type().elem_type(), where);
            else if (vi.has_type() && !sequence)
                throw Error("input is not a tensor: sequence, map and optional inputs are not supported", where,
                            "mo supports tensor inputs only");
            Node p = add_parameter(s, vi.name(), type, sequence ? PartialShape::dynamic_rank() : shapes[i]);
            if (sequence) p.framework().type = kOnnxSequence;
        }
    }

    // The producer of a tensor: a node output, a Parameter, a Constant made from an
    // initializer on first use, or (in a body) a value of an enclosing graph.
    std::optional<OutPort> producer(Scope& s, const std::string& name) {
        if (auto it = s.producers.find(name); it != s.producers.end()) return it->second;
        auto init = s.initializers.find(name);
        if (init == s.initializers.end()) return s.parent ? capture(s, name) : std::nullopt;
        int i = init->second;
        const auto& t = s.proto->initializer(i);
        const auto& raw = s.initializer_raw.empty() ? std::nullopt : s.initializer_raw[i];
        std::string where = "initializer '" + name + "' of " + scope_name(s);
        Tensor value = raw ? tensors_.read(t, where, parsed_.file, parsed_.file->data() + raw->offset, raw->size)
                           : tensors_.read(t, where);
        Node c = s.graph->add_constant(name, std::move(value));
        c.out(0).names() = {name};
        s.producers[name] = c.out(0);
        return c.out(0);
    }

    // An outer value read by a body: one more input of the owner (shared by its bodies), and a
    // body Parameter that receives it unchanged in every iteration.
    std::optional<OutPort> capture(Scope& s, const std::string& name) {
        auto outer = producer(*s.parent, name);
        if (!outer) return std::nullopt;
        size_t input = SIZE_MAX;
        for (size_t i = s.first_capture; i < s.owner.input_count(); ++i)
            if (s.owner.in(i).src() == *outer) input = i;
        if (input == SIZE_MAX) {
            input = s.owner.input_count();
            s.owner.set_input_count(input + 1);
            s.owner.in(input).connect(*outer);
        }
        Node p = add_parameter(s, name, outer->type(), outer->shape());
        p.out(0).names().clear();  // the tensor name belongs to the outer value
        BodyInput in;
        in.external = input;
        in.parameter = s.graph->parameters().size() - 1;
        s.body->inputs.push_back(in);
        return p.out(0);
    }

    std::string unique_name(const onnx::NodeProto& n, int index) {
        if (!n.name().empty()) return n.name();
        if (!names_collected_) {  // only models with unnamed nodes pay for the set of names
            collect_names(parsed_.model->graph());
            names_collected_ = true;
        }
        std::string base = n.op_type() + "_" + std::to_string(index);
        std::string name = base;
        for (int k = 1; generated_.count(name) || named_in_model_.count(name); ++k) name = base + "_" + std::to_string(k);
        generated_.insert(generated_names_.emplace_back(name));
        return name;
    }

    void add_nodes(Scope& s) {
        const auto& g = *s.proto;
        std::vector<Node> nodes;
        // First create every node and its outputs, so the model's node order does not matter.
        for (int i = 0; i < g.node_size(); ++i) {
            const auto& n = g.node(i);
            Node node = s.graph->add_node("FrameworkNode", unique_name(n, i));
            auto& fw = node.framework();
            fw.framework = "onnx";
            fw.domain = canonical_domain(n.domain());
            fw.type = n.op_type();
            auto opset = opsets_.find(fw.domain);
            if (opset == opsets_.end())
                throw Error("node uses domain '" + (n.domain().empty() ? std::string("ai.onnx") : n.domain()) +
                                "' which the model does not import",
                            "node '" + node.name() + "' (" + n.op_type() + ") in " + scope_name(s),
                            "fix the model's opset_import");
            fw.opset = opset->second;
            fw.attributes = onnx_attributes(n);
            node.set_input_count(static_cast<size_t>(n.input_size()));
            node.set_output_count(static_cast<size_t>(n.output_size()));
            for (int j = 0; j < n.output_size(); ++j) {
                const std::string& t = n.output(j);
                if (t.empty()) continue;  // an unused optional output
                if (s.producers.count(t) || s.initializers.count(t))
                    throw Error("tensor '" + t + "' is produced twice", "node '" + node.name() + "' in " + scope_name(s),
                                "fix the model: every tensor must have one producer");
                node.out(j).names() = {t};
                s.producers[t] = node.out(j);
            }
            nodes.push_back(node);
        }
        for (int i = 0; i < g.node_size(); ++i) {
            const auto& n = g.node(i);
            for (int j = 0; j < n.input_size(); ++j) {
                const std::string& t = n.input(j);
                if (t.empty()) continue;  // absent optional input: port stays unconnected
                auto src = producer(s, t);
                if (!src)
                    throw Error("input tensor '" + t + "' is produced by no node, input or initializer",
                                "node '" + nodes[i].name() + "' (" + n.op_type() + ") in " + scope_name(s),
                                "the model is incomplete; re-export it");
                nodes[i].in(static_cast<size_t>(j)).connect(*src);
            }
            add_bodies(s, nodes[i], n);
        }
    }

    // Node names of every graph of the model, so generated names avoid them all.
    void collect_names(const onnx::GraphProto& g) {
        for (const auto& n : g.node()) {
            named_in_model_.insert(n.name());
            for (const auto& a : n.attribute()) {
                if (a.has_g()) collect_names(a.g());
                for (const auto& sub : a.graphs()) collect_names(sub);
            }
        }
    }

    // GRAPH attributes (If's branches, Loop's and Scan's body) become bodies of the node, in
    // attribute order; their role is the attribute name until the extractor names them.
    void add_bodies(Scope& s, Node node, const onnx::NodeProto& n) {
        const size_t first_capture = node.input_count();
        for (const auto& a : n.attribute()) {
            if (!a.has_g()) continue;
            Scope body;
            body.parent = &s;
            body.owner = node;
            body.first_capture = first_capture;
            body.body = &node.add_body(a.name());
            body.graph = body.body->graph.get();
            body.proto = &a.g();
            for (int i = 0; i < body.proto->initializer_size(); ++i)
                body.initializers.emplace(body.proto->initializer(i).name(), i);
            add_parameters(body);
            add_nodes(body);
            add_results(body);
        }
    }

    void add_results(Scope& s) {
        for (const auto& vi : s.proto->output()) {
            auto src = producer(s, vi.name());
            if (!src)
                throw Error("graph output '" + vi.name() + "' is produced by no node", scope_name(s), "re-export the model");
            Node r = s.graph->add_op("Result", vi.name() + "/sink_port_0", {*src});
            s.graph->results().push_back(r);
        }
    }

    std::string path_;
    const ConversionOptions& options_;
    std::unique_ptr<Graph> graph_;
    OnnxTensorReader tensors_;
    ParsedModel parsed_;
    std::map<std::string, int64_t> opsets_;
    // Names of the model's nodes, and names generated for unnamed ones (views of the model's
    // strings and of generated_names_, a deque: its strings never move).
    bool names_collected_ = false;
    std::unordered_set<std::string_view> named_in_model_, generated_;
    std::deque<std::string> generated_names_;
};

}  // namespace

std::unique_ptr<Graph> load_onnx(const std::string& path, const ConversionOptions& options, const OpRegistry& ops) {
    return OnnxGraphBuilder(path, options, ops).run();
}

bool looks_like_onnx(const std::string& path) {
    auto ext = std::filesystem::path(path).extension().string();
    if (ext == ".onnx") return true;
    std::ifstream f(path, std::ios::binary);
    char head[256] = {};
    f.read(head, sizeof head);
    std::string text(head, static_cast<size_t>(f.gcount()));
    if (is_text_format(path)) return text.find("ir_version") != std::string::npos || text.find("graph") != std::string::npos;
    // A binary ModelProto normally starts with ir_version (field 1, varint): tag 0x08.
    return !text.empty() && text[0] == 0x08;
}

void register_onnx_loader(LoaderRegistry& r) {
    Loader l;
    l.framework = "onnx";
    l.extensions = {".onnx", ".prototxt"};
    l.recognizes = looks_like_onnx;
    l.load = load_onnx;
    l.description = ".onnx, or ONNX text format .prototxt";
    r.add(std::move(l));
}

}  // namespace mo
