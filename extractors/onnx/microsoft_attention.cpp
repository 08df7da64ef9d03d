// ONNX Runtime's attention contrib ops (domain com.microsoft), as opset sub-graphs (semantics:
// ONNX Runtime's docs/ContribOperators.md): Attention (BERT-style, one input projected to Q, K
// and V; with GPT-2's past state), MultiHeadAttention (Q, K and V given), RotaryEmbedding, and
// GroupQueryAttention (the decoder attention of ONNX Runtime GenAI's LLMs, with its KV cache).
// MultiHeadAttention's past state and the less common mask formats are refused by name.
#include <cmath>
#include <limits>
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

// [B, S, N·H] -> [B, N, S, H]
OutPort split_heads(ExtractContext& c, const std::string& name, const OutPort& t, int64_t heads) {
    OutPort r = c.op("Reshape", name + "/heads", {t, c.i64s(name + "/heads/shape", {0, 0, heads, -1})},
                     {{"special_zero", true}});
    return c.op("Transpose", name, {r, c.i64s(name + "/order", {0, 2, 1, 3})});
}

// Q·Kᵀ · scale for q [B, N, S, H], k [B, N, L, H]: the `scale` attribute, or 1/√head. `like`
// gives the scale's type (a port typed already: the ones an extractor builds are not yet).
OutPort scaled_scores(ExtractContext& c, const OutPort& q, const OutPort& k, int64_t head, const OutPort& like) {
    const double scale = c.f("scale", 0.0) != 0.0 ? c.f("scale", 0.0) : 1.0 / std::sqrt(static_cast<double>(head));
    OutPort scores = c.op("MatMul", "scores", {q, k}, {{"transpose_a", false}, {"transpose_b", true}});
    return c.op("Multiply", "scaled", {scores, c.scalar_like("scale", scale, like)});
}

// The most negative finite value of a float type: what masked scores become.
double lowest_of(ElementType t) {
    return t == ElementType::f16 ? -65504.0 : static_cast<double>(std::numeric_limits<float>::lowest());
}

// softmax(scores) · v, heads merged back: [B, N, S, L] x [B, N, L, Hv] -> [B, S, N·Hv], the last
// node named `result` ("" = the framework node's name).
OutPort weighted_values(ExtractContext& c, const OutPort& scores, const OutPort& v, const std::string& result = "") {
    OutPort probs = c.op("Softmax", "probs", {scores}, {{"axis", int64_t{-1}}});
    OutPort ctx = c.op("MatMul", "context", {probs, v}, {{"transpose_a", false}, {"transpose_b", false}});
    OutPort merged = c.op("Transpose", "context_order", {ctx, c.i64s("context/order", {0, 2, 1, 3})});
    return c.op("Reshape", result, {merged, c.i64s("merge/shape", {0, 0, -1})}, {{"special_zero", true}});
}

bool is_low_float(ElementType t) { return t == ElementType::f16 || t == ElementType::bf16; }

// `p` as f32 when `low` (the op's f16 / bf16 values are computed in f32), else itself.
OutPort widened(ExtractContext& c, const std::string& name, const OutPort& p, bool low) {
    return low ? c.op("Convert", name, {p}, {{"destination_type", ElementType::f32}}) : p;
}

// Attention's past state [2, B, N, P, H] (keys, then values) goes before the new keys and values;
// present is the same stack of the concatenations, [2, B, N, P + S, H].
struct PastState {
    std::optional<OutPort> past;
    std::optional<OutPort> present;  // set by attend() when `past` is
};

