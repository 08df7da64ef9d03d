// ONNX Runtime's contrib ops (domain com.microsoft, and SimplifiedLayerNormalization, which
// ONNX Runtime puts in the default domain) that its transformer optimizer writes into
// BERT / GPT graphs, as decompositions into opset ops (semantics: ONNX Runtime's
// docs/ContribOperators.md): Gelu, FastGelu, BiasGelu, QuickGelu, BiasAdd,
// SkipLayerNormalization, SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization,
// FusedMatMul, MatMulNBits (2-, 4- and 8-bit weights kept low-bit in the IR),
// EmbedLayerNormalization, and the contrib copies of Trilu and GatherND. The attention ops are
// in microsoft_attention.cpp.
// The normalizations' optional mean / inverse-std-dev outputs are training aids: a model that
// reads them is refused by name.
#include <algorithm>

#include "core/low_bit.hpp"
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
        OutPort length = c.dim("sequence_length", ids, 1);
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

// `rows` rows of `per_row` values of `bits` bits (2 or 4), each row padded to whole bytes, the
// first value of a byte in its lowest bits (ONNX Runtime's packing), repacked densely into a u4
// tensor of `shape` (OpenVINO's u4: low nibble first). 2-bit values widen to 4 bits: OpenVINO's
// u2 has changed bit order between versions, u4 has not.
Tensor repack_as_u4(const Tensor& packed, int64_t bits, int64_t rows, int64_t per_row, Shape shape) {
    const int64_t row_bytes = (per_row * bits + 7) / 8;
    const auto* src = reinterpret_cast<const uint8_t*>(packed.bytes());
    Tensor values = Tensor::allocate(ElementType::u8, std::move(shape));
    auto* dst = values.mutable_data<uint8_t>();
    const int64_t per_byte = 8 / bits, mask = (1 << bits) - 1;
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < per_row; ++j)
            dst[r * per_row + j] = static_cast<uint8_t>((src[r * row_bytes + j / per_byte] >> (bits * (j % per_byte))) & mask);
    return pack_low_bit(values, ElementType::u4);
}

// Zero points of MatMulNBits: each row (one output column) of `blocks` values is padded to whole
// bytes. 4- and 8-bit rows that fill their bytes are used in place; others are repacked as u4.
Tensor nbits_zero_points(ExtractContext& c, const Tensor& stored_zp, int64_t bits, int64_t n, int64_t blocks) {
    const int64_t row_bytes = (blocks * bits + 7) / 8;
    if (stored_zp.type() != ElementType::u8 || stored_zp.size() != static_cast<size_t>(n * row_bytes))
        c.fail("zero_points must be uint8 with " + std::to_string(row_bytes) + " byte(s) for each of the N rows");
    if (bits == 8) return Tensor(ElementType::u8, {n, blocks, 1}, stored_zp.buffer());
    if (bits == 4 && blocks % 2 == 0) return Tensor(ElementType::u4, {n, blocks, 1}, stored_zp.buffer());
    return repack_as_u4(stored_zp, bits, n, blocks, {n, blocks, 1});
}

// MatMulNBits(A, B, scales, zero_points?, g_idx?, bias?; K, N, bits = 2, 4 or 8, block_size):
// Y = A · Wᵀ (+ bias) with W [N, K] stored block-wise in `bits`. B's bytes ([N, blocks,
// block_size · bits / 8]; 4 bits: low nibble first, OpenVINO's u4 layout) become a u4 / u8
// Constant [N, blocks, block_size] without a copy (2 bits: widened to u4, a copy twice the
// size), then Convert (marked decompression) ->
// Subtract(zero point, default 2^(bits-1)) -> Multiply(scale per block) -> Reshape [N, K] (and
// a Slice when K is not a multiple of block_size: the last block is padded): the
// compressed-weight form OpenVINO's runtime takes, kept by constant folding.
void matmul_nbits(ExtractContext& c) {
    const int64_t bits = c.i("bits", 4), k = c.i("K"), n = c.i("N"), block = c.i("block_size");
    if (bits != 2 && bits != 4 && bits != 8) c.unsupported("bits=" + std::to_string(bits) + " (2, 4 and 8 only)");
    if (c.has_input(4)) c.unsupported("g_idx (act-order group indices)");
    const ElementType stored = bits == 8 ? ElementType::u8 : ElementType::u4;
    const int64_t per_byte = 8 / bits;
    const Tensor* packed = c.input_value(1);
    if (!packed || packed->type() != ElementType::u8 || block <= 0 || block % per_byte != 0)
        c.fail("B must be a constant uint8 [N, blocks, block_size * bits / 8]");
    if (k <= 0 || n <= 0) c.fail("K and N must be positive");
    const int64_t blocks = k / block + (k % block != 0 ? 1 : 0);  // ceil, without overflowing near INT64_MAX
    if (packed->shape() != Shape{n, blocks, block / per_byte}) c.fail("B's shape does not match K, N, bits and block_size");
    auto decompressed = [&](const std::string& name, const Tensor& t) {
        OutPort f = c.op("Convert", name + "_f32", {c.constant(name, t)}, {{"destination_type", ElementType::f32}});
        f.node().rt_info()[kDecompression] = "0";
        return f;
    };
    OutPort w = decompressed("weights", bits == 2 ? repack_as_u4(*packed, 2, n * blocks, block, {n, blocks, block})
                                                  : Tensor(stored, {n, blocks, block}, packed->buffer()));
    OutPort zero_point;
    if (c.has_input(3)) {
        const Tensor* zp = c.input_value(3);
        if (!zp) c.unsupported("zero points that are not constant");
        if (zp->type() != ElementType::u8) c.unsupported("zero points of type " + std::string(ir_name(zp->type())) + " (packed uint8 only)");
        zero_point = decompressed("zero_point", nbits_zero_points(c, *zp, bits, n, blocks));
    } else {
        zero_point = c.constant("zero_point", Tensor::scalar<float>(static_cast<float>(1 << (bits - 1))));
    }
    OutPort scales = c.op("Reshape", "scales", {c.input(2), c.i64s("scales/shape", {n, blocks, 1})}, {{"special_zero", false}});
    OutPort dequantized = c.op("Multiply", "dequantized", {c.op("Subtract", "centered", {w, zero_point}), scales});
    OutPort matrix = c.op("Reshape", "matrix", {dequantized, c.i64s("matrix/shape", {n, blocks * block})}, {{"special_zero", false}});
    if (blocks * block != k)  // the padding of the last block
        matrix = c.op("Slice", "unpadded", {matrix, c.i64s("unpadded/start", {0}), c.i64s("unpadded/stop", {k}),
                                            c.i64s("unpadded/step", {1}), c.i64s("unpadded/axes", {1})});
    OutPort y = c.op("MatMul", c.has_input(5) ? "product" : "", {c.input(0), matrix}, {{"transpose_a", false}, {"transpose_b", true}});
    if (c.has_input(5)) y = c.op("Add", "", {y, c.input(5)});
    c.set_output(0, y);
}

}  // namespace

