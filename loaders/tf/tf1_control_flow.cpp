#include "loaders/tf/tf1_control_flow.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "core/error.hpp"

namespace mo {

namespace {

using mo_tf::NodeDef;

// An input of a node: "x" / "x:k" (output k of node x) or "^x" (a control input).
struct Ref {
    std::string node;
    size_t port = 0;
    bool control = false;
};

Ref parse(const std::string& input) {
    Ref r;
    if (!input.empty() && input[0] == '^') return {input.substr(1), 0, true};
    const auto colon = input.rfind(':');
    if (colon != std::string::npos && colon + 1 < input.size() &&
        input.find_first_not_of("0123456789", colon + 1) == std::string::npos && input.size() - colon <= 6)
        return {input.substr(0, colon), static_cast<size_t>(std::stoul(input.substr(colon + 1))), false};
    return {input, 0, false};
}

std::string tensor(const std::string& node, size_t port) { return port == 0 ? node : node + ":" + std::to_string(port); }
std::string tensor(const Ref& r) { return tensor(r.node, r.port); }

bool is_loop_op(const std::string& op) {
    return op == "Enter" || op == "RefEnter" || op == "Exit" || op == "RefExit" || op == "NextIteration" ||
           op == "RefNextIteration" || op == "LoopCond" || op == "Merge" || op == "RefMerge" || op == "Switch" ||
           op == "RefSwitch";
}

}  // namespace

bool has_v1_control_flow(const mo_tf::GraphDef& graph);

namespace {

class Lifter {
public:
    Lifter(mo_tf::GraphDef& g, const std::string& path) : g_(g), path_(path) {}

    void run() {
        if (!has_v1_control_flow(g_)) return;
        index();
        for (const auto& n : g_.node()) names_.insert(n.name());
        for (const auto& [name, readers] : consumers_)
            if (!readers.empty()) was_read_.insert(name);
        for (const auto& f : g_.library().function()) names_.insert(f.signature().name());
        // Innermost first: a conditional in a loop body, a loop in a branch, each in turn.
        while (lift_cond() || lift_loop()) {
        }
        for (const auto& n : g_.node())
            if (is_loop_op(n.op()))
                throw Error("the " + n.op() + " node '" + n.name() + "' is part of no while loop or conditional mo recognises",
                            path_, "mo converts tf.while_loop / tf.cond and TF2's If / While, lowered or not");
        drop_unread();
    }

private:
    std::string where(const NodeDef& n) const { return "node '" + n.name() + "' (" + n.op() + ") in " + path_; }

    void index() {
        by_name_.clear();
        consumers_.clear();
        for (int i = 0; i < g_.node_size(); ++i) by_name_[g_.node(i).name()] = i;
        for (int i = 0; i < g_.node_size(); ++i)
            for (const auto& in : g_.node(i).input()) consumers_[parse(in).node].push_back(i);
    }

    int index_of(const std::string& name) const {
        auto it = by_name_.find(name);
        if (it == by_name_.end()) throw Error("input '" + name + "' names a node the graph does not have", path_, "the graph is incomplete; freeze it again");
        return it->second;
    }

    const NodeDef& node(const std::string& name) const {
        auto it = by_name_.find(name);
        if (it == by_name_.end()) throw Error("input '" + name + "' names a node the graph does not have", path_, "the graph is incomplete; freeze it again");
        return g_.node(it->second);
    }

    // Consumers of output `port` of `name` (data inputs), or of any output (port = SIZE_MAX).
    std::vector<int> readers(const std::string& name, size_t port) const {
        std::vector<int> out;
        auto it = consumers_.find(name);
        if (it == consumers_.end()) return out;
        for (int c : it->second)
            for (const auto& in : g_.node(c).input()) {
                const Ref r = parse(in);
                if (r.node == name && !r.control && (port == SIZE_MAX || r.port == port)) {
                    out.push_back(c);
                    break;
                }
            }
        return out;
    }

    // Nodes reached forward from `starts` over data and control edges, not past nodes for which
    // `stop` is true (they are included).
    template <typename Stop>
    std::set<int> forward(const std::vector<int>& starts, const Stop& stop) const {
        std::set<int> seen(starts.begin(), starts.end());
        std::vector<int> todo(starts.begin(), starts.end());
        while (!todo.empty()) {
            const int i = todo.back();
            todo.pop_back();
            if (stop(g_.node(i))) continue;
            auto it = consumers_.find(g_.node(i).name());
            if (it == consumers_.end()) continue;
            for (int c : it->second)
                if (seen.insert(c).second) todo.push_back(c);
        }
        return seen;
    }

