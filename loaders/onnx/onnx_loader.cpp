// ONNX model file -> graph of FrameworkNodes. Initializer weights stay in the memory-mapped
// file: the wire scanner lifts their raw_data out before protobuf parses the rest.
#include "loaders/onnx/onnx_loader.hpp"

#include <array>
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
#include "loaders/name_table.hpp"
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

// The model as parsed. A binary model's graph is parsed without its nodes, its value_info and
// its initializers' raw_data: the raw data stays in the mapped file (a tensor views it), and the
// nodes are read one by one from their bytes there (NodeView), so that a graph of a million
// nodes never exists as a million parsed messages. Nodes with GRAPH attributes (If, Loop,
// Scan) are parsed whole into the model's arena when they are read.
struct ArenaModel {
    google::protobuf::Arena arena;
    onnx::ModelProto* model = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
};

// Held by the graph's framework source, which goes when extraction is over: then the model
// file's pages leave the resident set. No node is decoded from them again, and the weights that
// tensors still view are paged in from the page cache when they are read (the IR writer releases
// them again as it writes). They were 38 MB of a million-node chain's 584 MB peak, and the whole
// 485 MiB file of a million-node transformer's.
struct ReleasePagesWhenExtracted {
    std::shared_ptr<const MappedFile> file;
    explicit ReleasePagesWhenExtracted(std::shared_ptr<const MappedFile> f) : file(std::move(f)) {}
    ~ReleasePagesWhenExtracted() { MappedFile::release_pages(file->data(), file->size()); }
    ReleasePagesWhenExtracted(const ReleasePagesWhenExtracted&) = delete;
    ReleasePagesWhenExtracted& operator=(const ReleasePagesWhenExtracted&) = delete;
};

struct ParsedModel {
    std::shared_ptr<ArenaModel> holder;
    std::shared_ptr<onnx::ModelProto> model;
    std::shared_ptr<const MappedFile> file;
    std::vector<std::optional<protobuf_wire::ByteRange>> initializer_raw;
    // The graph's NodeProtos in `file` (binary models); shared with the graph's framework source.
    std::shared_ptr<std::vector<protobuf_wire::ByteRange>> nodes = std::make_shared<std::vector<protobuf_wire::ByteRange>>();
    bool text = false;
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
    // Parsed into an arena: one allocation per block instead of one per message and string.
    p.holder = std::make_shared<ArenaModel>();
    p.model = std::shared_ptr<onnx::ModelProto>(p.holder, p.holder->model);
    const std::string hint = "check that the file is an ONNX model (binary .onnx or text .prototxt)";
    if (is_text_format(path)) {
        p.text = true;
        std::string text(reinterpret_cast<const char*>(p.file->data()), p.file->size());
        if (auto error = protobuf_text::parse(text, *p.model)) throw parse_failure(text, true, path, *error);
        return p;
    }
    // ModelProto.graph(7): initializer(5).raw_data(9), one item per initializer; node(1), one
    // item per node; value_info(13), which mo does not read.
    auto lifted = protobuf_wire::lift_fields(p.file->data(), p.file->size(),
                                             {{{7, 5, 9}, 1, std::nullopt}, {{7, 1}, 1, std::nullopt}, {{7, 13}, 1, std::nullopt}},
                                             path, "ONNX");
    if (lifted.bytes.size() > static_cast<size_t>(INT32_MAX))
        throw Error("the ONNX model's structure exceeds 2 GB", path, "store large weights as external data");
    if (!p.model->ParseFromString(lifted.bytes)) throw parse_failure(lifted.bytes, false, path);
    p.initializer_raw = std::move(lifted.items[0]);
    p.nodes->reserve(lifted.items[1].size());
    for (const auto& node : lifted.items[1]) p.nodes->push_back(*node);
    if (p.initializer_raw.size() != static_cast<size_t>(p.model->graph().initializer_size()))
        throw Error("initializer count mismatch after parsing", path, hint);
    return p;
}

// One NodeProto as the graph builder reads it: views of its strings, in the mapped file (a node
// of a binary model's graph, decoded in place) or in a parsed message (text format, bodies).
struct NodeView {
    std::string_view name, op_type, domain;
    std::vector<std::string_view> inputs, outputs;
    std::string_view bytes;                  // the serialized node (decoded ones)
    const onnx::NodeProto* parsed = nullptr;  // the parsed node (the others)
    bool has_attributes = false;
    bool has_graphs = false;  // a GRAPH or GRAPHS attribute: a body

    void clear() {
        name = op_type = domain = bytes = {};
        inputs.clear(), outputs.clear();
        parsed = nullptr;
        has_attributes = has_graphs = false;
    }

