// Rewrites rotate_half(x) = Concat(Negative(x[..., h:]), x[..., :h]) of a [B, H, S, 2h] x — the
// rotary position embedding of Llama-style models as PyTorch exports it to ONNX — into the nodes
// OpenVINO's RoPEFusionGPTNEOX (common_optimizations/fuse_rotary_positional_embeddings.cpp)
// matches: Concat(Multiply(Slice(x, [h], [INT32_MAX], [1], [3]), −1), Slice(x, [0], [h], [1], [3]);
// axis −1). The exported slices name the last axis −1 and end at the dim or at INT64_MAX, which
// the fusion's constant values do not match. Each rewrite computes the same values: the slices
// keep their elements, and x·(−1) is −x exactly.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

class RotateHalfForRoPEFusion final : public OpTransformation {
public:
    std::string id() const override { return "RotateHalfForRoPEFusion"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"PartialInference"}; }
    std::vector<std::string> op_types() const override { return {"Concat"}; }
    bool apply(Node concat, const TransformContext& ctx) override;
};

}  // namespace mo
