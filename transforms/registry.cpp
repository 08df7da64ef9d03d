#include "transforms/registry.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdlib>
#include <map>
#include <queue>
#include <set>
#include <sstream>

#include "core/graph_data.hpp"
#include "core/log.hpp"
#include "core/plugin_code.hpp"
#include "core/progress.hpp"

namespace mo {

std::vector<const OpSchema*> present_ops(const Graph& graph, const std::vector<std::string>& types) {
    std::vector<const OpSchema*> present;
    for (const std::string& type : types)
        if (const OpSchema* op = graph.ops().find(type); op && graph.count_of(*op) > 0) present.push_back(op);
    return present;
}

TransformContext::TransformContext(const ConversionOptions& c) {
    options.outputs = c.outputs;
    options.inputs = c.inputs;
    options.mean_values = c.mean_values;
    options.scale_values = c.scale_values;
    options.reverse_input_channels = c.reverse_input_channels;
    options.batch = c.batch;
    options.layouts = c.layouts;
    options.static_shape = c.static_shape;
    options.disable_nhwc_to_nchw = c.disable_nhwc_to_nchw;
    options.compress_to_fp16 = c.compress_to_fp16;
    options.max_constant_bytes = c.max_constant_bytes;
    options.make_stateful = c.make_stateful;
    options.stateful_pairs = c.stateful_pairs;
}

bool OpTransformation::run(Graph& graph, const TransformContext& ctx) {
    const std::vector<const OpSchema*> types = present_ops(graph, op_types());
    if (types.empty()) return false;
    auto wanted = [&](const Node& n) { return std::find(types.begin(), types.end(), &n.op()) != types.end(); };
    std::vector<uint64_t> candidates;
    const GraphAccess::Order order = GraphAccess::order(graph);
    for (size_t i = 0; i < order.nodes.size(); ++i)
        if (std::find(types.begin(), types.end(), order.op(i)) != types.end())
            candidates.push_back(order.nodes[i].id());
    bool changed = false;
    for (uint64_t id : candidates) {
        Node n = graph.find_by_id(id);
        if (!n || !wanted(n) || !matches(n)) continue;
        try {
            changed |= apply(n, ctx);
        } catch (const Error& e) {
            throw e.with_context(n.describe());
        }
    }
    return changed;
}

namespace {

class Anchor final : public Transformation {
public:
    Anchor(std::string id, Phase phase, std::string after) : id_(std::move(id)), phase_(phase), after_(std::move(after)) {}
    std::string id() const override { return id_; }
    Phase phase() const override { return phase_; }
    std::vector<std::string> run_after() const override { return after_.empty() ? std::vector<std::string>{} : std::vector{after_}; }
    bool run(Graph&, const TransformContext&) override { return false; }

private:
    std::string id_;
    Phase phase_;
    std::string after_;
};

bool is_anchor(const std::string& id) {
    static const std::set<std::string> ids{anchors::FrontStart, anchors::FrontFinish, anchors::MiddleStart,
                                           anchors::MiddleFinish, anchors::BackStart, anchors::BackFinish};
    return ids.count(id) != 0;
}

const char* phase_start(Phase p) {
    return p == Phase::Front ? anchors::FrontStart : p == Phase::Middle ? anchors::MiddleStart : anchors::BackStart;
}
const char* phase_finish(Phase p) {
    return p == Phase::Front ? anchors::FrontFinish : p == Phase::Middle ? anchors::MiddleFinish : anchors::BackFinish;
}

std::vector<std::string> split_ids(const char* text) {
    std::vector<std::string> ids;
    if (!text) return ids;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) ids.push_back(item);
    }
    return ids;
}

// Every unsorted id has an unsorted predecessor: walking predecessors must repeat an id, and
// the walk from that repetition is a cycle. Throws mo::Error naming its members in run order.
[[noreturn]] void throw_cycle(const std::vector<const Transformation*>& sorted_part,
                              const std::map<std::string, std::set<std::string>>& succ,
                              const std::map<std::string, size_t>& indegree) {
    std::set<std::string> sorted;
    for (auto* t : sorted_part) sorted.insert(t->id());
    std::map<std::string, std::string> pred;
    for (const auto& [from, tos] : succ)
        for (const auto& to : tos)
            if (!sorted.count(from) && !sorted.count(to)) pred[to] = from;
    std::string cur;
    for (const auto& [id, d] : indegree)
        if (d > 0) { cur = id; break; }
    std::vector<std::string> path;
    std::map<std::string, size_t> seen;
    while (!seen.count(cur)) {
        seen[cur] = path.size();
        path.push_back(cur);
        cur = pred[cur];
    }
    // The walk went against the edges: reverse the repeated part to print it in run order.
    std::vector<std::string> cycle(path.begin() + static_cast<std::ptrdiff_t>(seen[cur]), path.end());
    std::reverse(cycle.begin(), cycle.end());
    std::string text;
    for (const auto& id : cycle) text += id + " -> ";
    text += cycle.front();
    throw Error("transformation order has a cycle: " + text, {}, "remove one of these run_after/run_before constraints");
}

}  // namespace

