// Layout of model.xml follows OpenVINO's serializer (shared/ir/ir-format.md): layers with ids
// 0..N-1 (Parameters first, Results last, the rest in topological order), then edges sorted by
// source, then the model rt_info. model.bin holds the Const blobs in layer order.
#include "emit/ir_writer.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <pugixml.hpp>
#include <set>
#include <string_view>

#include "core/error.hpp"
#include "core/graph_data.hpp"
#include "core/large_array_allocator.hpp"
#include "core/log.hpp"
#include "core/progress.hpp"
#include "emit/attr_format.hpp"
#include "emit/bin_writer.hpp"
#include "emit/staged_file.hpp"
#include "emit/xml_text.hpp"

#ifndef MO_VERSION
#define MO_VERSION "unknown"
#endif

namespace mo {

namespace {

// Asks the CPU for the node `ahead` places after `i` in `nodes`, which a walk over them reads
// next: on a graph of millions of nodes each node is a cache miss otherwise.
void prefetch_ahead(const std::vector<Node>& nodes, size_t i, size_t ahead = 8) {
    if (i + ahead < nodes.size()) GraphAccess::prefetch(GraphAccess::data(nodes[i + ahead]));
}

// Nodes that reach a Result or a sink (Assign), plus every Parameter: what OpenVINO keeps when
// it reads the IR.
// Marks are vectors indexed by node id (a million-node graph would need hundreds of MB of hash
// sets).
std::vector<Node> layer_order(const Graph& graph) {
    enum : char { kDead, kLive, kPlaced };
    std::vector<char> mark(graph.id_limit(), kDead);
    std::vector<Node> stack(graph.results().begin(), graph.results().end());
    stack.insert(stack.end(), graph.sinks().begin(), graph.sinks().end());
    for (const Node& r : stack) mark[r.id()] = kLive;
    while (!stack.empty()) {
        Node n = stack.back();
        stack.pop_back();
        for (size_t i = 0; i < n.input_count(); ++i) {
            auto src = n.in(i).source();
            if (src && mark[src->node().id()] == kDead) {
                mark[src->node().id()] = kLive;
                stack.push_back(src->node());
            }
        }
    }
    std::vector<Node> order;
    order.reserve(graph.node_count());
    auto place = [&](const Node& n) {
        if (mark[n.id()] == kPlaced) return;
        mark[n.id()] = kPlaced;
        order.push_back(n);
    };
    for (const Node& p : graph.parameters()) place(p);
    for (const Node& r : graph.results()) mark[r.id()] = kDead;  // placed last, below
    const std::vector<Node> topo = graph.topological_order();
    for (size_t i = 0; i < topo.size(); ++i) {
        if (i + 16 < topo.size()) __builtin_prefetch(GraphAccess::data(topo[i + 16]));
        if (mark[topo[i].id()] == kLive) place(topo[i]);
    }
    for (const Node& r : graph.results()) place(r);
    return order;
}

// Everything that would make the IR unreadable is reported before a byte is written.
// Adds the bytes of the constants among them (bodies included, duplicates counted each time) to
// `weight_bytes`: the progress total.
void collect_internal(const std::vector<Node>& layers, std::vector<std::string>& internal, Node& first_internal,
                      uint64_t& weight_bytes) {
    for (size_t i = 0; i < layers.size(); ++i) {
        prefetch_ahead(layers, i);
        const Node& n = layers[i];
        for (const Body& body : n.bodies())
            collect_internal(layer_order(*body.graph), internal, first_internal, weight_bytes);
        if (n.op().is_internal()) {
            if (!first_internal) first_internal = n;
            internal.push_back(n.describe());
            continue;
        }
        for (size_t k = 0; k < n.input_count(); ++k)
            if (!n.in(k).connected())
                throw Error("input " + std::to_string(k) + " is not connected", n.describe(),
                            "every input of an IR layer needs a producer; this is a bug in a transformation");
        if (n.is("Constant")) {
            const Tensor* v = n.out(0).value();
            if (!v) throw Error("constant has no value", n.describe());
            if (v->type() == ElementType::string || v->type() == ElementType::dynamic)
                throw Error("constants of type '" + std::string(ir_name(v->type())) + "' cannot be written to IR yet",
                            n.describe());
            weight_bytes += v->byte_size();
        }
    }
}

// Returns the bytes of the layers' weights.
uint64_t check_emittable(const std::vector<Node>& layers) {
    std::vector<std::string> internal;
    Node first_internal;
    uint64_t weight_bytes = 0;
    collect_internal(layers, internal, first_internal, weight_bytes);
    if (!internal.empty()) {
        std::string list;
        for (const auto& d : internal) list += (list.empty() ? "" : ", ") + d;
        throw Error("op not supported in OpenVINO IR: " + list, first_internal.describe(),
                    "these are internal ops that a back transformation should have lowered");
    }
    return weight_bytes;
}

// The weights of every Constant, written to the BIN in layer order (a body's at its owner's
// place) before any XML: f16 weights whose range is checked while they are written
// (F16Weights) may turn out not to fit f16, and are then written as their f32 source, the
// Constant standing for the decompression Convert that read it, which is left out.
class PlacedWeights {
public:
    struct Blob {
        BinWriter::Placement placed;
        const Tensor* tensor = nullptr;  // what was written: the f32 source when f16 did not fit
        Node stands_for;                 // the Convert left out, whose name and output this layer takes
    };

