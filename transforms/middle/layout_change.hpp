// LayoutChange: NHWC sources (TFLite, TensorFlow) converted to the NCHW layout of OpenVINO's
// ops by propagation. The extractors put each NCHW-only op (convolution, pooling) between
// Transposes (NHWC->NCHW in front, NCHW->NHWC behind); this pass moves every Transpose forward
// through the ops a layout does not change, one row of a handler table per op kind:
//   transparent   Relu, Sigmoid, Convert, ... (the Transpose moves behind the op)
//   elementwise   Add, Multiply, ... (the other operand: a Transpose with the same order is
//                 dropped, a constant is permuted physically, anything else stops the move)
//   axis-carrying Concat, Softmax (the axis attribute), Pad (the pads), Reduce* (the axes; the
//                 Transpose behind a reduction without keep_dims is only what the order needs),
//                 Interpolate (the axes)
//   shape         ShapeOf reads the untransposed tensor; a Gather puts its dims back in the
//                 source order, so shape-computing sub-graphs stay right
// and merges consecutive Transposes (NCHW->NHWC then NHWC->NCHW cancel) and Transposes of one
// tensor by one order (two convolutions reading the same input). A Transpose left that moves only
// axes of extent 1 (a [1, C, 1, 1] head read back as [1, 1, 1, C]) becomes a Reshape. An op without a row
// (Reshape to another rank, Squeeze, Gather, ...) and the model's outputs stop the move: a
// Transpose stays in front of it. The IR keeps the source layout at its boundary: a model
// input feeds a Transpose to NCHW and an output is read after a Transpose back, as the Model
// Optimizer does since 2022.1.
//
// Runs first in the middle phase (after partial inference: constants are known; before
// MiddleStart), so that the fusions see NCHW convolutions next to their pads and scales; off with --disable_nhwc_to_nchw
// (the Transposes around each op stay, and the IR is just as correct).
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

class LayoutChange final : public Transformation {
public:
    std::string id() const override { return "LayoutChange"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"PartialInference"}; }
    std::vector<std::string> run_before() const override { return {anchors::MiddleStart}; }
    bool condition(const Graph& graph, const TransformContext& ctx) const override {
        return graph.source_layout == "NHWC" && !ctx.options.disable_nhwc_to_nchw;
    }
    bool force_clean_up() const override { return true; }
    bool wants_bodies() const override { return false; }
    bool run(Graph& graph, const TransformContext& ctx) override;
};

}  // namespace mo
