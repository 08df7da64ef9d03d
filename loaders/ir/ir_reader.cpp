// Reading happens in four passes over model.xml: layers (nodes, attributes, constants, ports),
// edges (connections), shape inference in topological order, and the check of every declared
// port against what inference gives. Errors name "<file>: layer 'x' (id N, type T)".
#include "loaders/ir/ir_reader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <unordered_map>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/mapped_file.hpp"
#include "loaders/ir/ir_attr_parse.hpp"

namespace mo {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// What the XML declares for one port.
struct DeclaredPort {
    uint64_t id = 0;
    std::string precision;  // empty when absent (allowed on input ports only)
    std::vector<int64_t> dims;
    std::vector<std::string> names;  // tensor names (output ports)
};

struct Layer {
    uint64_t id = 0;
    std::string name, type;
    Node node;
    std::vector<DeclaredPort> inputs, outputs;
    std::unordered_map<uint64_t, size_t> input_of_id, output_of_id;  // port id -> index in inputs / outputs
    std::vector<bool> input_fed;
};

// The layers of one graph: the model's (<net>) or a body of an If, Loop or TensorIterator.
struct GraphLayers {
    Graph* graph = nullptr;
    std::string where;  // "<file>" or "<file>: body of layer 'x' (id N)"
    size_t nesting = 0;  // 0 for <net>, 1 for its layers' bodies, ...
    std::vector<Layer> layers;
    std::unordered_map<uint64_t, size_t> index_of_id;  // XML layer id -> layers index
    std::unordered_map<uint64_t, size_t> layer_index;  // Node id -> layers index
    std::unordered_map<uint64_t, std::vector<std::unique_ptr<GraphLayers>>> bodies;  // owner Node id -> its bodies
};

class IrReader {
public:
    IrReader(std::string xml_path, const OpRegistry& ops) : path_(std::move(xml_path)), ops_(ops) {
        for (const std::string& t : ops.types()) {
            const OpSchema& s = ops.get(t);
            if (s.is_internal()) continue;
            by_type_.emplace(lower(s.ir_type), &s);
            by_type_.emplace(lower(s.type), &s);
        }
    }

    std::unique_ptr<Graph> read() {
        pugi::xml_document doc;
        pugi::xml_parse_result parsed = doc.load_file(path_.c_str());
        if (parsed.status == pugi::status_file_not_found || parsed.status == pugi::status_io_error)
            throw Error("cannot read the IR file", path_, "check the path and its read permission");
        if (!parsed)
            throw Error(std::string("malformed XML: ") + parsed.description() + " at offset " +
                            std::to_string(parsed.offset), path_, "the file is truncated or not an IR .xml");
        pugi::xml_node net = doc.document_element();
        if (lower(net.name()) != "net") throw Error("the root element is <" + std::string(net.name()) + ">, not <net>", path_);
        const std::string version = net.attribute("version").value();
        if (version != "10" && version != "11")
            throw Error("IR version '" + version + "' is not supported", path_, "mo reads IR versions 10 and 11");
        version_ = std::stoi(version);
        pugi::xml_node layers = net.child("layers");
        if (!layers) throw Error("<net> has no <layers>", path_);

        graph_ = std::make_unique<Graph>(ops_);
        graph_->source_path = path_;
        graph_->source_framework = "ir";
        GraphLayers top;
        top.graph = graph_.get();
        top.where = path_;
        read_graph(net, top);
        infer_and_check(top);
        MO_LOG(Info, "IR read: ", top.layers.size(), " layers from ", path_);
        return std::move(graph_);
    }

private:
    // Layers, edges and (recursively) bodies of `container` (<net> or <body>) into g.graph.
    void read_graph(pugi::xml_node container, GraphLayers& g) {
        GraphLayers* outer = current_;
        current_ = &g;
        for (pugi::xml_node l : container.child("layers").children("layer")) read_layer(l);
        for (pugi::xml_node e : container.child("edges").children("edge")) read_edge(e);
        for (Layer& l : g.layers)
            for (size_t i = 0; i < l.input_fed.size(); ++i)
                if (!l.input_fed[i])
                    fail(l, "input port " + std::to_string(l.inputs[i].id) + " (input " + std::to_string(i) +
                                ") has no incoming edge", "every declared input port needs exactly one edge");
        current_ = outer;
    }

