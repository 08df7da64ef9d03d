// axis -> axis + rank for negative axes: Softmax/LogSoftmax `axis` attributes and the constant
// axes inputs of Reduce*, Squeeze, Unsqueeze and Gather.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Needs a static input rank (for Unsqueeze: the output rank); nodes with a dynamic rank or
// non-constant axes are left alone. A shared axes constant is not modified: the node gets a
// new constant "<old name>/normalized" of the same type and shape.
class NormalizeAxes final : public OpTransformation {
public:
    std::string id() const override { return "NormalizeAxes"; }
    Phase phase() const override { return Phase::Back; }
    std::vector<std::string> op_types() const override;
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
