// Shape inference and constant folding of one node, and of a whole graph at once (bodies of
// sub-graph ops are inferred this way by their owner's inference).
#pragma once

#include <cstdint>

#include "core/graph.hpp"
#include "core/tool_api.hpp"

namespace mo {

// Outputs above this many elements are folded only when every input is a Constant.
inline constexpr int64_t kMaxFoldedElements = 10'000'000;
// A Loop or TensorIterator is folded only when it runs at most this many iterations, nested
// loops' iterations included (core/eval_budget.hpp).
inline constexpr int64_t kMaxFoldedIterations = 1024;
// The most multiply-adds (or window taps, IoU tests, ...) folding one node may take.
inline constexpr int64_t kMaxFoldedOperations = int64_t{1} << 30;


// Throws mo::Error when `node` has fewer inputs than its op needs, or a required one is not
// connected: op.infer and op.eval may then assume the required inputs are there.
MO_TOOL_API void check_required_inputs(const Node& node);

// Checks that an evaluation of `n` returned what its inference promised: one tensor per output,
// of the inferred element type and of a shape that fits the inferred one. A plugin op's failure
// is the plugin's error (mo::Error naming it); a built-in's is an internal error.
MO_TOOL_API void check_eval_outputs(const Node& n, const std::vector<Tensor>& outputs);

// out(j).{type, shape} := op.infer(inputs); out(j).value := op.eval(input values) when every
// connected input has a known value (never for Parameters, nor for decompression Converts, nor
// for a Loop / TensorIterator of more than kMaxFoldedIterations or unknown iterations, nor for
// an output above the graph's max_constant_bytes, nor when the eval needs more work than an EvalBudget of
// kMaxFoldedOperations and kMaxFoldedIterations allows).
// An eval that throws mo::Error leaves the node unfolded. Returns whether an output changed.
MO_TOOL_API bool infer_node(Node node);

// infer_node on every node in topological order.
MO_TOOL_API void infer_graph(Graph& graph);

}  // namespace mo