    std::string unique(const std::string& base) {
        std::string name = base;
        for (int k = 1; names_.count(name); ++k) name = base + "_" + std::to_string(k);
        names_.insert(name);
        return name;
    }

    // Adds function `name` with `args`; its nodes are those `roots` depend on, up to the tensors
    // of `stops` (tensor -> argument); nodes outside `region` are copied (constants a frame holds
    // by control inputs only). Control inputs are dropped (mo does not read them).
    void make_function(const std::string& name, const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& stops, const std::vector<std::string>& roots,
                       const std::set<int>& region, const std::string& at) {
        mo_tf::FunctionDef& f = *g_.mutable_library()->add_function();
        f.mutable_signature()->set_name(name);
        for (const auto& a : args) f.mutable_signature()->add_input_arg()->set_name(a);
        std::set<std::string> added;
        std::vector<std::string> todo;
        auto rename = [&](const Ref& r) -> std::string {
            if (auto s = stops.find(tensor(r)); s != stops.end()) return s->second;
            if (!added.count(r.node)) todo.push_back(r.node);
            return r.port == 0 ? r.node : r.node + ":" + std::to_string(r.port);
        };
        for (size_t k = 0; k < roots.size(); ++k) {
            const std::string out = "output_" + std::to_string(k);
            f.mutable_signature()->add_output_arg()->set_name(out);
            (*f.mutable_ret())[out] = rename(parse(roots[k]));
        }
        while (!todo.empty()) {
            const std::string n = todo.back();
            todo.pop_back();
            if (!added.insert(n).second) continue;
            const NodeDef& def = node(n);
            const bool inside = region.count(index_of(n)) != 0;
            if (is_loop_op(def.op()) || (!inside && (def.op() == "Placeholder" || def.op() == "PlaceholderWithDefault")))
                throw Error("the " + at + " reads " + def.op() + " '" + n + "' directly", path_,
                            "mo converts the forms tf.while_loop and tf.cond write; this graph has another");
            NodeDef* copy = f.add_node_def();
            *copy = def;
            copy->clear_input();
            for (const auto& in : def.input()) {
                const Ref r = parse(in);
                if (!r.control) copy->add_input(rename(r));
            }
        }
    }

    // A node of `region` (but `exits`, the ways out) read from outside it: a value leaving the
    // loop or conditional another way than TensorFlow allows; removing the region would cut it.
    void check_closed(const std::set<int>& region, const std::set<std::string>& exits, const std::string& at) const {
        for (int i : region) {
            const NodeDef& n = g_.node(i);
            if (exits.count(n.name())) continue;
            auto it = consumers_.find(n.name());
            if (it == consumers_.end()) {
                // Nothing reads it: a value of the loop or branch taken as an output of the graph
                // (unless its readers were lifted already: cond/pred_id after its Switches).
                if (n.op() == "Const" || n.op() == "NoOp" || was_read_.count(n.name())) continue;
                throw Error("'" + n.name() + "' inside the " + at + " is an output of the graph without passing an Exit or Merge",
                            path_, "mo converts the forms tf.while_loop and tf.cond write; cut the model with --output");
            }
            for (int c : it->second)
                if (!region.count(c))
                    throw Error("node '" + g_.node(c).name() + "' reads '" + n.name() + "' inside the " + at +
                                    " without passing an Exit or Merge",
                                path_, "mo converts the forms tf.while_loop and tf.cond write; this graph has another");
        }
    }

    // Removes the nodes of `gone` and turns each node of `identities` (name -> tensor) into an
    // Identity of that tensor.
    void rewrite(const std::set<int>& gone, const std::map<std::string, std::string>& identities, NodeDef added) {
        google::protobuf::RepeatedPtrField<NodeDef> kept;
        for (int i = 0; i < g_.node_size(); ++i) {
            NodeDef& n = *g_.mutable_node(i);
            if (auto id = identities.find(n.name()); id != identities.end()) {
                NodeDef identity;
                identity.set_name(n.name());
                identity.set_op("Identity");
                identity.add_input(id->second);
                *kept.Add() = std::move(identity);
            } else if (!gone.count(i)) {
                *kept.Add() = std::move(n);
            }
        }
        *kept.Add() = std::move(added);
        g_.mutable_node()->Swap(&kept);
        index();
    }

