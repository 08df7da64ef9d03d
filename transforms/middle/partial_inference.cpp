#include "transforms/middle/partial_inference.hpp"

#include <algorithm>
#include <unordered_set>

#include "core/hash.hpp"
#include "core/infer.hpp"

namespace mo {

namespace {

uint64_t shape_digest(uint64_t h, const PartialShape& shape) {
    h = hash_combine(h, shape.rank_is_static() ? shape.dims().size() : UINT64_MAX - 1);
    if (shape.rank_is_static())
        for (const Dimension& d : shape.dims()) h = hash_combine(hash_combine(h, static_cast<uint64_t>(d.min())), static_cast<uint64_t>(d.max()));
    return h;
}

uint64_t input_digest(Node n) {
    uint64_t h = hash_combine(0, n.input_count());
    for (size_t i = 0; i < n.input_count(); ++i) {
        auto src = n.in(i).source();
        if (!src) {
            h = hash_combine(h, UINT64_MAX);
            continue;
        }
        h = hash_combine(hash_combine(hash_combine(h, src->node().id()), src->index()), static_cast<uint64_t>(src->type()));
        h = shape_digest(h, src->shape());
        // A Gather of a ShapeOf folds the static dims it reads (core/infer.cpp): they count too.
        const Node from = src->node();
        if (from.is("ShapeOf") && from.input_count() == 1 && from.in(0).connected()) h = shape_digest(h, from.in(0).shape());
        const Tensor* v = src->value();  // its buffer, not bytes(): see core/infer.cpp
        h = hash_combine(h, reinterpret_cast<uintptr_t>(v ? v->buffer().get() : nullptr));
    }
    return h == 0 ? 1 : h;
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
        const uint64_t digest = input_digest(n);
        if (n.id() >= last_inputs_.size()) last_inputs_.resize(std::max<size_t>(n.id() + 1, graph.id_limit()), 0);
        if (!n.needs_infer() && last_inputs_[n.id()] == digest) continue;
        changed |= infer_node(n);
        last_inputs_[n.id()] = digest;
    }
    return changed;
}

}  // namespace mo
