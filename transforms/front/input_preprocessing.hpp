// InputPreprocessing: the Model Optimizer's input options embedded in the IR, for every
// framework, before anything else runs:
//   --input name->[values]      the input is frozen: a Constant of its type and shape (the given
//                               shape, else the input's; a single value fills it), folded later
//   --batch N                   dimension 0 of every input left becomes N
//   --static_shape              every input must then have a static shape (so partial inference
//                               folds every shape computation into a constant)
//   --layout nhwc->nchw, --source_layout, --target_layout
//                               the input takes the target layout; a Transpose behind it gives
//                               the model the source layout (by default the framework's: NHWC
//                               for TFLite / TensorFlow 4-D inputs, NCHW otherwise), which the
//                               layout change then cancels against the model's own
//   --reverse_input_channels    3-channel inputs get their channels reversed (RGB <-> BGR) first
//   --mean_values, --scale_values
//                               then (x - mean) / scale per channel
// The channel axis is the source layout's 'c': the last axis of NHWC sources (TFLite,
// TensorFlow), axis 1 of the others. The converted model takes the raw input; its name and
// tensor names stay on the Parameter.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

class InputPreprocessing final : public Transformation {
public:
    std::string id() const override { return "InputPreprocessing"; }
    Phase phase() const override { return Phase::Front; }
    std::vector<std::string> run_after() const override { return {anchors::FrontStart}; }
    std::vector<std::string> run_before() const override { return {"OutputCut"}; }
    bool force_clean_up() const override { return true; }
    bool wants_bodies() const override { return false; }
    bool run(Graph& graph, const TransformContext& ctx) override;
};

}  // namespace mo