    void read(const onnx::NodeProto& n) {
        clear();
        parsed = &n;
        name = n.name(), op_type = n.op_type(), domain = n.domain();
        for (const auto& t : n.input()) inputs.emplace_back(t);
        for (const auto& t : n.output()) outputs.emplace_back(t);
        has_attributes = n.attribute_size() > 0;
        for (const auto& a : n.attribute()) has_graphs |= a.has_g() || a.graphs_size() > 0;
    }

    // NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7 (strings and
    // messages are length-delimited; a field of another wire type is unknown to protobuf too).
    void decode(const MappedFile& file, protobuf_wire::ByteRange range, const std::string& path) {
        using protobuf_wire::LengthDelimited;
        clear();
        bytes = {reinterpret_cast<const char*>(file.data()) + range.offset, range.size};
        protobuf_wire::Reader r(file.data(), range.offset, range.offset + range.size, path, "ONNX");
        while (!r.done()) {
            const protobuf_wire::Field f = r.next_field();
            if (f.wire != LengthDelimited) continue;
            switch (f.number) {
                case 1: inputs.push_back(r.view(f)); break;
                case 2: outputs.push_back(r.view(f)); break;
                case 3: name = r.view(f); break;
                case 4: op_type = r.view(f); break;
                case 7: domain = r.view(f); break;
                case 5:
                    has_attributes = true;
                    has_graphs = has_graphs || has_graph(file.data(), f, path);
                    break;
                default: break;
            }
        }
    }

    // AttributeProto: g 6, graphs 11.
    static bool has_graph(const std::byte* base, const protobuf_wire::Field& attribute, const std::string& path) {
        protobuf_wire::Reader r(base, attribute.body, attribute.body + attribute.size, path, "ONNX");
        while (!r.done()) {
            const protobuf_wire::Field f = r.next_field();
            if ((f.number == 6 || f.number == 11) && f.wire == protobuf_wire::LengthDelimited) return true;
        }
        return false;
    }
};

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
    // Every tensor name of the graph: a node output, a Parameter, or an initializer (a port
    // without a node, its index the initializer's, until its Constant is made on first use),
    // in one table so that a name is found with one lookup. Keyed by views of the model's own
    // strings (the mapped file and the parsed model outlive the builder): on a million-node
    // graph, copies of every tensor name would cost more than the graph.
    NameTable<OutPort> producers;
    std::vector<std::optional<protobuf_wire::ByteRange>> initializer_raw;  // the model's graph only
    const std::vector<protobuf_wire::ByteRange>* wire_nodes = nullptr;     // the model's graph, binary

    size_t node_count() const { return wire_nodes ? wire_nodes->size() : static_cast<size_t>(proto->node_size()); }
};

class OnnxGraphBuilder {
public:
    OnnxGraphBuilder(const std::string& path, const ConversionOptions& options, const OpRegistry& ops)
        : path_(path), options_(options), graph_(std::make_unique<Graph>(ops)), tensors_(path, options.external_data_dir) {
        graph_->max_constant_bytes = options.max_constant_bytes;
    }

    std::unique_ptr<Graph> run() {
        parsed_ = parse_model(path_);
        path_shared_ = std::make_shared<const std::string>(path_);
        graph_->source_path = path_;
        graph_->source_framework = "onnx";
        graph_->keep_alive.push_back(parsed_.model);
        graph_->keep_alive.push_back(parsed_.file);
        read_opsets();
        Scope top;
        top.graph = graph_.get();
        top.proto = &parsed_.model->graph();
        top.initializer_raw = std::move(parsed_.initializer_raw);
        if (!parsed_.text) top.wire_nodes = parsed_.nodes.get();
        top.producers.reserve(top.node_count() + static_cast<size_t>(top.proto->input_size() + top.proto->initializer_size()));
        add_initializers(top);
        if (top.wire_nodes) set_framework_source();
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

    // Node `i` of scope `s` into `v`.
    void read_node(const Scope& s, size_t i, NodeView& v) const {
        if (s.wire_nodes) v.decode(*parsed_.file, (*s.wire_nodes)[i], path_);
        else v.read(s.proto->node(static_cast<int>(i)));
    }

    // The parsed form of a decoded node (one with a body), in the model's arena; the parse
    // may nest as deeply as within the model (protobuf's limit of 100 counts from the model,
    // two levels above a node of its graph).
    const onnx::NodeProto& parse_node(const NodeView& v) {
        if (v.parsed) return *v.parsed;
        auto* node = google::protobuf::Arena::CreateMessage<onnx::NodeProto>(&parsed_.holder->arena);
        google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(v.bytes.data()), static_cast<int>(v.bytes.size()));
        in.SetRecursionLimit(98);
        if (node->ParseFromCodedStream(&in) && in.ConsumedEntireMessage()) return *node;
        onnx::NodeProto deeper;
        google::protobuf::io::CodedInputStream again(reinterpret_cast<const uint8_t*>(v.bytes.data()), static_cast<int>(v.bytes.size()));
        again.SetRecursionLimit(1024);
        if (deeper.ParseFromCodedStream(&again) && again.ConsumedEntireMessage())
            throw Error("the model nests messages more deeply than protobuf parses (100 levels; each If / Loop / Scan "
                        "body nested in another takes 3)",
                        path_, "re-export the model with less deeply nested control flow");
        throw Error("cannot parse node '" + std::string(v.name) + "' (" + std::string(v.op_type) + ")", path_,
                    "check that the file is an ONNX model (binary .onnx or text .prototxt)");
    }

