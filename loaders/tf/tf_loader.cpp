#include "loaders/tf/tf_loader.hpp"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/mapped_file.hpp"
#include "loaders/input_overrides.hpp"
#include "loaders/protobuf_text.hpp"
#include "loaders/protobuf_wire.hpp"
#include "loaders/tf/tf1_control_flow.hpp"
#include "loaders/tf/tf_attributes.hpp"
#include "loaders/tf/tf_functions.hpp"
#include "loaders/tf/tf_graph.pb.h"
#include "loaders/tf/tf_tensor.hpp"
#include "loaders/tf/tfjs_weights.hpp"

namespace mo {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One entry of a TF.js signature: the tensor ("Identity:0") and the key that names it
// ("output_0"; older exports key by the tensor name and may leave `name` out).
struct SignatureEntry {
    std::string tensor, key;
};

// A parsed model: the GraphDef, where its tensor_content bytes lie in the mapped file, TF.js
// weights and signature outputs.
struct TfModel {
    std::shared_ptr<mo_tf::GraphDef> graph = std::make_shared<mo_tf::GraphDef>();
    std::shared_ptr<const MappedFile> file;
    std::vector<std::optional<protobuf_wire::ByteRange>> content;  // per node (binary GraphDef only)
    std::map<std::string, Tensor> weights;  // TF.js only
    std::vector<SignatureEntry> inputs, outputs;  // TF.js signature
};

// Constants' tensor_content stays in the mapped file: the bytes at
// GraphDef.node(1).attr(5).value(2).tensor(8).tensor_content(4) are lifted out before parsing,
// from the attr "value" only (another tensor attr's bytes must not pass for the constant's).
TfModel parse_binary(const std::string& path) {
    TfModel m;
    m.file = MappedFile::open(path);
    auto lifted = protobuf_wire::lift_bytes_fields(m.file->data(), m.file->size(), {1, 5, 2, 8, 4}, 0, path, "GraphDef",
                                                   protobuf_wire::MapKey{1, "value"});
    if (lifted.bytes.size() > static_cast<size_t>(INT32_MAX))
        throw Error("the GraphDef's structure exceeds 2 GB", path, "split the graph");
    if (!m.graph->ParseFromString(lifted.bytes))
        throw Error("not a valid binary GraphDef (protobuf parsing failed)", path,
                    "pass a frozen .pb, a .pbtxt, or a TF.js model.json; re-export a truncated file");
    if (lifted.items.size() != static_cast<size_t>(m.graph->node_size()))
        throw Error("node count mismatch after parsing", path, "the file is corrupt; re-export it");
    m.content = std::move(lifted.items);
    return m;
}

TfModel parse_text(const std::string& path) {
    TfModel m;
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (auto error = protobuf_text::parse(text, *m.graph))
        throw Error("not a valid text GraphDef: " + *error, path, "check the .pbtxt syntax");
    return m;
}

// The entries of signature.inputs or .outputs in model.json's order, as TF.js's OperationMapper
// takes them: keyed by tensor, the first entry of a tensor keeps its place.
std::vector<SignatureEntry> signature_entries(const nlohmann::ordered_json& signature, const std::string& at,
                                              const char* key, const std::string& path) {
    using Kind = nlohmann::ordered_json::value_t;
    std::vector<SignatureEntry> out;
    const auto* entries = tfjs_member(signature, at, key, Kind::object, path, false);
    if (!entries) return out;
    for (const auto& [name, info] : entries->items()) {
        const std::string info_at = at + "." + key + "." + name;
        tfjs_expect(info, Kind::object, info_at, path);
        const auto* tensor = tfjs_member(info, info_at, "name", Kind::string, path, false);
        SignatureEntry e{tensor ? tensor->get<std::string>() : name, name};
        auto same = std::find_if(out.begin(), out.end(), [&](const SignatureEntry& o) { return o.tensor == e.tensor; });
        if (same == out.end()) out.push_back(std::move(e));
        else same->key = e.key;
    }
    return out;
}

TfModel parse_tfjs(const std::string& path) {
    TfModel m;
    nlohmann::ordered_json j;
    try {
        std::ifstream in(path);
        j = nlohmann::ordered_json::parse(in);
    } catch (const nlohmann::ordered_json::exception& e) {
        throw Error(std::string("model.json is not valid JSON: ") + e.what(), path, "re-export the TF.js model");
    }
    using Kind = nlohmann::ordered_json::value_t;
    if (!j.is_object() || !j.contains("modelTopology") || !j.contains("weightsManifest"))
        throw Error("model.json is not a TF.js graph model (no modelTopology / weightsManifest)", path,
                    "layers models are not supported; convert with tensorflowjs_converter --output_format=tfjs_graph_model");
    const auto& topology = *tfjs_member(j, "", "modelTopology", Kind::object, path);
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    auto status = google::protobuf::util::JsonStringToMessage(topology.dump(), m.graph.get(), options);
    if (!status.ok())
        throw Error("model.json's modelTopology is not a GraphDef: " + std::string(status.message()), path,
                    "re-export the TF.js model");
    m.weights = read_tfjs_weights(j["weightsManifest"], fs::path(path).parent_path().string(), path);
    // The signature (tfjs-converter writes it at the top; userDefinedMetadata.signature, which
    // older exports use, takes precedence as in TF.js's GraphModel) names the model's inputs and
    // outputs and orders them.
    std::string at = "signature";
    const auto* signature = tfjs_member(j, "", "signature", Kind::object, path, false);
    if (const auto* metadata = tfjs_member(j, "", "userDefinedMetadata", Kind::object, path, false))
        if (const auto* s = tfjs_member(*metadata, "userDefinedMetadata", "signature", Kind::object, path, false)) {
            signature = s;
            at = "userDefinedMetadata.signature";
        }
    if (signature) {
        m.inputs = signature_entries(*signature, at, "inputs", path);
        m.outputs = signature_entries(*signature, at, "outputs", path);
    }
    return m;
}

// "name:k" -> (name, k); "name" -> (name, 0). `where` names the reader for an index at or
// above kMaxTfOutputs.
std::pair<std::string, size_t> split_input(const std::string& input, const std::string& where) {
    const auto colon = input.rfind(':');
    if (colon == std::string::npos) return {input, 0};
    const std::string_view index = std::string_view(input).substr(colon + 1);
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) return {input, 0};
    uint64_t k = 0;
    const auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), k);
    if (ec != std::errc() || end != index.data() + index.size() || k >= static_cast<uint64_t>(kMaxTfOutputs))
        throw Error("input '" + input + "' reads output " + std::string(index) + "; mo accepts at most " +
                        std::to_string(kMaxTfOutputs) + " outputs per node",
                    where, "the model is corrupt; re-export it");
    return {input.substr(0, colon), static_cast<size_t>(k)};
}