TransformRegistry::TransformRegistry() {
    add(std::make_unique<Anchor>(anchors::FrontStart, Phase::Front, ""));
    add(std::make_unique<Anchor>(anchors::FrontFinish, Phase::Front, anchors::FrontStart));
    add(std::make_unique<Anchor>(anchors::MiddleStart, Phase::Middle, anchors::FrontFinish));
    add(std::make_unique<Anchor>(anchors::MiddleFinish, Phase::Middle, anchors::MiddleStart));
    add(std::make_unique<Anchor>(anchors::BackStart, Phase::Back, anchors::MiddleFinish));
    add(std::make_unique<Anchor>(anchors::BackFinish, Phase::Back, anchors::BackStart));
}

void TransformRegistry::add(std::unique_ptr<Transformation> t) {
    if (const Transformation* other = find(t->id()))
        throw Error("transformation id '" + t->id() + "' is registered twice (first by " + origin(*other) + ")",
                    origin_, "give each transformation a unique id");
    origins_[t.get()] = origin_;
    items_.push_back(std::move(t));
}

std::vector<Transformation*> TransformRegistry::all() {
    std::vector<Transformation*> v;
    for (auto& t : items_) v.push_back(t.get());
    return v;
}

const std::string& TransformRegistry::origin(const Transformation& t) const {
    auto it = origins_.find(&t);
    MO_ASSERT(it != origins_.end(), "transformation ", t.id(), " is not registered here");
    return it->second;
}

void TransformRegistry::check_op_types(const OpRegistry& ops) const {
    for (const auto& t : items_)
        for (const std::string& type : t->named_op_types())
            if (!ops.find(type))
                throw Error("transformation '" + t->id() + "' looks for op type '" + type +
                                "', which no op schema defines: it could never match",
                            origin(*t),
                            "correct the op type's spelling (mo --list_ops lists the op types), or register its op "
                            "schema (docs/extending.md)");
}

std::string TransformRegistry::describe_order() const {
    static constexpr const char* kPhases[] = {"front", "middle", "back"};
    std::ostringstream os;
    os << "id\tphase\tenabled\torigin\n";
    for (const Transformation* t : order()) {
        if (is_anchor(t->id())) continue;
        os << t->id() << '\t' << kPhases[static_cast<int>(t->phase())] << '\t' << (is_enabled(*t) ? "yes" : "no")
           << '\t' << origin(*t) << '\n';
    }
    return os.str();
}

const Transformation* TransformRegistry::find(const std::string& id) const {
    for (const auto& t : items_)
        if (t->id() == id) return t.get();
    return nullptr;
}

std::vector<const Transformation*> TransformRegistry::order() const {
    std::map<std::string, const Transformation*> by_id;
    for (const auto& t : items_) by_id[t->id()] = t.get();
    std::map<std::string, std::set<std::string>> succ;
    std::map<std::string, size_t> indegree;
    for (const auto& [id, _] : by_id) indegree[id] = 0;
    auto add_edge = [&](const std::string& from, const std::string& to, const std::string& owner) {
        if (!by_id.count(from) || !by_id.count(to)) {
            const std::string& missing = by_id.count(from) ? to : from;
            throw Error("transformation '" + owner + "' is ordered against unknown id '" + missing + "'", {},
                        "register '" + missing + "' or remove it from run_after/run_before");
        }
        if (succ[from].insert(to).second) ++indegree[to];
    };
    for (const auto& [id, t] : by_id) {
        auto after = t->run_after();
        auto before = t->run_before();
        // Inside its phase's anchors, unless it places itself outside them explicitly (as
        // PartialInference runs before MiddleStart).
        if (!is_anchor(id)) {
            const std::string start = phase_start(t->phase()), finish = phase_finish(t->phase());
            if (std::find(before.begin(), before.end(), start) == before.end()) after.push_back(start);
            if (std::find(after.begin(), after.end(), finish) == after.end()) before.push_back(finish);
        }
        for (const auto& a : after) add_edge(a, id, id);
        for (const auto& b : before) add_edge(id, b, id);
    }
    std::priority_queue<std::string, std::vector<std::string>, std::greater<>> ready;
    for (const auto& [id, d] : indegree)
        if (d == 0) ready.push(id);
    std::vector<const Transformation*> result;
    while (!ready.empty()) {
        std::string id = ready.top();
        ready.pop();
        result.push_back(by_id[id]);
        for (const auto& s : succ[id])
            if (--indegree[s] == 0) ready.push(s);
    }
    if (result.size() != by_id.size()) throw_cycle(result, succ, indegree);
    return result;
}

