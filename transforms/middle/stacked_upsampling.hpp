// Replaces Reshape(Concat_2(k2 x Unsqueeze(Concat_1(k1 x Unsqueeze(x, 3)), 2)), [N, H·k2, W·k1, C])
// with Interpolate(x, nearest, sizes [H·k2, W·k1] on axes 1, 2): the nearest-neighbour
// upsampling the TF Object Detection API writes for its FPNs (ops.nearest_neighbor_upsampling:
// tf.stack of w_scale copies on axis 3, of h_scale copies on axis 2, then tf.reshape), which
// repeats each pixel k2 times down and k1 times across. As an Interpolate the NHWC layout change
// moves through it (a Reshape stops it: 6 Transposes in handtrack's FPN).
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Needs x [N, H, W, C] with H, W, C static (N may be dynamic when the target keeps it as -1),
// every copy of one tensor, and each intermediate used only
// by the chain. The Interpolate takes the Reshape's name and output tensor names.
class StackedCopiesToInterpolate final : public OpTransformation {
public:
    std::string id() const override { return "StackedCopiesToInterpolate"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"PartialInference"}; }
    std::vector<std::string> run_before() const override { return {"LayoutChange", anchors::MiddleStart}; }
    bool force_clean_up() const override { return true; }
    std::vector<std::string> op_types() const override { return {"Reshape"}; }
    bool apply(Node node, const TransformContext& ctx) override;
};

}  // namespace mo
