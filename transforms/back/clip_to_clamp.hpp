// Clip(x, min, max) -> Clamp(x; min, max) when the bounds are constants, else
// Minimum(Maximum(x, min), max).
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// An absent bound becomes the lowest / highest finite value of x's element type in Clamp, and
// is simply skipped in the Maximum/Minimum form.
class ClipToClamp final : public OpTransformation {
public:
    std::string id() const override { return "ClipToClamp"; }
    Phase phase() const override { return Phase::Back; }
    std::vector<std::string> op_types() const override { return {"Clip"}; }
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
