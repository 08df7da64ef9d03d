#include "loaders/ir/ir_loader.hpp"

#include <fstream>

#include "loaders/input_overrides.hpp"
#include "loaders/ir/ir_reader.hpp"

namespace mo {

namespace {

std::unique_ptr<Graph> load_ir(const std::string& path, const ConversionOptions& options, const OpRegistry& ops) {
    std::unique_ptr<Graph> graph = read_ir(path, ops);
    graph->source_path = path;
    graph->source_framework = "ir";
    // --input shapes replace the Parameters' shapes, by node name or position.
    std::vector<std::string> names;
    std::vector<PartialShape> shapes;
    for (const Node& p : graph->parameters()) {
        names.push_back(p.name());
        shapes.push_back(p.out(0).shape());
    }
    apply_input_overrides(names, shapes, options, path);
    for (size_t i = 0; i < shapes.size(); ++i) {
        const Node& p = graph->parameters()[i];
        if (shapes[i] == p.out(0).shape()) continue;
        p.set_attr("shape", shapes[i]);
        p.set_needs_infer();
    }
    return graph;
}

}  // namespace

bool looks_like_ir(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[512] = {};
    in.read(head, sizeof head);
    const std::string text(head, static_cast<size_t>(in.gcount()));
    const size_t net = text.find("<net");
    return net != std::string::npos && text.find("version=", net) != std::string::npos &&
           (text.rfind("<?xml", 0) == 0 || text.find_first_not_of(" \t\r\n") == net);
}

void register_ir_loader(LoaderRegistry& r) {
    Loader l;
    l.framework = "ir";
    l.extensions = {".xml"};
    l.recognizes = looks_like_ir;
    l.load = load_ir;
    l.description = "OpenVINO IR v10 / v11 (.xml with its .bin)";
    r.add(std::move(l));
}

}  // namespace mo
