// Flatten(x; axis) -> Reshape(x, [prod(d[:axis]), prod(d[axis:])]; special_zero = false).
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// The target shape is a constant when at most one of the two products is unknown (that one
// becomes -1); otherwise it is computed: Concat(ReduceProd(Slice(ShapeOf(x), 0, axis)),
// ReduceProd(Slice(ShapeOf(x), axis, max))).
class FlattenToReshape final : public OpTransformation {
public:
    std::string id() const override { return "FlattenToReshape"; }
    Phase phase() const override { return Phase::Back; }
    std::vector<std::string> op_types() const override { return {"Flatten"}; }
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