    void place(const std::vector<Node>& layers, BinWriter& bin) {
        for (size_t i = 0; i < layers.size(); ++i) {
            prefetch_ahead(layers, i);
            const Node& n = layers[i];
            if (n.is("Constant")) blobs_.push_back(place_constant(n, bin));
            for (const Body& body : n.bodies()) place(layer_order(*body.graph), bin);
        }
    }
    // The blob of `constant`, the next in the order place() met them.
    const Blob& next(const Node& constant) {
        MO_ASSERT(cursor_ < blobs_.size(), "no weights placed for ", constant.describe());
        return blobs_[cursor_++];
    }
    bool left_out(const Node& n) const { return !left_out_.empty() && left_out_.count(key(n)); }
    // `layers` without the Converts left out.
    std::vector<Node> kept(std::vector<Node> layers) const {
        if (!left_out_.empty()) std::erase_if(layers, [&](const Node& n) { return left_out(n); });
        return layers;
    }
    // The output a consumer of `src` reads in the IR: a left-out Convert's input instead of it.
    OutPort producer(const OutPort& src) const { return left_out(src.node()) ? src.node().in(0).src() : src; }

private:
    static std::pair<const Graph*, uint64_t> key(const Node& n) { return {&n.graph(), n.id()}; }

    Blob place_constant(const Node& n, BinWriter& bin) {
        const Tensor& v = *n.out(0).value();
        const auto* half = dynamic_cast<const F16Weights*>(v.buffer().get());
        if (!half) return Blob{bin.add(v), &v, Node()};
        if (auto placed = bin.add_f16(*half)) return Blob{*placed, &v, Node()};
        // A value beyond the f16 range: the f32 weights, and the Constant they were again.
        const std::vector<InPort> targets = n.out(0).targets();
        Node convert = targets.size() == 1 ? targets[0].node() : Node();
        MO_ASSERT(convert && convert.is("Convert") && convert.has_rt_info(kDecompression) &&
                      convert.out(0).type() == ElementType::f32,
                  n.describe(), ": f16 weights that do not fit f16 feed something else than their decompression");
        left_out_.insert(key(convert));
        MO_LOG(Debug, convert.describe(), ": a weight is beyond the f16 range, written in f32");
        return Blob{bin.add(half->source()), &half->source(), convert};
    }