    std::string describe(const Layer& l) const {
        return current_->where + ": layer '" + l.name + "' (id " + std::to_string(l.id) + ", type " + l.type + ")";
    }
    [[noreturn]] void fail(const Layer& l, const std::string& what, const std::string& hint = {}) const {
        throw Error(what, describe(l), hint);
    }

    uint64_t unsigned_attr(const Layer& l, pugi::xml_node n, const char* name) const {
        pugi::xml_attribute a = n.attribute(name);
        if (!a) fail(l, "<" + std::string(n.name()) + "> is missing mandatory attribute '" + name + "'");
        const std::string v = a.value();
        if (v.empty() || v.size() > 19 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
            fail(l, "attribute '" + std::string(name) + "' of <" + n.name() + "> is '" + v +
                        "', not an unsigned integer");
        return std::stoull(v);
    }

    void read_layer(pugi::xml_node xml) {
        Layer l;
        l.name = xml.attribute("name").value();
        l.type = xml.attribute("type").value();
        for (const char* mandatory : {"id", "name", "type", "version"})
            if (!xml.attribute(mandatory)) {
                l.id = current_->layers.size();
                fail(l, "<layer> number " + std::to_string(current_->layers.size()) + " is missing mandatory attribute '" +
                            mandatory + "'");
            }
        l.id = unsigned_attr(l, xml, "id");
        GraphLayers& g = *current_;
        if (g.index_of_id.count(l.id)) fail(l, "layer id " + std::to_string(l.id) + " is used twice");
        const OpSchema& op = schema_for(l, xml.attribute("version").value());

        l.node = g.graph->add_node(op, l.name);
        read_ports(l, xml, op);
        if (op.type == "Constant") read_constant(l, xml.child("data"));
        else read_data(l, xml.child("data"), op);
        if (version_ > 10) read_rt_info(l, xml.child("rt_info"));
        if (op.type == "Parameter") g.graph->parameters().push_back(l.node);
        if (op.type == "Result") g.graph->results().push_back(l.node);
        if (op.type == "Assign") g.graph->sinks().push_back(l.node);
        if (op.type == "If") {
            read_body(l, xml, "then_body", "then_port_map");
            read_body(l, xml, "else_body", "else_port_map");
        } else if (op.type == "Loop" || op.type == "TensorIterator") {
            read_body(l, xml, "body", "port_map");
        }
        g.index_of_id.emplace(l.id, g.layers.size());
        g.layers.push_back(std::move(l));
    }

    int64_t int_attr(const Layer& l, pugi::xml_node n, const char* name, std::optional<int64_t> def = std::nullopt) const {
        pugi::xml_attribute a = n.attribute(name);
        if (!a) {
            if (def) return *def;
            fail(l, "<" + std::string(n.name()) + "> is missing mandatory attribute '" + name + "'");
        }
        try {
            return parse_ir_int(a.value());
        } catch (const Error&) {
            fail(l, "attribute '" + std::string(name) + "' of <" + n.name() + "> is '" + a.value() + "', not an integer");
        }
    }

    // axis, start, end, stride, part_size of a sliced input or a concatenated output, with the
    // defaults OpenVINO's reader applies.
    template <typename Entry> void read_slicing(const Layer& l, pugi::xml_node e, Entry& entry) const {
        entry.axis = int_attr(l, e, "axis");
        entry.start = int_attr(l, e, "start", 0);
        entry.end = int_attr(l, e, "end", -1);
        entry.stride = int_attr(l, e, "stride", 1);
        entry.part_size = int_attr(l, e, "part_size", 1);
    }

    // One body with its port map, as OpenVINO's reader takes them: inputs with an axis are
    // sliced, inputs with a back edge merged, the others invariant; outputs with an axis are
    // concatenated; the purpose attribute marks Loop's current iteration and condition.
    void read_body(const Layer& l, pugi::xml_node xml, const char* role, const char* map_name) {
        pugi::xml_node body_xml = xml.child(role);
        if (!body_xml) fail(l, "<" + std::string(role) + "> is missing");
        if (!xml.child(map_name)) fail(l, "<" + std::string(map_name) + "> is missing");
        if (current_->nesting + 1 > kMaxBodyNesting)
            fail(l, "bodies are nested more than " + std::to_string(kMaxBodyNesting) + " levels deep");
        Body& body = l.node.add_body(role);
        auto scope = std::make_unique<GraphLayers>();
        scope->nesting = current_->nesting + 1;
        scope->graph = body.graph.get();
        scope->where = current_->where + ": " + role + " of layer '" + l.name + "' (id " + std::to_string(l.id) + ")";
        read_graph(body_xml, *scope);
        // Positions of the body's Parameters and Results by node id, and back edges by the layer
        // they enter: looked up, not scanned, so that a port map of many entries stays linear.
        auto positions = [](const std::vector<Node>& list) {
            std::unordered_map<uint64_t, size_t> at;
            for (size_t k = 0; k < list.size(); ++k) at.emplace(list[k].id(), k);
            return at;
        };
        const auto params = positions(body.graph->parameters()), results = positions(body.graph->results());
        auto index_in = [&](const std::unordered_map<uint64_t, size_t>& list, uint64_t layer_id, const char* what) {
            auto it = scope->index_of_id.find(layer_id);
            if (it != scope->index_of_id.end())
                if (auto k = list.find(scope->layers[it->second].node.id()); k != list.end()) return k->second;
            fail(l, "the " + std::string(map_name) + " names layer " + std::to_string(layer_id) + " of the " + role +
                        ", which is not a " + what);
        };
        std::unordered_map<uint64_t, uint64_t> back_edge_into;  // to-layer -> from-layer
        for (pugi::xml_node edge : xml.child("back_edges").children("edge"))
            if (!back_edge_into.emplace(unsigned_attr(l, edge, "to-layer"), unsigned_attr(l, edge, "from-layer")).second)
                fail(l, "two back edges enter layer " + std::to_string(unsigned_attr(l, edge, "to-layer")) + " of the " + role);
        for (pugi::xml_node e : xml.child(map_name).children("input")) {
            BodyInput in;
            const int64_t external = int_attr(l, e, "external_port_id");
            in.parameter = index_in(params, unsigned_attr(l, e, "internal_layer_id"), "Parameter");
            if (std::string(e.attribute("purpose").value()) == "current_iteration") {
                in.kind = BodyInput::Kind::CurrentIteration;
                body.inputs.push_back(in);
                continue;
            }
            if (external < 0 || static_cast<size_t>(external) >= l.inputs.size())
                fail(l, "the " + std::string(map_name) + " maps input " + std::to_string(external) + ", the layer has " +
                            std::to_string(l.inputs.size()));
            in.external = static_cast<size_t>(external);
            if (e.attribute("axis")) {
                in.kind = BodyInput::Kind::Sliced;
                read_slicing(l, e, in);
            } else {
                if (auto edge = back_edge_into.find(unsigned_attr(l, e, "internal_layer_id")); edge != back_edge_into.end()) {
                    in.kind = BodyInput::Kind::Merged;
                    in.result = index_in(results, edge->second, "Result");
                }
            }
            body.inputs.push_back(in);
        }
        // Outputs are numbered by the order of their external ids; negative ids are not outputs.
        std::map<int64_t, pugi::xml_node> outputs;
        for (pugi::xml_node e : xml.child(map_name).children("output")) {
            const int64_t external = int_attr(l, e, "external_port_id");
            BodyOutput out;
            out.result = index_in(results, unsigned_attr(l, e, "internal_layer_id"), "Result");
            if (external < 0) {
                if (std::string(e.attribute("purpose").value()) != "execution_condition") continue;
                out.kind = BodyOutput::Kind::Condition;
                body.outputs.push_back(out);
                continue;
            }
            if (!outputs.emplace(external, e).second)
                fail(l, "the " + std::string(map_name) + " maps output " + std::to_string(external) + " twice");
        }
        size_t number = 0;
        for (const auto& [external, e] : outputs) {
            BodyOutput out;
            out.external = number++;
            if (out.external >= l.outputs.size())
                fail(l, "the " + std::string(map_name) + " maps more outputs than the layer's " + std::to_string(l.outputs.size()));
            out.result = index_in(results, unsigned_attr(l, e, "internal_layer_id"), "Result");
            if (e.attribute("axis")) {
                out.kind = BodyOutput::Kind::Concat;
                read_slicing(l, e, out);
            }
            body.outputs.push_back(out);
        }
        current_->bodies[l.node.id()].push_back(std::move(scope));
    }

    const OpSchema& schema_for(const Layer& l, const std::string& version) const {
        auto it = by_type_.find(lower(l.type));
        // Plugins' ops are found only when their plugin is loaded: say how, and where mo looks.
        const std::string plugins = "load the plugin that defines it with --extensions PATH (MO_PLUGIN_PATH and the "
                                    "installed plugin directory, lib/mo/plugins beside libmo.so, are searched too)";
        if (it == by_type_.end() && version.rfind("opset", 0) != 0)
            fail(l, "op type '" + l.type + "' of version '" + version + "' is not known: it is not an OpenVINO opset op",
                 plugins);
        if (it == by_type_.end())
            fail(l, "op type '" + l.type + "' is not supported by mo",
                 "mo reads the opset ops it can also write; if a plugin defines this one, " + plugins);
        if (it->second->ir_version != version)
            fail(l, "op " + l.type + " version " + version + " is not supported by mo",
                 "mo supports " + l.type + " of version " + it->second->ir_version);
        return *it->second;
    }

    DeclaredPort read_port(const Layer& l, pugi::xml_node port, bool is_output) const {
        DeclaredPort p;
        p.id = unsigned_attr(l, port, "id");
        pugi::xml_attribute precision = port.attribute("precision");
        if (!precision && is_output) fail(l, "output port " + std::to_string(p.id) + " has no precision");
        p.precision = precision.value();
        if (is_output) p.names = parse_tensor_names(port.attribute("names").value());
        for (pugi::xml_node dim : port.children("dim")) {
            int64_t d = 0;
            try {
                d = parse_ir_int(dim.text().get());
            } catch (const Error&) {
                d = -2;
            }
            if (d < -1)
                fail(l, "port " + std::to_string(p.id) + " has dimension '" + dim.text().get() +
                            "'; a dimension must be an integer >= -1");
            p.dims.push_back(d);
        }
        return p;
    }

    void read_ports(Layer& l, pugi::xml_node xml, const OpSchema& op) {
        for (pugi::xml_node p : xml.child("input").children("port")) l.inputs.push_back(read_port(l, p, false));
        for (pugi::xml_node p : xml.child("output").children("port")) l.outputs.push_back(read_port(l, p, true));
        // Maps, not scans: a layer of 200,000 ports made the reader quadratic.
        for (auto [ports, index] : {std::pair{&l.inputs, &l.input_of_id}, std::pair{&l.outputs, &l.output_of_id}})
            for (size_t i = 0; i < ports->size(); ++i)
                if (!index->emplace((*ports)[i].id, i).second)
                    fail(l, "port id " + std::to_string((*ports)[i].id) + " is declared twice");
        const size_t n_in = l.inputs.size(), n_out = l.outputs.size();
        if (n_in < op.min_inputs || n_in > op.max_inputs)
            fail(l, "the layer declares " + std::to_string(n_in) + " input ports, " + op.type + " takes " +
                        op.input_count_text());
        if (op.num_outputs == SIZE_MAX) l.node.set_output_count(n_out);  // Split, VariadicSplit
        else if (n_out != op.num_outputs)
            fail(l, "the layer declares " + std::to_string(n_out) + " output ports, " + op.type + " has " +
                        std::to_string(op.num_outputs));
        l.node.set_input_count(n_in);
        l.input_fed.assign(n_in, false);
        for (size_t j = 0; j < n_out; ++j) l.node.out(j).names() = l.outputs[j].names;
    }

    void read_data(const Layer& l, pugi::xml_node data, const OpSchema& op) const {
        for (pugi::xml_attribute a : data.attributes()) {
            const AttrSpec* spec = op.find_attr(a.name());
            if (!spec)
                fail(l, "unknown attribute '" + std::string(a.name()) + "'",
                     op.attrs.empty() ? op.type + " has no attributes" : "check the spelling against the " + op.type + " specification");
            try {
                l.node.set_attr_value(spec->name, parse_ir_attr(spec->kind, a.value()));
            } catch (const Error& e) {
                fail(l, "attribute '" + spec->name + "' has a malformed value: " + e.what_part());
            }
        }
        for (const AttrSpec& spec : op.attrs)
            if (spec.required() && !l.node.has_attr(spec.name)) fail(l, "required attribute '" + spec.name + "' is missing");
    }

    void read_constant(const Layer& l, pugi::xml_node data) {
        for (pugi::xml_attribute a : data.attributes()) {
            const std::string n = a.name();
            if (n != "element_type" && n != "shape" && n != "offset" && n != "size") fail(l, "unknown attribute '" + n + "'");
        }
        for (const char* mandatory : {"element_type", "shape"})
            if (!data.attribute(mandatory)) fail(l, std::string("required attribute '") + mandatory + "' is missing");
        const uint64_t offset = unsigned_attr(l, data, "offset"), size = unsigned_attr(l, data, "size");
        ElementType type = ElementType::dynamic;
        Shape shape;
        try {
            type = element_type_from_string(data.attribute("element_type").value());
            shape = parse_ir_int_list(data.attribute("shape").value());
        } catch (const Error& e) {
            fail(l, "malformed constant attribute: " + e.what_part());
        }
        if (type == ElementType::dynamic || type == ElementType::string)
            fail(l, "constants of type '" + std::string(ir_name(type)) + "' are not supported by mo");
        uint64_t count = 1;
        for (int64_t d : shape) {
            if (d < 0) fail(l, "constant shape has a negative dimension " + std::to_string(d));
            if (d != 0 && count > std::numeric_limits<uint64_t>::max() / 64 / static_cast<uint64_t>(d))
                fail(l, "constant shape is too large");
            count *= static_cast<uint64_t>(d);
        }
        const size_t needed = byte_size(type, count);
        if (!bin_) {
            try {
                bin_ = MappedFile::open(bin_path());
            } catch (const Error& e) {
                fail(l, "cannot read the weights of this constant: " + e.what_part() + " (" + bin_path() + ")",
                     "the .bin file must sit next to the .xml with the same stem");
            }
        }
        if (offset > bin_->size() || size > bin_->size() - offset)
            fail(l, "constant bytes [" + std::to_string(offset) + ", " + std::to_string(offset + size) +
                        ") lie outside the .bin file of " + std::to_string(bin_->size()) + " bytes",
                 "the .bin does not belong to this .xml or is truncated");
        if (size < needed)
            fail(l, "constant size " + std::to_string(size) + " is smaller than the " + std::to_string(needed) +
                        " bytes that " + std::string(ir_name(type)) + " x " + std::to_string(count) + " elements need");
        if (graph_->keep_alive.empty()) graph_->keep_alive.push_back(bin_);  // bodies live in graph_ too
        auto view = std::make_shared<ViewBuffer>(bin_, bin_->data() + offset, needed);
        l.node.out(0).set_value(Tensor(type, shape, view).aligned_if_small());
    }

    void read_rt_info(const Layer& l, pugi::xml_node rt) const {
        for (pugi::xml_node a : rt.children("attribute")) {
            pugi::xml_attribute name = a.attribute("name"), version = a.attribute("version");
            if (!name || !version) continue;  // as OpenVINO: entries without both are skipped
            if (std::string(name.value()) == "fused_names") {  // our writer's provenance list, kept whole
                for (auto& n : parse_tensor_names(a.attribute("value").value())) l.node.fused_names().push_back(n);
                continue;
            }
            l.node.rt_info()[name.value()] = version.value();
        }
    }

    std::string bin_path() const { return std::filesystem::path(path_).replace_extension(".bin").string(); }

    void read_edge(pugi::xml_node e) {
        Layer edge_ctx;  // for messages about the edge itself
        edge_ctx.name = "<edge>";
        uint64_t ends[4];
        const char* names[4] = {"from-layer", "from-port", "to-layer", "to-port"};
        for (int i = 0; i < 4; ++i) {
            pugi::xml_attribute a = e.attribute(names[i]);
            const std::string v = a.value();
            if (!a || v.empty() || v.size() > 19 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
                throw Error("an <edge> has a missing or non-integer '" + std::string(names[i]) + "' ('" + v + "')", path_);
            ends[i] = std::stoull(v);
        }
        Layer& from = layer_by_id(ends[0], ends[2]);
        Layer& to = layer_by_id(ends[2], ends[0]);
        if (&from == &to) fail(from, "an edge leaves and enters this layer");
        const auto out_it = from.output_of_id.find(ends[1]);
        const auto in_it = to.input_of_id.find(ends[3]);
        if (out_it == from.output_of_id.end())
            fail(from, "an edge to layer " + std::to_string(ends[2]) + " leaves from output port " +
                           std::to_string(ends[1]) + ", which this layer does not declare");
        if (in_it == to.input_of_id.end())
            fail(to, "an edge from layer " + std::to_string(ends[0]) + " enters input port " + std::to_string(ends[3]) +
                         ", which this layer does not declare");
        const size_t out = out_it->second, in = in_it->second;
        if (to.input_fed[in])
            fail(to, "input port " + std::to_string(ends[3]) + " has two incoming edges", "each input port takes exactly one edge");
        to.input_fed[in] = true;
        to.node.in(in).connect(from.node.out(out));
    }

    Layer& layer_by_id(uint64_t id, uint64_t other_end) {
        auto it = current_->index_of_id.find(id);
        if (it == current_->index_of_id.end())
            throw Error("an <edge> between layers " + std::to_string(id) + " and " + std::to_string(other_end) +
                            " refers to layer " + std::to_string(id) + ", which does not exist", current_->where);
        return current_->layers[it->second];
    }

    // Infers the graph (an owner's inference infers its bodies) and checks every declared port,
    // the bodies' included.
    void infer_and_check(GraphLayers& g) {
        GraphLayers* outer = current_;
        current_ = &g;
        for (size_t i = 0; i < g.layers.size(); ++i) g.layer_index.emplace(g.layers[i].node.id(), i);
        std::vector<Node> order;
        try {
            order = g.graph->topological_order();
        } catch (const Error& e) {
            throw e.with_context(g.where);
        }
        for (const Node& n : order) {
            const Layer& l = g.layers[g.layer_index.at(n.id())];
            InferContext c(n);
            try {
                if (n.op().infer) n.op().infer(c);
            } catch (const Error& e) {
                fail(l, "shape inference failed: " + e.what_part(), e.hint());
            } catch (const std::exception& e) {  // an op's inference choked on this input: still name the layer
                fail(l, std::string("shape inference failed: ") + e.what());
            }
            n.set_inferred();
            for (size_t i = 0; i < l.inputs.size(); ++i) check_port(l, l.inputs[i], n.in(i).src().data(), "input");
            for (size_t j = 0; j < l.outputs.size(); ++j) check_port(l, l.outputs[j], n.out(j).data(), "output");
            if (auto it = g.bodies.find(n.id()); it != g.bodies.end())
                for (auto& body : it->second) check_body_ports(*body);
        }
        current_ = outer;
    }

    // A body was inferred by its owner: only its declared ports are left to check.
    void check_body_ports(GraphLayers& g) {
        GraphLayers* outer = current_;
        current_ = &g;
        for (const Layer& l : g.layers) {
            for (size_t i = 0; i < l.inputs.size(); ++i) check_port(l, l.inputs[i], l.node.in(i).src().data(), "input");
            for (size_t j = 0; j < l.outputs.size(); ++j) check_port(l, l.outputs[j], l.node.out(j).data(), "output");
            if (auto it = g.bodies.find(l.node.id()); it != g.bodies.end())
                for (auto& body : it->second) check_body_ports(*body);
        }
        current_ = outer;
    }

    static std::string dims_text(const std::vector<int64_t>& dims) {
        std::string s = "[";
        for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
        return s + "]";
    }

    void check_port(const Layer& l, const DeclaredPort& p, const OutputData& inferred, const char* kind) const {
        const std::string port = std::string(kind) + " port " + std::to_string(p.id);
        if (!p.precision.empty()) {
            ElementType declared = ElementType::dynamic;
            try {
                declared = element_type_from_string(p.precision);
            } catch (const Error&) {
                fail(l, port + " has unknown precision '" + p.precision + "'");
            }
            if (declared != inferred.type)
                fail(l, port + " declares precision " + p.precision + " but inference gives " +
                            std::string(ir_precision(inferred.type)));
        }
        const PartialShape& s = inferred.shape;
        if (!s.rank_is_static()) return;  // the writer puts no <dim> then; any declaration fits
        bool ok = s.rank() == p.dims.size();
        for (size_t i = 0; ok && i < p.dims.size(); ++i)
            ok = s[i].is_static() ? p.dims[i] == s[i].get_length() : p.dims[i] == -1;
        if (!ok)
            fail(l, port + " declares dims " + dims_text(p.dims) + " but inference gives " + s.to_string(),
                 "the <dim>s must match the shape implied by the Parameter and Const layers");
    }

    std::string path_;
    const OpRegistry& ops_;
    std::unordered_map<std::string, const OpSchema*> by_type_;
    int version_ = 11;
    std::unique_ptr<Graph> graph_;
    std::shared_ptr<const MappedFile> bin_;
    GraphLayers* current_ = nullptr;  // the graph being read or checked
};

}  // namespace

std::unique_ptr<Graph> read_ir(const std::string& xml_path, const OpRegistry& ops) {
    return IrReader(xml_path, ops).read();
}

}  // namespace mo
