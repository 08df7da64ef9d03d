// TFLite models built by the test, converted by mo, evaluated from the IR read back, and compared
// with NHWC reference loops written here (independent of mo's ops and of the layout change).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/tflite_model_builder.hpp"
#include "driver/convert.hpp"
#include "core/evaluator.hpp"

namespace mo {
namespace {

using tflite::BuiltinOperator;
using Options = std::pair<tflite::BuiltinOptions, flatbuffers::Offset<void>>;

std::vector<float> ramp(size_t n, float from, float step) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = from + step * static_cast<float>(i % 7) - 0.01f * static_cast<float>(i);
    return v;
}

struct Nhwc {
    int n, h, w, c;
    std::vector<float> v;
    float at(int b, int y, int x, int ch) const {
        if (y < 0 || y >= h || x < 0 || x >= w) return 0.f;
        return v[static_cast<size_t>(((b * h + y) * w + x) * c + ch)];
    }
};

// TensorFlow's convolution: filter [O, KH, KW, I] (depthwise: [1, KH, KW, C * M], output channel
// c * M + m reads input channel c), SAME pads (k - 1) / 2 in front for stride 1.
Nhwc conv(const Nhwc& x, const std::vector<float>& f, int out, int k, int stride, int pad, const std::vector<float>& bias,
          bool depthwise) {
    const int oh = (x.h + 2 * pad - k) / stride + 1, ow = (x.w + 2 * pad - k) / stride + 1;
    Nhwc y{x.n, oh, ow, out, std::vector<float>(static_cast<size_t>(x.n * oh * ow * out))};
    const int m = out / x.c;
    for (int b = 0; b < x.n; ++b)
        for (int i = 0; i < oh; ++i)
            for (int j = 0; j < ow; ++j)
                for (int o = 0; o < out; ++o) {
                    double s = bias[static_cast<size_t>(o)];
                    for (int ky = 0; ky < k; ++ky)
                        for (int kx = 0; kx < k; ++kx) {
                            const int yy = i * stride + ky - pad, xx = j * stride + kx - pad;
                            if (depthwise) {
                                s += x.at(b, yy, xx, o / m) * f[static_cast<size_t>((ky * k + kx) * out + o)];
                            } else {
                                for (int ci = 0; ci < x.c; ++ci)
                                    s += x.at(b, yy, xx, ci) * f[static_cast<size_t>(((o * k + ky) * k + kx) * x.c + ci)];
                            }
                        }
                    y.v[static_cast<size_t>(((b * oh + i) * ow + j) * out + o)] = static_cast<float>(s);
                }
    return y;
}

Options conv_options(flatbuffers::FlatBufferBuilder& fb, tflite::Padding pad, int stride,
                     tflite::ActivationFunctionType act) {
    return {tflite::BuiltinOptions::Conv2DOptions, tflite::CreateConv2DOptions(fb, pad, stride, stride, act).Union()};
}

struct BuiltModel {
    std::string path;
    Nhwc x;
    std::vector<float> out1, out2;  // the references
};

// x -> CONV_2D(SAME, RELU) -> MAX_POOL_2D -> ADD(const [C]) -> MEAN(1, 2) -> FULLY_CONNECTED -> out1
// x -> DEPTHWISE_CONV_2D(VALID, stride 2, x2, RELU6) -> RESHAPE [1, 16] -> out2
BuiltModel small_cnn() {
    test::TfliteModelBuilder m;
    BuiltModel r;
    r.x = {1, 5, 5, 2, ramp(50, -1.f, 0.3f)};
    const auto w1 = ramp(54, -0.5f, 0.15f), b1 = std::vector<float>{0.1f, -0.2f, 0.3f};
    const auto c3 = std::vector<float>{0.5f, -1.f, 2.f};
    const auto wfc = ramp(6, -0.4f, 0.2f), bfc = std::vector<float>{0.05f, -0.05f};
    const auto wdw = ramp(36, -0.3f, 0.1f), bdw = std::vector<float>{0.f, 0.1f, 0.2f, -0.1f};
    int x = m.input("x", {1, 5, 5, 2});
    int y1 = m.tensor("conv", {1, 5, 5, 3});
    m.op(BuiltinOperator::CONV_2D, {x, m.constant("w1", {3, 3, 3, 2}, w1), m.constant("b1", {3}, b1)}, {y1},
         [](auto& fb) { return conv_options(fb, tflite::Padding::SAME, 1, tflite::ActivationFunctionType::RELU); });
    int y2 = m.tensor("pool", {1, 2, 2, 3});
    m.op(BuiltinOperator::MAX_POOL_2D, {y1}, {y2}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::Pool2DOptions,
                       tflite::CreatePool2DOptions(fb, tflite::Padding::VALID, 2, 2, 2, 2).Union()};
    });
    int y3 = m.tensor("add", {1, 2, 2, 3});
    m.op(BuiltinOperator::ADD, {y2, m.constant("c3", {3}, c3)}, {y3});
    int y4 = m.tensor("mean", {1, 3});
    m.op(BuiltinOperator::MEAN, {y3, m.constant_i32("axes", {2}, {1, 2})}, {y4}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::ReducerOptions, tflite::CreateReducerOptions(fb, false).Union()};
    });
    int out1 = m.tensor("out1", {1, 2});
    m.op(BuiltinOperator::FULLY_CONNECTED, {y4, m.constant("wfc", {2, 3}, wfc), m.constant("bfc", {2}, bfc)}, {out1});
    int y5 = m.tensor("dw", {1, 2, 2, 4});
    m.op(BuiltinOperator::DEPTHWISE_CONV_2D, {x, m.constant("wdw", {1, 3, 3, 4}, wdw), m.constant("bdw", {4}, bdw)}, {y5},
         [](auto& fb) {
             return Options{tflite::BuiltinOptions::DepthwiseConv2DOptions,
                            tflite::CreateDepthwiseConv2DOptions(fb, tflite::Padding::VALID, 2, 2, 2,
                                                                 tflite::ActivationFunctionType::RELU6)
                                .Union()};
         });
    int out2 = m.tensor("out2", {1, 16});
    m.op(BuiltinOperator::RESHAPE, {y5, m.constant_i32("shape", {2}, {1, 16})}, {out2});
    m.output(out1);
    m.output(out2);
    r.path = m.save("small_cnn.tflite");

    // The reference, in NHWC.
    Nhwc c = conv(r.x, w1, 3, 3, 1, 1, b1, false);
    for (float& v : c.v) v = std::max(v, 0.f);
    std::vector<double> mean(3, 0.0);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int ch = 0; ch < 3; ++ch) {
                float p = -INFINITY;
                for (int a = 0; a < 2; ++a)
                    for (int b = 0; b < 2; ++b) p = std::max(p, c.at(0, 2 * i + a, 2 * j + b, ch));
                mean[static_cast<size_t>(ch)] += (p + c3[static_cast<size_t>(ch)]) / 4.0;
            }
    for (int o = 0; o < 2; ++o) {
        double s = bfc[static_cast<size_t>(o)];
        for (int k = 0; k < 3; ++k) s += mean[static_cast<size_t>(k)] * wfc[static_cast<size_t>(o * 3 + k)];
        r.out1.push_back(static_cast<float>(s));
    }
    Nhwc d = conv(r.x, wdw, 4, 3, 2, 0, bdw, true);
    for (float v : d.v) r.out2.push_back(std::min(std::max(v, 0.f), 6.f));
    return r;
}