class TfGraphBuilder {
public:
    TfGraphBuilder(const std::string& path, const ConversionOptions& options, const OpRegistry& ops)
        : path_(path), options_(options), graph_(std::make_unique<Graph>(ops)) {
        graph_->max_constant_bytes = options.max_constant_bytes;
    }

    std::unique_ptr<Graph> run() {
        model_ = ends_with(path_, ".json")    ? parse_tfjs(path_)
                 : ends_with(path_, ".pbtxt") ? parse_text(path_)
                                              : parse_binary(path_);
        graph_->source_path = path_;
        graph_->source_framework = "tf";
        graph_->source_layout = "NHWC";
        graph_->keep_alive.push_back(model_.graph);
        if (model_.file) graph_->keep_alive.push_back(model_.file);
        if (has_v1_control_flow(*model_.graph)) {
            // Lifting moves and copies nodes: the constants' bytes go back into the graph.
            keep_constants_in_graph();
            lift_v1_control_flow(*model_.graph, path_);
        }
        index_nodes();
        check_acyclic();
        add_parameters();
        add_nodes();
        connect_inputs();
        expand_functions();
        add_results();
        return std::move(graph_);
    }

private:
    std::string where(const mo_tf::NodeDef& n) const { return "node '" + n.name() + "' (" + n.op() + ") in " + path_; }