void register_onnx_microsoft_contrib(ExtractorRegistry& r) {
    r.add({"onnx", kDomain, "MatMulNBits", since(1), matmul_nbits});
    r.add({"onnx", kDomain, "EmbedLayerNormalization", since(1), embed_layer_norm});
    r.add({"onnx", kDomain, "FusedMatMul", since(1), fused_matmul});
    // Contrib copies of standard ops with the same inputs and attributes: the standard
    // extractor serves (none of them depends on the opset number).
    for (const auto& [op, standard_opset] : {std::pair<const char*, int64_t>{"Trilu", 14}, {"GatherND", 12}}) {
        const Extractor* standard = r.find("onnx", "", op, standard_opset);
        MO_ASSERT(standard != nullptr, "the ONNX extractor of ", op, " is registered after the contrib ops");
        r.add({"onnx", kDomain, op, since(1), standard->fn});
    }
    r.add({"onnx", kDomain, "Gelu", since(1), [](ExtractContext& c) { c.set_output(0, gelu(c, c.input(0), "ERF", "")); }});
    r.add({"onnx", kDomain, "BiasGelu", since(1), [](ExtractContext& c) {
               c.set_output(0, gelu(c, c.op("Add", "bias", {c.input(0), c.input(1)}), "ERF", ""));
           }});
    r.add({"onnx", kDomain, "FastGelu", since(1), [](ExtractContext& c) {
               c.set_output(0, gelu(c, plus_optional(c, c.input(0), 1, "bias"), "TANH", ""));
           }});
    r.add({"onnx", kDomain, "QuickGelu", since(1), [](ExtractContext& c) {
               // x * sigmoid(alpha * x)
               OutPort x = c.input(0);
               OutPort scaled = c.op("Multiply", "alpha_x", {x, c.scalar_like("alpha", c.f("alpha", 1.702), x)});
               c.set_output(0, c.op("Multiply", "", {x, c.op("Sigmoid", "sigmoid", {scaled})}));
           }});
    r.add({"onnx", kDomain, "BiasAdd", since(1), [](ExtractContext& c) {
               // X + bias + skip
               c.set_output(0, c.op("Add", "", {c.op("Add", "bias", {c.input(0), c.input(1)}), c.input(2)}));
           }});
    r.add({"onnx", kDomain, "SkipLayerNormalization", since(1), [](ExtractContext& c) { skip_layer_norm(c, false); }});
    r.add({"onnx", kDomain, "SkipSimplifiedLayerNormalization", since(1),
           [](ExtractContext& c) { skip_layer_norm(c, true); }});
    // ONNX Runtime registers this one in the default domain (its opset 1 on), not com.microsoft.
    r.add({"onnx", "", "SimplifiedLayerNormalization", since(1), [](ExtractContext& c) {
               if (c.i("axis", -1) != -1) c.unsupported("axis " + std::to_string(c.i("axis", -1)) + " (only the last axis, -1)");
               refuse_statistics_outputs(c, 1, 1);
               c.set_output(0, rms_norm_last_axis(c, c.input(0), c.f("epsilon", 1e-5), c.input(1)));
           }});
}

}  // namespace mo
