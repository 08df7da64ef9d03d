// Shape inference and constant folding of one node, and of a whole graph at once (bodies of
// sub-graph ops are inferred this way by their owner's inference).
#pragma once

#include <cstdint>

#include "core/api.hpp"
#include "core/graph.hpp"

namespace mo {

// Outputs above this many elements are folded only when every input is a Constant.
inline constexpr int64_t kMaxFoldedElements = 10'000'000;
// A Loop or TensorIterator is folded only when it runs at most this many iterations, nested
// loops' iterations included (core/eval_budget.hpp).
inline constexpr int64_t kMaxFoldedIterations = 1024;
// The most multiply-adds (or window taps, IoU tests, ...) folding one node may take.
inline constexpr int64_t kMaxFoldedOperations = int64_t{1} << 30;

// The largest tensor constant folding creates, in bytes (default 2 GiB): a node whose output
// would be larger stays in the graph unfolded. `mo --max_constant_size` sets it for a conversion.
inline constexpr int64_t kDefaultMaxFoldedBytes = int64_t{2} << 30;
MO_API void set_max_folded_bytes(int64_t bytes);
MO_API int64_t max_folded_bytes();
// Whether `elements` of `type` fit in max_folded_bytes() (a sub-byte element counts as a byte).
// Also the limit on constants the loaders expand beyond their stored bytes.
MO_API bool fits_max_folded_bytes(ElementType type, int64_t elements);

// Throws mo::Error when `node` has fewer inputs than its op needs, or a required one is not
// connected: op.infer and op.eval may then assume the required inputs are there.
MO_API void check_required_inputs(const Node& node);

// out(j).{type, shape} := op.infer(inputs); out(j).value := op.eval(input values) when every
// connected input has a known value (never for Parameters, nor for decompression Converts, nor
// for a Loop / TensorIterator of more than kMaxFoldedIterations or unknown iterations, nor for
// an output above max_folded_bytes(), nor when the eval needs more work than an EvalBudget of
// kMaxFoldedOperations and kMaxFoldedIterations allows).
// An eval that throws mo::Error leaves the node unfolded. Returns whether an output changed.
MO_API bool infer_node(Node node);

// infer_node on every node in topological order.
MO_API void infer_graph(Graph& graph);

}  // namespace mo
