// ONNX Runtime's contrib ops (domain com.microsoft, and SimplifiedLayerNormalization, which
// ONNX Runtime puts in the default domain) that its transformer optimizer writes into
// BERT / GPT graphs, as decompositions into opset ops (semantics: ONNX Runtime's
// docs/ContribOperators.md): Gelu, FastGelu, BiasGelu, QuickGelu, BiasAdd,
// SkipLayerNormalization, SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization,
// FusedMatMul, EmbedLayerNormalization, RotaryEmbedding, Attention, and the contrib copies of
// Trilu and GatherND.
// The normalizations' optional mean / inverse-std-dev outputs are training aids: a model that
// reads them is refused by name.
#include <cmath>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

constexpr const char* kDomain = "com.microsoft";

OutPort gelu(ExtractContext& c, const OutPort& x, const char* mode, const std::string& suffix) {
    return c.op("Gelu", suffix, {x}, {{"approximation_mode", std::string(mode)}});
}

// x + bias when the optional input `i` is given.
OutPort plus_optional(ExtractContext& c, OutPort x, size_t i, const std::string& suffix) {
    return c.has_input(i) ? c.op("Add", suffix, {x, c.input(i)}) : x;
}

void refuse_statistics_outputs(ExtractContext& c, size_t first, size_t last) {
    for (size_t j = first; j <= last; ++j)
        if (c.output_used(j))
            c.unsupported("output " + std::to_string(j) + " (mean / inverse standard deviation, a training output)");
}

// (x - mean) / sqrt(var + eps) over the last axis, then * gamma (+ beta).
OutPort layer_norm_last_axis(ExtractContext& c, const OutPort& x, double eps, const OutPort& gamma,
                             const OutPort* beta) {
    OutPort mvn = c.op("MVN", "mvn", {x, c.i64s("axes", {-1})},
                       {{"normalize_variance", true}, {"eps", eps}, {"eps_mode", std::string("inside_sqrt")}});
    OutPort scaled = c.op("Multiply", beta ? "scale" : "", {mvn, gamma});
    return beta ? c.op("Add", "", {scaled, *beta}) : scaled;
}

// x / sqrt(mean(x^2) + eps) * gamma over the last axis (RMS normalization).
OutPort rms_norm_last_axis(ExtractContext& c, const OutPort& x, double eps, const OutPort& gamma) {
    OutPort square = c.op("Multiply", "square", {x, x});
    OutPort mean = c.op("ReduceMean", "mean_square", {square, c.i64s("axes", {-1})}, {{"keep_dims", true}});
    OutPort rms = c.op("Sqrt", "rms", {c.op("Add", "mean_square_eps", {mean, c.scalar_like("epsilon", eps, x)})});
    return c.op("Multiply", "", {c.op("Divide", "normalized", {x, rms}), gamma});
}

void skip_layer_norm(ExtractContext& c, bool simplified) {
    // Inputs: input, skip, gamma, then beta and bias (SkipLayerNormalization) or bias (simplified).
    const size_t bias_input = simplified ? 3 : 4;
    refuse_statistics_outputs(c, 1, 2);
    OutPort sum = c.op("Add", "skip_sum", {c.input(0), c.input(1)});
    sum = plus_optional(c, sum, bias_input, "bias_sum");
    const double eps = c.f("epsilon", 1e-12);
    OutPort y;
    if (simplified) {
        y = rms_norm_last_axis(c, sum, eps, c.input(2));
    } else if (c.has_input(3)) {
        OutPort beta = c.input(3);
        y = layer_norm_last_axis(c, sum, eps, c.input(2), &beta);
    } else {
        y = layer_norm_last_axis(c, sum, eps, c.input(2), nullptr);
    }
    c.set_output(0, y);
    if (c.output_used(3)) c.set_output(3, sum);  // input_skip_bias_sum
}

// alpha · (A' @ B'), A' = A with its last two axes swapped when transA (B' likewise).
void fused_matmul(ExtractContext& c) {
    if (c.i("transBatchA", 0) != 0 || c.i("transBatchB", 0) != 0)
        c.unsupported("transBatchA / transBatchB (a batch-axis transpose)");
    const double alpha = c.f("alpha", 1.0);
    const AttrMap attrs{{"transpose_a", c.i("transA", 0) != 0}, {"transpose_b", c.i("transB", 0) != 0}};
    if (alpha == 1.0) {
        c.set_output(0, c.op("MatMul", "", {c.input(0), c.input(1)}, attrs));
        return;
    }
    OutPort product = c.op("MatMul", "matmul", {c.input(0), c.input(1)}, attrs);
    c.set_output(0, c.op("Multiply", "", {product, c.scalar_like("alpha", alpha, product)}));
}

