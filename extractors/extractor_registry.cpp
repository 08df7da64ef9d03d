// The extractor registry and the framework-neutral extraction driver.
#include "extractors/extractor_registry.hpp"

#include <map>

#include "core/graph_data.hpp"
#include "core/infer.hpp"
#include "core/log.hpp"
#include "core/plugin_code.hpp"
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

// The extractors found so far by framework, domain, op type and opset: a model has few distinct
// ones, and the registry's lookup copies its three strings into a key for every node.
class ExtractorCache {
public:
    explicit ExtractorCache(const ExtractorRegistry& extractors) : extractors_(extractors) {}
    const Extractor* of(const Node& n) {
        const FrameworkInfo& fw = n.framework();
        for (const Found& f : found_)
            if (f.type == fw.type && f.opset == fw.opset && f.domain == fw.domain && f.framework == fw.framework)
                return f.extractor;
        const Extractor* e = extractors_.find(fw.framework, fw.domain, fw.type, fw.opset);
        if (found_.size() < kMax) found_.push_back(Found{fw.framework, fw.domain, fw.type, fw.opset, e});
        return e;
    }

private:
    static constexpr size_t kMax = 64;  // beyond: looked up in the registry each time
    struct Found {
        std::string framework, domain, type;
        int64_t opset;
        const Extractor* extractor;
    };
    const ExtractorRegistry& extractors_;
    std::vector<Found> found_;
};

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
        // The node is added below.
        run_plugin_code(e.origin, [&] { return PluginCodeSite{"the extractor of " + describe_key(e), {}}; },
                        [&] { e.fn(ctx); });
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
        // Nothing reads it any more: freed now, its memory serves the next nodes' attributes
        // (released at the end, a million of them left as many holes in the heap). A body's
        // stays: its owner's extractor reads the body's Parameters.
        if (!graph.owner()) n.release_framework();
    }
    // Created nodes come in creation order (producers first); a node that became the
    // canonical op may feed them or consume them, so it is inferred before and after.
    for (const Node& c : ctx.created()) try_infer(c);
    if (!replaced && !ctx.created().empty()) try_infer(n);
}

void extract_nodes(Graph& graph, ExtractorCache& extractors);

// A body Parameter that receives the same outer value in every iteration (every If input, a
// captured value of a Loop) is given what is known of that value before the body is extracted:
// the loader made it while the outer value was still a framework node's output, and the body's
// extractors need ranks (MatMulInteger of a captured zero point) and constants (8-bit and 4-bit
// weights an If branch reads from the outer graph stay low-bit only when their extractor sees
// them constant). In an If, a known value becomes a Constant in the body, as ConstantsIntoBodies
// does later (a Loop's extractor still maps its body Parameters by position, so a Loop's stay).
void bind_invariant_parameters(const Node& owner, Body& body) {
    const bool is_if = owner.is("FrameworkNode") && owner.framework().type == "If";
    for (size_t k = body.inputs.size(); k-- > 0;) {
        const BodyInput in = body.inputs[k];
        if (in.kind != BodyInput::Kind::Invariant || in.external >= owner.input_count() ||
            in.parameter >= body.graph->parameters().size())
            continue;
        auto src = owner.in(in.external).source();
        if (!src) continue;
        Node p = body.graph->parameters()[in.parameter];
        const Tensor* value = src->value();
        if (value && is_if) {
            Node c = body.graph->add_constant(p.name(), *value);
            p.out(0).replace_all_uses_with(c.out(0));
            remove_body_parameter(body, in.parameter);
            continue;
        }
        const bool unknown_type = p.attr<ElementType>("element_type") == ElementType::dynamic;
        const bool unknown_rank = !p.attr<PartialShape>("shape").rank_is_static();
        if (unknown_type && src->type() != ElementType::dynamic) p.set_attr("element_type", src->type());
        if (unknown_rank && src->shape().rank_is_static()) p.set_attr("shape", src->shape());
        if (unknown_type || unknown_rank) try_infer(p);
    }
}

// Extracts `graph` and its bodies; a body's FrameworkInfo stays until the whole model is done
// (its owner's extractor reads the body's Parameters).
void extract_nodes(Graph& graph, ExtractorCache& extractors) {
    std::vector<uint64_t> order;
    const std::vector<Node>& topo = graph.topological_order();
    order.reserve(topo.size());
    for (size_t i = 0; i < topo.size(); ++i) {
        if (i + 16 < topo.size()) __builtin_prefetch(GraphAccess::data(topo[i + 16]));
        order.push_back(topo[i].id());
    }
    for (size_t i = 0; i < order.size(); ++i) {
        if (i + 8 < order.size())  // the node a few ahead, asked for while this one is read
            if (const Node ahead = graph.find_by_id(order[i + 8])) GraphAccess::prefetch(GraphAccess::data(ahead));
        const Node n = graph.find_by_id(order[i]);
        if (!n) continue;  // an extractor removed it (e.g. a sequence op a Loop extractor lowered)
        // Bodies first: the owner's extractor maps their inputs and outputs.
        for (Body& body : n.bodies()) {
            bind_invariant_parameters(n, body);
            extract_nodes(*body.graph, extractors);
        }
        if (!n.is("FrameworkNode")) try_infer(n);
        else if (const Extractor* e = extractors.of(n)) run_extractor(graph, n, *e);
    }
}

// Every graph of the model, bodies included.
void release_framework_info(Graph& graph) {
    graph.release_framework_info();
    if (!graph.has_bodies()) return;  // no walk over a million nodes for none
    for (const Node& n : graph.nodes())
        for (Body& body : n.bodies()) release_framework_info(*body.graph);
}

}  // namespace

void extract(Graph& graph, const ExtractorRegistry& extractors) {
    ExtractorCache cache(extractors);
    extract_nodes(graph, cache);
    release_framework_info(graph);
}

}  // namespace mo
