// ONNX Runtime's attention contrib ops (domain com.microsoft), as opset sub-graphs (semantics:
// ONNX Runtime's docs/ContribOperators.md): Attention (BERT-style, one input projected to Q, K
// and V), MultiHeadAttention (Q, K and V given), RotaryEmbedding. Past / present state (the KV
// cache) and the less common mask formats are refused by name.
#include <cmath>
#include <optional>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

constexpr const char* kDomain = "com.microsoft";

// The static last dimension of `p`, or -1.
int64_t last_dim(const OutPort& p) {
    const PartialShape& s = p.shape();
    if (!s.rank_is_static() || s.rank() == 0 || !s[s.rank() - 1].is_static()) return -1;
    return s[s.rank() - 1].get_length();
}

// softmax(Q·Kᵀ · scale + masks) · V with q [B, S, N·H], k [B, L, N·H], v [B, L, N·Hv] split into
// `heads`; returns [B, S, N·Hv]. `padding`: a [B, L] 1 (keep) / 0 (mask) tensor, masked keys get
// mask_filter_value; `causal`: keys after the query's position get it too.
OutPort attend(ExtractContext& c, const OutPort& q_in, const OutPort& k_in, const OutPort& v_in, int64_t heads,
               int64_t head, const std::optional<OutPort>& padding, bool causal) {
    auto split_heads = [&](const std::string& name, const OutPort& t) {  // [B, S, N·H] -> [B, N, S, H]
        OutPort r = c.op("Reshape", name + "/heads", {t, c.i64s(name + "/heads/shape", {0, 0, heads, -1})}, {{"special_zero", true}});
        return c.op("Transpose", name, {r, c.i64s(name + "/order", {0, 2, 1, 3})});
    };
    OutPort q = split_heads("q", q_in), k = split_heads("k", k_in), v = split_heads("v", v_in);
    const double scale = c.f("scale", 0.0) != 0.0 ? c.f("scale", 0.0) : 1.0 / std::sqrt(static_cast<double>(head));
    OutPort scores = c.op("MatMul", "scores", {q, k}, {{"transpose_a", false}, {"transpose_b", true}});
    scores = c.op("Multiply", "scaled", {scores, c.scalar_like("scale", scale, scores)});
    const double filter = c.f("mask_filter_value", -10000.0);
    if (padding) {  // (1 - mask) * filter, as [B, 1, 1, L]
        OutPort mask = c.op("Convert", "mask_float", {*padding}, {{"destination_type", ElementType::f32}});
        OutPort masked = c.op("Subtract", "mask_inverted", {c.scalar_like("one", 1.0, mask), mask});
        OutPort additive = c.op("Multiply", "mask_additive", {masked, c.scalar_like("filter", filter, mask)});
        scores = c.op("Add", "masked", {scores, c.op("Unsqueeze", "mask_4d", {additive, c.i64s("mask_axes", {1, 2})})});
    }
    if (causal) {  // key position j > query position i gets the filter value
        OutPort range = c.op("Range", "positions", {c.i64("zero", 0), c.dim("length", scores, 3), c.i64("step", 1)},
                             {{"output_type", ElementType::i64}});
        OutPort rows = c.op("Unsqueeze", "query_positions", {range, c.i64s("column", {1})});
        OutPort future = c.op("Greater", "future", {range, rows});
        OutPort penalty = c.op("Select", "causal", {future, c.scalar_like("causal_filter", filter, scores), c.scalar_like("zero_f", 0.0, scores)},
                               {{"auto_broadcast", std::string("numpy")}});
        scores = c.op("Add", "causal_scores", {scores, penalty});
    }
    OutPort probs = c.op("Softmax", "probs", {scores}, {{"axis", int64_t{-1}}});
    OutPort ctx = c.op("MatMul", "context", {probs, v}, {{"transpose_a", false}, {"transpose_b", false}});
    OutPort merged = c.op("Transpose", "context_order", {ctx, c.i64s("context/order", {0, 2, 1, 3})});
    return c.op("Reshape", "", {merged, c.i64s("merge/shape", {0, 0, -1})}, {{"special_zero", true}});
}