// BERT's embedding layer: word + position (+ segment) embeddings, then layer normalization.
// Inputs: input_ids, segment_ids?, word_embedding, position_embedding, segment_embedding?,
// gamma, beta, mask?, position_ids?. Outputs: output, mask_index (the mask's row sums, int32),
// embedding_sum (before normalization).
void embed_layer_norm(ExtractContext& c) {
    OutPort ids = c.input(0);
    auto gather_rows = [&](const std::string& suffix, const OutPort& table, const OutPort& indices) {
        return c.op("Gather", suffix, {table, indices, c.i64(suffix + "/axis", 0)}, {{"batch_dims", int64_t{0}}});
    };
    OutPort sum = gather_rows("word", c.input(2), ids);
    OutPort positions;
    if (c.has_input(8)) {
        positions = c.input(8);
    } else {  // 0 .. sequence length - 1, for every row
        OutPort shape = c.op("ShapeOf", "ids_shape", {ids}, {{"output_type", ElementType::i64}});
        OutPort length = c.op("Gather", "sequence_length", {shape, c.i64("one", 1), c.i64("zero_axis", 0)},
                              {{"batch_dims", int64_t{0}}});
        OutPort range = c.op("Range", "positions", {c.i64("zero", 0), length, c.i64("step", 1)},
                             {{"output_type", ElementType::i64}});
        positions = c.op("Unsqueeze", "positions_row", {range, c.i64s("row_axis", {0})});
    }
    sum = c.op("Add", "word_position", {sum, gather_rows("position", c.input(3), positions)});
    if (c.has_input(1) && c.has_input(4))
        sum = c.op("Add", "embedding_sum", {sum, gather_rows("segment", c.input(4), c.input(1))});
    OutPort beta = c.input(6);
    c.set_output(0, layer_norm_last_axis(c, sum, c.f("epsilon", 1e-12), c.input(5), &beta));
    if (c.output_used(1)) {
        if (!c.has_input(7)) c.unsupported("output mask_index without a mask input");
        OutPort rows = c.op("ReduceSum", "mask_sum", {c.input(7), c.i64s("mask_axes", {1})}, {{"keep_dims", false}});
        c.set_output(1, c.op("Convert", "mask_index", {rows}, {{"destination_type", ElementType::i32}}));
    }
    if (c.output_used(2)) c.set_output(2, sum);
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

// BERT-style self-attention from one input: QKV = input @ weights + bias, heads of
// hidden / num_heads, softmax(Q·Kᵀ · scale + mask) · V, heads merged. Masks: none, a 2-D
// [batch, sequence] of 1 (keep) / 0 (mask) turned into mask_filter_value, and `unidirectional`
// (causal). Past / present state, attention_bias, other mask formats and unequal Q/K/V sizes
// are refused by name.
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
    const int64_t hidden = weights->shape()[1] / 3, head = hidden / heads;
    OutPort x = c.input(0);
    OutPort qkv = c.op("MatMul", "qkv", {x, c.input(1)}, {{"transpose_a", false}, {"transpose_b", false}});
    if (c.has_input(2)) qkv = c.op("Add", "qkv_bias", {qkv, c.input(2)});
    Node parts = c.add("VariadicSplit", "qkv_split", {qkv, c.i64("qkv_split/axis", -1), c.i64s("qkv_split/lengths", {hidden, hidden, hidden})});
    parts.set_output_count(3);
    auto split_heads = [&](const std::string& name, const OutPort& t) {  // [B, S, hidden] -> [B, N, S, H]
        OutPort r = c.op("Reshape", name + "/heads", {t, c.i64s(name + "/heads/shape", {0, 0, heads, head})}, {{"special_zero", true}});
        return c.op("Transpose", name, {r, c.i64s(name + "/order", {0, 2, 1, 3})});
    };
    OutPort q = split_heads("q", parts.out(0)), k = split_heads("k", parts.out(1)), v = split_heads("v", parts.out(2));
    const double scale = c.f("scale", 0.0) != 0.0 ? c.f("scale", 0.0) : 1.0 / std::sqrt(static_cast<double>(head));
    OutPort scores = c.op("MatMul", "scores", {q, k}, {{"transpose_a", false}, {"transpose_b", true}});
    scores = c.op("Multiply", "scaled", {scores, c.scalar_like("scale", scale, scores)});
    const double filter = c.f("mask_filter_value", -10000.0);
    if (c.has_input(3)) {
        if (ExtractContext::rank_of(c.input(3)) != 2) c.unsupported("mask_index other than a 2-D [batch, sequence] mask");
        // (1 - mask) * filter, as [B, 1, 1, S]
        OutPort mask = c.op("Convert", "mask_float", {c.input(3)}, {{"destination_type", ElementType::f32}});
        OutPort masked = c.op("Subtract", "mask_inverted", {c.scalar_like("one", 1.0, mask), mask});
        OutPort additive = c.op("Multiply", "mask_additive", {masked, c.scalar_like("filter", filter, mask)});
        scores = c.op("Add", "masked", {scores, c.op("Unsqueeze", "mask_4d", {additive, c.i64s("mask_axes", {1, 2})})});
    }
    if (c.i("unidirectional", 0) != 0) {  // key position j > query position i gets the filter value
        OutPort shape = c.op("ShapeOf", "scores_shape", {scores}, {{"output_type", ElementType::i64}});
        OutPort length = c.op("Gather", "length", {shape, c.i64("last", 3), c.i64("shape_axis", 0)}, {{"batch_dims", int64_t{0}}});
        OutPort range = c.op("Range", "positions", {c.i64("zero", 0), length, c.i64("step", 1)}, {{"output_type", ElementType::i64}});
        OutPort rows = c.op("Unsqueeze", "query_positions", {range, c.i64s("column", {1})});
        OutPort future = c.op("Greater", "future", {range, rows});
        OutPort causal = c.op("Select", "causal", {future, c.scalar_like("causal_filter", filter, scores), c.scalar_like("zero_f", 0.0, scores)},
                              {{"auto_broadcast", std::string("numpy")}});
        scores = c.op("Add", "causal_scores", {scores, causal});
    }
    OutPort probs = c.op("Softmax", "probs", {scores}, {{"axis", int64_t{-1}}});
    OutPort ctx = c.op("MatMul", "context", {probs, v}, {{"transpose_a", false}, {"transpose_b", false}});
    OutPort merged = c.op("Transpose", "context_order", {ctx, c.i64s("context/order", {0, 2, 1, 3})});
    c.set_output(0, c.op("Reshape", "", {merged, c.i64s("merge/shape", {0, 0, hidden})}, {{"special_zero", true}}));
}

}  // namespace