    bool lift_loop() {
        std::map<std::string, std::vector<int>> frames;
        for (int i = 0; i < g_.node_size(); ++i) {
            const NodeDef& n = g_.node(i);
            if (n.op() != "Enter" && n.op() != "RefEnter") continue;
            auto f = n.attr().find("frame_name");
            frames[f == n.attr().end() ? std::string() : f->second.s()].push_back(i);
        }
        auto is_exit = [](const NodeDef& n) { return n.op() == "Exit" || n.op() == "RefExit"; };
        for (const auto& [frame, enters] : frames) {
            std::set<int> region = forward(enters, is_exit);
            bool innermost = true;
            for (int i : region)
                if (((g_.node(i).op() == "Enter" || g_.node(i).op() == "RefEnter") &&
                     std::find(enters.begin(), enters.end(), i) == enters.end()) ||
                    is_cond_switch(g_.node(i)))
                    innermost = false;
            if (!innermost) continue;
            lift_frame(frame, enters, region);
            return true;
        }
        return false;
    }

    void lift_frame(const std::string& frame, const std::vector<int>& enters, const std::set<int>& region) {
        const std::string at = "while loop '" + frame + "'";
        std::vector<std::string> initial, invariant_inputs, next, exits;
        std::map<std::string, std::string> cond_stops, body_stops;
        std::string loop_cond;
        std::vector<std::string> invariants;
        for (int e : enters) {
            const NodeDef& enter = g_.node(e);
            auto c = enter.attr().find("is_constant");
            if (enter.input_size() < 1) throw Error("Enter has no input", where(enter), "the model is corrupt; re-export it");
            if (c != enter.attr().end() && c->second.b()) {
                invariants.push_back(enter.name());
                invariant_inputs.push_back(enter.input(0));
                continue;
            }
            const auto merges = readers(enter.name(), SIZE_MAX);
            if (merges.size() != 1 || (g_.node(merges[0]).op() != "Merge" && g_.node(merges[0]).op() != "RefMerge"))
                throw Error("the loop variable's Enter feeds no single Merge", where(enter),
                            "mo converts the form tf.while_loop writes; this loop has another");
            const NodeDef& merge = g_.node(merges[0]);
            std::string next_iteration;
            for (const auto& in : merge.input()) {
                const Ref r = parse(in);
                if (!r.control && r.node != enter.name()) next_iteration = r.node;
            }
            const auto switches = readers(merge.name(), 0);
            std::vector<int> switch_nodes;
            for (int s : switches)
                if (g_.node(s).op() == "Switch" || g_.node(s).op() == "RefSwitch") switch_nodes.push_back(s);
            if (next_iteration.empty() || node(next_iteration).op().find("NextIteration") == std::string::npos ||
                switch_nodes.size() != 1)
                throw Error("the loop variable's Merge is not fed by a NextIteration or feeds no single Switch", where(merge),
                            "mo converts the form tf.while_loop writes; this loop has another");
            const NodeDef& sw = g_.node(switch_nodes[0]);
            if (sw.input_size() < 2) throw Error("Switch has no predicate", where(sw), "the model is corrupt; re-export it");
            const std::string pred = parse(sw.input(1)).node;
            if (node(pred).op() != "LoopCond" || (!loop_cond.empty() && loop_cond != pred))
                throw Error("the loop's Switch is not controlled by the loop's LoopCond", where(sw),
                            "mo converts the form tf.while_loop writes; this loop has another");
            loop_cond = pred;
            const std::string var = "loop_var_" + std::to_string(initial.size());
            initial.push_back(enter.input(0));
            cond_stops[merge.name()] = var;
            body_stops[tensor(sw.name(), 1)] = var;
            const NodeDef& ni = node(next_iteration);
            if (ni.input_size() < 1) throw Error("NextIteration has no input", where(ni), "the model is corrupt; re-export it");
            next.push_back(ni.input(0));
            std::string exit;
            for (int x : readers(sw.name(), 0))
                if (g_.node(x).op() == "Exit" || g_.node(x).op() == "RefExit") exit = g_.node(x).name();
            exits.push_back(exit);
        }
        if (loop_cond.empty()) throw Error("the " + at + " has no loop variable", path_, "the model is corrupt; re-export it");
        std::vector<std::string> args;
        for (size_t i = 0; i < initial.size(); ++i) args.push_back("loop_var_" + std::to_string(i));
        for (size_t j = 0; j < invariants.size(); ++j) {
            args.push_back("invariant_" + std::to_string(j));
            cond_stops[invariants[j]] = args.back();
            body_stops[invariants[j]] = args.back();
        }
        const NodeDef& lc = node(loop_cond);
        if (lc.input_size() < 1) throw Error("LoopCond has no input", where(lc), "the model is corrupt; re-export it");
        const std::string cond_name = unique(frame + "/mo_cond"), body_name = unique(frame + "/mo_body");
        make_function(cond_name, args, cond_stops, {lc.input(0)}, region, "condition of the " + at);
        std::vector<std::string> body_out = next;
        for (size_t j = 0; j < invariants.size(); ++j) body_out.push_back(invariants[j]);
        make_function(body_name, args, body_stops, body_out, region, "body of the " + at);
        NodeDef w;
        w.set_name(unique(frame + "/mo_while"));
        w.set_op("StatelessWhile");
        for (const auto& in : initial) w.add_input(in);
        for (const auto& in : invariant_inputs) w.add_input(in);
        (*w.mutable_attr())["cond"].mutable_func()->set_name(cond_name);
        (*w.mutable_attr())["body"].mutable_func()->set_name(body_name);
        std::map<std::string, std::string> identities;
        for (size_t i = 0; i < exits.size(); ++i)
            if (!exits[i].empty()) identities[exits[i]] = w.name() + ":" + std::to_string(i);
        std::set<std::string> ways_out;
        for (int i : region)
            if (g_.node(i).op() == "Exit" || g_.node(i).op() == "RefExit") ways_out.insert(g_.node(i).name());
        check_closed(region, ways_out, at);
        rewrite(region, identities, std::move(w));
    }