// softmax(Q·Kᵀ · scale + masks) · V with q [B, S, N·H], k [B, L, N·H], v [B, L, N·Hv] split into
// `heads`; returns [B, S, N·Hv]. `padding`: a [B, L'] 1 (keep) / 0 (mask) tensor over all keys
// (past included), masked keys get mask_filter_value; `causal`: keys after the query's position
// get it too, the S queries being the last S positions of the L' keys.
OutPort attend(ExtractContext& c, const OutPort& q_in, const OutPort& k_in, const OutPort& v_in, int64_t heads,
               int64_t head, const std::optional<OutPort>& padding, bool causal, PastState* state = nullptr) {
    OutPort q = split_heads(c, "q", q_in, heads), k = split_heads(c, "k", k_in, heads),
            v = split_heads(c, "v", v_in, heads);
    if (state && state->past) {
        auto half = [&](const std::string& name, int64_t index) {
            return c.op("Gather", name, {*state->past, c.i64(name + "/index", index), c.i64(name + "/axis", 0)},
                        {{"batch_dims", int64_t{0}}});
        };
        k = c.op("Concat", "k_all", {half("past_k", 0), k}, {{"axis", int64_t{2}}});
        v = c.op("Concat", "v_all", {half("past_v", 1), v}, {{"axis", int64_t{2}}});
        state->present = c.op("Concat", "present",
                              {c.op("Unsqueeze", "present_k", {k, c.i64s("present_k/axis", {0})}),
                               c.op("Unsqueeze", "present_v", {v, c.i64s("present_v/axis", {0})})},
                              {{"axis", int64_t{0}}});
    }
    OutPort scores = scaled_scores(c, q, k, head, q_in);
    const double filter = c.f("mask_filter_value", -10000.0);
    if (padding) {  // (1 - mask) * filter, as [B, 1, 1, L]
        OutPort mask = c.op("Convert", "mask_float", {*padding}, {{"destination_type", ElementType::f32}});
        OutPort masked = c.op("Subtract", "mask_inverted", {c.scalar_like("one", 1.0, mask), mask});
        OutPort additive = c.op("Multiply", "mask_additive", {masked, c.scalar_like("filter", filter, mask)});
        scores = c.op("Add", "masked", {scores, c.op("Unsqueeze", "mask_4d", {additive, c.i64s("mask_axes", {1, 2})})});
    }
    if (causal) {  // key position j > query position i (the last S of L) gets the filter value
        OutPort length = c.dim("length", scores, 3);
        OutPort range = c.op("Range", "positions", {c.i64("zero", 0), length, c.i64("step", 1)},
                             {{"output_type", ElementType::i64}});
        OutPort first_query = c.op("Subtract", "first_query", {length, c.dim("queries", scores, 2)});
        OutPort queries = c.op("Range", "query_range", {first_query, length, c.i64("query_step", 1)},
                               {{"output_type", ElementType::i64}});
        OutPort rows = c.op("Unsqueeze", "query_positions", {queries, c.i64s("column", {1})});
        OutPort future = c.op("Greater", "future", {range, rows});
        OutPort penalty =
            c.op("Select", "causal",
                 {future, c.scalar_like("causal_filter", filter, scores), c.scalar_like("zero_f", 0.0, scores)},
                 {{"auto_broadcast", std::string("numpy")}});
        scores = c.op("Add", "causal_scores", {scores, penalty});
    }
    return weighted_values(c, scores, v);
}

// The num_heads attribute of Attention and MultiHeadAttention, which divides the hidden size.
int64_t num_heads(ExtractContext& c) {
    const int64_t heads = c.i("num_heads");
    if (heads <= 0) c.fail("num_heads must be positive, not " + std::to_string(heads));
    return heads;
}

std::optional<OutPort> padding_mask(ExtractContext& c, size_t input, const char* name) {
    if (!c.has_input(input)) return std::nullopt;
    if (ExtractContext::rank_of(c.input(input)) != 2)
        c.unsupported(std::string(name) + " other than a 2-D [batch, sequence] mask");
    return c.input(input);
}

// Attention(input, weights, bias?, mask_index?, past?): QKV = input @ weights + bias, split in
// three; with past (GPT-2 as ONNX Runtime's optimizer writes it), present = past ++ new keys and
// values.
void attention(ExtractContext& c) {
    const int64_t heads = num_heads(c);
    if (c.has("qkv_hidden_sizes")) c.unsupported("qkv_hidden_sizes (Q, K and V of different sizes)");
    if (c.i("do_rotary", 0) != 0) c.unsupported("do_rotary=1");
    for (size_t i = 5; i < c.input_count(); ++i)
        if (c.has_input(i)) c.unsupported("input " + std::to_string(i) + " (attention_bias or past_sequence_length)");
    if (c.i("past_present_share_buffer", 0) != 0) c.unsupported("past_present_share_buffer=1");
    if (c.has_input(4) && ExtractContext::rank_of(c.input(4)) != 5)
        c.fail("past must be [2, batch, heads, past_sequence, head]");
    const Tensor* weights = c.input_value(1);
    if (!weights || weights->shape().size() != 2 || weights->shape()[1] % 3 != 0 ||
        (weights->shape()[1] / 3) % heads != 0)
        c.fail("weights must be a constant [input_hidden, 3 * hidden] with hidden a multiple of num_heads");
    const int64_t hidden = weights->shape()[1] / 3;
    OutPort qkv = c.op("MatMul", "qkv", {c.input(0), c.input(1)}, {{"transpose_a", false}, {"transpose_b", false}});
    if (c.has_input(2)) qkv = c.op("Add", "qkv_bias", {qkv, c.input(2)});
    Node parts = c.add("VariadicSplit", "qkv_split",
                       {qkv, c.i64("qkv_split/axis", -1), c.i64s("qkv_split/lengths", {hidden, hidden, hidden})});
    parts.set_output_count(3);
    PastState state;
    if (c.has_input(4)) state.past = c.input(4);
    c.set_output(0, attend(c, parts.out(0), parts.out(1), parts.out(2), heads, hidden / heads,
                           padding_mask(c, 3, "mask_index"), c.i("unidirectional", 0) != 0, &state));
    if (c.output_used(1)) {
        if (!state.present) c.unsupported("output present without a past input");
        c.set_output(1, *state.present);
    }
}

