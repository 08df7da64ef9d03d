// --transform MakeStateful: a model that takes its state as inputs and returns it as outputs
// (an LLM's past_key_values.N.key -> present.N.key) becomes a stateful model in the form
// optimum-intel's stateful patch writes and OpenVINO GenAI's pipelines load (optimum/exporters/
// openvino/stateful.py: fuse_cache_reorder, then OpenVINO's MakeStateful, then
// build_state_initializer): each paired Parameter becomes a ReadValue-6 read through
// Gather(ReadValue, beam_idx, axis 0), each paired Result an Assign-6 of the same variable (a sink
// of the graph), and the model gets the input beam_idx (i32 [batch]) that picks, per batch entry,
// the entry of the previous call whose state it continues (beam search; 0..batch-1 keeps it).
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Pairs: ConversionOptions::stateful_pairs (param_res_names, by tensor or node name), or when
// none are given every Parameter named past<suffix> or past_key_values<suffix> with the Result
// named present<suffix>. The variable id is the Parameter's name followed by the Result's (as
// OpenVINO's MakeStateful names it); its type and shape are the Parameter's. The initial value
// is an empty state: zeros with the batch dimension (dim 0, when dynamic) taken from the batch
// input — input_ids, else inputs_embeds, else another model input whose first dimension is
// dynamic — and every other dynamic dimension 0. beam_idx's dim is that input's dim 0. An error
// names any pair that is not a Parameter and a Result, whose types or ranks differ, or that is a
// scalar, two pairs sharing an input or an output, a model that already has an input beam_idx,
// and a model without any pair.
class MakeStateful final : public Transformation {
public:
    std::string id() const override { return "MakeStateful"; }
    Phase phase() const override { return Phase::Back; }
    // After the folding and clean-up: the Parameters it removes must not be folded into anything.
    std::vector<std::string> run_after() const override { return {"RemoveDeadNodes"}; }
    std::vector<std::string> run_before() const override { return {"CompressFloatConstantsToF16"}; }
    bool wants_bodies() const override { return false; }
    bool condition(const Graph&, const TransformContext& ctx) const override { return ctx.options.make_stateful; }
    bool run(Graph& graph, const TransformContext& ctx) override;
};

}  // namespace mo
