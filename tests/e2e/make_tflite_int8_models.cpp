// Writes the full-integer TFLite fixtures of tests/e2e/data/tflite_int8 (model.tflite and
// input_<i>.npy per directory) with fixed random weights; scripts/tflite_outputs.js then runs the
// TFLite interpreter on them for output_<i>.npy. Not run by CI:
//   ./build/tests/mo-make-tflite-int8-models tests/e2e/data/tflite_int8 [--all-outputs]
// Scales are chosen by hand so that little saturates: with --all-outputs, at most 4% of a tensor
// sits at the top of its grid (the bottom of a RELU's grid is its zero).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "support/tflite_model_builder.hpp"
#include "support/write_file.hpp"

namespace {

namespace fs = std::filesystem;
using mo::test::TfliteModelBuilder;
using mo::test::TfliteOptions;
using tflite::ActivationFunctionType;
using tflite::BuiltinOperator;
using tflite::TensorType;

// Platform-independent random numbers (the std distributions are not).
class Random {
public:
    explicit Random(uint32_t seed) : rng_(seed) {}
    double uniform(double lo, double hi) { return lo + (hi - lo) * (static_cast<double>(rng_()) / 4294967296.0); }
    int64_t integer(int64_t lo, int64_t hi) {
        return lo + static_cast<int64_t>(rng_() % static_cast<uint32_t>(hi - lo + 1));
    }

private:
    std::mt19937 rng_;
};

template <typename T>
std::vector<T> integers(Random& r, size_t n, int64_t lo, int64_t hi) {
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(r.integer(lo, hi));
    return v;
}

std::vector<float> scales(Random& r, size_t n, double lo, double hi) {
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(r.uniform(lo, hi));
    return v;
}

template <typename T>
int constant(TfliteModelBuilder& m, const std::string& name, std::vector<int32_t> shape, TensorType type,
             const std::vector<T>& values) {
    return m.constant_bytes(name, std::move(shape), type, values.data(), values.size() * sizeof(T));
}

struct Weights {
    int tensor;
    std::vector<float> scales;
};

// An int8 weight tensor quantized per channel along `axis` (symmetric, zero point 0), or per
// tensor when `per_channel` is false.
Weights int8_weights(TfliteModelBuilder& m, Random& r, const std::string& name, std::vector<int32_t> shape,
                     int32_t axis, double scale_lo, double scale_hi, bool per_channel = true) {
    size_t n = 1;
    for (int32_t d : shape) n *= static_cast<size_t>(d);
    const size_t channels = per_channel ? static_cast<size_t>(shape[static_cast<size_t>(axis)]) : 1;
    const int t = constant(m, name, shape, TensorType::INT8, integers<int8_t>(r, n, -127, 127));
    Weights w{t, scales(r, channels, scale_lo, scale_hi)};
    m.quantize(t, w.scales, std::vector<int64_t>(channels, 0), axis);
    return w;
}

// A bias of `type` (int32 or int64) with scale input_scale · weight_scale[c] and zero point 0,
// `channels` values in [-magnitude, magnitude].
int bias(TfliteModelBuilder& m, Random& r, const std::string& name, float input_scale, const Weights& w,
         size_t channels, double magnitude, TensorType type = TensorType::INT32) {
    std::vector<float> s(w.scales.size());
    for (size_t c = 0; c < s.size(); ++c) s[c] = input_scale * w.scales[c];
    std::vector<int64_t> q(channels);
    for (size_t c = 0; c < channels; ++c)
        q[c] = std::llround(r.uniform(-magnitude, magnitude) / s[s.size() == 1 ? 0 : c]);
    const int32_t dims = static_cast<int32_t>(channels);
    const int t = type == TensorType::INT64 ? constant(m, name, {dims}, type, q)
                                            : constant(m, name, {dims}, type, std::vector<int32_t>(q.begin(), q.end()));
    m.quantize(t, s, std::vector<int64_t>(s.size(), 0));
    return t;
}

// --all-outputs: every quantized activation is a model output too, to find where a difference starts.
bool g_all_outputs = false;

// A quantized activation tensor.
int activation(TfliteModelBuilder& m, const std::string& name, std::vector<int32_t> shape, TensorType type, float scale,
               int64_t zero_point) {
    const int t = m.tensor(name, std::move(shape), type);
    m.quantize(t, {scale}, {zero_point});
    if (g_all_outputs) m.output(t);
    return t;
}

template <typename Options>
TfliteOptions options(tflite::BuiltinOptions type, Options make) {
    return [=](flatbuffers::FlatBufferBuilder& fb) { return std::make_pair(type, make(fb).Union()); };
}

TfliteOptions conv(ActivationFunctionType act) {
    return options(tflite::BuiltinOptions::Conv2DOptions, [=](flatbuffers::FlatBufferBuilder& fb) {
        return tflite::CreateConv2DOptions(fb, tflite::Padding::SAME, 1, 1, act);
    });
}

TfliteOptions depthwise(ActivationFunctionType act) {
    return options(tflite::BuiltinOptions::DepthwiseConv2DOptions, [=](flatbuffers::FlatBufferBuilder& fb) {
        return tflite::CreateDepthwiseConv2DOptions(fb, tflite::Padding::SAME, 1, 1, 1, act);
    });
}

TfliteOptions pool(int size) {
    return options(tflite::BuiltinOptions::Pool2DOptions, [=](flatbuffers::FlatBufferBuilder& fb) {
        return tflite::CreatePool2DOptions(fb, tflite::Padding::VALID, size, size, size, size);
    });
}

TfliteOptions fully_connected(ActivationFunctionType act = ActivationFunctionType::NONE) {
    return options(tflite::BuiltinOptions::FullyConnectedOptions,
                   [=](flatbuffers::FlatBufferBuilder& fb) { return tflite::CreateFullyConnectedOptions(fb, act); });
}

mo::Tensor uniform_input(Random& r, mo::Shape shape, double lo, double hi) {
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(r.uniform(lo, hi));
    return mo::Tensor::from_vector<float>(v, shape);
}


// Per-tensor uint8 weights (zero point 128) of `shape`, stored values in [lo, hi].
Weights uint8_weights(TfliteModelBuilder& m, Random& r, const std::string& name, std::vector<int32_t> shape,
                      float scale, int64_t lo = 1, int64_t hi = 255) {
    size_t n = 1;
    for (int32_t d : shape) n *= static_cast<size_t>(d);
    const int t = constant(m, name, shape, TensorType::UINT8, integers<uint8_t>(r, n, lo, hi));
    m.quantize(t, {scale}, {128});
    return {t, {scale}};
}

TfliteOptions softmax() {
    return options(tflite::BuiltinOptions::SoftmaxOptions,
                   [](flatbuffers::FlatBufferBuilder& fb) { return tflite::CreateSoftmaxOptions(fb, 1.0f); });
}

TfliteOptions mean(bool keep_dims) {
    return options(tflite::BuiltinOptions::ReducerOptions,
                   [=](flatbuffers::FlatBufferBuilder& fb) { return tflite::CreateReducerOptions(fb, keep_dims); });
}

// f32 in and out (QUANTIZE at the input, DEQUANTIZE at the outputs), int8 activations:
// CONV_2D (per-channel weights, int32 bias, RELU6) -> DEPTHWISE_CONV_2D (per channel) -> ADD
// -> AVERAGE_POOL_2D -> FULLY_CONNECTED (per-tensor weights, RELU) -> FULLY_CONNECTED -> SOFTMAX.
void int8_cnn(const fs::path& dir) {
    Random r(1);
    TfliteModelBuilder m;
    const int x = m.input("x", {1, 8, 8, 3});
    const float sx = 1.0f / 128;
    const int xq = activation(m, "x_int8", {1, 8, 8, 3}, TensorType::INT8, sx, 0);
    m.op(BuiltinOperator::QUANTIZE, {x}, {xq});

    const Weights w1 = int8_weights(m, r, "conv/weights", {16, 3, 3, 3}, 0, 0.003, 0.006);
    const float s1 = 6.0f / 255;
    const int c1 = activation(m, "conv", {1, 8, 8, 16}, TensorType::INT8, s1, -128);
    m.op(BuiltinOperator::CONV_2D, {xq, w1.tensor, bias(m, r, "conv/bias", sx, w1, 16, 0.5)}, {c1},
         conv(ActivationFunctionType::RELU6));

    const Weights w2 = int8_weights(m, r, "depthwise/weights", {1, 3, 3, 16}, 3, 0.004, 0.008);
    const float s2 = 12.0f / 255;
    const int c2 = activation(m, "depthwise", {1, 8, 8, 16}, TensorType::INT8, s2, 0);
    m.op(BuiltinOperator::DEPTHWISE_CONV_2D, {c1, w2.tensor, bias(m, r, "depthwise/bias", s1, w2, 16, 0.5)}, {c2},
         depthwise(ActivationFunctionType::NONE));

    const float s3 = 18.0f / 255;
    const int sum = activation(m, "add", {1, 8, 8, 16}, TensorType::INT8, s3, -43);
    m.op(BuiltinOperator::ADD, {c1, c2}, {sum});

    const int pooled = activation(m, "pool", {1, 4, 4, 16}, TensorType::INT8, s3, -43);
    m.op(BuiltinOperator::AVERAGE_POOL_2D, {sum}, {pooled}, pool(2));

    const Weights w3 = int8_weights(m, r, "hidden/weights", {32, 256}, 0, 0.001, 0.001, false);
    const float s4 = 12.0f / 255;
    const int hidden = activation(m, "hidden", {1, 32}, TensorType::INT8, s4, -128);
    m.op(BuiltinOperator::FULLY_CONNECTED, {pooled, w3.tensor, bias(m, r, "hidden/bias", s3, w3, 32, 1.0)}, {hidden},
         fully_connected(ActivationFunctionType::RELU));

    const Weights w4 = int8_weights(m, r, "logits/weights", {10, 32}, 0, 0.006, 0.006, false);
    const float s5 = 20.0f / 255;
    const int dense = activation(m, "logits_int8", {1, 10}, TensorType::INT8, s5, 0);
    m.op(BuiltinOperator::FULLY_CONNECTED, {hidden, w4.tensor, bias(m, r, "logits/bias", s4, w4, 10, 1.0)}, {dense},
         fully_connected());

    const int probs = activation(m, "softmax", {1, 10}, TensorType::INT8, 1.0f / 256, -128);
    m.op(BuiltinOperator::SOFTMAX, {dense}, {probs}, softmax());
    const int y = m.tensor("y", {1, 10});
    m.op(BuiltinOperator::DEQUANTIZE, {probs}, {y});
    m.output(y);
    // The logits too: their steps are coarser than the probabilities'.
    const int logits = m.tensor("logits", {1, 10});
    m.op(BuiltinOperator::DEQUANTIZE, {dense}, {logits});
    m.output(logits);
    Random data(100);
    save_fixture(m, dir, {uniform_input(data, {1, 8, 8, 3}, -1, 1)});
}

// f32 in and out, uint8 per-tensor quantization: CONV_2D (uint8 weights with zero point 128,
// RELU), LOGISTIC (fixed scale 1/256), MUL, CONCATENATION, MEAN (to another scale).
void uint8_ops(const fs::path& dir) {
    Random r(2);
    TfliteModelBuilder m;
    const int x = m.input("x", {1, 6, 6, 4});
    const float sx = 2.0f / 255;
    const int xq = activation(m, "x_uint8", {1, 6, 6, 4}, TensorType::UINT8, sx, 128);
    m.op(BuiltinOperator::QUANTIZE, {x}, {xq});

    // One grid for the CONCATENATION's inputs and output: the runtime these fixtures are checked
    // against (tfjs-tflite's XNNPACK delegate) copies the stored bytes of inputs whose scales
    // differ from the output's instead of requantizing them (docs/tflite.md).
    const float s = 2.0f / 255;
    const int64_t zp = 40;
    const Weights w = uint8_weights(m, r, "conv/weights", {6, 1, 1, 4}, 0.01f);
    const int c = activation(m, "conv", {1, 6, 6, 6}, TensorType::UINT8, s, zp);
    m.op(BuiltinOperator::CONV_2D, {xq, w.tensor, bias(m, r, "conv/bias", sx, w, 6, 0.3)}, {c},
         conv(ActivationFunctionType::RELU));

    const int gate = activation(m, "sigmoid", {1, 6, 6, 4}, TensorType::UINT8, 1.0f / 256, 0);
    m.op(BuiltinOperator::LOGISTIC, {xq}, {gate});
    const int product = activation(m, "mul", {1, 6, 6, 4}, TensorType::UINT8, s, zp);
    m.op(BuiltinOperator::MUL, {xq, gate}, {product});

    const int joined = activation(m, "concat", {1, 6, 6, 10}, TensorType::UINT8, s, zp);
    m.op(BuiltinOperator::CONCATENATION, {c, product}, {joined},
         options(tflite::BuiltinOptions::ConcatenationOptions,
                 [](flatbuffers::FlatBufferBuilder& fb) { return tflite::CreateConcatenationOptions(fb, 3); }));

    const int axes = m.constant_i32("mean/axes", {2}, {1, 2});
    const int averaged = activation(m, "mean", {1, 10}, TensorType::UINT8, 1.0f / 255, 40);
    m.op(BuiltinOperator::MEAN, {joined, axes}, {averaged}, mean(false));
    const int y = m.tensor("y", {1, 10});
    m.op(BuiltinOperator::DEQUANTIZE, {averaged}, {y});
    m.output(y);
    const int z = m.tensor("joined", {1, 6, 6, 10});
    m.op(BuiltinOperator::DEQUANTIZE, {joined}, {z});
    m.output(z);
    Random data(200);
    save_fixture(m, dir, {uniform_input(data, {1, 6, 6, 4}, -1, 1)});
}

// f32 in and out, 16x8: int16 activations (zero point 0) with int8 weights and int64 biases:
// CONV_2D (per channel, RELU) -> FULLY_CONNECTED.
void int16x8(const fs::path& dir) {
    Random r(3);
    TfliteModelBuilder m;
    const int x = m.input("x", {1, 6, 6, 3});
    const float sx = 1.0f / 32767;
    const int xq = activation(m, "x_int16", {1, 6, 6, 3}, TensorType::INT16, sx, 0);
    m.op(BuiltinOperator::QUANTIZE, {x}, {xq});

    const Weights w1 = int8_weights(m, r, "conv/weights", {8, 3, 3, 3}, 0, 0.004, 0.008);
    const float s1 = 4.0f / 32767;
    const int c1 = activation(m, "conv", {1, 6, 6, 8}, TensorType::INT16, s1, 0);
    m.op(BuiltinOperator::CONV_2D, {xq, w1.tensor, bias(m, r, "conv/bias", sx, w1, 8, 0.5, TensorType::INT64)}, {c1},
         conv(ActivationFunctionType::RELU));

    const Weights w2 = int8_weights(m, r, "dense/weights", {5, 288}, 0, 0.0008, 0.0008, false);
    const float s2 = 16.0f / 32767;
    const int dense = activation(m, "dense", {1, 5}, TensorType::INT16, s2, 0);
    m.op(BuiltinOperator::FULLY_CONNECTED, {c1, w2.tensor, bias(m, r, "dense/bias", s1, w2, 5, 1.0, TensorType::INT64)},
         {dense}, fully_connected());
    const int y = m.tensor("y", {1, 5});
    m.op(BuiltinOperator::DEQUANTIZE, {dense}, {y});
    m.output(y);
    Random data(300);
    save_fixture(m, dir, {uniform_input(data, {1, 6, 6, 3}, -1, 1)});
}

// int8 in and out (full-integer interface): CONV_2D (per channel, RELU) -> MAX_POOL_2D -> MEAN
// -> LOGISTIC; the pooled tensor, the mean and the sigmoid are int8 outputs.
void int8_io(const fs::path& dir) {
    Random r(4);
    TfliteModelBuilder m;
    const float sx = 0.02f;
    const int x = m.input("x", {1, 6, 6, 4}, TensorType::INT8);
    m.quantize(x, {sx}, {10});
    const Weights w = int8_weights(m, r, "conv/weights", {8, 3, 3, 4}, 0, 0.004, 0.008);
    const float s1 = 4.0f / 255;
    const int c = activation(m, "conv", {1, 6, 6, 8}, TensorType::INT8, s1, -128);
    m.op(BuiltinOperator::CONV_2D, {x, w.tensor, bias(m, r, "conv/bias", sx, w, 8, 0.5)}, {c},
         conv(ActivationFunctionType::RELU));
    const int pooled = activation(m, "pool", {1, 3, 3, 8}, TensorType::INT8, s1, -128);
    m.op(BuiltinOperator::MAX_POOL_2D, {c}, {pooled}, pool(2));
    const int axes = m.constant_i32("mean/axes", {2}, {1, 2});
    const float s2 = 3.0f / 255;
    const int averaged = activation(m, "mean", {1, 8}, TensorType::INT8, s2, -128);
    m.op(BuiltinOperator::MEAN, {pooled, axes}, {averaged}, mean(false));
    const int gate = activation(m, "sigmoid", {1, 8}, TensorType::INT8, 1.0f / 256, -128);
    m.op(BuiltinOperator::LOGISTIC, {averaged}, {gate});
    m.output(pooled);
    m.output(averaged);
    m.output(gate);
    Random data(400);
    std::vector<int8_t> input(6 * 6 * 4);
    for (int8_t& v : input) v = static_cast<int8_t>(data.integer(-128, 127));
    save_fixture(m, dir, {mo::Tensor::from_vector<int8_t>(input, {1, 6, 6, 4})});
}

// A float model whose weights are stored quantized: DEQUANTIZE of int8 per-channel convolution
// weights and of uint8 per-tensor (zero point 128) dense weights feeding float ops.
void dequantize_weights(const fs::path& dir) {
    Random r(5);
    TfliteModelBuilder m;
    const int x = m.input("x", {1, 5, 5, 2});
    const Weights w1 = int8_weights(m, r, "conv/weights_int8", {4, 3, 3, 2}, 0, 0.01, 0.02);
    const int w1f = m.tensor("conv/weights", {4, 3, 3, 2});
    m.op(BuiltinOperator::DEQUANTIZE, {w1.tensor}, {w1f});
    std::vector<float> b1(4);
    for (float& v : b1) v = static_cast<float>(r.uniform(-0.2, 0.2));
    const int c = m.tensor("conv", {1, 5, 5, 4});
    m.op(BuiltinOperator::CONV_2D, {x, w1f, m.constant("conv/bias", {4}, b1)}, {c}, conv(ActivationFunctionType::RELU));
    const Weights w2 = uint8_weights(m, r, "dense/weights_uint8", {6, 100}, 0.005f);
    const int w2f = m.tensor("dense/weights", {6, 100});
    m.op(BuiltinOperator::DEQUANTIZE, {w2.tensor}, {w2f});
    const int y = m.tensor("y", {1, 6});
    m.op(BuiltinOperator::FULLY_CONNECTED, {c, w2f, -1}, {y}, fully_connected());
    m.output(y);
    Random data(500);
    save_fixture(m, dir, {uniform_input(data, {1, 5, 5, 2}, -1, 1)});
}

// uint8 in and out, the form of Coral's quantized SSD MobileNet v2 (its first inverted residual
// block, scaled down): CONV_2D 3x3 (RELU6) -> DEPTHWISE_CONV_2D 3x3 (RELU6) -> CONV_2D 1x1. Each
// multiplier input scale · weight scale / output scale is about 0.2 (a right shift of 2, as in
// the SSD's first depthwise convolution), where TFLite's reference requantization rounds twice
// (MultiplyByQuantizedMultiplier) and XNNPACK once. All three tensors are outputs.
void uint8_requantize(const fs::path& dir) {
    Random r(6);
    TfliteModelBuilder m;
    const float sx = 1.0f / 128, s6 = 6.0f / 255, sp = 0.25f;
    const int x = m.input("image", {1, 10, 10, 3}, TensorType::UINT8);
    m.quantize(x, {sx}, {128});
    const Weights w1 = uint8_weights(m, r, "expand/weights", {8, 3, 3, 3}, 0.6f, 126, 130);
    const int c1 = activation(m, "expand", {1, 10, 10, 8}, TensorType::UINT8, s6, 0);
    m.op(BuiltinOperator::CONV_2D, {x, w1.tensor, bias(m, r, "expand/bias", sx, w1, 8, 1.5)}, {c1},
         conv(ActivationFunctionType::RELU6));
    const Weights w2 = uint8_weights(m, r, "depthwise/weights", {1, 3, 3, 8}, 0.2f, 125, 131);
    const int c2 = activation(m, "depthwise", {1, 10, 10, 8}, TensorType::UINT8, s6, 0);
    m.op(BuiltinOperator::DEPTHWISE_CONV_2D, {c1, w2.tensor, bias(m, r, "depthwise/bias", s6, w2, 8, 1.5)}, {c2},
         depthwise(ActivationFunctionType::RELU6));
    const Weights w3 = uint8_weights(m, r, "project/weights", {4, 1, 1, 8}, 2.1f, 127, 129);
    const int c3 = activation(m, "project", {1, 10, 10, 4}, TensorType::UINT8, sp, 128);
    m.op(BuiltinOperator::CONV_2D, {c2, w3.tensor, bias(m, r, "project/bias", s6, w3, 4, 3.0)}, {c3},
         conv(ActivationFunctionType::NONE));
    if (!g_all_outputs)
        for (int t : {c1, c2, c3}) m.output(t);
    Random data(600);
    std::vector<uint8_t> image(10 * 10 * 3);
    for (uint8_t& v : image) v = static_cast<uint8_t>(data.integer(0, 255));
    save_fixture(m, dir, {mo::Tensor::from_vector<uint8_t>(image, {1, 10, 10, 3})});
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 && !(argc == 3 && std::string(argv[2]) == "--all-outputs")) {
        std::fprintf(stderr, "usage: %s OUT_DIR [--all-outputs]\n", argv[0]);
        return 2;
    }
    g_all_outputs = argc == 3;
    const fs::path out = argv[1];
    int8_cnn(out / "int8_cnn");
    uint8_ops(out / "uint8_ops");
    int16x8(out / "int16x8");
    int8_io(out / "int8_io");
    dequantize_weights(out / "dequantize_weights");
    uint8_requantize(out / "uint8_requantize");
    return 0;
}
