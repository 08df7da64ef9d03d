// BatchNorm (mean, variance and the moving-average scale factor blob; the learned affine part
// is a Scale layer after it), LRN (across or within channels), Softmax (axis), MVN and the SSD
// fork's Normalize (L2 normalisation with a learned scale).
#include <cmath>

#include "extractors/caffe/caffe_extractors.hpp"

namespace mo {

namespace {

// y = (x - mean / f) / sqrt(var / f + eps) where f is blob 2 (0 means 0), computed in f32 as
// Caffe does and applied as x * scale + shift.
void batch_norm(ExtractContext& c) {
    const std::string p = "batch_norm_param.";
    if (c.has(p + "use_global_stats") && c.i(p + "use_global_stats") == 0)
        c.unsupported("BatchNorm with use_global_stats: false (normalising by the batch's own statistics)");
    const Tensor mean = caffe::blob(c, 0, "mean").aligned(), var = caffe::blob(c, 1, "variance").aligned(),
                 factor = caffe::blob(c, 2, "scale factor").aligned();
    if (mean.size() != var.size() || factor.size() != 1)
        c.fail("mean and variance must have one value per channel and the scale factor one value");
    const float f = factor.data<float>()[0] == 0.0f ? 0.0f : 1.0f / factor.data<float>()[0];
    const float eps = static_cast<float>(c.f(p + "eps", 1e-5));
    const int64_t channels = static_cast<int64_t>(mean.size());
    Tensor scale = Tensor::allocate(ElementType::f32, {channels}), shift = Tensor::allocate(ElementType::f32, {channels});
    for (int64_t i = 0; i < channels; ++i) {
        const float m = mean.data<float>()[i] * f, v = var.data<float>()[i] * f;
        const float s = 1.0f / std::sqrt(v + eps);
        scale.mutable_data<float>()[i] = s;
        shift.mutable_data<float>()[i] = -m * s;
    }
    const int64_t rank = caffe::input_rank(c, 0, "BatchNorm normalises along its axis 1");
    if (rank < 2) c.fail("BatchNorm needs an input of rank 2 or more");
    OutPort s = caffe::broadcast_along(c, c.constant("scale", scale), {channels}, 1, rank, "scale/shape");
    OutPort b = caffe::broadcast_along(c, c.constant("shift", shift), {channels}, 1, rank, "shift/shape");
    c.set_output(0, c.op("Add", "", {c.op("Multiply", "scaled", {c.input(0), s}), b}));
}

// ACROSS_CHANNELS: x / (k + alpha / n * sum over n channels of x^2)^beta; WITHIN_CHANNEL:
// x / (1 + alpha / n^2 * sum over an n x n window of x^2)^beta (Caffe's k does not apply there).
void lrn(ExtractContext& c) {
    const std::string p = "lrn_param.";
    const int64_t size = c.i(p + "local_size", 5);
    if (size < 1 || size % 2 == 0) c.fail("local_size must be odd, not " + std::to_string(size), "Caffe accepts odd sizes only");
    const bool across = c.s(p + "norm_region", "ACROSS_CHANNELS") == "ACROSS_CHANNELS";
    if (!across && caffe::input_rank(c, 0, "LRN within a channel needs it") != 4)
        c.unsupported("LRN within a channel of a tensor that is not 4-D");
    c.set_output(0, c.op("LRN", "", {c.input(0), c.i64s("axes", across ? std::vector<int64_t>{1} : std::vector<int64_t>{2, 3})},
                         {{"alpha", c.f(p + "alpha", 1.0)},
                          {"beta", c.f(p + "beta", 0.75)},
                          {"bias", across ? c.f(p + "k", 1.0) : 1.0},
                          {"size", size}}));
}

void softmax(ExtractContext& c) {
    c.set_output(0, c.op("Softmax", "", {c.input(0)}, {{"axis", c.i("softmax_param.axis", 1)}}));
}

// (x - mean) / (std + eps) over the spatial axes (and the channels with across_channels).
void mvn(ExtractContext& c) {
    const std::string p = "mvn_param.";
    const int64_t rank = caffe::input_rank(c, 0, "MVN reduces over its trailing axes");
    const int64_t from = c.i(p + "across_channels", 0) ? 1 : 2;
    if (rank <= from) c.fail("the input has no axes to normalise over");
    c.set_output(0, c.op("MVN", "", {c.input(0), c.axes_from("axes", c.input(0), from)},
                         {{"normalize_variance", c.i(p + "normalize_variance", 1) != 0},
                          {"eps", c.f(p + "eps", 1e-9)},
                          {"eps_mode", std::string("outside_sqrt")}}));
}

// SSD's Normalize: x / sqrt(sum of x^2 + eps) over C, H, W (across_spatial) or over C per
// position, times the learned scale (one value, or one per channel).
void normalize(ExtractContext& c) {
    const std::string p = "norm_param.";
    const int64_t rank = caffe::input_rank(c, 0, "Normalize reduces over its axes");
    if (rank < 2) c.fail("Normalize needs an input of rank 2 or more");
    const bool across_spatial = c.i(p + "across_spatial", 1) != 0;
    const bool shared = c.i(p + "channel_shared", 1) != 0;
    OutPort axes = across_spatial ? c.axes_from("axes", c.input(0), 1) : c.i64s("axes", {1});
    OutPort y = c.op("NormalizeL2", "normalized", {c.input(0), axes},
                     {{"eps", c.f(p + "eps", 1e-10)}, {"eps_mode", std::string("add")}});
    const Tensor scale = caffe::blob(c, 0, "scale");
    if (shared) {
        if (scale.size() != 1) c.fail("a shared scale must be one value, not " + std::to_string(scale.size()));
        y = c.op("Multiply", "", {y, caffe::blob_as(c, 0, "scale", {1})});
    } else {
        const int64_t channels = static_cast<int64_t>(scale.size());
        OutPort s = caffe::broadcast_along(c, caffe::blob_as(c, 0, "scale", {channels}), {channels}, 1, rank, "scale/shape");
        y = c.op("Multiply", "", {y, s});
    }
    c.set_output(0, y);
}

}  // namespace

void register_caffe_normalization(ExtractorRegistry& r) {
    caffe::add(r, "BatchNorm", batch_norm);
    caffe::add(r, "LRN", lrn);
    caffe::add(r, "Softmax", softmax);
    caffe::add(r, "MVN", mvn);
    caffe::add(r, "Normalize", normalize);
}

}  // namespace mo