// MultiHeadAttention(query, key, value, bias?, key_padding_mask?, ...): Q, K and V given as
// [batch, sequence, hidden]; bias is [hidden_q + hidden_k + hidden_v].
void multi_head_attention(ExtractContext& c) {
    const int64_t heads = num_heads(c);
    for (size_t i = 5; i < c.input_count(); ++i)
        if (c.has_input(i)) c.unsupported("input " + std::to_string(i) + " (attention_bias or past state)");
    if (c.output_used(1) || c.output_used(2)) c.unsupported("outputs present_key / present_value (past state)");
    if (!c.has_input(1) || !c.has_input(2)) c.unsupported("packed query / key / value (key or value absent)");
    OutPort q = c.input(0), k = c.input(1), v = c.input(2);
    for (const OutPort* p : {&q, &k, &v})
        if (ExtractContext::rank_of(*p) != 3)
            c.unsupported("query, key and value other than [batch, sequence, hidden]");
    const int64_t hq = last_dim(q), hk = last_dim(k), hv = last_dim(v);
    if (hq <= 0 || hk != hq || hv <= 0 || hq % heads != 0 || hv % heads != 0)
        c.fail("query, key and value need static hidden sizes (query's = key's), multiples of num_heads");
    if (c.has_input(3)) {
        Node bias = c.add("VariadicSplit", "bias_split",
                          {c.input(3), c.i64("bias_split/axis", 0), c.i64s("bias_split/lengths", {hq, hk, hv})});
        bias.set_output_count(3);
        q = c.op("Add", "q_bias", {q, bias.out(0)});
        k = c.op("Add", "k_bias", {k, bias.out(1)});
        v = c.op("Add", "v_bias", {v, bias.out(2)});
    }
    c.set_output(0, attend(c, q, k, v, heads, hq / heads, padding_mask(c, 4, "key_padding_mask"),
                           c.i("unidirectional", 0) != 0));
}

// The rotation of rotary position embedding on x [..., head] by cos / sin [..., half] (broadcast
// against x's leading axes): the first 2·half values of each head rotate, the rest pass. Halves
// (GPT-NeoX): pairs (x[k], x[k + half]); interleaved (GPT-J): pairs (x[2k], x[2k + 1]). Each pair
// (a, b) becomes (a·cos − b·sin, b·cos + a·sin). `x` must have rank 4. The helper nodes are named
// `name`/..., the result `result` ("" = the framework node's own name). Halves are written as
// x·[cos, cos] + [−b, a]·[sin, sin] with the split on axis 3 and −b as b·(−1), the form OpenVINO's
// RoPEFusion (RoPEFusionGPTNEOX, RoPEFusionIOSlicing) matches; term by term the same arithmetic.
OutPort rotate(ExtractContext& c, const std::string& name, const std::string& result, const OutPort& x,
               const OutPort& cos, const OutPort& sin, int64_t half, int64_t head, bool interleaved) {
    OutPort rotated = x, passed;
    const bool partial = head > 2 * half;
    if (partial) {
        Node parts = c.add("VariadicSplit", name + "/rotary_part",
                           {x, c.i64(name + "/rotary_part/axis", 3),
                            c.i64s(name + "/rotary_part/lengths", {2 * half, head - 2 * half})});
        parts.set_output_count(2);
        rotated = parts.out(0);
        passed = parts.out(1);
    }
    OutPort y;
    if (interleaved) {  // [..., 2·half] -> [..., half, 2]: a = [..., 0], b = [..., 1]
        OutPort pairs = c.op("Reshape", name + "/pairs", {rotated, c.i64s(name + "/pairs/shape", {0, 0, 0, half, 2})},
                             {{"special_zero", true}});
        Node split = c.add("Split", name + "/pair_split", {pairs, c.i64(name + "/pair_split/axis", -1)},
                           {{"num_splits", int64_t{2}}});
        split.set_output_count(2);
        OutPort a = c.op("Squeeze", name + "/a", {split.out(0), c.i64s(name + "/a/axis", {-1})});
        OutPort b = c.op("Squeeze", name + "/b", {split.out(1), c.i64s(name + "/b/axis", {-1})});
        OutPort first = c.op("Subtract", name + "/first",
                             {c.op("Multiply", name + "/a_cos", {a, cos}), c.op("Multiply", name + "/b_sin", {b, sin})});
        OutPort second = c.op("Add", name + "/second",
                              {c.op("Multiply", name + "/b_cos", {b, cos}), c.op("Multiply", name + "/a_sin", {a, sin})});
        OutPort first5 = c.op("Unsqueeze", name + "/first_pair", {first, c.i64s(name + "/first_pair/axis", {-1})});
        OutPort second5 = c.op("Unsqueeze", name + "/second_pair", {second, c.i64s(name + "/second_pair/axis", {-1})});
        OutPort rotated_pairs = c.op("Concat", name + "/rotated_pairs", {first5, second5}, {{"axis", int64_t{-1}}});
        y = c.op("Reshape", partial ? name + "/rotated" : result,
                 {rotated_pairs, c.i64s(name + "/rotated/shape", {0, 0, 0, -1})}, {{"special_zero", true}});
    } else {  // halves: a = [..., :half], b = [..., half:]
        Node halves =
            c.add("VariadicSplit", name + "/halves",
                  {rotated, c.i64(name + "/halves/axis", 3), c.i64s(name + "/halves/lengths", {half, half})});
        halves.set_output_count(2);
        OutPort minus_b =
            c.op("Multiply", name + "/minus_b", {halves.out(1), c.scalar_like(name + "/minus_one", -1.0, x)});
        OutPort rotated_half = c.op("Concat", name + "/rotate_half", {minus_b, halves.out(0)}, {{"axis", int64_t{-1}}});
        OutPort cos2 = c.op("Concat", name + "/cos", {cos, cos}, {{"axis", int64_t{-1}}});
        OutPort sin2 = c.op("Concat", name + "/sin", {sin, sin}, {{"axis", int64_t{-1}}});
        y = c.op("Add", partial ? name + "/rotated" : result,
                 {c.op("Multiply", name + "/x_cos", {rotated, cos2}),
                  c.op("Multiply", name + "/rotate_half_sin", {rotated_half, sin2})});
    }
    return partial ? c.op("Concat", result, {y, passed}, {{"axis", int64_t{-1}}}) : y;
}

