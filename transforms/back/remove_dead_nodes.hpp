// Nodes from which no Result is reachable are removed (Graph::remove_dead_nodes).
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Parameters stay, even when unused.
class RemoveDeadNodes final : public Transformation {
public:
    std::string id() const override { return "RemoveDeadNodes"; }
    Phase phase() const override { return Phase::Back; }
    std::vector<std::string> run_after() const override {
        return {"GemmToMatMul", "FlattenToReshape", "ClipToClamp", "NormalizeAxes", "ReplaceFoldedWithConstants"};
    }
    bool run(Graph& graph, const TransformContext&) override { return graph.remove_dead_nodes() > 0; }
};

}  // namespace mo
