// BN(Conv(x, W) [+ b]) -> Conv(x, W * k) + (b * k + B - mean * k), k = scale / sqrt(var + eps)
// per output channel.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Needs constant weights, a constant per-channel bias (when present), constant BN inputs, and
// each intermediate tensor used only by the next node of the chain. The Add that carries the
// folded bias takes the BatchNormalization's name and output tensor names.
class FuseBatchNormIntoConvolution final : public OpTransformation {
public:
    std::string id() const override { return "FuseBatchNormIntoConvolution"; }
    Phase phase() const override { return Phase::Middle; }
    bool force_clean_up() const override { return true; }
    std::vector<std::string> op_types() const override { return {"BatchNormalization"}; }
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