// rotate() of f16 / bf16 values computed in f32 and rounded once, as ONNX Runtime's kernels do.
OutPort rotate_once(ExtractContext& c, const std::string& name, const std::string& result, const OutPort& x,
                    const OutPort& cos, const OutPort& sin, int64_t half, int64_t head, bool interleaved, ElementType type) {
    if (!is_low_float(type)) return rotate(c, name, result, x, cos, sin, half, head, interleaved);
    OutPort y = rotate(c, name, name + "/f32", widened(c, name + "/x_f32", x, true), widened(c, name + "/cos_f32", cos, true),
                       widened(c, name + "/sin_f32", sin, true), half, head, interleaved);
    return c.op("Convert", result, {y}, {{"destination_type", type}});
}

// cos_cache[positions] (or sin_cache's), [batch, sequence, half] from positions [batch, sequence],
// with a unit axis inserted at `heads_axis` to broadcast over the heads.
OutPort rotary_table(ExtractContext& c, const std::string& name, const OutPort& cache, const OutPort& positions,
                     int64_t heads_axis) {
    OutPort rows = c.op("Gather", name, {cache, positions, c.i64(name + "/axis", 0)}, {{"batch_dims", int64_t{0}}});
    return c.op("Unsqueeze", name + "/heads", {rows, c.i64s(name + "/heads_axis", {heads_axis})});
}

// The half width of the rotary caches (constant [max_position, half]).
int64_t rotary_half(ExtractContext& c, size_t cos_input) {
    const Tensor* cache = c.input_value(cos_input);
    if (!cache || cache->shape().size() != 2) c.fail("cos_cache must be a constant [max_position, rotary_dim / 2]");
    return cache->shape()[1];
}

// Rotary position embedding: with cos = cos_cache[position_ids] and sin = sin_cache[position_ids],
// each head is rotated (see rotate()). Input [batch, heads, sequence, head] or
// [batch, sequence, heads·head] (num_heads, or 0: heads of 2·cos_cache's width);
// rotary_embedding_dim below the head rotates only its first values.
void rotary_embedding(ExtractContext& c) {
    if (c.i("is_packed_batching", 0) != 0) c.unsupported("is_packed_batching=1");
    const int64_t half = rotary_half(c, 2);
    const int64_t rotary_dim = c.i("rotary_embedding_dim", 0);
    if (rotary_dim != 0 && rotary_dim != 2 * half) c.fail("rotary_embedding_dim must be twice the caches' width");
    OutPort x = c.input(0);
    const int64_t rank = ExtractContext::rank_of(x);
    if (rank != 3 && rank != 4) c.fail("needs an input of rank 3 or 4", "give the model's inputs static ranks");
    int64_t head = rank == 4 ? last_dim(x) : -1;
    if (rank == 3) {
        // Without num_heads (0, GenAI's DML exports) the heads are as wide as the rotation: 2·half.
        int64_t heads = c.i("num_heads", 0);
        if (heads < 0) c.fail("num_heads must not be negative");
        if (heads == 0 && rotary_dim != 0) c.fail("rotary_embedding_dim needs the num_heads attribute");
        if (heads == 0 && last_dim(x) > 0 && last_dim(x) % (2 * half) == 0) heads = last_dim(x) / (2 * half);
        if (heads == 0 || last_dim(x) <= 0 || last_dim(x) % heads != 0)
            c.fail("the hidden size must be static and a multiple of num_heads (or, without it, of the rotary dimension)");
        head = last_dim(x) / heads;
        x = c.op("Reshape", "heads", {x, c.i64s("heads/shape", {0, 0, heads, head})}, {{"special_zero", true}});
    }
    if (head < 2 * half)
        c.fail("the head (" + std::to_string(head) + ") must be static and at least the rotary dimension (" +
               std::to_string(2 * half) + ")");
    if (rotary_dim == 0 && head != 2 * half) c.fail("a head wider than the caches needs rotary_embedding_dim");
    OutPort positions = c.input(1);
    if (ExtractContext::rank_of(positions) != 2)
        c.unsupported("position_ids other than [batch, sequence] (offset form)");
    // [batch, sequence, half] -> broadcastable against x: heads before (rank 4) or after (rank 3) the sequence.
    const int64_t heads_axis = rank == 4 ? 1 : 2;
    OutPort cos = rotary_table(c, "cos", c.input(2), positions, heads_axis);
    OutPort sin = rotary_table(c, "sin", c.input(3), positions, heads_axis);
    const bool interleaved = c.i("interleaved", 0) != 0;
    OutPort y = rotate_once(c, "rotary", rank == 4 ? "" : "rotated", x, cos, sin, half, head, interleaved, c.input(0).type());
    if (rank == 3) y = c.op("Reshape", "", {y, c.i64s("merge/shape", {0, 0, -1})}, {{"special_zero", true}});
    c.set_output(0, y);
}