std::optional<OutPort> padding_mask(ExtractContext& c, size_t input, const char* name) {
    if (!c.has_input(input)) return std::nullopt;
    if (ExtractContext::rank_of(c.input(input)) != 2) c.unsupported(std::string(name) + " other than a 2-D [batch, sequence] mask");
    return c.input(input);
}

// Attention(input, weights, bias?, mask_index?): QKV = input @ weights + bias, split in three.
void attention(ExtractContext& c) {
    const int64_t heads = c.i("num_heads");
    if (c.has("qkv_hidden_sizes")) c.unsupported("qkv_hidden_sizes (Q, K and V of different sizes)");
    if (c.i("do_rotary", 0) != 0) c.unsupported("do_rotary=1");
    for (size_t i = 4; i < c.input_count(); ++i)
        if (c.has_input(i)) c.unsupported("input " + std::to_string(i) + " (past state, attention_bias or past_sequence_length)");
    if (c.output_used(1)) c.unsupported("output present (past state)");
    const Tensor* weights = c.input_value(1);
    if (!weights || weights->shape().size() != 2 || weights->shape()[1] % 3 != 0 || (weights->shape()[1] / 3) % heads != 0)
        c.fail("weights must be a constant [input_hidden, 3 * hidden] with hidden a multiple of num_heads");
    const int64_t hidden = weights->shape()[1] / 3;
    OutPort qkv = c.op("MatMul", "qkv", {c.input(0), c.input(1)}, {{"transpose_a", false}, {"transpose_b", false}});
    if (c.has_input(2)) qkv = c.op("Add", "qkv_bias", {qkv, c.input(2)});
    Node parts = c.add("VariadicSplit", "qkv_split", {qkv, c.i64("qkv_split/axis", -1), c.i64s("qkv_split/lengths", {hidden, hidden, hidden})});
    parts.set_output_count(3);
    c.set_output(0, attend(c, parts.out(0), parts.out(1), parts.out(2), heads, hidden / heads,
                           padding_mask(c, 3, "mask_index"), c.i("unidirectional", 0) != 0));
}

// MultiHeadAttention(query, key, value, bias?, key_padding_mask?, ...): Q, K and V given as
// [batch, sequence, hidden]; bias is [hidden_q + hidden_k + hidden_v].
void multi_head_attention(ExtractContext& c) {
    const int64_t heads = c.i("num_heads");
    for (size_t i = 5; i < c.input_count(); ++i)
        if (c.has_input(i)) c.unsupported("input " + std::to_string(i) + " (attention_bias or past state)");
    if (c.output_used(1) || c.output_used(2)) c.unsupported("outputs present_key / present_value (past state)");
    if (!c.has_input(1) || !c.has_input(2)) c.unsupported("packed query / key / value (key or value absent)");
    OutPort q = c.input(0), k = c.input(1), v = c.input(2);
    for (const OutPort* p : {&q, &k, &v})
        if (ExtractContext::rank_of(*p) != 3) c.unsupported("query, key and value other than [batch, sequence, hidden]");
    const int64_t hq = last_dim(q), hk = last_dim(k), hv = last_dim(v);
    if (hq <= 0 || hk != hq || hv <= 0 || hq % heads != 0 || hv % heads != 0)
        c.fail("query, key and value need static hidden sizes (query's = key's), multiples of num_heads");
    if (c.has_input(3)) {
        Node bias = c.add("VariadicSplit", "bias_split", {c.input(3), c.i64("bias_split/axis", 0), c.i64s("bias_split/lengths", {hq, hk, hv})});
        bias.set_output_count(3);
        q = c.op("Add", "q_bias", {q, bias.out(0)});
        k = c.op("Add", "k_bias", {k, bias.out(1)});
        v = c.op("Add", "v_bias", {v, bias.out(2)});
    }
    c.set_output(0, attend(c, q, k, v, heads, hq / heads, padding_mask(c, 4, "key_padding_mask"),
                           c.i("unidirectional", 0) != 0));
}

