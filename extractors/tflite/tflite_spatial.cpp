// Spatial rearrangements and windows: SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND (Pad / Reshape /
// Transpose / Reshape / Slice, for static shapes and constant blocks), L2_POOL_2D and
// LOCAL_RESPONSE_NORMALIZATION (NHWC, over the channels).
#include "extractors/tensorflow_family.hpp"
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

struct Blocks {
    Shape x;                               // the input's static shape
    std::vector<int64_t> block, pad_begin, pad_end;  // per spatial dim (paddings or crops)
};

Blocks blocks(ExtractContext& c, const char* op) {
    const PartialShape& s = c.input(0).shape();
    if (!s.is_static()) c.unsupported(std::string(op) + " of an input of dynamic shape [" + s.to_string() + "]");
    Blocks b{s.to_shape(), c.input_ints(1), {}, {}};
    const std::vector<int64_t> pads = c.input_ints(2);
    const size_t m = b.block.size();
    if (pads.size() != 2 * m || b.x.size() < m + 1)
        c.fail("block shape, paddings and input rank disagree", "the model is corrupt; re-export it");
    for (size_t i = 0; i < m; ++i) {
        // TFLite's block shape and paddings are int32: larger values are a corrupt file, and
        // keep the products below from overflowing.
        if (b.block[i] < 1 || pads[2 * i] < 0 || pads[2 * i + 1] < 0 || b.block[i] > INT32_MAX || pads[2 * i] > INT32_MAX ||
            pads[2 * i + 1] > INT32_MAX)
            c.fail("a block size outside [1, 2^31) or a padding outside [0, 2^31)", "the model is corrupt; re-export it");
        b.pad_begin.push_back(pads[2 * i]);
        b.pad_end.push_back(pads[2 * i + 1]);
    }
    return b;
}

OutPort reshape(ExtractContext& c, const std::string& suffix, const OutPort& x, const std::vector<int64_t>& shape) {
    return c.op("Reshape", suffix, {x, c.i64s(suffix + "/shape", shape)}, {{"special_zero", false}});
}

// [N, S1..SM, R...] padded, each S_i split into (S_i / b_i, b_i), the block axes moved in front of
// N: [b1 · ... · bM · N, S1 / b1, ..., R...] (batch index (i1 · b2 + i2 ...) · N + n, as TensorFlow).
void space_to_batch(ExtractContext& c) {
    const Blocks b = blocks(c, "SPACE_TO_BATCH_ND");
    const size_t m = b.block.size(), rank = b.x.size();
    std::vector<int64_t> begin(rank, 0), end(rank, 0);
    std::vector<int64_t> split{b.x[0]}, perm, out{b.x[0]};
    for (size_t i = 0; i < m; ++i) {
        begin[i + 1] = b.pad_begin[i];
        end[i + 1] = b.pad_end[i];
        const int64_t padded = b.x[i + 1] + b.pad_begin[i] + b.pad_end[i];
        if (padded % b.block[i] != 0)
            c.fail("padded spatial dimension " + std::to_string(padded) + " is not a multiple of its block " +
                   std::to_string(b.block[i]), "the model is corrupt; re-export it");
        split.insert(split.end(), {padded / b.block[i], b.block[i]});
        if (__builtin_mul_overflow(out[0], b.block[i], &out[0])) c.fail("the batch overflows", "the model is corrupt; re-export it");
        out.push_back(padded / b.block[i]);
        perm.push_back(static_cast<int64_t>(2 + 2 * i));
    }
    perm.push_back(0);
    for (size_t i = 0; i < m; ++i) perm.push_back(static_cast<int64_t>(1 + 2 * i));
    for (size_t j = m + 1; j < rank; ++j) {
        split.push_back(b.x[j]);
        out.push_back(b.x[j]);
        perm.push_back(static_cast<int64_t>(split.size() - 1));
    }
    OutPort y = c.op("Pad", "padded", {c.input(0), c.i64s("padded/begin", begin), c.i64s("padded/end", end)},
                     {{"pad_mode", std::string("constant")}});
    y = reshape(c, "blocks", y, split);
    y = c.op("Transpose", "blocks_first", {y, c.i64s("blocks_first/order", perm)});
    c.set_output(0, reshape(c, "", y, out));
}