    Node add_parameter(Scope& s, std::string_view name, ElementType type, const PartialShape& shape) {
        Node p = s.graph->add_op("Parameter", std::string(name), {}, {{"shape", AttrValue(shape)}, {"element_type", AttrValue(type)}});
        p.out(0).set_type_and_shape(type, shape);
        p.out(0).names() = {std::string(name)};
        s.graph->parameters().push_back(p);
        s.producers.assign(name, p.out(0));
        return p;
    }

    // The initializers' names, each for the Constant made when a node first reads it.
    static void add_initializers(Scope& s) {
        const int count = s.proto->initializer_size();
        constexpr int kAhead = 8;  // slots asked for ahead, as NodesAhead does
        for (int i = 0; i < count; ++i) {
            if (i + kAhead < count) s.producers.prefetch(s.proto->initializer(i + kAhead).name());
            s.producers.assign(s.proto->initializer(i).name(), OutPort(Node(), static_cast<size_t>(i)));
        }
    }
    static bool is_initializer(const Scope& s, std::string_view name) {
        const OutPort* p = s.producers.find(name);
        return p && !p->node();
    }

    void add_parameters(Scope& s) {
        std::vector<const onnx::ValueInfoProto*> inputs;
        for (const auto& vi : s.proto->input())
            if (!is_initializer(s, vi.name())) inputs.push_back(&vi);
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
    std::optional<OutPort> producer(Scope& s, std::string_view name) {
        OutPort* p = s.producers.find(name);
        if (!p) return s.parent ? capture(s, name) : std::nullopt;
        if (p->node()) return *p;
        const int i = static_cast<int>(p->index());
        const auto& t = s.proto->initializer(i);
        const auto& raw = s.initializer_raw.empty() ? std::nullopt : s.initializer_raw[static_cast<size_t>(i)];
        std::string where = "initializer '" + std::string(name) + "' of " + scope_name(s);
        Tensor value = raw ? tensors_.read(t, where, parsed_.file, parsed_.file->data() + raw->offset, raw->size)
                           : tensors_.read(t, where);
        Node c = s.graph->add_constant(std::string(name), std::move(value));
        c.out(0).names() = {std::string(name)};
        *p = c.out(0);  // nothing was added to the table meanwhile: p is still its slot
        return c.out(0);
    }

    // An outer value read by a body: one more input of the owner (shared by its bodies), and a
    // body Parameter that receives it unchanged in every iteration.
    std::optional<OutPort> capture(Scope& s, std::string_view name) {
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

    std::string unique_name(const NodeView& n, size_t index) {
        if (!n.name.empty()) return std::string(n.name);
        if (!names_collected_) {  // only models with unnamed nodes pay for the set of names
            collect_names();
            names_collected_ = true;
        }
        std::string base = std::string(n.op_type) + "_" + std::to_string(index);
        std::string name = base;
        for (int k = 1; generated_.count(name) || named_in_model_.count(name); ++k) name = base + "_" + std::to_string(k);
        generated_.insert(generated_names_.emplace_back(name));
        return name;
    }

    // The graph's source of FrameworkInfo for the nodes of a binary model's graph: each is
    // decoded again from the mapped file when extraction asks for it.
    void set_framework_source() {
        auto file = parsed_.file;
        auto nodes = parsed_.nodes;
        auto path = path_shared_;
        auto release = std::make_shared<ReleasePagesWhenExtracted>(file);
        graph_->set_framework_source([file, nodes, path, release, opsets = opsets_](uint32_t i) {
            NodeView v;
            v.decode(*file, (*nodes)[i], *path);
            return framework_info(v, opsets.at(canonical_domain(std::string(v.domain))), file, path);
        });
    }

    static FrameworkInfo framework_info(const NodeView& v, int64_t opset, const std::shared_ptr<const MappedFile>& file,
                                        const std::shared_ptr<const std::string>& path) {
        FrameworkInfo fw;
        fw.framework = "onnx";
        fw.domain = canonical_domain(std::string(v.domain));
        fw.type = v.op_type;
        fw.opset = opset;
        if (v.has_attributes) fw.attributes = v.parsed ? onnx_attributes(*v.parsed) : onnx_attributes(file, v.bytes, path);
        return fw;
    }

    // Reads the nodes of a scope a few ahead of the one being added, and asks the CPU for the
    // table slots of the tensor names they will look up: on a graph of a million nodes every
    // lookup was a cache miss, and the loader waited on them for most of its time.
    class NodesAhead {
    public:
        NodesAhead(const OnnxGraphBuilder& builder, const Scope& s, bool outputs)
            : builder_(builder), scope_(s), outputs_(outputs) {
            for (size_t i = 0; i < kAhead; ++i) read(i);
        }
        // Node `i`; nodes are asked for in order.
        const NodeView& at(size_t i) {
            read(i + kAhead);
            return ring_[i % ring_.size()];
        }

    private:
        static constexpr size_t kAhead = 8;
        void read(size_t i) {
            if (i >= scope_.node_count()) return;
            NodeView& v = ring_[i % ring_.size()];
            builder_.read_node(scope_, i, v);
            for (std::string_view t : outputs_ ? v.outputs : v.inputs)
                if (!t.empty()) scope_.producers.prefetch(t);
        }
        const OnnxGraphBuilder& builder_;
        const Scope& scope_;
        const bool outputs_;  // the names a node produces (else those it reads)
        std::array<NodeView, kAhead + 1> ring_;
    };

    void add_nodes(Scope& s) {
        const size_t count = s.node_count();
        MO_ASSERT(count < UINT32_MAX, "more than 2^32 - 1 nodes");
        std::vector<Node> nodes;
        nodes.reserve(count);
        // First create every node and its outputs, so the model's node order does not matter.
        NodesAhead producing(*this, s, true);
        for (size_t i = 0; i < count; ++i) {
            const NodeView& v = producing.at(i);
            Node node = s.graph->add_node("FrameworkNode", unique_name(v, i));
            auto opset = opsets_.find(canonical_domain(std::string(v.domain)));
            if (opset == opsets_.end())
                throw Error("node uses domain '" + (v.domain.empty() ? std::string("ai.onnx") : std::string(v.domain)) +
                                "' which the model does not import",
                            "node '" + node.name() + "' (" + std::string(v.op_type) + ") in " + scope_name(s),
                            "fix the model's opset_import");
            // A decoded node's FrameworkInfo is made when extraction reads it (a body's is read
            // while its owner is extracted: made now).
            if (v.parsed || v.has_graphs) node.framework() = framework_info(v, opset->second, parsed_.file, path_shared_);
            else node.set_framework_source(static_cast<uint32_t>(i));
            node.set_input_count(v.inputs.size());
            node.set_output_count(v.outputs.size());
            for (size_t j = 0; j < v.outputs.size(); ++j) {
                const std::string_view t = v.outputs[j];
                if (t.empty()) continue;  // an unused optional output
                if (!s.producers.insert(t, node.out(j)).second)  // an initializer's, or another node's
                    throw Error("tensor '" + std::string(t) + "' is produced twice",
                                "node '" + node.name() + "' in " + scope_name(s),
                                "fix the model: every tensor must have one producer");
                node.out(j).names() = {std::string(t)};
            }
            nodes.push_back(node);
        }
        NodesAhead reading(*this, s, false);
        for (size_t i = 0; i < count; ++i) {
            const NodeView& v = reading.at(i);
            for (size_t j = 0; j < v.inputs.size(); ++j) {
                const std::string_view t = v.inputs[j];
                if (t.empty()) continue;  // absent optional input: port stays unconnected
                auto src = producer(s, t);
                if (!src)
                    throw Error("input tensor '" + std::string(t) + "' is produced by no node, input or initializer",
                                "node '" + nodes[i].name() + "' (" + std::string(v.op_type) + ") in " + scope_name(s),
                                "the model is incomplete; re-export it");
                nodes[i].in(j).connect(*src);
            }
            if (v.has_graphs) add_bodies(s, nodes[i], parse_node(v));
        }
    }

    // Node names of every graph of the model, so generated names avoid them all.
    void collect_names() {
        if (parsed_.text) return collect_names(parsed_.model->graph());
        NodeView v;
        for (const auto& range : *parsed_.nodes) {
            v.decode(*parsed_.file, range, path_);
            named_in_model_.insert(v.name);
            if (v.has_graphs) collect_body_names(parse_node(v));
        }
    }
    void collect_names(const onnx::GraphProto& g) {
        for (const auto& n : g.node()) {
            named_in_model_.insert(n.name());
            collect_body_names(n);
        }
    }
    void collect_body_names(const onnx::NodeProto& n) {
        for (const auto& a : n.attribute()) {
            if (a.has_g()) collect_names(a.g());
            for (const auto& sub : a.graphs()) collect_names(sub);
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
            add_initializers(body);
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
    std::shared_ptr<const std::string> path_shared_;  // for the attributes of decoded nodes
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
