// Cuts the model at --output: outputs := [Result(t) for t in options.outputs], then drops
// the old Results and every node no longer reaching an output.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Each listed name is a tensor name (an output port's name), else a node name (its first
// output), else "node:N" (the node's output N). New Results are named "<name>/sink_port_0", in the given order.
class OutputCut final : public Transformation {
public:
    std::string id() const override { return "OutputCut"; }
    Phase phase() const override { return Phase::Front; }
    bool condition(const Graph&, const TransformContext& ctx) const override { return !ctx.options.outputs.empty(); }
    bool wants_bodies() const override { return false; }
    bool run(Graph& graph, const TransformContext& ctx) override;
};

}  // namespace mo
