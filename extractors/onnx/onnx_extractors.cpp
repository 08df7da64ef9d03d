// The ONNX extractor registry and the extraction driver.
#include "extractors/onnx/onnx_extractors.hpp"

#include <map>

#include "core/log.hpp"
#include "extractors/onnx/onnx_extract_context.hpp"

namespace mo {

void OnnxExtractorRegistry::add(OnnxExtractor e) { items_.push_back(std::move(e)); }

const OnnxExtractor* OnnxExtractorRegistry::find(const std::string& domain, const std::string& op_type,
                                                 int64_t opset) const {
    // Later registrations win, so a plugin can override a built-in extractor.
    for (auto it = items_.rbegin(); it != items_.rend(); ++it)
        if (it->op_type == op_type && it->domain == domain && opset >= it->since_version && opset <= it->until_version)
            return &*it;
    return nullptr;
}

void register_onnx_extractors(OnnxExtractorRegistry& r) {
    register_onnx_eltwise(r);
    register_onnx_conv(r);
    register_onnx_pooling(r);
    register_onnx_normalization(r);
    register_onnx_reduction(r);
    register_onnx_shape(r);
    register_onnx_data(r);
    register_onnx_softmax(r);
    register_onnx_resize(r);
    register_onnx_rnn(r);
    register_onnx_loss(r);
    register_onnx_matrix(r);
    register_onnx_einsum_unique(r);
    register_onnx_misc(r);
    register_onnx_quantization(r);
    register_onnx_sampling(r);
    register_onnx_detection(r);
}

namespace {

bool is_onnx_node(const Node& n) { return n.is("FrameworkNode") && n.framework().framework == "onnx"; }

void report_unsupported(const Graph& graph, const std::vector<Node>& order, const OnnxExtractorRegistry& extractors) {
    std::map<std::string, std::vector<std::string>> missing;  // "Type (opset N)" -> node names
    for (const Node& n : order) {
        if (!is_onnx_node(n)) continue;
        const auto& fw = n.framework();
        if (extractors.find(fw.domain, fw.type, fw.opset)) continue;
        std::string key = (fw.domain.empty() ? "" : fw.domain + ".") + fw.type + " (opset " + std::to_string(fw.opset) + ")";
        missing[key].push_back(n.name());
    }
    if (missing.empty()) return;
    std::string list;
    for (const auto& [key, names] : missing) {
        list += "\n  " + key + ": ";
        for (size_t i = 0; i < names.size(); ++i) {
            if (i == 8) {
                list += ", ... (" + std::to_string(names.size()) + " nodes)";
                break;
            }
            list += (i ? ", " : "") + names[i];
        }
    }
    throw Error(std::to_string(missing.size()) + " ONNX op type(s) are not supported:" + list, graph.source_path,
                "add an extractor in a plugin (--extensions), or cut these nodes off with --input/--output");
}

// Infers what is inferable now, so later extractors see ranks and element types where the
// model makes them known. Failures are left to partial inference, which reports them.
void try_infer(const Node& n) {
    if (!n.op().infer) return;
    try {
        InferContext ic(n);
        n.op().infer(ic);
    } catch (const std::exception&) {
        for (size_t j = 0; j < n.output_count(); ++j)
            if (!n.out(j).value()) n.out(j).set_type_and_shape(ElementType::dynamic, PartialShape::dynamic_rank());
    }
}

}  // namespace

void extract_onnx(Graph& graph, const OnnxExtractorRegistry& extractors) {
    std::vector<Node> order = graph.topological_order();
    report_unsupported(graph, order, extractors);
    for (const Node& n : order) {
        if (!is_onnx_node(n)) {
            if (!n.is("FrameworkNode")) try_infer(n);
            continue;
        }
        const auto& fw = n.framework();
        const OnnxExtractor* e = extractors.find(fw.domain, fw.type, fw.opset);
        OnnxExtractContext ctx(graph, n);
        try {
            e->fn(ctx);
        } catch (const Error& err) {
            if (err.where().find(ctx.name()) != std::string::npos) throw;
            throw err.with_context(ctx.where());
        }
        bool replaced = n.is("FrameworkNode");
        if (replaced) {
            for (size_t j = 0; j < n.output_count(); ++j)
                MO_ASSERT(!n.out(j).has_targets(), "extractor of ", fw.type, " left consumers on output ", j);
        }
        if (replaced) graph.remove_node(n);
        else try_infer(n);
        // Created nodes come in creation order (producers first); a node that became the
        // canonical op may feed them or consume them, so it is inferred before and after.
        for (const Node& c : ctx.created()) try_infer(c);
        if (!replaced && !ctx.created().empty()) try_infer(n);
    }
}

}  // namespace mo