// The inverse: [b1 · ... · bM · N, S1..SM, R...] -> [N, S1 · b1 - crops, ..., R...].
void batch_to_space(ExtractContext& c) {
    const Blocks b = blocks(c, "BATCH_TO_SPACE_ND");
    const size_t m = b.block.size(), rank = b.x.size();
    int64_t blocks_total = 1;
    for (int64_t k : b.block)
        if (__builtin_mul_overflow(blocks_total, k, &blocks_total)) c.fail("the blocks overflow", "the model is corrupt; re-export it");
    if (b.x[0] % blocks_total != 0)
        c.fail("batch " + std::to_string(b.x[0]) + " is not a multiple of the blocks' " + std::to_string(blocks_total),
               "the model is corrupt; re-export it");
    std::vector<int64_t> split(b.block.begin(), b.block.end()), perm{static_cast<int64_t>(m)}, joined{b.x[0] / blocks_total};
    split.push_back(b.x[0] / blocks_total);
    std::vector<int64_t> starts, stops, axes;
    for (size_t i = 0; i < m; ++i) {
        split.push_back(b.x[i + 1]);
        perm.insert(perm.end(), {static_cast<int64_t>(m + 1 + i), static_cast<int64_t>(i)});
        joined.push_back(0);
        if (__builtin_mul_overflow(b.x[i + 1], b.block[i], &joined.back())) c.fail("a spatial size overflows", "the model is corrupt; re-export it");
        starts.push_back(b.pad_begin[i]);
        stops.push_back(joined.back() - b.pad_end[i]);
        axes.push_back(static_cast<int64_t>(i + 1));
        if (stops.back() < starts.back()) c.fail("crops larger than the output", "the model is corrupt; re-export it");
    }
    for (size_t j = m + 1; j < rank; ++j) {
        split.push_back(b.x[j]);
        joined.push_back(b.x[j]);
        perm.push_back(static_cast<int64_t>(split.size() - 1));
    }
    OutPort y = reshape(c, "blocks", c.input(0), split);
    y = c.op("Transpose", "interleaved", {y, c.i64s("interleaved/order", perm)});
    y = reshape(c, "joined", y, joined);
    c.set_output(0, c.op("Slice", "", {y, c.i64s("crop/start", starts), c.i64s("crop/stop", stops),
                                       c.i64s("crop/step", std::vector<int64_t>(m, 1)), c.i64s("crop/axes", axes)}));
}

// L2_POOL_2D: sqrt of the mean of the squares over each window (the input pixels of it), NHWC.
void l2_pool(ExtractContext& c) {
    const int64_t padding = c.i("padding", 0);
    if (padding != 0 && padding != 1) c.fail("padding " + std::to_string(padding) + " is neither SAME (0) nor VALID (1)");
    AttrMap a{{"strides", std::vector<int64_t>{c.i("stride_h", 1), c.i("stride_w", 1)}},
              {"pads_begin", std::vector<int64_t>{0, 0}},
              {"pads_end", std::vector<int64_t>{0, 0}},
              {"auto_pad", std::string(padding == 0 ? "same_upper" : "valid")},
              {"kernel", std::vector<int64_t>{c.i("filter_height"), c.i("filter_width")}}};
    tf_family::add_pool_attrs(a, false);
    OutPort x = tf_family::transpose(c, "to_nchw", c.input(0), tf_family::kToNchw);
    OutPort y = c.op("AvgPool", "mean_square", {c.op("Multiply", "square", {x, x})}, a);
    y = tflite_activation(c, c.op("Sqrt", "root", {y}), "activation");
    c.set_output(0, tf_family::transpose(c, "", y, tf_family::kToNhwc));
}

// LOCAL_RESPONSE_NORMALIZATION over the last axis: x / (bias + alpha · sum of x² over
// [c - radius, c + radius])^beta. OpenVINO's LRN divides alpha by the window size: it gets alpha · size.
void local_response_normalization(ExtractContext& c) {
    const int64_t radius = c.i("radius", 0);
    if (radius < 0) c.fail("radius " + std::to_string(radius) + " is negative", "the model is corrupt; re-export it");
    const int64_t size = 2 * radius + 1;
    const int64_t rank = ExtractContext::rank_of(c.input(0));
    if (rank < 1) c.unsupported("LOCAL_RESPONSE_NORMALIZATION of an input of unknown rank");
    c.set_output(0, c.op("LRN", "", {c.input(0), c.i64s("axes", {rank - 1})},
                         {{"alpha", c.f("alpha", 0.0) * static_cast<double>(size)},
                          {"beta", c.f("beta", 0.0)},
                          {"bias", c.f("bias", 0.0)},
                          {"size", size}}));
}

}  // namespace

void register_tflite_spatial(ExtractorRegistry& r) {
    r.add({"tflite", "", "SPACE_TO_BATCH_ND", 1, INT64_MAX, space_to_batch});
    r.add({"tflite", "", "BATCH_TO_SPACE_ND", 1, INT64_MAX, batch_to_space});
    r.add({"tflite", "", "L2_POOL_2D", 1, INT64_MAX, l2_pool});
    r.add({"tflite", "", "LOCAL_RESPONSE_NORMALIZATION", 1, INT64_MAX, local_response_normalization});
}

}  // namespace mo
