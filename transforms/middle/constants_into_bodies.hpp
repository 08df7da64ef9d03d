// Constants an If / Loop / TensorIterator body reads unchanged -> Constants inside the body.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// A constant input that a body reads unchanged in every iteration (an Invariant input, e.g. an
// outer-scope value ONNX bodies read) becomes a Constant inside the body, so that the body
// folds what depends on it; the input goes when no body reads it any more.
class ConstantsIntoBodies final : public OpTransformation {
public:
    std::string id() const override { return "ConstantsIntoBodies"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> op_types() const override { return {"If", "Loop", "TensorIterator"}; }
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
