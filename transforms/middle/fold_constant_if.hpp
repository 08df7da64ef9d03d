// If(c, x...) with a known c -> the taken branch's nodes inlined.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// The If's outputs are the inlined branch's values (they take the If's tensor names).
class FoldConstantIf final : public OpTransformation {
public:
    std::string id() const override { return "FoldConstantIf"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"ConstantsIntoBodies"}; }
    bool force_clean_up() const override { return true; }
    std::vector<std::string> op_types() const override { return {"If"}; }
    bool matches(Node node) const override;
    bool apply(Node node, const TransformContext& ctx) override;
};

// Moves the consumers and tensor names of `from` to `to` (an inlined body's value replaces the
// op's output; UnrollLoop's too).
void take_over(const OutPort& from, const OutPort& to);

}  // namespace mo
