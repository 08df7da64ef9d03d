// In a stateful model, an If branch that returns a present as an empty constant returns its past
// input instead: If(..., past, ...){branch: Result(Constant[0, ...])} -> {branch: Result(past)}.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// optimum's merge_decoders (strict=False, the seq2seq decoders: Whisper, BART, T5, ...) gives the
// with-past branch an empty Constant for each present the decoder with past does not compute, the
// cross-attention cache, and callers keep the previous value when they receive it empty. As one
// variable of --transform MakeStateful (past_key_values.N.encoder.key -> present.N.encoder.key)
// that empty tensor would overwrite the cache; keeping the past is what the callers do. Runs only
// with MakeStateful, on the pairs it will make (param_res_names, or past / past_key_values<s> ->
// present<s>): a present that is output k of a top-level If whose branch gives a Constant with a
// zero dimension there, while the matching past input is a model input.
class KeepPastForEmptyPresents final : public Transformation {
public:
    std::string id() const override { return "KeepPastForEmptyPresents"; }
    Phase phase() const override { return Phase::Back; }
    std::vector<std::string> run_after() const override { return {"RemoveDeadNodes"}; }
    std::vector<std::string> run_before() const override { return {"MakeStateful"}; }
    bool wants_bodies() const override { return false; }
    bool condition(const Graph&, const TransformContext& ctx) const override { return ctx.options.make_stateful; }
    bool run(Graph& graph, const TransformContext& ctx) override;
};

}  // namespace mo
