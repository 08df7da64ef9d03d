// BN(Conv(x, W) [+ b]) -> Conv(x, W * k) + (b * k + B - mean * k), k = scale / sqrt(var + eps)
// per output channel; every remaining BatchNormalization -> BatchNormInference-5.
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

// BatchNormalization(X, scale, B, mean, var; epsilon) -> BatchNormInference(X, scale, B,
// mean, var; epsilon): the input order of opset5 is the ONNX one.
class BatchNormToBatchNormInference final : public OpTransformation {
public:
    std::string id() const override { return "BatchNormToBatchNormInference"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"FuseBatchNormIntoConvolution"}; }
    std::vector<std::string> op_types() const override { return {"BatchNormalization"}; }
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