    void index_nodes() {
        const auto& nodes = model_.graph->node();
        if (nodes.empty()) throw Error("the GraphDef has no nodes", path_, "pass a frozen graph");
        for (int i = 0; i < nodes.size(); ++i) {
            if (!by_name_.emplace(nodes[i].name(), i).second)
                throw Error("two nodes are named '" + nodes[i].name() + "'", path_, "the model is corrupt; re-export it");
        }
        for (const auto& n : nodes)
            for (const auto& in : n.input()) {
                if (in.empty() || in[0] == '^') continue;
                auto [name, k] = split_input(in, where(n));
                if (!by_name_.count(name))
                    throw Error("input '" + in + "' names a node the graph does not have", where(n),
                                "the graph is incomplete; freeze it again");
                auto& count = output_counts_[name];
                count = std::max(count, k + 1);
                consumed_.insert(name);
            }
        for (const SignatureEntry& e : model_.outputs) {  // an output only the signature reads
            auto [name, k] = split_input(e.tensor, "the signature of " + path_);
            if (!by_name_.count(name)) continue;  // reported by add_results
            auto& count = output_counts_[name];
            count = std::max(count, k + 1);
        }
        size_t extra = 0;  // outputs beyond each node's first
        for (const auto& [name, count] : output_counts_) extra += count - 1;
        if (extra > static_cast<size_t>(kMaxTfExtraOutputs))
            throw Error("the nodes' inputs read " + std::to_string(extra) + " outputs beyond each node's first; mo accepts at most " +
                            std::to_string(kMaxTfExtraOutputs),
                        path_, "the model is corrupt; re-export it");
    }

    // Kahn's algorithm over data and control inputs: what remains lies on a cycle.
    void check_acyclic() const {
        const auto& nodes = model_.graph->node();
        std::vector<size_t> pending(static_cast<size_t>(nodes.size()), 0);
        std::vector<std::vector<int>> users(static_cast<size_t>(nodes.size()));
        for (int i = 0; i < nodes.size(); ++i)
            for (const auto& in : nodes[i].input()) {
                if (in.empty()) continue;
                const std::string name = in[0] == '^' ? in.substr(1) : split_input(in, where(nodes[i])).first;
                auto it = by_name_.find(name);
                if (it == by_name_.end())
                    throw Error("control input '" + in + "' names a node the graph does not have", where(nodes[i]),
                                "the graph is incomplete; freeze it again");
                ++pending[static_cast<size_t>(i)];
                users[static_cast<size_t>(it->second)].push_back(i);
            }
        std::vector<int> ready;
        for (int i = 0; i < nodes.size(); ++i)
            if (!pending[static_cast<size_t>(i)]) ready.push_back(i);
        size_t done = 0;
        while (!ready.empty()) {
            const int i = ready.back();
            ready.pop_back();
            ++done;
            for (int u : users[static_cast<size_t>(i)])
                if (--pending[static_cast<size_t>(u)] == 0) ready.push_back(u);
        }
        if (done == static_cast<size_t>(nodes.size())) return;
        for (int i = 0; i < nodes.size(); ++i)
            if (pending[static_cast<size_t>(i)])
                throw Error("the graph has a cycle through node '" + nodes[i].name() + "'", path_,
                            "a cycle is only allowed through a while loop's NextIteration -> Merge (docs/tf.md, Control flow)");
    }

    void add_parameters() {
        std::vector<const mo_tf::NodeDef*> placeholders;
        std::vector<std::string> keys;  // the signature's name of each, if any
        // A TF.js signature's inputs first, in its order; then any other Placeholder, in graph order.
        for (const SignatureEntry& e : model_.inputs) {
            const auto [name, k] = split_input(e.tensor, "the signature of " + path_);
            auto it = by_name_.find(name);
            if (it == by_name_.end())
                throw Error("the signature's input '" + e.tensor + "' is not in the graph", path_, "re-export the model");
            const auto& n = model_.graph->node(it->second);
            if (n.op() != "Placeholder" && n.op() != "PlaceholderWithDefault")
                throw Error("the signature's input '" + e.tensor + "' is a " + n.op() + ", not a Placeholder", path_,
                            "mo feeds Placeholders only; cut the model there with --input");
            if (std::find(placeholders.begin(), placeholders.end(), &n) != placeholders.end()) continue;
            placeholders.push_back(&n);
            keys.push_back(e.key);
        }
        for (const auto& n : model_.graph->node())
            if ((n.op() == "Placeholder" || n.op() == "PlaceholderWithDefault") &&
                std::find(placeholders.begin(), placeholders.end(), &n) == placeholders.end()) {
                placeholders.push_back(&n);
                keys.emplace_back();
            }
        std::vector<std::string> names;
        std::vector<PartialShape> shapes;
        for (const auto* n : placeholders) {
            names.push_back(n->name());
            auto shape = n->attr().find("shape");
            shapes.push_back(shape == n->attr().end() ? PartialShape::dynamic_rank() : tf_shape(shape->second.shape()));
        }
        apply_input_overrides(names, shapes, options_, path_);
        for (size_t i = 0; i < placeholders.size(); ++i) {
            const auto& n = *placeholders[i];
            auto dtype = n.attr().find("dtype");
            const ElementType type = tf_element_type(dtype == n.attr().end() ? 0 : dtype->second.type(), where(n));
            Node p = graph_->add_op("Parameter", n.name(), {},
                                    {{"shape", AttrValue(shapes[i])}, {"element_type", AttrValue(type)}});
            p.out(0).set_type_and_shape(type, shapes[i]);
            p.out(0).names() = {n.name() + ":0", n.name()};
            add_name(p.out(0), keys[i]);
            graph_->parameters().push_back(p);
            nodes_[n.name()] = p;
        }
    }