void TransformRegistry::set_overrides(std::vector<std::string> enabled, std::vector<std::string> disabled) {
    for (const auto& id : enabled)
        if (!find(id)) MO_LOG(Warning, "MO_ENABLED_TRANSFORMS names unknown transformation '", id, "'");
    for (const auto& id : disabled)
        if (!find(id)) MO_LOG(Warning, "MO_DISABLED_TRANSFORMS names unknown transformation '", id, "'");
    force_enabled_ = std::move(enabled);
    force_disabled_ = std::move(disabled);
}

void TransformRegistry::apply_environment() {
    set_overrides(split_ids(std::getenv("MO_ENABLED_TRANSFORMS")), split_ids(std::getenv("MO_DISABLED_TRANSFORMS")));
}

bool TransformRegistry::is_enabled(const Transformation& t) const {
    auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), t.id()) != v.end(); };
    if (has(force_disabled_)) return false;
    if (has(force_enabled_)) return true;
    return t.enabled();
}

void TransformRegistry::run_all(Graph& graph, const TransformContext& ctx, const std::string& from) const {
    auto sequence = order();
    const Transformation* inference = find(kPartialInferenceId);
    bool inference_done = false;
    if (!from.empty()) {
        auto first = std::find_if(sequence.begin(), sequence.end(), [&](auto* t) { return t->id() == from; });
        MO_ASSERT(first != sequence.end(), "no transformation '", from, "' to run from");
        inference_done = std::find(sequence.begin(), first, inference) != first;
        sequence.erase(sequence.begin(), first);
    }
    if (log_enabled(LogLevel::Debug)) {
        std::string s;
        for (auto* t : sequence) s += "\n  " + t->id() + (is_enabled(*t) ? "" : " (disabled)");
        MO_LOG(Debug, "transformation order:", s);
    }
    // Runs `t` on `g`, then on the bodies of g's nodes when it wants them.
    std::function<bool(const Transformation&, Graph&)> run_in = [&](const Transformation& t, Graph& g) {
        bool changed = false;
        try {
            changed = run_plugin_code(origin(t), [&] { return PluginCodeSite{"transformation '" + t.id() + "'", {}}; },
                                      [&] { return const_cast<Transformation&>(t).run(g, ctx); });
        } catch (const Error& e) {
            throw e.with_context("transformation '" + t.id() + "'");
        } catch (const std::logic_error&) {
            throw;
        } catch (const std::exception& e) {
            throw Error(e.what(), "transformation '" + t.id() + "'");
        }
        if (t.force_clean_up()) g.remove_dead_nodes();
        if (!t.wants_bodies() || !g.has_bodies()) return changed;
        for (const Node& n : g.nodes())
            for (Body& body : n.bodies())
                if (run_in(t, *body.graph)) {
                    n.set_needs_infer();
                    changed = true;
                }
        return changed;
    };
    auto run_one = [&](const Transformation& t) { return run_in(t, graph); };
    for (const Transformation* t : sequence) {
        if (is_anchor(t->id())) continue;
        if (!is_enabled(*t)) {
            MO_LOG(Debug, "skip ", t->id(), ": disabled");
            continue;
        }
        if (!t->condition(graph, ctx)) {
            MO_LOG(Debug, "skip ", t->id(), ": condition is false");
            continue;
        }
        Progress::step(t->id());
        auto start = std::chrono::steady_clock::now();
        uint64_t changes_before = graph.change_count();
        size_t nodes_before = graph.node_count();
        bool changed = run_one(*t);
        auto ms = [](auto from) {
            return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - from).count();
        };
        std::string reinferred;
        if (t == inference) {
            inference_done = true;
        } else if (inference_done && inference && is_enabled(*inference) && (changed || t->force_shape_inference())) {
            auto inference_start = std::chrono::steady_clock::now();
            run_one(*inference);
            reinferred = " (" + std::to_string(ms(inference_start)) + " ms of them inferring again)";
        }
        MO_LOG(Debug, t->id(), ": ", ms(start), " ms", reinferred, ", ", graph.change_count() - changes_before,
               " node changes, nodes ", nodes_before, " -> ", graph.node_count());
    }
}

}  // namespace mo
