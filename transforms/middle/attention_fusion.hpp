// Replaces softmax(Q·Kᵀ·scale + mask)·V with ScaledDotProductAttention-13(Q, K, V, mask, scale),
// the op OpenVINO GenAI's continuous-batching pipeline rewrites into PagedAttention.
//
// The decomposed forms matched (every intermediate used only inside the pattern; the Softmax
// over the last axis; Q, K, V of one float type and rank 3 or more):
//   scores = MatMul(Q, K; transpose_b) or MatMul(Q, Transpose(k, order)) — the order swapping
//            the last two axes (K = k), or also moving others (K = Transpose(k, order with its
//            last two entries swapped): PyTorch 1.13's nn.MultiheadAttention transposes its
//            sequence-first keys with [1, 2, 0]) — Q and the transposed K each optionally times a
//            constant scalar first (PyTorch's exported scaled_dot_product_attention splits
//            √scale between them);
//   scaled = scores · c, c · scores, scores / c (scale = c or 1/c), or scores itself (scale 1);
//   masked = scaled + mask (either order; the mask of rank 0 or 2 up to the scores' rank, as
//            exporters trace their additive causal / padding masks), Select(visible, scaled,
//            fill) with fill −inf, or the f32 / f64 lowest value (as mo's GroupQueryAttention
//            decomposition writes it; the mask becomes the additive Select(visible, 0, fill),
//            equal for every finite score below 2^103 in magnitude, where score + lowest rounds
//            to lowest), or scaled itself (mask: the scalar 0).
// A K or V that is Gather(x, [0,..,0, 1,..,1, ...], axis 1) — each of x's kv heads repeated
// heads/kv times, as the GroupQueryAttention decomposition reads grouped heads — becomes
// Reshape(Broadcast(Unsqueeze(x, 2), [1, 1, heads/kv, 1, 1]), [0, heads, -1, head_size]), the
// form of optimum-intel's IRs (repeat_kv) that OpenVINO's SDPAToPagedAttention reads the number
// of KV heads from. Any other mask (an f16 lowest fill, a fill like −10000) keeps the
// decomposition. MO_DISABLED_TRANSFORMS=ScaledDotProductAttentionFusion keeps it everywhere.
#pragma once

#include "transforms/middle/activation_fusions.hpp"

namespace mo {

class ScaledDotProductAttentionFusion final : public ActivationFusion {
public:
    std::string id() const override { return "ScaledDotProductAttentionFusion"; }
    // Softmax must be one op first.
    std::vector<std::string> run_after() const override { return {"SoftmaxFusion"}; }
    std::vector<Pattern> patterns() const override;
    bool apply(const PatternMatch& m, const TransformContext& ctx) override;
};

}  // namespace mo
