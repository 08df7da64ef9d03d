#include "core/graph_copy.hpp"

namespace mo {

OutPort GraphCopy::port(const OutPort& source) const {
    if (auto b = bound.find(source.node().id()); b != bound.end()) return b->second;
    auto it = nodes.find(source.node().id());
    MO_ASSERT(it != nodes.end(), source.node().describe(), " was not copied");
    return it->second.out(source.index());
}

GraphCopy copy_graph(const Graph& src, Graph& dst, const std::string& prefix, std::map<uint64_t, OutPort> bound,
                     bool results) {
    GraphCopy copy;
    copy.bound = std::move(bound);
    for (const Node& n : src.topological_order()) {
        if (copy.bound.count(n.id()) || (!results && n.is("Result"))) continue;
        Node c = dst.add_node(n.op(), prefix + n.name());
        c.set_input_count(n.input_count());
        c.set_output_count(n.output_count());
        for (const auto& [name, value] : n.attrs()) c.set_attr_value(name, value);
        if (!n.read_rt_info().empty()) c.rt_info() = n.read_rt_info();
        if (!n.read_fused_names().empty()) c.fused_names() = n.read_fused_names();
        for (size_t i = 0; i < n.input_count(); ++i)
            if (auto s = n.in(i).source()) c.in(i).connect(copy.port(*s));
        for (size_t j = 0; j < n.output_count(); ++j) {
            const OutputData& d = n.out(j).data();
            if (d.value) c.out(j).set_value(*d.value);
            else c.out(j).set_type_and_shape(d.type, d.shape);
        }
        for (const Body& body : n.bodies()) {
            Body& b = c.add_body(body.role);
            b.inputs = body.inputs;
            b.outputs = body.outputs;
            copy_graph(*body.graph, *b.graph, "");
        }
        copy.nodes.emplace(n.id(), c);
    }
    for (const Node& p : src.parameters())
        if (auto it = copy.nodes.find(p.id()); it != copy.nodes.end()) dst.parameters().push_back(it->second);
    for (const Node& r : src.results())
        if (auto it = copy.nodes.find(r.id()); it != copy.nodes.end()) dst.results().push_back(it->second);
    for (const Node& k : src.sinks())
        if (auto it = copy.nodes.find(k.id()); it != copy.nodes.end()) dst.sinks().push_back(it->second);
    return copy;
}

}  // namespace mo