    std::vector<Blob> blobs_;
    size_t cursor_ = 0;
    std::set<std::pair<const Graph*, uint64_t>> left_out_;
};

void append_dims(pugi::xml_node port, const PartialShape& shape) {
    if (!shape.rank_is_static()) return;  // dynamic rank: no <dim> at all
    for (const Dimension& d : shape.dims())
        port.append_child("dim").text().set(d.is_static() ? std::to_string(d.get_length()).c_str() : "-1");
}

void append_port(pugi::xml_node parent, size_t id, const OutputData& data, bool with_names) {
    pugi::xml_node port = parent.append_child("port");
    port.append_attribute("id") = std::to_string(id).c_str();
    port.append_attribute("precision") = std::string(ir_precision(data.type)).c_str();
    if (with_names && !data.names.empty()) port.append_attribute("names") = format_tensor_names(data.names).c_str();
    append_dims(port, data.shape);
}

bool pads_zeroed_by_auto_pad(const Node& n, const AttrSpec& spec) {
    if (spec.name != "pads_begin" && spec.name != "pads_end") return false;
    if (!n.op().find_attr("auto_pad")) return false;
    const auto& mode = std::get<std::string>(n.attr_value("auto_pad"));
    return mode == "same_upper" || mode == "same_lower" || mode == "valid";
}

void append_data(pugi::xml_node layer, const Node& n, const PlacedWeights::Blob* blob) {
    pugi::xml_node data = layer.append_child("data");
    if (blob) {
        const Tensor& v = *blob->tensor;
        const BinWriter::Placement& placed = blob->placed;
        data.append_attribute("element_type") = std::string(ir_name(v.type())).c_str();
        data.append_attribute("shape") = format_int_list(v.shape()).c_str();
        data.append_attribute("offset") = std::to_string(placed.offset).c_str();
        data.append_attribute("size") = std::to_string(placed.size).c_str();
        return;
    }
    for (const AttrSpec& spec : n.op().attrs) {
        const AttrValue& value = n.attr_value(spec.name);
        std::string text;
        if (pads_zeroed_by_auto_pad(n, spec))  // as OpenVINO's writer does (ir-format.md §13)
            text = format_int_list(std::vector<int64_t>(std::get<std::vector<int64_t>>(value).size(), 0));
        else
            text = format_attr(value);
        data.append_attribute(spec.name.c_str()) = text.c_str();
    }
    if (!data.first_attribute()) layer.remove_child(data);
}

// `n`'s rt_info, fused names and name; `without_decompression`: a Constant standing for its
// left-out decompression Convert, which it is again.
void append_rt_info(pugi::xml_node layer, const Node& n, bool without_decompression) {
    const auto& info = n.read_rt_info();
    const auto& fused = n.read_fused_names();
    const bool no_info = info.empty() || (without_decompression && info.size() == 1 && info.count(kDecompression));
    if (no_info && fused.empty()) return;
    pugi::xml_node rt = layer.append_child("rt_info");
    for (const auto& [name, version] : info) {
        if (without_decompression && name == kDecompression) continue;
        pugi::xml_node a = rt.append_child("attribute");
        a.append_attribute("name") = name.c_str();
        a.append_attribute("version") = version.c_str();
    }
    if (!fused.empty()) {  // provenance, as OpenVINO's FusedNames: sorted, comma-joined
        std::vector<std::string> names = fused;
        names.push_back(n.name());
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        std::string joined;
        for (const auto& s : names) joined += (joined.empty() ? "" : ",") + s;
        pugi::xml_node a = rt.append_child("attribute");
        a.append_attribute("name") = "fused_names";
        a.append_attribute("version") = "0";
        a.append_attribute("value") = joined.c_str();
    }
}

bool is_xml_name(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
}

void append_model_rt_info(pugi::xml_node net, const EmitOptions& options) {
    pugi::xml_node rt = net.append_child("rt_info");
    rt.append_child("MO_version").append_attribute("value") = MO_VERSION;
    if (options.conversion_parameters.empty()) return;
    pugi::xml_node params = rt.append_child("conversion_parameters");
    for (const auto& [name, value] : options.conversion_parameters) {
        // Element names must be XML names; anything else uses the reader's <info name=...> form.
        pugi::xml_node e = is_xml_name(name) ? params.append_child(name.c_str()) : params.append_child("info");
        if (!is_xml_name(name)) e.append_attribute("name") = name.c_str();
        e.append_attribute("value") = value.c_str();
    }
}

// Buffered output to a file descriptor, for pugixml's printer and for text written directly;
// the first error is kept.
class FdXmlWriter final : public pugi::xml_writer {
public:
    explicit FdXmlWriter(int fd) : fd_(fd) { buffer_.reserve(kSize); }
    void write(const void* data, size_t size) override {
        const char* p = static_cast<const char*>(data);
        if (buffer_.size() + size > kSize) flush();
        if (size >= kSize) return write_out(p, size);
        buffer_.insert(buffer_.end(), p, p + size);
    }
    void text(std::string_view s) { write(s.data(), s.size()); }
    void flush() {
        write_out(buffer_.data(), buffer_.size());
        buffer_.clear();
    }
    int error() const { return error_; }

