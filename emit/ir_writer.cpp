// Layout of model.xml follows OpenVINO's serializer (shared/ir/ir-format.md): layers with ids
// 0..N-1 (Parameters first, Results last, the rest in topological order), then edges sorted by
// source, then the model rt_info. model.bin holds the Const blobs in layer order.
#include "emit/ir_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <pugixml.hpp>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "core/log.hpp"
#include "emit/attr_format.hpp"
#include "emit/bin_writer.hpp"
#include "emit/staged_file.hpp"

#ifndef MO_VERSION
#define MO_VERSION "unknown"
#endif

namespace mo {

namespace {

// Nodes that reach a Result, plus every Parameter: what OpenVINO keeps when it reads the IR.
std::vector<Node> layer_order(const Graph& graph) {
    std::unordered_set<uint64_t> live;
    std::vector<Node> stack(graph.results().begin(), graph.results().end());
    for (const Node& r : stack) live.insert(r.id());
    while (!stack.empty()) {
        Node n = stack.back();
        stack.pop_back();
        for (size_t i = 0; i < n.input_count(); ++i) {
            auto src = n.in(i).source();
            if (src && live.insert(src->node().id()).second) stack.push_back(src->node());
        }
    }
    std::unordered_set<uint64_t> placed;
    std::vector<Node> order;
    for (const Node& p : graph.parameters())
        if (placed.insert(p.id()).second) order.push_back(p);
    std::unordered_set<uint64_t> results;
    for (const Node& r : graph.results()) results.insert(r.id());
    for (const Node& n : graph.topological_order())
        if (live.count(n.id()) && !results.count(n.id()) && placed.insert(n.id()).second) order.push_back(n);
    for (const Node& r : graph.results())
        if (placed.insert(r.id()).second) order.push_back(r);
    return order;
}

// Everything that would make the IR unreadable is reported before a byte is written.
void collect_internal(const std::vector<Node>& layers, std::vector<std::string>& internal, Node& first_internal) {
    for (const Node& n : layers) {
        for (const Body& body : n.bodies()) collect_internal(layer_order(*body.graph), internal, first_internal);
        if (n.op().is_internal()) {
            if (!first_internal) first_internal = n;
            internal.push_back(n.describe());
            continue;
        }
        for (size_t i = 0; i < n.input_count(); ++i)
            if (!n.in(i).connected())
                throw Error("input " + std::to_string(i) + " is not connected", n.describe(),
                            "every input of an IR layer needs a producer; this is a bug in a transformation");
        if (n.is("Constant")) {
            const Tensor* v = n.out(0).value();
            if (!v) throw Error("constant has no value", n.describe());
            if (v->type() == ElementType::string || v->type() == ElementType::dynamic)
                throw Error("constants of type '" + std::string(ir_name(v->type())) + "' cannot be written to IR yet",
                            n.describe());
        }
    }
}

void check_emittable(const std::vector<Node>& layers) {
    std::vector<std::string> internal;
    Node first_internal;
    collect_internal(layers, internal, first_internal);
    if (!internal.empty()) {
        std::string list;
        for (const auto& d : internal) list += (list.empty() ? "" : ", ") + d;
        throw Error("op not supported in OpenVINO IR: " + list, first_internal.describe(),
                    "these are internal ops that a back transformation should have lowered");
    }
}

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

void append_data(pugi::xml_node layer, const Node& n, BinWriter& bin) {
    pugi::xml_node data = layer.append_child("data");
    if (n.is("Constant")) {
        const Tensor& v = *n.out(0).value();
        auto placed = bin.add(v);
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

void append_rt_info(pugi::xml_node layer, const Node& n) {
    const auto& info = n.rt_info();
    const auto& fused = n.fused_names();
    if (info.empty() && fused.empty()) return;
    pugi::xml_node rt = layer.append_child("rt_info");
    for (const auto& [name, version] : info) {
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

// pugixml output to a file descriptor through a large buffer; the first error is kept.
class FdXmlWriter final : public pugi::xml_writer {
public:
    explicit FdXmlWriter(int fd) : fd_(fd) { buffer_.reserve(kSize); }
    void write(const void* data, size_t size) override {
        const char* p = static_cast<const char*>(data);
        if (buffer_.size() + size > kSize) flush();
        if (size >= kSize) return write_out(p, size);
        buffer_.insert(buffer_.end(), p, p + size);
    }
    void flush() {
        write_out(buffer_.data(), buffer_.size());
        buffer_.clear();
    }
    int error() const { return error_; }

private:
    static constexpr size_t kSize = size_t{1} << 20;
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

using Edge = std::array<uint64_t, 4>;  // from-layer, from-port, to-layer, to-port

void append_graph(pugi::xml_node parent, const Graph& graph, BinWriter& bin, std::unordered_map<uint64_t, size_t>& layer_id);
void append_bodies(pugi::xml_node layer, const Node& n, BinWriter& bin);

// <layer> with its <data>, <rt_info> and ports; records the edges into it.
void append_layer(pugi::xml_node& xml_layers, const Node& n, size_t id,
                  const std::unordered_map<uint64_t, size_t>& layer_id, BinWriter& bin, std::vector<Edge>& edges) {
    pugi::xml_node layer = xml_layers.append_child("layer");
    layer.append_attribute("id") = std::to_string(id).c_str();
    layer.append_attribute("name") = n.name().c_str();
    layer.append_attribute("type") = n.op().ir_type.c_str();
    layer.append_attribute("version") = n.op().ir_version.c_str();
    append_data(layer, n, bin);
    append_rt_info(layer, n);
    const size_t n_in = n.input_count();
    if (n_in > 0) {
        pugi::xml_node input = layer.append_child("input");
        for (size_t i = 0; i < n_in; ++i) {
            OutPort src = n.in(i).src();
            append_port(input, i, src.data(), false);
            auto from = layer_id.find(src.node().id());
            MO_ASSERT(from != layer_id.end(), "producer of ", n.describe(), " is not a layer");
            edges.push_back({from->second, src.node().input_count() + src.index(), id, i});
        }
    }
    if (n.output_count() > 0) {
        pugi::xml_node output = layer.append_child("output");
        for (size_t j = 0; j < n.output_count(); ++j) append_port(output, n_in + j, n.out(j).data(), true);
    }
    if (!n.bodies().empty()) append_bodies(layer, n, bin);
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
void append_bodies(pugi::xml_node layer, const Node& n, BinWriter& bin) {
    for (const Body& body : n.bodies()) {
        const std::string prefix = body.role == "body" ? "" : body.role.substr(0, body.role.find('_') + 1);
        std::unordered_map<uint64_t, size_t> ids;
        pugi::xml_node xml_body = layer.append_child(body.role.c_str());
        append_graph(xml_body, *body.graph, bin, ids);
        auto param_id = [&](size_t p) { return ids.at(body.graph->parameters().at(p).id()); };
        auto result_id = [&](size_t r) { return ids.at(body.graph->results().at(r).id()); };

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

// <layers> and <edges> of a graph (the model's or a body) under `parent`.
void append_graph(pugi::xml_node parent, const Graph& graph, BinWriter& bin, std::unordered_map<uint64_t, size_t>& layer_id) {
    const std::vector<Node> layers = layer_order(graph);
    for (size_t i = 0; i < layers.size(); ++i) layer_id.emplace(layers[i].id(), i);
    pugi::xml_node xml_layers = parent.append_child("layers");
    std::vector<Edge> edges;
    for (size_t id = 0; id < layers.size(); ++id) append_layer(xml_layers, layers[id], id, layer_id, bin, edges);
    append_edges(parent, edges);
}

}  // namespace

EmitStats write_ir(const Graph& graph, const EmitOptions& options) {
    check_emittable(layer_order(graph));

    StagedFile bin_file(options.bin_path);
    StagedFile xml_file(options.xml_path);
    BinWriter bin(bin_file.fd(), options.bin_path);

    pugi::xml_document doc;
    pugi::xml_node net = doc.append_child("net");
    net.append_attribute("name") = options.model_name.c_str();
    net.append_attribute("version") = "11";
    std::unordered_map<uint64_t, size_t> layer_id;
    append_graph(net, graph, bin, layer_id);
    bin.flush();
    append_model_rt_info(net, options);

    FdXmlWriter writer(xml_file.fd());
    doc.save(writer, "\t", pugi::format_default, pugi::encoding_utf8);
    writer.flush();
    if (writer.error() != 0)
        throw Error(std::string("cannot write the IR file: ") + std::strerror(writer.error()), options.xml_path,
                    "check free disk space and write permission of the output directory");

    bin_file.commit();
    try {
        xml_file.commit();
    } catch (...) {
        bin_file.remove_committed();
        throw;
    }
    const size_t layers = layer_id.size();
    const size_t edges = static_cast<size_t>(std::distance(net.child("edges").begin(), net.child("edges").end()));
    MO_LOG(Info, "IR written: ", layers, " layers, ", edges, " edges, ", bin.bytes_written(), " weight bytes (",
           bin.deduplicated_blobs(), " duplicate constants stored once)");
    return EmitStats{layers, edges, static_cast<size_t>(bin.bytes_written())};
}

}  // namespace mo