void register_onnx_microsoft_contrib(ExtractorRegistry& r) {
    r.add({"onnx", kDomain, "Attention", 1, INT64_MAX, attention});
    r.add({"onnx", kDomain, "RotaryEmbedding", 1, INT64_MAX, rotary_embedding});
    r.add({"onnx", kDomain, "EmbedLayerNormalization", 1, INT64_MAX, embed_layer_norm});
    r.add({"onnx", kDomain, "FusedMatMul", 1, INT64_MAX, fused_matmul});
    // Contrib copies of standard ops with the same inputs and attributes: the standard
    // extractor serves (none of them depends on the opset number).
    for (const auto& [op, standard_opset] : {std::pair<const char*, int64_t>{"Trilu", 14}, {"GatherND", 12}}) {
        const Extractor* standard = r.find("onnx", "", op, standard_opset);
        MO_ASSERT(standard != nullptr, "the ONNX extractor of ", op, " is registered after the contrib ops");
        r.add({"onnx", kDomain, op, 1, INT64_MAX, standard->fn});
    }
    r.add({"onnx", kDomain, "Gelu", 1, INT64_MAX, [](ExtractContext& c) { c.set_output(0, gelu(c, c.input(0), "ERF", "")); }});
    r.add({"onnx", kDomain, "BiasGelu", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, gelu(c, c.op("Add", "bias", {c.input(0), c.input(1)}), "ERF", ""));
           }});
    r.add({"onnx", kDomain, "FastGelu", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, gelu(c, plus_optional(c, c.input(0), 1, "bias"), "TANH", ""));
           }});
    r.add({"onnx", kDomain, "QuickGelu", 1, INT64_MAX, [](ExtractContext& c) {
               // x * sigmoid(alpha * x)
               OutPort x = c.input(0);
               OutPort scaled = c.op("Multiply", "alpha_x", {x, c.scalar_like("alpha", c.f("alpha", 1.702), x)});
               c.set_output(0, c.op("Multiply", "", {x, c.op("Sigmoid", "sigmoid", {scaled})}));
           }});
    r.add({"onnx", kDomain, "BiasAdd", 1, INT64_MAX, [](ExtractContext& c) {
               // X + bias + skip
               c.set_output(0, c.op("Add", "", {c.op("Add", "bias", {c.input(0), c.input(1)}), c.input(2)}));
           }});
    r.add({"onnx", kDomain, "SkipLayerNormalization", 1, INT64_MAX, [](ExtractContext& c) { skip_layer_norm(c, false); }});
    r.add({"onnx", kDomain, "SkipSimplifiedLayerNormalization", 1, INT64_MAX,
           [](ExtractContext& c) { skip_layer_norm(c, true); }});
    // ONNX Runtime registers this one in the default domain (its opset 1 on), not com.microsoft.
    r.add({"onnx", "", "SimplifiedLayerNormalization", 1, INT64_MAX, [](ExtractContext& c) {
               if (c.i("axis", -1) != -1) c.unsupported("axis " + std::to_string(c.i("axis", -1)) + " (only the last axis, -1)");
               refuse_statistics_outputs(c, 1, 1);
               c.set_output(0, rms_norm_last_axis(c, c.input(0), c.f("epsilon", 1e-5), c.input(1)));
           }});
}

}  // namespace mo
