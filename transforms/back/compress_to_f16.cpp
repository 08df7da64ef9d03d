#include "transforms/back/compress_to_f16.hpp"

#include <algorithm>
#include <cmath>

#include "core/float16.hpp"

namespace mo {

namespace {

bool feeds_precision_sensitive_input(const OutPort& port) {
    for (const InPort& t : port.targets()) {
        const auto& sensitive = t.node().op().precision_sensitive_inputs;
        if (std::find(sensitive.begin(), sensitive.end(), t.index()) != sensitive.end()) return true;
    }
    return false;
}

bool fits_f16(const Tensor& t) {
    const float* v = t.data<float>();
    const size_t n = t.size();
    for (size_t i = 0; i < n; ++i)
        if (std::isfinite(v[i]) && std::fabs(v[i]) > 65504.0f) return false;
    return true;
}

Tensor to_f16(const Tensor& t) {
    Tensor out = Tensor::allocate(ElementType::f16, t.shape());
    f32_to_f16(t.data<float>(), out.mutable_data<uint16_t>(), t.size());
    return out;
}

// Convert's destination_type is an element type; accept a schema that spells it as a string.
AttrValue destination(const Graph& g, ElementType t) {
    const AttrSpec* spec = g.ops().get("Convert").find_attr("destination_type");
    if (spec && spec->kind == AttrKind::String) return AttrValue(std::string(ir_name(t)));
    return AttrValue(t);
}

}  // namespace

bool CompressFloatConstantsToF16::run(Graph& graph, const TransformContext&) {
    std::vector<Node> candidates;
    for (Node n : graph.nodes()) {
        if (!n.is("Constant") || n.out(0).type() != ElementType::f32 || !n.out(0).has_targets()) continue;
        if (feeds_precision_sensitive_input(n.out(0)) || !fits_f16(*n.out(0).value())) continue;
        candidates.push_back(n);
    }
    for (Node c : candidates) {
        const std::string name = c.name();
        Node compressed = graph.add_constant(name + "_compressed", to_f16(*c.out(0).value()));
        Node convert = graph.add_op("Convert", name, {compressed.out(0)},
                                    {{"destination_type", destination(graph, ElementType::f32)}});
        convert.rt_info()["decompression"] = "0";
        c.out(0).replace_all_uses_with(convert.out(0));
        convert.out(0).names() = std::move(c.out(0).names());
        convert.fused_names() = c.fused_names();
        graph.remove_node(c);
    }
    return !candidates.empty();
}

bool CheckOnlyOpsetOps::run(Graph& graph, const TransformContext&) {
    for (Node n : graph.topological_order())
        if (n.op().is_internal())
            throw Error("op '" + (n.is("FrameworkNode") ? n.framework().type : n.type()) + "' is not supported",
                        n.describe(),
                        "no transformation lowered it to an OpenVINO opset op; check that its lowering is enabled");
    return false;
}

}  // namespace mo
