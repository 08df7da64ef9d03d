#include "transforms/config/subgraph_match.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <set>

#include <re2/re2.h>

#include "core/log.hpp"

namespace mo {

namespace {

bool has_known_value(const Node& n) {
    for (size_t j = 0; j < n.output_count(); ++j)
        if (!n.out(j).value()) return false;
    return n.output_count() > 0;
}

// RE2 matches in time linear in the name, whatever the pattern: std::regex backtracked for minutes
// on a fuzzed scope of thirty '*'. The syntax is Python's re (MO's configs) without backreferences.
std::unique_ptr<re2::RE2> compile(const std::string& pattern, const ConfigEntry& entry) {
    re2::RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_unique<re2::RE2>(pattern, options);
    if (!re->ok())
        throw Error(entry.describe() + ": '" + pattern + "' is not a valid regular expression (" + re->error() + ")",
                    entry.file, "fix the transformations config");
    return re;
}

// The sub-graph nodes whose full name matches prefix + `pattern`.
std::vector<Node> named(const std::vector<Node>& nodes, const std::string& prefix, const std::string& pattern,
                        const ConfigEntry& entry, const std::string& what) {
    const auto re = compile(prefix + pattern, entry);
    std::vector<Node> found;
    for (const Node& n : nodes)
        if (re2::RE2::FullMatch(n.name(), *re)) found.push_back(n);
    if (found.empty())
        throw Error(entry.describe() + ": " + what + ": no node of the matched sub-graph is named '" + prefix + pattern + "'",
                    entry.file, "fix the node names in the transformations config");
    return found;
}

// The entry's `inputs` and `outputs`, resolved among the sub-graph's nodes.
void resolve_boundary(SubgraphMatch& m, const ConfigEntry& entry, const std::string& prefix) {
    for (size_t i = 0; i < entry.inputs.size(); ++i) {
        std::vector<InPort> ports;
        for (const auto& d : entry.inputs[i]) {
            const size_t port = d["port"].get<size_t>();
            for (const Node& n : named(m.nodes, prefix, d["node"].get<std::string>(), entry, "input " + std::to_string(i))) {
                if (port >= n.input_count() || !n.in(port).connected())
                    throw Error(entry.describe() + ": input " + std::to_string(i) + ": " + n.describe() +
                                    " has no connected input " + std::to_string(port),
                                entry.file, "fix the port in the transformations config");
                ports.emplace_back(n, port);
            }
        }
        m.inputs.push_back(std::move(ports));
    }
    for (size_t j = 0; j < entry.outputs.size(); ++j) {
        const auto& d = entry.outputs[j];
        const size_t port = d["port"].get<size_t>();
        Node n = named(m.nodes, prefix, d["node"].get<std::string>(), entry, "output " + std::to_string(j)).front();
        if (port >= n.output_count())
            throw Error(entry.describe() + ": output " + std::to_string(j) + ": " + n.describe() + " has no output " +
                            std::to_string(port),
                        entry.file, "fix the port in the transformations config");
        m.outputs.push_back(n.out(port));
    }
}

// How deep a node name is: its number of '/' separated scopes.
size_t depth(const std::string& name) { return static_cast<size_t>(std::count(name.begin(), name.end(), '/')); }

// The node a point names. MO takes a point as an exact node name, and an exact name still wins
// here; else the node producing the tensor of that name (a model output's name is often the
// steadiest handle an exporter gives); else the point is a pattern for a node name, matched
// whole or after a '/', so that a module wrapping the model (its scope in front: "/m/Softmax"
// for "/Softmax") or a pattern ("Softmax_[0-9]+") still finds the node. Of several nodes the
// pattern finds, the one in the fewest scopes is taken (the detector's own op, not one inside
// its backbone); two at that depth are an error.
Node find_point(const Graph& graph, const std::string& point, const ConfigEntry& entry) {
    if (Node n = graph.find_by_name(point)) return n;
    for (const Node& n : graph.nodes())
        for (size_t j = 0; j < n.output_count(); ++j) {
            const auto& names = n.out(j).names();
            if (std::find(names.begin(), names.end(), point) != names.end()) return n;
        }
    const std::string hint = "fix the points in the transformations config (a point is a node name, a tensor name, "
                             "or a pattern for a node name under any scope)";
    const std::string tail = !point.empty() && point.front() == '/' ? point.substr(1) : point;
    re2::RE2::Options options;
    options.set_log_errors(false);
    // Checked alone first, so that an unbalanced ')' cannot close the group around it.
    const re2::RE2 alone(tail, options);
    if (!alone.ok())
        throw Error(entry.describe() + ": no node or tensor is named '" + point + "', and as a pattern it is not a " +
                        "valid regular expression (" + alone.error() + ")",
                    entry.file, hint);
    const re2::RE2 re("(?:.*/)?(?:" + tail + ")", options);
    if (!re.ok())
        throw Error(entry.describe() + ": point '" + point + "' cannot be compiled as a pattern (" + re.error() + ")",
                    entry.file, hint);
    std::vector<Node> found;
    for (const Node& n : graph.nodes())
        if (re2::RE2::FullMatch(n.name(), re)) found.push_back(n);
    if (found.empty())
        throw Error(entry.describe() + ": no node or tensor is named '" + point + "', and no node name ends with it",
                    entry.file, hint);
    std::stable_sort(found.begin(), found.end(),
                     [](const Node& a, const Node& b) { return depth(a.name()) < depth(b.name()); });
    if (found.size() > 1 && depth(found[0].name()) == depth(found[1].name()))
        throw Error(entry.describe() + ": point '" + point + "' finds several nodes in as many scopes: '" +
                        found[0].name() + "' and '" + found[1].name() + "'",
                    entry.file, "give the full node name, or a narrower pattern, in the transformations config");
    MO_LOG(Info, entry.describe(), ": point '", point, "' is node '", found[0].name(), "'");
    return found[0];
}

std::vector<Node> points(const Graph& graph, const ConfigEntry& entry, const char* key) {
    std::vector<Node> nodes;
    for (const auto& name : entry.instances[key]) nodes.push_back(find_point(graph, name.get<std::string>(), entry));
    return nodes;
}

}  // namespace

std::vector<SubgraphMatch> match_scopes(const Graph& graph, const ConfigEntry& entry) {
    std::vector<SubgraphMatch> matches;
    const std::vector<Node> all = graph.nodes();
    for (const auto& instance : entry.instances) {
        const std::string scope = instance.get<std::string>();
        const auto re = compile("(" + scope + ")(/.*)?", entry);
        SubgraphMatch m;
        m.instance = scope;
        for (const Node& n : all)
            if (re2::RE2::FullMatch(n.name(), *re)) m.nodes.push_back(n);
        if (m.nodes.empty()) continue;
        resolve_boundary(m, entry, "(" + scope + ")/");
        matches.push_back(std::move(m));
    }
    return matches;
}

SubgraphMatch match_points(const Graph& graph, const ConfigEntry& entry) {
    const std::vector<Node> starts = points(graph, entry, "start_points"), ends = points(graph, entry, "end_points");
    const std::set<Node> start_set(starts.begin(), starts.end()), end_set(ends.begin(), ends.end());
    // Forward from the starts, not past the ends; then backward from every node but the starts,
    // for the producers they need. A producer whose value is known (a constant, or folded by
    // partial inference) is taken in without its own producers.
    std::set<Node> in(starts.begin(), starts.end());
    std::deque<Node> queue(starts.begin(), starts.end());
    while (!queue.empty()) {
        Node n = queue.front();
        queue.pop_front();
        if (end_set.count(n)) continue;
        for (size_t j = 0; j < n.output_count(); ++j)
            for (const InPort& t : n.out(j).targets())
                if (!t.node().is("Result") && in.insert(t.node()).second) queue.push_back(t.node());
    }
    for (const Node& n : in)
        if (!start_set.count(n) && !has_known_value(n)) queue.push_back(n);
    while (!queue.empty()) {
        Node n = queue.front();
        queue.pop_front();
        for (size_t i = 0; i < n.input_count(); ++i) {
            if (!n.in(i).connected()) continue;
            Node p = n.in(i).src().node();
            if (p.is("Parameter"))
                throw Error(entry.describe() + ": the sub-graph pulls in the model input '" + p.name() +
                                "' (an input of " + n.describe() + ")",
                            entry.file, "add the node that reads it to the start points");
            if (!in.insert(p).second) continue;
            if (!has_known_value(p)) queue.push_back(p);
        }
    }
    for (const Node& e : ends)
        if (!in.count(e))
            throw Error(entry.describe() + ": end point '" + e.name() + "' is not reached from the start points",
                        entry.file, "check the start and end points in the transformations config");
    SubgraphMatch m;
    m.instance = "points";
    m.nodes.assign(in.begin(), in.end());  // std::set<Node> orders by id
    if (!entry.inputs.empty() || !entry.outputs.empty()) {
        resolve_boundary(m, entry, "");
        return m;
    }
    for (const Node& s : starts)
        for (size_t i = 0; i < s.input_count(); ++i)
            if (s.in(i).connected() && !in.count(s.in(i).src().node()) && !s.in(i).value()) m.inputs.push_back({s.in(i)});
    for (const Node& e : ends)
        for (size_t j = 0; j < e.output_count(); ++j) m.outputs.push_back(e.out(j));
    if (ends.empty())  // up to the model's outputs: the sub-graph's ports that Results read
        for (const Node& r : graph.results())
            if (in.count(r.in(0).src().node())) m.outputs.push_back(r.in(0).src());
    return m;
}

}  // namespace mo