    // The predicate a Switch reads, through Identities (tf.cond routes it through cond/pred_id).
    std::string predicate(const NodeDef& sw) const {
        if (sw.input_size() < 2) throw Error("Switch has no predicate", where(sw), "the model is corrupt; re-export it");
        Ref r = parse(sw.input(1));
        for (size_t hops = 0; hops < by_name_.size(); ++hops) {
            const NodeDef& n = node(r.node);
            if (n.op() != "Identity" || n.input_size() < 1 || parse(n.input(0)).control) break;
            r = parse(n.input(0));
        }
        return tensor(r);
    }

    // A Switch of a conditional (a loop's Switches read its LoopCond).
    bool is_cond_switch(const NodeDef& n) const {
        return (n.op() == "Switch" || n.op() == "RefSwitch") && node(parse(predicate(n)).node).op() != "LoopCond";
    }

    bool lift_cond() {
        std::map<std::string, std::vector<int>> groups;  // predicate tensor -> its Switches
        for (int i = 0; i < g_.node_size(); ++i)
            if (is_cond_switch(g_.node(i))) groups[predicate(g_.node(i))].push_back(i);
        auto is_merge = [](const NodeDef& n) { return n.op() == "Merge" || n.op() == "RefMerge"; };
        for (const auto& [pred, switches] : groups) {
            std::vector<int> starts[2];
            for (int s : switches)
                for (size_t port : {size_t{0}, size_t{1}})
                    for (int r : readers(g_.node(s).name(), port)) starts[port].push_back(r);
            const std::set<int> side[2] = {forward(starts[0], is_merge), forward(starts[1], is_merge)};
            bool innermost = true;
            for (const auto& set : side)
                for (int i : set)
                    if ((is_cond_switch(g_.node(i)) && std::find(switches.begin(), switches.end(), i) == switches.end()) ||
                        g_.node(i).op() == "Enter" || g_.node(i).op() == "RefEnter")
                        innermost = false;
            if (!innermost) continue;
            lift_conditional(pred, switches, side);
            return true;
        }
        return false;
    }