struct Converted {
    std::vector<Tensor> outputs;
    int transposes = 0;
};

Converted convert_and_run(const BuiltModel& model, bool layout_change) {
    test::ScratchDir out{"tflite"};
    ConversionOptions options;
    options.input_model = model.path;
    options.output_dir = out.path().string();
    options.compress_to_fp16 = false;
    options.disable_nhwc_to_nchw = !layout_change;
    ConversionResult result = convert(options);
    auto ir = read_ir(result.xml_path, test::builtin_ops());
    Converted c;
    for (const Node& n : ir->nodes()) c.transposes += n.is("Transpose");
    c.outputs = evaluate(*ir, {Tensor::from_vector<float>(model.x.v, {1, 5, 5, 2})});
    return c;
}

void expect_close(const Tensor& got, const std::vector<float>& want, const char* what) {
    const auto v = got.to_f64();
    ASSERT_EQ(v.size(), want.size()) << what;
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << what << " " << i;
}

TEST(TfliteConvert, SmallCnnMatchesTheNhwcReferenceWithOnlyBoundaryTransposes) {
    const BuiltModel model = small_cnn();
    for (bool layout_change : {true, false}) {
        Converted c = convert_and_run(model, layout_change);
        ASSERT_EQ(c.outputs.size(), 2u);
        EXPECT_EQ(c.outputs[0].shape(), (Shape{1, 2}));
        EXPECT_EQ(c.outputs[1].shape(), (Shape{1, 16}));
        expect_close(c.outputs[0], model.out1, "out1");
        expect_close(c.outputs[1], model.out2, "out2");
        // With the layout change: one Transpose after the input (shared by both convolutions) and
        // one in front of the Reshape, which reads NHWC order; out1 needs none (MEAN over H, W).
        if (layout_change) EXPECT_EQ(c.transposes, 2);
        else EXPECT_GE(c.transposes, 6);  // around each convolution and the pool
    }
}

TEST(TfliteConvert, NchwInputOnRequestLeavesOnlyTheReshapesTranspose) {
    const BuiltModel model = small_cnn();
    for (const char* flag : {"layout", "target_layout"}) {
        test::ScratchDir out{"tflite_nchw"};
        ConversionOptions options;
        options.input_model = model.path;
        options.output_dir = out.path().string();
        options.compress_to_fp16 = false;
        options.layouts = {std::string(flag) == "layout" ? InputLayout{"x", "nhwc", "nchw"} : InputLayout{"", "", "nchw"}};
        auto ir = read_ir(convert(options).xml_path, test::builtin_ops());
        ASSERT_EQ(ir->parameters().size(), 1u);
        EXPECT_EQ(ir->parameters()[0].out(0).shape(), (PartialShape{1, 2, 5, 5}));
        int transposes = 0;
        for (const Node& n : ir->nodes()) transposes += n.is("Transpose");
        EXPECT_EQ(transposes, 1) << flag;  // the one in front of the Reshape
        std::vector<float> nchw(model.x.v.size());
        for (int c = 0; c < 2; ++c)
            for (int h = 0; h < 5; ++h)
                for (int w = 0; w < 5; ++w) nchw[static_cast<size_t>((c * 5 + h) * 5 + w)] = model.x.at(0, h, w, c);
        auto outputs = evaluate(*ir, {Tensor::from_vector<float>(nchw, {1, 2, 5, 5})});
        expect_close(outputs.at(0), model.out1, "out1");
        expect_close(outputs.at(1), model.out2, "out2");
    }
}

}  // namespace
}  // namespace mo
