// Every BatchNormalization left after FuseBatchNormIntoConvolution -> BatchNormInference-5.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

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