// Rotary position embedding (GPT-NeoX style, halves): with c = cos_cache[position_ids] and
// s = sin_cache[position_ids], the head vector [x1, x2] becomes [x1·c − x2·s, x2·c + x1·s].
// Input [batch, heads, sequence, head] or [batch, sequence, heads·head] (with num_heads).
void rotary_embedding(ExtractContext& c) {
    if (c.i("interleaved", 0) != 0) c.unsupported("interleaved=1 (GPT-J style pairs)");
    if (c.i("is_packed_batching", 0) != 0) c.unsupported("is_packed_batching=1");
    const Tensor* cache = c.input_value(2);
    if (!cache || cache->shape().size() != 2) c.fail("cos_cache must be a constant [max_position, rotary_dim / 2]");
    const int64_t half = cache->shape()[1];
    const int64_t rotary_dim = c.i("rotary_embedding_dim", 0);
    OutPort x = c.input(0);
    const int64_t rank = ExtractContext::rank_of(x);
    if (rank != 3 && rank != 4) c.fail("needs an input of rank 3 or 4", "give the model's inputs static ranks");
    const PartialShape& shape = x.shape();
    const Dimension head = rank == 4 ? shape[3] : Dimension();
    if ((rotary_dim != 0 && rotary_dim != 2 * half) || (rank == 4 && head.is_static() && head.get_length() != 2 * half))
        c.unsupported("a rotary dimension smaller than the head (partial rotation)");
    OutPort positions = c.input(1);
    if (ExtractContext::rank_of(positions) != 2) c.unsupported("position_ids other than [batch, sequence] (offset form)");
    if (rank == 3) {
        const int64_t heads = c.i("num_heads", 0);
        if (heads <= 0) c.fail("a rank-3 input needs the num_heads attribute");
        x = c.op("Reshape", "heads", {x, c.i64s("heads/shape", {0, 0, heads, 2 * half})}, {{"special_zero", true}});
    }
    // [batch, sequence, half] -> broadcastable against x: heads before (rank 4) or after (rank 3) the sequence.
    const int64_t heads_axis = rank == 4 ? 1 : 2;
    auto table = [&](const std::string& name, const OutPort& cache_port) {
        OutPort rows = c.op("Gather", name, {cache_port, positions, c.i64(name + "/axis", 0)}, {{"batch_dims", int64_t{0}}});
        return c.op("Unsqueeze", name + "/heads", {rows, c.i64s(name + "/heads_axis", {heads_axis})});
    };
    OutPort cos = table("cos", c.input(2)), sin = table("sin", c.input(3));
    Node halves = c.add("VariadicSplit", "halves", {x, c.i64("halves/axis", -1), c.i64s("halves/lengths", {half, half})});
    halves.set_output_count(2);
    OutPort x1 = halves.out(0), x2 = halves.out(1);
    OutPort first = c.op("Subtract", "first", {c.op("Multiply", "x1_cos", {x1, cos}), c.op("Multiply", "x2_sin", {x2, sin})});
    OutPort second = c.op("Add", "second", {c.op("Multiply", "x2_cos", {x2, cos}), c.op("Multiply", "x1_sin", {x1, sin})});
    OutPort y = c.op("Concat", rank == 4 ? "" : "rotated", {first, second}, {{"axis", int64_t{-1}}});
    if (rank == 3) y = c.op("Reshape", "", {y, c.i64s("merge/shape", {0, 0, -1})}, {{"special_zero", true}});
    c.set_output(0, y);
}

}  // namespace

void register_onnx_microsoft_attention(ExtractorRegistry& r) {
    r.add({"onnx", kDomain, "Attention", 1, INT64_MAX, attention});
    r.add({"onnx", kDomain, "MultiHeadAttention", 1, INT64_MAX, multi_head_attention});
    r.add({"onnx", kDomain, "RotaryEmbedding", 1, INT64_MAX, rotary_embedding});
}

}  // namespace mo
