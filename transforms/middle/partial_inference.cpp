#include "transforms/middle/partial_inference.hpp"

#include <unordered_set>

#include "core/infer.hpp"

namespace mo {

namespace {

std::vector<PartialInference::InputState> input_states(Node n) {
    std::vector<PartialInference::InputState> states(n.input_count());
    for (size_t i = 0; i < n.input_count(); ++i) {
        auto src = n.in(i).source();
        if (!src) continue;
        auto& s = states[i];
        s.source = src->node().id();
        s.port = src->index();
        s.type = src->type();
        s.shape = src->shape();
        const Tensor* v = src->value();
        s.value = v ? static_cast<const void*>(v->bytes()) : nullptr;
    }
    return states;
}

}  // namespace

bool PartialInference::infer_node(Node n) { return mo::infer_node(n); }

bool PartialInference::run(Graph& graph, const TransformContext&) {
    if (graph_ != &graph) {
        graph_ = &graph;
        last_inputs_.clear();
    }
    bool changed = false;
    // Nodes no extractor handled (left for a configured replacement, reported at the back phase)
    // and everything they feed stay uninferred.
    std::unordered_set<uint64_t> blocked;
    for (Node n : graph.topological_order()) {
        bool skip = n.is("FrameworkNode");
        for (size_t i = 0; !skip && !blocked.empty() && i < n.input_count(); ++i)
            skip = n.in(i).connected() && blocked.count(n.in(i).src().node().id());
        if (skip) {
            blocked.insert(n.id());
            continue;
        }
        auto states = input_states(n);
        auto it = last_inputs_.find(n.id());
        if (!n.needs_infer() && it != last_inputs_.end() && it->second == states) continue;
        changed |= infer_node(n);
        last_inputs_[n.id()] = std::move(states);
    }
    return changed;
}

}  // namespace mo
