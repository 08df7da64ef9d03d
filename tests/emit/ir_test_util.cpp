#include "emit/ir_test_util.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "driver/convert.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"

namespace mo::test {

ScratchDir::ScratchDir(const std::string& tag) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("mo_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
    if (std::getenv("MO_KEEP_TEST_DIRS")) return;  // for looking at what a test wrote
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> ScratchDir::entries() const {
    std::vector<std::string> names;
    if (!std::filesystem::exists(path_)) return names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string canonical_xml(const pugi::xml_node& node, int depth) {
    std::string s(depth * 2, ' ');
    s += node.name();
    for (auto a : node.attributes()) s += std::string(" ") + a.name() + "=\"" + a.value() + "\"";
    std::string text = node.text().get();
    text.erase(0, text.find_first_not_of(" \t\r\n"));
    text.erase(text.find_last_not_of(" \t\r\n") + 1);
    if (!text.empty()) s += " '" + text + "'";
    s += "\n";
    for (auto child : node.children())
        if (child.type() == pugi::node_element) s += canonical_xml(child, depth + 1);
    return s;
}

std::vector<std::string> layer_types(const pugi::xml_document& doc) {
    std::vector<std::string> types;
    for (auto layer : doc.child("net").child("layers").children("layer")) types.push_back(layer.attribute("type").value());
    return types;
}

pugi::xml_node layer_of_type(const pugi::xml_document& doc, const std::string& type, size_t n) {
    for (auto layer : doc.child("net").child("layers").children("layer"))
        if (type == layer.attribute("type").value() && n-- == 0) return layer;
    return {};
}

pugi::xml_node layer_by_id(const pugi::xml_document& doc, const std::string& id) {
    return doc.child("net").child("layers").find_child_by_attribute("layer", "id", id.c_str());
}

pugi::xml_node producer_of(const pugi::xml_document& doc, const pugi::xml_node& layer, size_t port) {
    std::string to = layer.attribute("id").value(), to_port = std::to_string(port);
    for (auto e : doc.child("net").child("edges").children("edge"))
        if (to == e.attribute("to-layer").value() && to_port == e.attribute("to-port").value())
            return layer_by_id(doc, e.attribute("from-layer").value());
    return {};
}

static std::string port_signature(const pugi::xml_node& port) {
    std::string s = port.attribute("precision").value();
    for (auto d : port.children("dim")) s += std::string(" ") + d.text().get();
    return s;
}

std::vector<std::string> edge_problems(const pugi::xml_document& doc) {
    std::vector<std::string> problems;
    std::map<std::pair<std::string, std::string>, int> incoming;  // (layer, in port) -> edges
    for (auto e : doc.child("net").child("edges").children("edge")) {
        auto from = layer_by_id(doc, e.attribute("from-layer").value());
        auto to = layer_by_id(doc, e.attribute("to-layer").value());
        std::string what = std::string("edge ") + e.attribute("from-layer").value() + ":" +
                           e.attribute("from-port").value() + " -> " + e.attribute("to-layer").value() + ":" +
                           e.attribute("to-port").value();
        if (!from || !to) {
            problems.push_back(what + ": missing layer");
            continue;
        }
        auto out = from.child("output").find_child_by_attribute("port", "id", e.attribute("from-port").value());
        auto in = to.child("input").find_child_by_attribute("port", "id", e.attribute("to-port").value());
        if (!out || !in) {
            problems.push_back(what + ": missing port");
            continue;
        }
        ++incoming[{to.attribute("id").value(), in.attribute("id").value()}];
        if (port_signature(out) != port_signature(in))
            problems.push_back(what + " (" + from.attribute("name").value() + " -> " + to.attribute("name").value() +
                               "): [" + port_signature(out) + "] vs [" + port_signature(in) + "]");
    }
    for (auto layer : doc.child("net").child("layers").children("layer"))
        for (auto port : layer.child("input").children("port")) {
            int n = incoming[{layer.attribute("id").value(), port.attribute("id").value()}];
            if (n != 1)
                problems.push_back(std::string("layer ") + layer.attribute("name").value() + " input " +
                                   port.attribute("id").value() + " has " + std::to_string(n) + " edges");
        }
    return problems;
}

std::string const_bytes(const pugi::xml_node& layer, const std::string& bin) {
    auto data = layer.child("data");
    size_t offset = std::stoull(data.attribute("offset").value()), size = std::stoull(data.attribute("size").value());
    if (offset + size > bin.size()) return {};
    return bin.substr(offset, size);
}

void infer_all(Graph& g) {
    for (Node n : g.topological_order()) {
        InferContext c(n);
        if (n.op().infer) n.op().infer(c);
    }
}

std::unique_ptr<Graph> convert_to_ir(const std::string& model, const ScratchDir& out, bool compress_to_fp16) {
    ConversionOptions o;
    o.input_model = model;
    o.output_dir = out.path().string();
    o.compress_to_fp16 = compress_to_fp16;
    return read_ir(convert(o).xml_path, builtin_ops());
}

}  // namespace mo::test