    static constexpr size_t kSize = size_t{1} << 20;  // a write() of text this long is not buffered

private:
    void write_out(const char* p, size_t size) {
        while (size > 0 && error_ == 0) {
            ssize_t n = ::write(fd_, p, size);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) error_ = errno;
            else p += n, size -= static_cast<size_t>(n);
        }
    }
    int fd_;
    int error_ = 0;
    std::vector<char> buffer_;
};

// Collects pugixml's printed text into a string.
class StringXmlWriter final : public pugi::xml_writer {
public:
    void write(const void* data, size_t size) override { text.append(static_cast<const char*>(data), size); }
    std::string text;
};

// from-layer, from-port, to-layer, to-port: 32 bits each (a million-node graph has 1.5 million
// edges, all held until they are sorted and written).
using Edge = std::array<uint32_t, 4>;

Edge make_edge(size_t from_layer, size_t from_port, size_t to_layer, size_t to_port) {
    MO_ASSERT(std::max({from_layer, from_port, to_layer, to_port}) <= UINT32_MAX, "a layer or port number beyond 2^32");
    return {static_cast<uint32_t>(from_layer), static_cast<uint32_t>(from_port), static_cast<uint32_t>(to_layer),
            static_cast<uint32_t>(to_port)};
}

// The layer id of each node of one graph, by node id.
class LayerIds {
public:
    LayerIds(const Graph& graph, const std::vector<Node>& layers) : ids_(graph.id_limit(), kNone) {
        MO_ASSERT(layers.size() < kNone, "more than 2^32 - 1 layers");
        for (size_t i = 0; i < layers.size(); ++i) ids_[layers[i].id()] = static_cast<uint32_t>(i);
    }
    static constexpr size_t kAbsent = SIZE_MAX;
    size_t find(const Node& n) const {
        return n.id() < ids_.size() && ids_[n.id()] != kNone ? ids_[n.id()] : kAbsent;
    }
    size_t at(const Node& n) const {
        const size_t id = n.id() < ids_.size() ? ids_[n.id()] : kNone;
        MO_ASSERT(id != kNone, n.describe(), " is not a layer");
        return id;
    }

private:
    static constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t, LargeArrayAllocator<uint32_t>> ids_;  // read at random: huge pages
};

LayerIds append_graph(pugi::xml_node parent, const Graph& graph, PlacedWeights& weights);
void append_bodies(pugi::xml_node layer, const Node& n, PlacedWeights& weights);

// <layer> with its <data>, <rt_info> and ports; records the edges into it.
void append_layer(pugi::xml_node& xml_layers, const Node& n, size_t id, const LayerIds& layer_id,
                  PlacedWeights& weights, std::vector<Edge>& edges) {
    const PlacedWeights::Blob* blob = n.is("Constant") ? &weights.next(n) : nullptr;
    // A Constant written in f32 again takes the identity of the Convert left out.
    const Node& named = blob && blob->stands_for ? blob->stands_for : n;
    pugi::xml_node layer = xml_layers.append_child("layer");
    layer.append_attribute("id") = std::to_string(id).c_str();
    layer.append_attribute("name") = named.name().c_str();
    layer.append_attribute("type") = n.op().ir_type.c_str();
    layer.append_attribute("version") = n.op().ir_version.c_str();
    append_data(layer, n, blob);
    append_rt_info(layer, named, named != n);
    const size_t n_in = n.input_count();
    if (n_in > 0) {
        pugi::xml_node input = layer.append_child("input");
        for (size_t i = 0; i < n_in; ++i) {
            const OutPort src = n.in(i).src(), from = weights.producer(src);
            append_port(input, i, src.data(), false);
            edges.push_back(make_edge(layer_id.at(from.node()), from.node().input_count() + from.index(), id, i));
        }
    }
    if (n.output_count() > 0) {
        pugi::xml_node output = layer.append_child("output");
        for (size_t j = 0; j < n.output_count(); ++j) append_port(output, n_in + j, named.out(j).data(), true);
    }
    if (!n.bodies().empty()) append_bodies(layer, n, weights);
}

// <edges>, sorted so the same graph always gives the same bytes.
void append_edges(pugi::xml_node& net, std::vector<Edge>& edges) {
    std::sort(edges.begin(), edges.end());
    pugi::xml_node xml_edges = net.append_child("edges");
    for (const auto& e : edges) {
        pugi::xml_node edge = xml_edges.append_child("edge");
        edge.append_attribute("from-layer") = std::to_string(e[0]).c_str();
        edge.append_attribute("from-port") = std::to_string(e[1]).c_str();
        edge.append_attribute("to-layer") = std::to_string(e[2]).c_str();
        edge.append_attribute("to-port") = std::to_string(e[3]).c_str();
    }
}

void append_slicing(pugi::xml_node entry, int64_t axis, int64_t start, int64_t end, int64_t stride, int64_t part_size) {
    entry.prepend_attribute("axis") = std::to_string(axis).c_str();
    entry.append_attribute("start") = std::to_string(start).c_str();
    entry.append_attribute("end") = std::to_string(end).c_str();
    entry.append_attribute("stride") = std::to_string(stride).c_str();
    entry.append_attribute("part_size") = std::to_string(part_size).c_str();
}

pugi::xml_node append_map_entry(pugi::xml_node port_map, const char* kind, int64_t external, size_t internal) {
    pugi::xml_node e = port_map.append_child(kind);
    e.append_attribute("external_port_id") = std::to_string(external).c_str();
    e.append_attribute("internal_layer_id") = std::to_string(internal).c_str();
    return e;
}

// <port_map> (If: <then_port_map> / <else_port_map>), <back_edges> and the body itself, in the
// form OpenVINO's serializer writes: entries name body layers by id; output external ids count
// after the node's inputs; the current iteration and the condition come last, with their purpose.
void append_bodies(pugi::xml_node layer, const Node& n, PlacedWeights& weights) {
    for (const Body& body : n.bodies()) {
        const std::string prefix = body.role == "body" ? "" : body.role.substr(0, body.role.find('_') + 1);
        pugi::xml_node xml_body = layer.append_child(body.role.c_str());
        const LayerIds ids = append_graph(xml_body, *body.graph, weights);
        auto param_id = [&](size_t p) { return ids.at(body.graph->parameters().at(p)); };
        auto result_id = [&](size_t r) { return ids.at(body.graph->results().at(r)); };

        pugi::xml_node port_map = layer.insert_child_before((prefix + "port_map").c_str(), xml_body);
        pugi::xml_node back_edges;
        for (const BodyInput& in : body.inputs) {
            if (in.kind == BodyInput::Kind::CurrentIteration) continue;
            pugi::xml_node e = append_map_entry(port_map, "input", static_cast<int64_t>(in.external), param_id(in.parameter));
            if (in.kind == BodyInput::Kind::Sliced) append_slicing(e, in.axis, in.start, in.end, in.stride, in.part_size);
            if (in.kind != BodyInput::Kind::Merged) continue;
            if (!back_edges) back_edges = layer.insert_child_after("back_edges", port_map);
            pugi::xml_node edge = back_edges.append_child("edge");
            edge.append_attribute("from-layer") = std::to_string(result_id(in.result)).c_str();
            edge.append_attribute("to-layer") = std::to_string(param_id(in.parameter)).c_str();
        }
        for (const BodyOutput& out : body.outputs) {
            if (out.kind == BodyOutput::Kind::Condition) continue;
            pugi::xml_node e = append_map_entry(port_map, "output", static_cast<int64_t>(n.input_count() + out.external),
                                                result_id(out.result));
            if (out.kind == BodyOutput::Kind::Concat) append_slicing(e, out.axis, out.start, out.end, out.stride, out.part_size);
        }
        for (const BodyInput& in : body.inputs)
            if (in.kind == BodyInput::Kind::CurrentIteration)
                append_map_entry(port_map, "input", -1, param_id(in.parameter)).append_attribute("purpose") = "current_iteration";
        for (const BodyOutput& out : body.outputs)
            if (out.kind == BodyOutput::Kind::Condition)
                append_map_entry(port_map, "output", -1, result_id(out.result)).append_attribute("purpose") = "execution_condition";
    }
}

// <layers> and <edges> of a body under its layer.
LayerIds append_graph(pugi::xml_node parent, const Graph& graph, PlacedWeights& weights) {
    const std::vector<Node> layers = weights.kept(layer_order(graph));
    LayerIds layer_id(graph, layers);
    pugi::xml_node xml_layers = parent.append_child("layers");
    std::vector<Edge> edges;
    for (size_t id = 0; id < layers.size(); ++id) append_layer(xml_layers, layers[id], id, layer_id, weights, edges);
    append_edges(parent, edges);
    return layer_id;
}

// <port> with its <dim>s, at `depth`.
void write_port(XmlText& xml, unsigned depth, size_t id, const OutputData& data, bool with_names) {
    xml.open(depth, "port");
    xml.attribute("id", uint64_t{id});
    xml.attribute("precision", ir_precision(data.type));
    if (with_names && !data.names.empty()) xml.attribute("names", format_tensor_names(data.names));
    const PartialShape& shape = data.shape;
    if (!shape.rank_is_static() || shape.dims().empty()) return xml.end_empty();
    xml.end_open();
    for (const Dimension& d : shape.dims()) {
        if (d.is_static()) xml.number_element(depth + 1, "dim", d.get_length());
        else xml.text_element(depth + 1, "dim", "-1");
    }
    xml.close(depth, "port");
}

// Asks the CPU for what writing a layer reads, in stages a few layers apart, each stage reading
// what the one before fetched: the node, then its port lists, then its producers and its
// shapes' dimensions, then the producers' outputs. On a graph of millions of nodes each of them
// is a cache miss otherwise, and the writer waited on them for most of its time.
class LayerPrefetch {
public:
    explicit LayerPrefetch(const std::vector<Node>& layers) : layers_(layers) {}
    static constexpr size_t kStep = 4;  // layers between two stages
    // Called before layer `id` is written.
    void before(size_t id) const {
        if (const NodeData* d = at(id + 4 * kStep)) GraphAccess::prefetch(d);
        if (const NodeData* d = at(id + 3 * kStep)) {
            __builtin_prefetch(d->in_edges.data());
            __builtin_prefetch(d->outputs.data());
            __builtin_prefetch(d->out_edges.data());
            __builtin_prefetch(d->name.data());
        }
        if (const NodeData* d = at(id + 2 * kStep)) {
            for (const InEdge& e : d->in_edges)
                if (e.src) __builtin_prefetch(&e.src->outputs);
            for (const OutputData& o : d->outputs)
                if (o.shape.rank_is_static()) __builtin_prefetch(o.shape.dims().data());
        }
        if (const NodeData* d = at(id + kStep)) {
            for (const InEdge& e : d->in_edges)
                if (e.src && e.out_port < e.src->outputs.size()) {
                    const OutputData& o = e.src->outputs[e.out_port];
                    if (o.shape.rank_is_static()) __builtin_prefetch(o.shape.dims().data());
                }
        }
    }

private:
    const NodeData* at(size_t id) const { return id < layers_.size() ? GraphAccess::data(layers_[id]) : nullptr; }
    const std::vector<Node>& layers_;
};

// A layer without bodies as text: what append_layer builds and pugixml prints, without the
// document (a million of them are most of the writing time of a large graph).
void write_layer(XmlText& xml, const Node& n, size_t id, PlacedWeights& weights) {
    const PlacedWeights::Blob* blob = n.is("Constant") ? &weights.next(n) : nullptr;
    const Node& named = blob && blob->stands_for ? blob->stands_for : n;
    const OpSchema& op = n.op();
    const auto& info = named.read_rt_info();
    const auto& fused = named.read_fused_names();
    const bool without_decompression = named != n;
    const bool no_info = info.empty() || (without_decompression && info.size() == 1 && info.count(kDecompression));
    const bool has_data = blob || !op.attrs.empty(), has_rt = !no_info || !fused.empty();
    const NodeData& d = *GraphAccess::data(n);
    const size_t n_in = d.in_edges.size(), n_out = d.outputs.size();
    xml.open(2, "layer");
    xml.attribute("id", uint64_t{id});
    xml.attribute("name", named.name());
    xml.attribute("type", op.ir_type);
    xml.attribute("version", op.ir_version);
    if (!has_data && !has_rt && n_in == 0 && n_out == 0) return xml.end_empty();
    xml.end_open();
    if (has_data) {
        xml.open(3, "data");
        if (blob) {
            xml.attribute("element_type", ir_name(blob->tensor->type()));
            xml.attribute("shape", format_int_list(blob->tensor->shape()));
            xml.attribute("offset", blob->placed.offset);
            xml.attribute("size", blob->placed.size);
        } else {
            for (const AttrSpec& spec : op.attrs) {
                const AttrValue& value = n.attr_value(spec.name);
                if (pads_zeroed_by_auto_pad(n, spec))  // as OpenVINO's writer does (ir-format.md §13)
                    xml.attribute(spec.name, format_int_list(std::vector<int64_t>(std::get<std::vector<int64_t>>(value).size(), 0)));
                else
                    xml.attribute(spec.name, format_attr(value));
            }
        }
        xml.end_empty();
    }
    if (has_rt) {
        xml.open(3, "rt_info");
        xml.end_open();
        for (const auto& [name, version] : info) {
            if (without_decompression && name == kDecompression) continue;
            xml.open(4, "attribute");
            xml.attribute("name", name);
            xml.attribute("version", version);
            xml.end_empty();
        }
        if (!fused.empty()) {  // provenance, as OpenVINO's FusedNames: sorted, comma-joined
            std::vector<std::string> names = fused;
            names.push_back(named.name());
            std::sort(names.begin(), names.end());
            names.erase(std::unique(names.begin(), names.end()), names.end());
            std::string joined;
            for (const auto& s : names) joined += (joined.empty() ? "" : ",") + s;
            xml.open(4, "attribute");
            xml.attribute("name", "fused_names");
            xml.attribute("version", "0");
            xml.attribute("value", joined);
            xml.end_empty();
        }
        xml.close(3, "rt_info");
    }
    if (n_in > 0) {
        xml.open(3, "input");
        xml.end_open();
        for (size_t i = 0; i < n_in; ++i) {
            const InEdge& e = d.in_edges[i];  // connected: check_emittable() said so
            write_port(xml, 4, i, e.src->outputs[e.out_port], false);
        }
        xml.close(3, "input");
    }
    if (n_out > 0) {
        xml.open(3, "output");
        xml.end_open();
        const NodeData& named_data = *GraphAccess::data(named);
        for (size_t j = 0; j < n_out; ++j) write_port(xml, 4, n_in + j, named_data.outputs.at(j), true);
        xml.close(3, "output");
    }
    xml.close(2, "layer");
}

// `\t\t<edge from-layer=".." from-port=".." to-layer=".." to-port=".." />`, as XmlText writes it,
// put together in one piece (a million-layer graph has millions of them).
void append_edge(std::string& text, uint64_t from_layer, uint64_t from_port, uint64_t to_layer, uint64_t to_port) {
    char line[160];
    char* p = line;
    auto put = [&p](std::string_view s) { p = std::copy(s.begin(), s.end(), p); };
    auto number = [&p](uint64_t v) { p = std::to_chars(p, p + 20, v).ptr; };
    put("\t\t<edge from-layer=\"");
    number(from_layer);
    put("\" from-port=\"");
    number(from_port);
    put("\" to-layer=\"");
    number(to_layer);
    put("\" to-port=\"");
    number(to_port);
    put("\" />\n");
    text.append(line, static_cast<size_t>(p - line));
}

// The model's <layers> and <edges>, streamed: each layer is built as a small document, printed
// at its depth and dropped, so the XML never exists in memory as a whole (on a million-node
// graph the document alone would take gigabytes). The text is the same as printing one document.
// Returns the number of edges.
size_t write_model_graph(FdXmlWriter& out, const Graph& graph, const std::vector<Node>& layers, PlacedWeights& weights) {
    const LayerIds layer_id(graph, layers);
    // Text is handed on in pieces of FdXmlWriter's size, which it writes without copying.
    constexpr size_t kTextChunk = FdXmlWriter::kSize;
    out.text("\t<layers>\n");
    std::string text;
    text.reserve(kTextChunk + (size_t{64} << 10));
    XmlText xml(text);
    std::vector<Edge> unused;
    const LayerPrefetch prefetch(layers);
    for (size_t id = 0; id < layers.size(); ++id) {
        prefetch.before(id);
        if (layers[id].bodies().empty()) {
            write_layer(xml, layers[id], id, weights);
            if (text.size() >= kTextChunk) out.text(text), text.clear();
            continue;
        }
        out.text(text), text.clear();
        pugi::xml_document scratch;
        pugi::xml_node parent = scratch.append_child("layers");
        append_layer(parent, layers[id], id, layer_id, weights, unused);
        parent.first_child().print(out, "\t", pugi::format_default, pugi::encoding_utf8, 2);
    }
    out.text(text), text.clear();
    out.text("\t</layers>\n");
    // <edges> in (from-layer, from-port, to-layer, to-port) order, made layer by layer from each
    // node's consumers: a list of every edge, sorted, took 16 bytes per edge at the peak.
    // A consumer that is a left-out Convert passes its own consumers on (PlacedWeights::producer).
    size_t count = 0;
    std::vector<std::array<uint32_t, 3>> targets;  // from-port (output index), to-layer, to-port
    auto add_targets = [&](const NodeData& from, uint32_t out_port, bool all_ports, auto& self) -> void {
        for (const OutEdge& e : from.out_edges) {
            if (!all_ports && e.out_port != 0) continue;
            const Node to = GraphAccess::node(e.dst);
            if (weights.left_out(to)) {
                self(*e.dst, all_ports ? e.out_port : out_port, false, self);
                continue;
            }
            const size_t to_layer = layer_id.find(to);
            if (to_layer == LayerIds::kAbsent) continue;
            targets.push_back({all_ports ? e.out_port : out_port, static_cast<uint32_t>(to_layer), e.in_port});
        }
    };
    for (size_t id = 0; id < layers.size(); ++id) {
        // The node, its consumer list, then its consumers, a few layers ahead (as LayerPrefetch).
        constexpr size_t kStep = LayerPrefetch::kStep;
        if (id + 3 * kStep < layers.size()) __builtin_prefetch(GraphAccess::data(layers[id + 3 * kStep]));
        if (id + 2 * kStep < layers.size()) __builtin_prefetch(GraphAccess::data(layers[id + 2 * kStep])->out_edges.data());
        if (id + kStep < layers.size())
            for (const OutEdge& e : GraphAccess::data(layers[id + kStep])->out_edges) __builtin_prefetch(e.dst);
        const NodeData& n = *GraphAccess::data(layers[id]);
        if (n.out_edges.empty()) continue;
        targets.clear();
        add_targets(n, 0, true, add_targets);
        std::sort(targets.begin(), targets.end());
        const size_t n_in = n.in_edges.size();
        for (const auto& [out_port, to_layer, to_port] : targets) {
            if (count++ == 0) out.text("\t<edges>\n");
            append_edge(text, id, n_in + out_port, to_layer, to_port);
            if (text.size() >= kTextChunk) out.text(text), text.clear();  // a constant read by a million
        }
        if (targets.capacity() > 4096) targets = {};  // after a node read by many: not kept for the rest
    }
    out.text(text), text.clear();
    out.text(count == 0 ? "\t<edges />\n" : "\t</edges>\n");
    return count;
}

// `<net name=".." version="11">` with the name escaped as pugixml escapes attribute values.
std::string net_open_tag(const std::string& model_name) {
    pugi::xml_document scratch;
    pugi::xml_node net = scratch.append_child("net");
    net.append_attribute("name") = model_name.c_str();
    net.append_attribute("version") = "11";
    StringXmlWriter text;
    net.print(text, "", pugi::format_raw, pugi::encoding_utf8);
    std::string tag = text.text;  // <net ... /> or <net .../>
    tag.erase(tag.rfind("/>"));
    while (!tag.empty() && tag.back() == ' ') tag.pop_back();
    return tag + ">\n";
}

// The file an earlier run left at `path`, kept under a second name while the new IR is renamed
// into place: when the xml's rename fails after the bin's, restore() puts the old bin back.
// A second link leaves the old file where it is meanwhile; renaming it aside is the fallback
// for file systems without hard links.
class EarlierFile {
public:
    explicit EarlierFile(std::string path) : path_(std::move(path)) {
        struct stat st {};
        if (::lstat(path_.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return;  // nothing to keep
        const std::filesystem::path p(path_);
        const std::string name = p.filename().string() + "." + std::to_string(::getpid()) + ".old";
        kept_ = (p.parent_path() / ("." + name)).string();
        ::unlink(kept_.c_str());
        if (::link(path_.c_str(), kept_.c_str()) != 0 && std::rename(path_.c_str(), kept_.c_str()) != 0) kept_.clear();
    }
    ~EarlierFile() {
        if (!kept_.empty()) ::unlink(kept_.c_str());
    }
    EarlierFile(const EarlierFile&) = delete;
    EarlierFile& operator=(const EarlierFile&) = delete;

    // Puts the earlier file back at its path; false when there was none to keep or it cannot.
    bool restore() {
        if (kept_.empty()) return false;
        // Renaming a link onto the same file is a no-op that keeps both: the destructor unlinks it.
        if (std::rename(kept_.c_str(), path_.c_str()) == 0) return true;
        kept_.clear();  // now the only copy: left under its second name rather than lost
        return false;
    }

private:
    std::string path_, kept_;
};

}  // namespace

EmitStats write_ir(const Graph& graph, const EmitOptions& options) {
    std::vector<Node> layers = layer_order(graph);
    const uint64_t weight_bytes = check_emittable(layers);

    StagedFile bin_file(options.bin_path);
    StagedFile xml_file(options.xml_path);
    BinWriter bin(bin_file.fd(), options.bin_path);
    bin.set_expected_size(weight_bytes);
    FdXmlWriter out(xml_file.fd());

    PlacedWeights weights;
    weights.place(layers, bin);
    bin.flush();
    layers = weights.kept(std::move(layers));
    out.text("<?xml version=\"1.0\"?>\n");
    out.text(net_open_tag(options.model_name));
    const size_t edges = write_model_graph(out, graph, layers, weights);
    pugi::xml_document scratch;
    pugi::xml_node net = scratch.append_child("net");
    append_model_rt_info(net, options);
    net.first_child().print(out, "\t", pugi::format_default, pugi::encoding_utf8, 1);
    out.text("</net>\n");
    out.flush();
    if (out.error() != 0)
        throw Error(std::string("cannot write the IR file: ") + std::strerror(out.error()), options.xml_path,
                    "check free disk space and write permission of the output directory");

    EarlierFile earlier_bin(options.bin_path);
    try {
        bin_file.commit();
        xml_file.commit();
    } catch (...) {
        if (!earlier_bin.restore()) bin_file.remove_committed();
        throw;
    }
    MO_LOG(Info, "IR written: ", layers.size(), " layers, ", edges, " edges, ", bin.bytes_written(), " weight bytes (",
           bin.deduplicated_blobs(), " duplicate constants stored once)");
    return EmitStats{layers.size(), edges, static_cast<size_t>(bin.bytes_written())};
}

}  // namespace mo
