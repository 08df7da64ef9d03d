// Final check of the back phase: nothing but OpenVINO opset ops is left.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Every remaining op must be an opset op: an internal op left means its lowering did not run.
class CheckOnlyOpsetOps final : public Transformation {
public:
    std::string id() const override { return "CheckOnlyOpsetOps"; }
    Phase phase() const override { return Phase::Back; }
    // Last of the built-in back transformations.
    std::vector<std::string> run_after() const override {
        return {"CompressFloatConstantsToF16", "RemoveDeadNodes", "ReplaceFoldedWithConstants", "NormalizeAxes",
                "GemmToMatMul", "FlattenToReshape", "ClipToClamp"};
    }
    bool run(Graph& graph, const TransformContext& ctx) override;
};

}  // namespace mo
