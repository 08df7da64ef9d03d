// Greedy decoding of a stateful LLM IR (mo --transform MakeStateful): the engine of
// `mo-run --generate N`. It feeds the model the way OpenVINO GenAI's stateful LLMPipeline does
// (src/cpp/src/lm_encoding.cpp): the prompt's input_ids first, then one new token a call, with
// attention_mask all ones over every token so far, position_ids (when the model has that input)
// the positions of the new tokens, and beam_idx (when it has that input) 0..batch-1, so that
// each batch entry continues its own state. The next token of an entry is the first index of
// the largest logit at its last position.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/evaluator.hpp"
#include "core/graph.hpp"
#include "core/tool_api.hpp"

namespace mo {

struct GenerateResult {
    std::vector<std::vector<int64_t>> tokens;  // per batch entry, the new tokens in order
    std::vector<double> call_seconds;          // per call: the prompt's, then one per later token
};

// `prompt`: integer input_ids [batch, length]. `state` holds the variables between calls (empty:
// the model's initial values; a state read back from files continues a conversation, the
// number of tokens already in it read from the variables' sequence axis — the first dynamic
// axis of a variable's shape after dim 0). Throws mo::Error when the model is not stateful, has
// no input_ids or an input other than input_ids, attention_mask, position_ids and beam_idx, or
// its first output (or the one named logits) is not [batch, length, vocabulary].
MO_TOOL_API GenerateResult generate_greedy(const Graph& ir, const Tensor& prompt, int64_t new_tokens, VariableState& state);

// What `mo-run --generate` asks for: the prompt from a .npy file, and with a state folder the
// variables read from it first and written back to it at the end (runner.hpp, read_state_dir).
struct GenerateOptions {
    std::string prompt_file;
    int64_t new_tokens = 0;
    std::string state_dir;
};
MO_TOOL_API GenerateResult run_generate(const Graph& ir, const GenerateOptions& options);

}  // namespace mo
