// Loop with a small known trip count -> its body copied once per iteration.
#pragma once

#include <cstdint>

#include "transforms/transformation.hpp"

namespace mo {

// Unrolls a Loop whose iteration count is known (constant trip count and execution condition,
// a body condition that is constantly true, no sliced inputs) when the copies stay small: at
// most kMaxIterations iterations and kMaxNodes body nodes in all. Back edges become direct
// connections, the iteration number a constant, concatenated outputs a Concat.
class UnrollLoop final : public OpTransformation {
public:
    static constexpr int64_t kMaxIterations = 16;
    static constexpr int64_t kMaxNodes = 1024;

    std::string id() const override { return "UnrollLoop"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"FoldConstantIf", "ConstantsIntoBodies"}; }
    bool force_clean_up() const override { return true; }
    std::vector<std::string> op_types() const override { return {"Loop"}; }
    bool matches(Node node) const override;
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