// The cache of one step: the first `start`[b] rows of past, then the S new rows, then zeros
// (`extra` zero rows beyond past's P rows and the S new ones). ONNX Runtime writes each batch
// entry's new keys (or values) right after its own past, so a batch of different lengths keeps
// its entries' caches apart. past [B, Nkv, P, H], new [B, Nkv, S, H], start [B]; returns
// [B, Nkv, P + S (+ extra), H]. With equal lengths and no extra rows it is Concat(past, new).
// `like`: a port of the attention's float type (the ports built here are not typed yet).
OutPort append_to_cache(ExtractContext& c, const std::string& name, const OutPort& past, const OutPort& fresh,
                        const OutPort& start_rows, const OutPort& sequence, const OutPort& like,
                        const std::optional<OutPort>& extra = std::nullopt) {
    OutPort new_shape = c.op("ShapeOf", name + "/new_shape", {fresh}, {{"output_type", ElementType::i64}});
    if (extra) {  // [B, Nkv, S + extra, H]
        OutPort rows = c.op("Add", name + "/zero_rows", {c.dim(name + "/new_rows", fresh, 2), *extra});
        new_shape = c.op("ScatterUpdate", name + "/zeros_shape",
                         {new_shape, c.i64s(name + "/zeros_shape/index", {2}),
                          c.op("Unsqueeze", name + "/zero_rows_1d", {rows, c.i64s(name + "/zero_rows_1d/axis", {0})}),
                          c.i64(name + "/zeros_shape/axis", 0)});
    }
    OutPort zeros = c.op("Broadcast", name + "/zeros", {c.scalar_like(name + "/zero", 0.0, like), new_shape},
                         {{"mode", std::string("numpy")}});
    OutPort padded = c.op("Concat", name + "/padded", {past, zeros}, {{"axis", int64_t{2}}});
    OutPort rows =
        c.op("Range", name + "/rows",
             {c.i64(name + "/rows/start", 0), c.dim(name + "/length", padded, 2), c.i64(name + "/rows/step", 1)},
             {{"output_type", ElementType::i64}});                                                         // [T]
    OutPort start = c.op("Unsqueeze", name + "/start", {start_rows, c.i64s(name + "/start/axis", {1})});  // [B, 1]
    OutPort end = c.op("Add", name + "/end", {start, sequence});
    OutPort offset = c.op("Subtract", name + "/offset", {rows, start});  // [B, T]
    OutPort last = c.op("Subtract", name + "/last", {sequence, c.i64(name + "/one", 1)});
    OutPort index = c.op("Maximum", name + "/index",
                         {c.op("Minimum", name + "/index_high", {offset, last}), c.i64(name + "/index_low", 0)});
    OutPort moved =
        c.op("Gather", name + "/moved", {fresh, index, c.i64(name + "/moved/axis", 2)}, {{"batch_dims", int64_t{1}}});
    auto rows_mask = [&](const std::string& suffix, const OutPort& m) {  // [B, T] -> [B, 1, T, 1]
        return c.op("Unsqueeze", name + "/" + suffix, {m, c.i64s(name + "/" + suffix + "/axes", {1, 3})});
    };
    OutPort is_new = rows_mask("is_new", c.op("LogicalAnd", name + "/new_rows",
                                              {c.op("GreaterEqual", name + "/after_past", {rows, start}),
                                               c.op("Less", name + "/before_end", {rows, end})}));
    OutPort is_past = rows_mask("is_past", c.op("Less", name + "/past_rows", {rows, start}));
    OutPort kept = c.op("Select", name + "/kept", {is_past, padded, c.scalar_like(name + "/cleared", 0.0, like)});
    return c.op("Select", name, {is_new, moved, kept});
}

// ONNX Runtime's windowed cache (sliding_window_cache=1, group_query_attention.cc
// WindowedCacheEnd): where a cache of `length` positions ends in a buffer of `capacity` rows when
// whole blocks of gap = capacity - window + 1 rows are reclaimed at once:
// length if length <= capacity, else length - gap * ceil((length - capacity) / gap).
OutPort windowed_cache_end(ExtractContext& c, const std::string& name, const OutPort& length, const OutPort& capacity,
                           const OutPort& gap) {
    OutPort overflow = c.op("Maximum", name + "/overflow",
                            {c.op("Subtract", name + "/excess", {length, capacity}), c.i64(name + "/none", 0)});
    OutPort blocks = c.op("Divide", name + "/blocks",
                          {c.op("Add", name + "/round_up",
                                {overflow, c.op("Subtract", name + "/gap_less_one", {gap, c.i64(name + "/one", 1)})}),
                           gap},
                          {{"m_pythondiv", true}});
    return c.op("Subtract", name, {length, c.op("Multiply", name + "/reclaimed", {blocks, gap})});
}