    Node add_constant(const mo_tf::NodeDef& n, size_t index) {
        Tensor value;
        auto attr = n.attr().find("value");
        const auto& content = index < model_.content.size() ? model_.content[index] : std::nullopt;
        if (content && attr != n.attr().end() && attr->second.has_tensor()) {
            // The weights stay a view of the mapped file.
            const auto& t = attr->second.tensor();
            const ElementType type = tf_element_type(t.dtype(), where(n));
            const PartialShape shape = tf_shape(t.tensor_shape());
            if (!shape.is_static()) throw Error("a constant tensor has an unknown shape", where(n), "the model is corrupt");
            const Shape s = shape.to_shape();
            const size_t need = located(where(n), [&] { return byte_size(type, static_cast<size_t>(shape_size(s))); });
            if (need != content->size)
                throw Error("tensor_content holds " + std::to_string(content->size) + " bytes, the shape needs " +
                                std::to_string(need),
                            where(n), "the model is corrupt; re-export it");
            value = Tensor(type, s, std::make_shared<ViewBuffer>(model_.file, model_.file->data() + content->offset, content->size))
                        .aligned_if_small();
        } else if (auto w = model_.weights.find(n.name()); w != model_.weights.end()) {
            value = w->second;
        } else {
            if (attr == n.attr().end() || !attr->second.has_tensor())
                throw Error("the constant has no value (and no TF.js weight of its name)", where(n),
                            "freeze the graph so that variables become constants");
            value = tf_tensor_value(attr->second.tensor(), where(n), options_.max_constant_bytes);
        }
        Node c = graph_->add_constant(n.name(), std::move(value));
        return c;
    }

    void add_nodes() {
        for (int i = 0; i < model_.graph->node_size(); ++i) {
            const auto& n = model_.graph->node(i);
            if (nodes_.count(n.name())) continue;  // a Parameter
            Node node;
            if (n.op() == "Const") {
                node = add_constant(n, static_cast<size_t>(i));
            } else {
                node = graph_->add_node("FrameworkNode", n.name());
                auto& fw = node.framework();
                fw.framework = "tf";
                fw.type = n.op();
                fw.opset = 1;
                fw.attributes = tf_attributes(n, options_.max_constant_bytes);
                size_t inputs = 0;
                for (const auto& in : n.input()) inputs += !in.empty() && in[0] != '^';
                node.set_input_count(inputs);
                auto outs = output_counts_.find(n.name());
                node.set_output_count(outs == output_counts_.end() ? 1 : std::max<size_t>(1, outs->second));
            }
            for (size_t j = 0; j < node.output_count(); ++j)
                node.out(j).names() = {n.name() + ":" + std::to_string(j)};
            if (node.output_count() > 0) node.out(0).names().push_back(n.name());
            nodes_[n.name()] = node;
        }
    }

    void connect_inputs() {
        for (const auto& n : model_.graph->node()) {
            Node node = nodes_.at(n.name());
            if (!node.is("FrameworkNode")) continue;
            size_t port = 0;
            for (const auto& in : n.input()) {
                if (in.empty() || in[0] == '^') continue;
                auto [name, k] = split_input(in, where(n));
                Node src = nodes_.at(name);
                if (k >= src.output_count())
                    throw Error("input '" + in + "' reads output " + std::to_string(k) + " of a node with " +
                                    std::to_string(src.output_count()),
                                where(n), "the model is corrupt; re-export it");
                node.in(port++).connect(src.out(k));
            }
        }
    }

