// The sub-graphs OpenVINO's own LLM transformations look for, written as mo Patterns from their
// sources (openvinotoolkit/openvino master, 2026): the tests count how many places of an IR mo
// wrote each one matches. Each pattern here is one of the alternatives the OpenVINO pattern
// accepts (its Or / optional branches enumerated), so a match here is a match there; branches
// mo never writes (StridedSlice slicing, merged-KV VariadicSplit, alibi masks) are left out.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/graph.hpp"

namespace mo::test {

// RMSFusion (common_optimizations/rms_fusion.cpp): x · 1/Sqrt(ReduceMean(x², last axis) + eps) ·
// gamma, the square as Power(x, 2) or x·x, the inverse as Divide(1, ·), Power(·, −1),
// Power(mean + eps, −0.5) or x / Sqrt(·), constants possibly behind a Convert (f16 compression).
size_t rms_fusion_matches(const Graph& ir);

// RoPEFusionGPTNEOX (common_optimizations/fuse_rotary_positional_embeddings.cpp) for a rotary
// width of 2·half: x·cos + Concat(x2 · −1, x1; axis −1)·sin with x rank 4 and x1, x2 the halves
// of x's axis 3, as Slice(x, 0, half, 1, 3) and Slice(x, half, INT32_MAX, 1, 3) or the two
// outputs of VariadicSplit(x, 3, [half, ?]).
size_t rope_gptneox_matches(const Graph& ir, int64_t half);

// SDPAToPagedAttention's StateManagementPattern (sdpa_to_paged_attention/
// state_management_pattern.cpp) on a stateful IR: a ScaledDotProductAttention whose key and value
// are each Concat(Gather(ReadValue, ·, ·), new), used directly, through Reshape, or through
// Unsqueeze -> Broadcast [-> Reshape] (grouped heads; the number of KV heads is the static dim
// before the Unsqueeze axis), with static head sizes and a scale of shape [] or [1].
size_t paged_attention_matches(const Graph& ir);

}  // namespace mo::test
