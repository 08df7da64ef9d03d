// The extractor registry and the framework-neutral extraction driver.
#include "extractors/extractor_registry.hpp"

#include <map>

#include "core/infer.hpp"
#include "core/log.hpp"
#include "extractors/extract_context.hpp"

namespace mo {

namespace {

std::string describe_key(const Extractor& e) {
    return e.framework + " op '" + (e.domain.empty() ? "" : e.domain + ".") + e.op_type + "'";
}

std::string opset_range(int64_t since, int64_t until) {
    return "opsets " + std::to_string(since) + ".." + (until == INT64_MAX ? "" : std::to_string(until));
}

}  // namespace

void ExtractorRegistry::add(Extractor e) {
    MO_ASSERT(e.fn, "extractor without a function: ", describe_key(e));
    if (e.since_version > e.until_version)
        throw Error("extractor of " + describe_key(e) + " has an empty opset range", origin_,
                    "since_version must not exceed until_version");
    e.origin = origin_;
    auto& same_key = items_[{e.framework, e.domain, e.op_type}];
    for (const Extractor& other : same_key)
        if (e.since_version <= other.until_version && other.since_version <= e.until_version)
            throw Error("extractor of " + describe_key(e) + " (" + opset_range(e.since_version, e.until_version) +
                            ") is registered twice: " + other.origin + " already registered " +
                            opset_range(other.since_version, other.until_version),
                        e.origin, "give the extractor an opset range the other does not cover, or another domain");
    same_key.push_back(std::move(e));
    ++size_;
}

const Extractor* ExtractorRegistry::find(const std::string& framework, const std::string& domain,
                                         const std::string& op_type, int64_t opset) const {
    auto it = items_.find(Key{framework, domain, op_type});
    if (it == items_.end()) return nullptr;
    for (const Extractor& e : it->second)
        if (opset >= e.since_version && opset <= e.until_version) return &e;
    return nullptr;
}

size_t ExtractorRegistry::size(const std::string& framework) const {
    size_t n = 0;
    for (const auto& [key, list] : items_)
        if (std::get<0>(key) == framework) n += list.size();
    return n;
}

namespace {

const Extractor* extractor_of(const Node& n, const ExtractorRegistry& extractors) {
    const FrameworkInfo& fw = n.framework();
    return extractors.find(fw.framework, fw.domain, fw.type, fw.opset);
}

// Infers what is inferable now, so later extractors see ranks and element types where the
// model makes them known. Failures are left to partial inference, which reports them.
void try_infer(const Node& n) {
    if (!n.op().infer) return;
    try {
        check_required_inputs(n);
        InferContext ic(n);
        n.op().infer(ic);
    } catch (const std::exception&) {
        for (size_t j = 0; j < n.output_count(); ++j)
            if (!n.out(j).value()) n.out(j).set_type_and_shape(ElementType::dynamic, PartialShape::dynamic_rank());
    }
}

void run_extractor(Graph& graph, const Node& n, const Extractor& e) {
    ExtractContext ctx(graph, n);
    try {
        e.fn(ctx);
    } catch (const Error& err) {
        if (err.where().find(ctx.name()) != std::string::npos) throw;
        throw err.with_context(ctx.where());
    }
    bool replaced = n.is("FrameworkNode");
    if (replaced) {
        // An output the extractor did not map is one the op does not produce: the model reads
        // an output index the op does not have.
        for (size_t j = 0; j < n.output_count(); ++j)
            if (n.out(j).has_targets())
                throw Error(n.framework().type + " has no output " + std::to_string(j) + ", but node '" +
                                n.out(j).targets().front().node().name() + "' reads it",
                            ctx.where(), "the model is malformed: check the output indexes of the node's consumers");
        graph.remove_node(n);
    } else {
        try_infer(n);
    }
    // Created nodes come in creation order (producers first); a node that became the
    // canonical op may feed them or consume them, so it is inferred before and after.
    for (const Node& c : ctx.created()) try_infer(c);
    if (!replaced && !ctx.created().empty()) try_infer(n);
}

}  // namespace

void extract(Graph& graph, const ExtractorRegistry& extractors) {
    std::vector<uint64_t> order;
    for (const Node& n : graph.topological_order()) order.push_back(n.id());
    for (uint64_t id : order) {
        const Node n = graph.find_by_id(id);
        if (!n) continue;  // an extractor removed it (e.g. a sequence op a Loop extractor lowered)
        // Bodies first: the owner's extractor maps their inputs and outputs.
        for (Body& body : n.bodies()) extract(*body.graph, extractors);
        if (!n.is("FrameworkNode")) try_infer(n);
        else if (const Extractor* e = extractor_of(n, extractors)) run_extractor(graph, n, *e);
    }
}

}  // namespace mo