    void keep_constants_in_graph() {
        for (size_t i = 0; i < model_.content.size(); ++i)
            if (const auto& range = model_.content[i]) {
                auto& tensor = *(*model_.graph->mutable_node(static_cast<int>(i))->mutable_attr())["value"].mutable_tensor();
                tensor.set_tensor_content(std::string(reinterpret_cast<const char*>(model_.file->data()) + range->offset, range->size));
            }
        model_.content.clear();
    }

    // If / While get their bodies, function calls are inlined (functions of GraphDef.library).
    void expand_functions() {
        TfFunctions functions(*model_.graph, path_, model_.weights);
        for (const auto& n : model_.graph->node())
            if (TfFunctions::is_functional(n.op()))
                if (auto outs = functions.expand(*graph_, nodes_.at(n.name()), n, 0)) {
                    calls_[n.name()] = std::move(*outs);
                    nodes_.erase(n.name());
                }
    }

    // The signature's key of a model input or output ("output_mesh") is one more tensor name of
    // its port, unless a node or another tensor has that name.
    void add_name(const OutPort& port, const std::string& key) {
        if (key.empty() || by_name_.count(key)) return;
        auto& names = port.names();
        if (std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
    }

    // A TF.js signature's outputs, in its order (an output read by other nodes too stays one);
    // without a signature, every node whose outputs nothing reads.
    void add_results() {
        std::vector<std::pair<std::string, size_t>> outputs;
        std::vector<std::string> keys;
        for (const SignatureEntry& e : model_.outputs) {
            outputs.push_back(split_input(e.tensor, "the signature of " + path_));
            keys.push_back(e.key);
        }
        if (outputs.empty())
            for (const auto& n : model_.graph->node())
                if (!consumed_.count(n.name()) && n.op() != "Const" && n.op() != "NoOp" && n.op() != "Placeholder") {
                    outputs.emplace_back(n.name(), 0);
                    keys.emplace_back();
                }
        if (outputs.empty()) throw Error("the graph has no output: every node's result is read by another", path_);
        for (size_t i = 0; i < outputs.size(); ++i) {
            const auto& [name, k] = outputs[i];
            if (auto call = calls_.find(name); call != calls_.end()) {
                if (k >= call->second.size())
                    throw Error("the signature's output '" + name + ":" + std::to_string(k) + "' is not in the graph", path_,
                                "re-export the model");
                add_name(call->second[k], keys[i]);
                graph_->results().push_back(graph_->add_op("Result", name + "/sink_port_" + std::to_string(k), {call->second[k]}));
                continue;
            }
            auto it = nodes_.find(name);
            if (it == nodes_.end() || k >= it->second.output_count())
                throw Error("the signature's output '" + name + ":" + std::to_string(k) + "' is not in the graph", path_,
                            "re-export the model");
            add_name(it->second.out(k), keys[i]);
            Node r = graph_->add_op("Result", name + "/sink_port_" + std::to_string(k), {it->second.out(k)});
            graph_->results().push_back(r);
        }
    }

    std::string path_;
    const ConversionOptions& options_;
    std::unique_ptr<Graph> graph_;
    TfModel model_;
    std::map<std::string, int> by_name_;
    std::map<std::string, size_t> output_counts_;
    std::set<std::string> consumed_;
    std::map<std::string, Node> nodes_;
    std::map<std::string, std::vector<OutPort>> calls_;  // inlined function calls' outputs
};

// A TF.js graph model's model.json, by content (other JSON files are not claimed).
bool looks_like_tfjs(const std::string& path) {
    if (!ends_with(path, ".json")) return false;
    std::ifstream in(path);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    return head.find("\"modelTopology\"") != std::string::npos || head.find("\"graph-model\"") != std::string::npos;
}

}  // namespace

std::unique_ptr<Graph> load_tf(const std::string& path, const ConversionOptions& options, const OpRegistry& ops) {
    return TfGraphBuilder(path, options, ops).run();
}

void register_tf_loader(LoaderRegistry& r) {
    Loader l;
    l.framework = "tf";
    l.extensions = {".pb", ".pbtxt", ".json"};
    l.recognizes = looks_like_tfjs;
    l.load = load_tf;
    l.description = "TensorFlow frozen GraphDef (.pb, .pbtxt) or TF.js graph model (model.json)";
    r.add(std::move(l));
}

}  // namespace mo