// GroupQueryAttention(query, key?, value?, past_key?, past_value?, seqlens_k, total_sequence_length,
// cos_cache?, sin_cache?, ...): num_heads query heads share kv_num_heads key / value heads.
// Batch entry b has seqlens_k[b] + 1 tokens in all ([batch] or, as GenAI's builders up to 0.11
// write it, [batch, 1]), the last S of them new (S = the query's length; a first prompt,
// right-padded, starts at 0): its new tokens get positions past_length[b] ... (rotary
// embedding), join its cache after its past (present_key / present_value, BNSH, of
// max(total_sequence_length, past rows) rows as ONNX Runtime sizes them), and each attends to the
// keys up to its own position (causal), within the last local_window_size (if set), and within
// the entry's length. Scores are scale·Q·Kᵀ, softcap·tanh(·/softcap) if set.
// sliding_window_cache=1 (GenAI on CPU for sliding-window models): past and present are a buffer
// of C = max(past rows, local_window_size) rows holding the most recent positions of the
// sequence; a step appends after the first windowed_cache_end(P) rows and present keeps the last
// windowed_cache_end(P + S) of them (ONNX Runtime's in-place compaction and its staging path give
// the same rows), the rest zero. Attention and its masks see that cache in cache-relative
// positions (exact: the masks depend only on distances); rotary uses absolute ones.
void group_query_attention(ExtractContext& c) {
    const int64_t heads = c.i("num_heads"), kv_heads = c.i("kv_num_heads");
    if (heads <= 0 || kv_heads <= 0 || heads % kv_heads != 0)
        c.fail("num_heads must be a positive multiple of kv_num_heads");
    const bool windowed_cache = c.i("sliding_window_cache", 0) != 0;
    if (c.i("smooth_softmax", 0) != 0) c.unsupported("smooth_softmax=1");
    if (c.i("qk_output", 0) != 0 || c.output_used(3)) c.unsupported("output_qk (qk_output)");
    if (c.i("kv_cache_bit_width", 0) != 0) c.unsupported("kv_cache_bit_width (a quantized KV cache)");
    for (const char* attr : {"k_quant_type", "v_quant_type"})
        if (c.s(attr, "NONE") != "NONE")
            c.unsupported(std::string(attr) + "=" + c.s(attr, "") + " (quantized KV cache)");
    // Inputs 9 and up, in the spec's order; GenAI's models give none of them.
    const std::vector<std::string> refused_inputs = {"position_ids", "attention_bias", "head_sink",    "k_scale",
                                                     "v_scale",      "q_norm_weight",  "k_norm_weight"};
    for (size_t i = 9; i < c.input_count(); ++i)
        if (c.has_input(i))
            c.unsupported("input " + (i - 9 < refused_inputs.size() ? refused_inputs[i - 9] : std::to_string(i)));
    if (c.has_input(3) != c.has_input(4)) c.fail("past_key and past_value must be given together");
    if (c.has_input(3) && (is_signed_int(c.input(3).type()) || is_unsigned_int(c.input(3).type())))
        c.unsupported("a quantized past_key / past_value (" + std::string(ir_name(c.input(3).type())) + ")");
    const bool causal = c.i("causal", 1) != 0;
    const int64_t window = c.i("local_window_size", -1);
    if (windowed_cache && (window <= 0 || !c.has_input(3)))
        c.fail("sliding_window_cache=1 needs local_window_size > 0 and past_key / past_value");

    OutPort query = c.input(0), key, value;
    if (ExtractContext::rank_of(query) != 3) c.unsupported("a query other than [batch, sequence, hidden]");
    const OutPort like = query;  // the float type (f32 or f16) of every value built here
    const int64_t width = last_dim(query);
    int64_t head = 0;
    if (!c.has_input(1) && !c.has_input(2)) {  // packed [B, S, (N + 2·Nkv)·H]
        if (width <= 0 || width % (heads + 2 * kv_heads) != 0)
            c.fail("a packed QKV needs a static width, a multiple of num_heads + 2·kv_num_heads");
        head = width / (heads + 2 * kv_heads);
        Node parts = c.add("VariadicSplit", "qkv_split",
                           {query, c.i64("qkv_split/axis", -1),
                            c.i64s("qkv_split/lengths", {heads * head, kv_heads * head, kv_heads * head})});
        parts.set_output_count(3);
        query = parts.out(0), key = parts.out(1), value = parts.out(2);
    } else {
        if (!c.has_input(1) || !c.has_input(2)) c.fail("key and value must be given together");
        if (width <= 0 || width % heads != 0) c.fail("the query needs a static hidden size, a multiple of num_heads");
        head = width / heads;
        key = c.input(1), value = c.input(2);
    }
    OutPort q = split_heads(c, "q", query, heads), k = split_heads(c, "k", key, kv_heads),
            v = split_heads(c, "v", value, kv_heads);

    // Per entry: the tokens before the new ones, max(0, seqlens_k + 1 - S); positions [B, S].
    OutPort sequence = c.dim("sequence", query, 1);
    OutPort lengths = c.op("Convert", "seqlens", {c.op("Reshape", "seqlens/flat", {c.input(5), c.i64s("seqlens/shape", {-1})},
                                                        {{"special_zero", false}})},
                           {{"destination_type", ElementType::i64}});  // [B]
    OutPort past_length =
        c.op("Maximum", "past_length",
             {c.op("Subtract", "past_length/raw", {c.op("Add", "totals", {lengths, c.i64("one", 1)}), sequence}),
              c.i64("past_length/floor", 0)});
    OutPort steps = c.op("Range", "steps", {c.i64("steps/start", 0), sequence, c.i64("steps/step", 1)},
                         {{"output_type", ElementType::i64}});
    OutPort positions =
        c.op("Add", "positions",
             {c.op("Unsqueeze", "positions/start", {past_length, c.i64s("positions/axis", {1})}), steps});

    if (c.i("do_rotary", 0) != 0) {
        if (!c.has_input(7) || !c.has_input(8)) c.fail("do_rotary=1 needs cos_cache and sin_cache");
        const int64_t half = rotary_half(c, 7);
        if (2 * half > head) c.fail("the rotary caches are wider than half the head");
        OutPort cos = rotary_table(c, "cos", c.input(7), positions, 1),
                sin = rotary_table(c, "sin", c.input(8), positions, 1);
        const bool interleaved = c.i("rotary_interleaved", 0) != 0;
        q = rotate_once(c, "q_rotary", "q_rotary", q, cos, sin, half, head, interleaved, like.type());
        k = rotate_once(c, "k_rotary", "k_rotary", k, cos, sin, half, head, interleaved, like.type());
    }

    // The positions the masks compare, and each entry's last key: absolute, or in the windowed
    // cache relative to its first resident row.
    OutPort mask_positions = positions, last_key_index = lengths;
    if (windowed_cache) {
        OutPort rows = c.dim("past_rows", c.input(3), 2);
        OutPort capacity = c.op("Maximum", "capacity", {rows, c.i64("window", window)});
        OutPort gap = c.op("Add", "gap", {c.op("Subtract", "capacity_less_window", {capacity, c.i64("window_again", window)}),
                                          c.i64("gap/one", 1)});
        // Resident rows before the step (at most the buffer's), and after it.
        OutPort end_before = c.op("Minimum", "end_before",
                                  {windowed_cache_end(c, "end_before/raw", past_length, capacity, gap), rows});
        OutPort end_after =
            windowed_cache_end(c, "end_after", c.op("Add", "length_after", {past_length, sequence}), capacity, gap);
        OutPort extra = c.op("Subtract", "extra_rows", {capacity, rows});  // 0 unless past is shorter than the window
        k = append_to_cache(c, "window_key", c.input(3), k, end_before, sequence, like, extra);
        v = append_to_cache(c, "window_value", c.input(4), v, end_before, sequence, like, extra);
        // present row r = cache row r + (end_before + S - end_after) for r < end_after, else 0.
        OutPort first = c.op("Subtract", "dropped", {c.op("Add", "end_with_new", {end_before, sequence}), end_after});
        OutPort present_rows = c.op("Range", "present_rows", {c.i64("present_rows/start", 0), capacity, c.i64("present_rows/step", 1)},
                                    {{"output_type", ElementType::i64}});  // [C]
        OutPort source_rows = c.op("Minimum", "source_rows",
                                   {c.op("Add", "shifted_rows",
                                         {present_rows, c.op("Unsqueeze", "dropped/column", {first, c.i64s("dropped/axis", {1})})}),
                                    c.op("Subtract", "last_row", {c.dim("cache_rows", k, 2), c.i64("last_row/one", 1)})});  // [B, C]
        OutPort written = c.op("Unsqueeze", "written",
                               {c.op("Less", "written/rows", {present_rows, c.op("Unsqueeze", "end_after/column",
                                                                                   {end_after, c.i64s("end_after/axis", {1})})}),
                                c.i64s("written/axes", {1, 3})});  // [B, 1, C, 1]
        auto present = [&](const std::string& name, const OutPort& cache) {
            OutPort kept = c.op("Gather", name + "/kept", {cache, source_rows, c.i64(name + "/axis", 2)}, {{"batch_dims", int64_t{1}}});
            return c.op("Select", name, {written, kept, c.scalar_like(name + "/unwritten", 0.0, like)});
        };
        c.set_output(1, present("present_key", k));
        c.set_output(2, present("present_value", v));
        mask_positions = c.op("Add", "cache_positions",
                              {c.op("Unsqueeze", "cache_positions/start", {end_before, c.i64s("cache_positions/axis", {1})}), steps});
        last_key_index = c.op("Subtract", "cache_last_key", {c.op("Add", "cache_end", {end_before, sequence}), c.i64("cache_one", 1)});
    } else if (c.has_input(3)) {
        k = append_to_cache(c, "present_key", c.input(3), k, past_length, sequence, like);
        v = append_to_cache(c, "present_value", c.input(4), v, past_length, sequence, like);
        // ONNX Runtime's present has max(total_sequence_length, past rows) rows: past + S, or the
        // past's when past and present share one buffer of the maximum length.
        OutPort total = c.op("Convert", "total", {c.op("Reshape", "total/flat", {c.input(6), c.i64s("total/shape", {1})},
                                                       {{"special_zero", false}})},
                             {{"destination_type", ElementType::i64}});
        OutPort present_length = c.op("Maximum", "present_length", {total, c.dim("past_rows", c.input(3), 2)});  // [1]
        auto present = [&](const std::string& name, const OutPort& cache) {
            return c.op("Slice", name + "/rows", {cache, c.i64s(name + "/rows/start", {0}), present_length,
                                                  c.i64s(name + "/rows/step", {1}), c.i64s(name + "/rows/axes", {2})});
        };
        c.set_output(1, present("present_key", k));
        c.set_output(2, present("present_value", v));
    } else {
        c.set_output(1, k);
        c.set_output(2, v);
    }
    if (heads != kv_heads) {  // query head h reads key / value head h / (num_heads / kv_num_heads)
        // As ops (folded to the list), not a list as long as the file's num_heads says.
        const OutPort all_heads = c.op("Range", "groups/heads",
                                       {c.i64("groups/first", 0), c.i64("groups/end", heads), c.i64("groups/step", 1)},
                                       {{"output_type", ElementType::i64}});
        const OutPort groups = c.op("Divide", "groups", {all_heads, c.i64("groups/size", heads / kv_heads)});
        const OutPort axis = c.i64("groups/axis", 1);
        k = c.op("Gather", "k_groups", {k, groups, axis}, {{"batch_dims", int64_t{0}}});
        v = c.op("Gather", "v_groups", {v, groups, axis}, {{"batch_dims", int64_t{0}}});
    }
    // f16 / bf16: scores, softmax and the weighted sum in f32, the output rounded once, as ONNX
    // Runtime's kernels compute them (the cache keeps the model's type).
    const bool low = is_low_float(like.type());
    q = widened(c, "q_f32", q, low), k = widened(c, "k_f32", k, low), v = widened(c, "v_f32", v, low);
    const OutPort core = low ? c.constant("f32_like", Tensor::scalar<float>(0.0f)) : like;  // the core's type
    OutPort scores = scaled_scores(c, q, k, head, core);
    if (const double cap = c.f("softcap", 0.0); cap > 0.0) {
        OutPort squashed = c.op("Tanh", "softcap/tanh",
                                {c.op("Divide", "softcap/in", {scores, c.scalar_like("softcap/value", cap, core)})});
        scores = c.op("Multiply", "softcap", {squashed, c.scalar_like("softcap/out", cap, core)});
    }
    // Which keys j each query (b, i) sees: [B, S, T], then [B, 1, S, T] over the heads.
    OutPort keys = c.op("Range", "keys", {c.i64("keys/start", 0), c.dim("keys/length", k, 2), c.i64("keys/step", 1)},
                        {{"output_type", ElementType::i64}});
    OutPort last_key = c.op("Unsqueeze", "last_key", {last_key_index, c.i64s("last_key/axes", {1, 2})});  // [B, 1, 1]
    OutPort seen = c.op("LessEqual", "in_length", {keys, last_key});
    OutPort query_position =
        c.op("Unsqueeze", "query_position", {mask_positions, c.i64s("query_position/axis", {2})});  // [B, S, 1]
    if (causal) seen = c.op("LogicalAnd", "causal", {seen, c.op("LessEqual", "not_future", {keys, query_position})});
    if (window > 0)
        seen = c.op("LogicalAnd", "windowed",
                    {seen, c.op("Greater", "in_window",
                                {keys, c.op("Subtract", "window_start", {query_position, c.i64("window_size", window)})})});
    seen = c.op("Unsqueeze", "seen", {seen, c.i64s("seen/axis", {1})});
    scores = c.op("Select", "masked", {seen, scores, c.scalar_like("hidden", lowest_of(core.type()), core)});
    OutPort y = weighted_values(c, scores, v, low ? "output_f32" : "");
    c.set_output(0, low ? c.op("Convert", "", {y}, {{"destination_type", like.type()}}) : y);
}

}  // namespace

void register_onnx_microsoft_attention(ExtractorRegistry& r) {
    r.add({"onnx", kDomain, "Attention", 1, INT64_MAX, attention});
    r.add({"onnx", kDomain, "MultiHeadAttention", 1, INT64_MAX, multi_head_attention});
    r.add({"onnx", kDomain, "RotaryEmbedding", 1, INT64_MAX, rotary_embedding});
    r.add({"onnx", kDomain, "GroupQueryAttention", 1, INT64_MAX, group_query_attention});
}

}  // namespace mo
