// node -> Constant(node.out(j).value) for every node whose outputs all have known values.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Skips Parameter, Constant and Result, and nodes all of whose consumers are folded too (they
// die with the clean-up). A one-output node's Constant takes its name; output j of a
// multi-output node becomes "<name>.<j>". Tensor names move to the constants.
class ReplaceFoldedWithConstants final : public Transformation {
public:
    std::string id() const override { return "ReplaceFoldedWithConstants"; }
    Phase phase() const override { return Phase::Back; }
    // New nodes made by the lowerings may fold.
    std::vector<std::string> run_after() const override { return {"GemmToMatMul", "FlattenToReshape", "ClipToClamp"}; }
    bool force_clean_up() const override { return true; }
    bool run(Graph& graph, const TransformContext& ctx) override;
};

}  // namespace mo