    void lift_conditional(const std::string& pred, const std::vector<int>& switches, const std::set<int> (&side)[2]) {
        const std::string at = "conditional on '" + pred + "'";
        std::map<std::string, std::string> stops[2];
        std::vector<std::string> args, inputs;
        for (int s : switches) {
            const NodeDef& sw = g_.node(s);
            args.push_back("input_" + std::to_string(args.size()));
            inputs.push_back(sw.input(0));
            stops[0][tensor(sw.name(), 0)] = args.back();
            stops[1][tensor(sw.name(), 1)] = args.back();
        }
        // Each Merge joins one value of each branch.
        std::vector<std::string> merges, branch[2];
        std::set<int> region;
        for (const auto& set : side) region.insert(set.begin(), set.end());
        for (int s : switches) region.insert(s);
        auto in_cond = [&](int producer) {
            return side[0].count(producer) || side[1].count(producer) ||
                   std::find(switches.begin(), switches.end(), producer) != switches.end();
        };
        std::set<int> foreign;  // Merges the branches reach that are not this conditional's (a loop's)
        for (int m : region) {
            const NodeDef& merge = g_.node(m);
            if (merge.op() != "Merge" && merge.op() != "RefMerge") continue;
            bool ours = true;
            for (const auto& in : merge.input()) {
                const Ref r = parse(in);
                if (!r.control) ours &= in_cond(index_of(r.node));
            }
            if (!ours) {
                foreign.insert(m);
                continue;
            }
            std::string value[2];
            for (const auto& in : merge.input()) {
                const Ref r = parse(in);
                if (r.control) continue;
                const int producer = index_of(r.node);
                int b = -1;
                if (std::find(switches.begin(), switches.end(), producer) != switches.end()) b = static_cast<int>(r.port);
                else if (side[1].count(producer) && !side[0].count(producer)) b = 1;
                else if (side[0].count(producer) && !side[1].count(producer)) b = 0;
                if (b < 0 || b > 1 || !value[b].empty())
                    throw Error("the Merge does not join one value of each branch of the " + at, where(merge),
                                "mo converts the form tf.cond writes; this graph has another");
                value[b] = in;
            }
            if (value[0].empty() || value[1].empty())
                throw Error("the Merge does not join one value of each branch of the " + at, where(merge),
                            "mo converts the form tf.cond writes; this graph has another");
            if (!readers(merge.name(), 1).empty())
                throw Error("the Merge's value_index output is read", where(merge), "mo converts the form tf.cond writes");
            merges.push_back(merge.name());
            branch[0].push_back(value[0]);
            branch[1].push_back(value[1]);
        }
        for (int m : foreign) region.erase(m);
        const std::string base = parse(pred).node;
        const std::string then_name = unique(base + "/mo_then"), else_name = unique(base + "/mo_else");
        make_function(then_name, args, stops[1], branch[1], region, "true branch of the " + at);
        make_function(else_name, args, stops[0], branch[0], region, "false branch of the " + at);
        NodeDef n;
        n.set_name(unique(base + "/mo_if"));
        n.set_op("StatelessIf");
        n.add_input(pred);
        for (const auto& in : inputs) n.add_input(in);
        (*n.mutable_attr())["then_branch"].mutable_func()->set_name(then_name);
        (*n.mutable_attr())["else_branch"].mutable_func()->set_name(else_name);
        std::map<std::string, std::string> identities;
        for (size_t m = 0; m < merges.size(); ++m) identities[merges[m]] = n.name() + ":" + std::to_string(m);
        check_closed(region, std::set<std::string>(merges.begin(), merges.end()), at);
        rewrite(region, identities, std::move(n));
    }

    // Nodes that only the lifted structures read (constants held by control inputs, now copied
    // into functions) would pass for the graph's outputs: they go.
    void drop_unread() {
        for (bool changed = true; changed;) {
            changed = false;
            std::set<int> gone;
            for (int i = 0; i < g_.node_size(); ++i) {
                const std::string& n = g_.node(i).name();
                if (was_read_.count(n) && !consumers_.count(n)) gone.insert(i);
            }
            if (gone.empty()) break;
            google::protobuf::RepeatedPtrField<NodeDef> kept;
            for (int i = 0; i < g_.node_size(); ++i)
                if (!gone.count(i)) *kept.Add() = std::move(*g_.mutable_node(i));
            g_.mutable_node()->Swap(&kept);
            index();
            changed = true;
        }
    }

    mo_tf::GraphDef& g_;
    std::string path_;
    std::map<std::string, int> by_name_;
    std::map<std::string, std::vector<int>> consumers_;
    std::set<std::string> names_, was_read_;
};

}  // namespace

bool has_v1_control_flow(const mo_tf::GraphDef& graph) {
    for (const auto& n : graph.node())
        if (is_loop_op(n.op())) return true;
    return false;
}

void lift_v1_control_flow(mo_tf::GraphDef& graph, const std::string& path) { Lifter(graph, path).run(); }

}  // namespace mo
