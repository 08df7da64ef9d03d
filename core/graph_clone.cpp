#include "core/graph_clone.hpp"

#include <vector>

namespace mo {

namespace {

void clone_into(const Graph& src, Graph& dst) {
    std::vector<Node> copy(src.id_limit());  // source id -> its clone
    const std::vector<Node> nodes = src.nodes();
    for (const Node& n : nodes) {
        Node c = dst.add_node(n.op(), n.name());
        c.set_input_count(n.input_count());
        c.set_output_count(n.output_count());
        for (const auto& [name, value] : n.attrs()) c.set_attr_value(name, value);
        if (!n.read_rt_info().empty()) c.rt_info() = n.read_rt_info();
        if (!n.read_fused_names().empty()) c.fused_names() = n.read_fused_names();
        // Only what a node not yet extracted (or a body's sequence Parameter) keeps; asking
        // others would give each an empty one.
        if (n.is("FrameworkNode") || n.is("Parameter")) c.framework() = n.framework();
        for (const Body& body : n.bodies()) {
            Body& b = c.add_body(body.role);
            b.inputs = body.inputs;
            b.outputs = body.outputs;
            clone_into(*body.graph, *b.graph);
        }
        copy[n.id()] = c;
    }
    for (const Node& n : nodes)
        for (size_t i = 0; i < n.input_count(); ++i)
            if (auto s = n.in(i).source()) copy[n.id()].in(i).connect(OutPort(copy[s->node().id()], s->index()));
    // Last: connecting marks a node for re-inference.
    for (const Node& n : nodes) {
        const Node& c = copy[n.id()];
        for (size_t j = 0; j < n.output_count(); ++j) c.out(j).data() = n.out(j).data();
        if (n.needs_infer()) c.set_needs_infer();
        else c.set_inferred();
    }
    for (const Node& p : src.parameters()) dst.parameters().push_back(copy[p.id()]);
    for (const Node& r : src.results()) dst.results().push_back(copy[r.id()]);
    for (const Node& k : src.sinks()) dst.sinks().push_back(copy[k.id()]);
    dst.source_path = src.source_path;
    dst.source_framework = src.source_framework;
    dst.source_layout = src.source_layout;
    dst.max_constant_bytes = src.max_constant_bytes;
    dst.keep_alive = src.keep_alive;
}

}  // namespace

std::unique_ptr<Graph> clone_graph(const Graph& src) {
    auto dst = std::make_unique<Graph>(src.ops());
    clone_into(src, *dst);
    return dst;
}

}  // namespace mo
