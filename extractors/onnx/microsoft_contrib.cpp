// ONNX Runtime's contrib ops (domain com.microsoft, and SimplifiedLayerNormalization, which
// ONNX Runtime puts in the default domain) that its transformer optimizer writes into
// BERT / GPT graphs, as decompositions into opset ops (semantics: ONNX Runtime's
// docs/ContribOperators.md): Gelu, FastGelu, BiasGelu, QuickGelu, BiasAdd,
// SkipLayerNormalization, SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization,
// FusedMatMul, MatMulNBits and GatherBlockQuantized (2-, 4- and 8-bit weights kept low-bit in
// the IR),
// EmbedLayerNormalization, and the contrib copies of Trilu and GatherND. The attention ops are
// in microsoft_attention.cpp.
// The normalizations' optional mean / inverse-std-dev outputs are training aids: a model that
// reads them is refused by name.
#include <algorithm>
#include <optional>

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

// x / sqrt(mean(x^2) + eps) * gamma over the last axis (RMS normalization). f16 / bf16 inputs are
// normalized in f32 and the result rounded once, as ONNX Runtime's kernels compute them
// (SimplifiedLayerNormalization's stash_type = 1, the default; the Skip variant likewise), and as
// Hugging Face's RMSNorm upcasts.
OutPort rms_norm_last_axis(ExtractContext& c, const OutPort& x_in, double eps, const OutPort& gamma_in) {
    const ElementType type = c.input(0).type();  // x may be a port built here, not typed yet
    const bool widen = type == ElementType::f16 || type == ElementType::bf16;
    auto f32 = [&](const std::string& suffix, const OutPort& p) {
        return widen ? c.op("Convert", suffix, {p}, {{"destination_type", ElementType::f32}}) : p;
    };
    const OutPort x = f32("input_f32", x_in), gamma = f32("gamma_f32", gamma_in);
    OutPort square = c.op("Multiply", "square", {x, x});
    OutPort mean = c.op("ReduceMean", "mean_square", {square, c.i64s("axes", {-1})}, {{"keep_dims", true}});
    OutPort epsilon = widen ? c.constant("epsilon", Tensor::scalar<float>(static_cast<float>(eps)))
                            : c.scalar_like("epsilon", eps, c.input(0));
    OutPort rms = c.op("Sqrt", "rms", {c.op("Add", "mean_square_eps", {mean, epsilon})});
    OutPort y = c.op("Multiply", widen ? "normalized_scaled" : "", {c.op("Divide", "normalized", {x, rms}), gamma});
    return widen ? c.op("Convert", "", {y}, {{"destination_type", type}}) : y;
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
// size), then Convert to the scales' type, f32 or f16 (marked decompression) ->
// Subtract(zero point, default 2^(bits-1)) -> Multiply(scale per block) -> Reshape [N, K] (and
// a Slice when K is not a multiple of block_size: the last block is padded): the
// compressed-weight form OpenVINO's runtime takes, kept by constant folding.
// accuracy_level (the precision ONNX Runtime may compute in: at 4 its CPU kernel quantizes A to
// int8 per block) is not kept: the IR computes the float product, as ONNX Runtime does at levels
// 0 and 1, and leaves activation precision to the runtime (docs/llm-forms.md).
void matmul_nbits(ExtractContext& c) {
    const int64_t bits = c.i("bits", 4), k = c.i("K"), n = c.i("N"), block = c.i("block_size");
    if (bits != 2 && bits != 4 && bits != 8) c.unsupported("bits=" + std::to_string(bits) + " (2, 4 and 8 only)");
    if (c.has_input(4)) c.unsupported("g_idx (act-order group indices)");
    if (c.i("weight_prepacked", 0) != 0)
        c.unsupported("weight_prepacked=" + std::to_string(c.i("weight_prepacked", 0)) +
                      " (B in a CUDA kernel's layout; export without matmulnbits_weights_prepacked)");
    const ElementType real = c.input(2).type();
    if (real != ElementType::f32 && real != ElementType::f16)
        c.unsupported("scales of type " + std::string(ir_name(real)) + " (f32 and f16 only)");
    const ElementType stored = bits == 8 ? ElementType::u8 : ElementType::u4;
    const int64_t per_byte = 8 / bits;
    const Tensor* packed = c.input_value(1);
    if (!packed || packed->type() != ElementType::u8 || block <= 0 || block % per_byte != 0)
        c.fail("B must be a constant uint8 [N, blocks, block_size * bits / 8]");
    if (k <= 0 || n <= 0) c.fail("K and N must be positive");
    const int64_t blocks = k / block + (k % block != 0 ? 1 : 0);  // ceil, without overflowing near INT64_MAX
    if (packed->shape() != Shape{n, blocks, block / per_byte}) c.fail("B's shape does not match K, N, bits and block_size");
    auto decompressed = [&](const std::string& name, const Tensor& t) {
        OutPort f = c.op("Convert", name + "_" + std::string(ir_name(real)), {c.constant(name, t)}, {{"destination_type", real}});
        f.node().rt_info()[kDecompression] = "0";
        return f;
    };
    const OutPort scales_in = c.input(2);
    OutPort w = decompressed("weights", bits == 2 ? repack_as_u4(*packed, 2, n * blocks, block, {n, blocks, block})
                                                  : Tensor(stored, {n, blocks, block}, packed->buffer()));
    OutPort zero_point;
    if (c.has_input(3)) {
        const Tensor* zp = c.input_value(3);
        if (!zp) c.unsupported("zero points that are not constant");
        if (zp->type() != ElementType::u8) c.unsupported("zero points of type " + std::string(ir_name(zp->type())) + " (packed uint8 only)");
        zero_point = decompressed("zero_point", nbits_zero_points(c, *zp, bits, n, blocks));
    } else {
        zero_point = c.scalar_like("zero_point", static_cast<double>(1 << (bits - 1)), scales_in);
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

// The constant behind `p`: its own value, or the value a Reshape of a constant views with p's
// static shape (GenAI's tied embeddings gather from Reshape(LM head weight)); nullptr otherwise.
std::optional<Tensor> constant_view(const OutPort& p) {
    if (const Tensor* v = p.value()) return *v;
    const Node n = p.node();
    if (!n.is("Reshape") || !n.in(0).connected() || !p.shape().is_static()) return std::nullopt;
    const Tensor* source = n.in(0).value();
    if (!source || source->type() != p.type()) return std::nullopt;
    const Shape shape = p.shape().to_shape();
    return Tensor(source->type(), shape, source->buffer());
}

// GatherBlockQuantized(data, indices, scales, zero_points?; gather_axis = 0, quantize_axis = 1,
// block_size = 128, bits = 4): Gather(dequantized data, indices, gather_axis), data quantized in
// blocks of block_size along quantize_axis, which must be its last axis (the only layout ONNX
// Runtime accepts for uint8 data, and what its quantizer and GenAI's builder write). Data is
// uint8 holding `bits`-bit values (4: two a byte, low nibble first; zero point default
// 2^(bits-1), zero points packed per row likewise) or INT4 / UINT4 (zero point default 0, zero
// points of the same type). As for MatMulNBits the values stay low-bit in the IR: a u4 / i4 / u8
// Constant [..., blocks, block] viewing the file's bytes, Convert to the scales' type (marked
// decompression) -> Subtract(zero point) -> Multiply(scale [..., blocks, 1]) -> Reshape to the
// logical shape -> Gather, the form OpenVINO's runtime gathers from compressed.
void gather_block_quantized(ExtractContext& c) {
    const int64_t bits = c.i("bits", 4), block = c.i("block_size", 128);
    const std::optional<Tensor> data = constant_view(c.input(0));
    if (!data) c.unsupported("data that is not a constant");
    const ElementType stored = data->type();
    const bool packed_u8 = stored == ElementType::u8;
    if (!packed_u8 && stored != ElementType::u4 && stored != ElementType::i4)
        c.unsupported("data of type " + std::string(ir_name(stored)) + " (uint8, UINT4 and INT4 only)");
    if (packed_u8 && bits != 2 && bits != 4 && bits != 8) c.unsupported("bits=" + std::to_string(bits) + " (2, 4 and 8 only)");
    if (!packed_u8 && bits != 4) c.fail("bits must be 4 for INT4 / UINT4 data, not " + std::to_string(bits));
    const Shape& shape = data->shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (rank < 1) c.fail("data must have rank 1 or more");
    int64_t gather_axis = c.i("gather_axis", 0), quantize_axis = c.i("quantize_axis", 1);
    if (gather_axis < -rank || gather_axis >= rank || quantize_axis < -rank || quantize_axis >= rank)
        c.fail("gather_axis and quantize_axis must be axes of the data (rank " + std::to_string(rank) + ")");
    gather_axis = gather_axis < 0 ? gather_axis + rank : gather_axis;
    quantize_axis = quantize_axis < 0 ? quantize_axis + rank : quantize_axis;
    if (quantize_axis != rank - 1) c.unsupported("a quantize_axis other than the data's last axis");
    if (gather_axis == quantize_axis) c.fail("gather_axis and quantize_axis must differ");
    const int64_t per_byte = packed_u8 ? 8 / bits : 1;
    const int64_t width = shape.back() * per_byte;  // values along quantize_axis
    if (block < 16 || (block & (block - 1)) != 0) c.fail("block_size must be a power of 2, at least 16");
    if (width % block != 0)
        c.unsupported("a quantized axis of " + std::to_string(width) + " values, not a multiple of block_size " +
                      std::to_string(block));
    const int64_t blocks = width / block;
    Shape lead(shape.begin(), shape.end() - 1), blocked = lead, per_block = lead, logical = lead;
    int64_t rows = 1;
    for (int64_t d : lead) rows *= d;
    blocked.insert(blocked.end(), {blocks, block});
    per_block.insert(per_block.end(), {blocks, 1});
    logical.push_back(width);

    const ElementType real = c.input(2).type();
    if (real != ElementType::f32 && real != ElementType::f16)
        c.unsupported("scales of type " + std::string(ir_name(real)) + " (f32 and f16 only)");
    auto decompressed = [&](const std::string& name, const Tensor& t) {
        OutPort f = c.op("Convert", name + "_" + std::string(ir_name(real)), {c.constant(name, t)}, {{"destination_type", real}});
        f.node().rt_info()[kDecompression] = "0";
        return f;
    };
    Tensor codes = !packed_u8 ? Tensor(stored, blocked, data->buffer())
                   : bits == 8 ? Tensor(ElementType::u8, blocked, data->buffer())
                   : bits == 4 ? Tensor(ElementType::u4, blocked, data->buffer())
                               : repack_as_u4(*data, 2, rows, width, blocked);
    OutPort w = decompressed("weights", codes);
    std::optional<OutPort> zero_point;
    if (c.has_input(3)) {
        const Tensor* zp = c.input_value(3);
        if (!zp) c.unsupported("zero points that are not constant");
        if (zp->type() != stored)
            c.fail("zero_points must have the data's type, not " + std::string(ir_name(zp->type())));
        Tensor z;
        if (!packed_u8) {  // one per scale, packed in the scales' order
            if (zp->size() != static_cast<size_t>(rows * blocks)) c.fail("zero_points must have one value per scale");
            z = Tensor(stored, per_block, zp->buffer());
        } else {  // each row of `blocks` values padded to whole bytes
            const int64_t row_bytes = (blocks * bits + 7) / 8;
            if (zp->size() != static_cast<size_t>(rows * row_bytes))
                c.fail("zero_points must have " + std::to_string(row_bytes) + " byte(s) for each of the " +
                       std::to_string(rows) + " rows");
            z = bits == 8 ? Tensor(ElementType::u8, per_block, zp->buffer())
                : bits == 4 && blocks % 2 == 0 ? Tensor(ElementType::u4, per_block, zp->buffer())
                                               : repack_as_u4(*zp, bits, rows, blocks, per_block);
        }
        zero_point = decompressed("zero_point", z);
    } else if (packed_u8) {
        zero_point = c.scalar_like("zero_point", static_cast<double>(1 << (bits - 1)), c.input(2));
    }
    if (zero_point) w = c.op("Subtract", "centered", {w, *zero_point});
    Shape scales_shape = lead;
    scales_shape.push_back(blocks);
    if (!c.input(2).shape().rank_is_static() || c.input(2).shape() != PartialShape(scales_shape))
        c.fail("scales must be [" + PartialShape(scales_shape).to_string() + "]: the data's shape with blocks of " +
               std::to_string(block) + " along its last axis");
    OutPort scales = c.op("Reshape", "scales", {c.input(2), c.i64s("scales/shape", std::vector<int64_t>(per_block.begin(), per_block.end()))},
                          {{"special_zero", false}});
    OutPort table = c.op("Multiply", "dequantized", {w, scales});
    table = c.op("Reshape", "table", {table, c.i64s("table/shape", std::vector<int64_t>(logical.begin(), logical.end()))},
                 {{"special_zero", false}});
    c.set_output(0, c.op("Gather", "", {table, c.input(1), c.i64("axis", gather_axis)}, {{"batch_dims", int64_t{0}}}));
}

}  // namespace

void register_onnx_microsoft_contrib(ExtractorRegistry& r) {
    r.add({"onnx", kDomain, "GatherBlockQuantized", 1, INT64_MAX, gather_block_quantized});
    r.add({"onnx", kDomain, "MatMulNBits", 1, INT64_MAX, matmul_nbits});
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
