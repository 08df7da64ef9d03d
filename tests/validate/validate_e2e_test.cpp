// End to end: an ONNX Conv+BN+Relu+Flatten+Gemm model evaluated as extracted (the reference)
// and after all transformations (what convert() emits), with and without f16 compression.
#include "validate/validate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "extractors/onnx/onnx_extractors.hpp"
#include "loaders/onnx/onnx_loader.hpp"
#include "support/graph_builder.hpp"
#include "support/onnx_model_builder.hpp"
#include "support/op_test_util.hpp"
#include "transforms/middle/partial_inference.hpp"
#include "transforms/registry.hpp"
#include "transforms/transforms.hpp"
#include "validate/random_inputs.hpp"

namespace mo {
namespace {

using test::OnnxModelBuilder;
using test::values;

std::unique_ptr<Graph> load_extracted(const std::string& path, const ConversionOptions& options) {
    auto graph = load_onnx(path, options, test::builtin_ops());
    ExtractorRegistry extractors;
    register_onnx_extractors(extractors);
    extract(*graph, extractors);
    return graph;
}

// The source graph as extracted, with shapes inferred node by node (no transformation).
std::unique_ptr<Graph> reference_graph(const std::string& path, const ConversionOptions& options) {
    auto graph = load_extracted(path, options);
    for (Node n : graph->topological_order()) PartialInference::infer_node(n);
    return graph;
}

// convert()'s steps without writing: the graph the emitter would see.
std::unique_ptr<Graph> converted_graph(const std::string& path, const ConversionOptions& options) {
    auto graph = load_extracted(path, options);
    TransformRegistry transforms;
    register_builtin_transforms(transforms);
    transforms.run_all(*graph, TransformContext{options});
    return graph;
}

ConversionOptions with_fp16(bool compress) {
    ConversionOptions o;
    o.compress_to_fp16 = compress;
    return o;
}

bool has_op(const Graph& g, const std::string& type) {
    for (Node n : g.nodes())
        if (n.is(type)) return true;
    return false;
}

// One channel, values chosen so that every step can be followed by hand.
std::string one_channel_model() {
    OnnxModelBuilder m(13);
    m.input("x", {1, 1, 3, 3});
    m.initializer("w", {1, 0.5f, 0, -1}, {1, 1, 2, 2});
    m.initializer("scale", {2}, {1});
    m.initializer("B", {0.25f}, {1});
    m.initializer("mean", {-2.5f}, {1});
    m.initializer("var", {4}, {1});
    m.initializer("G", {1, 0, 0, 1, 1, 1, 2, -1}, {4, 2});
    m.initializer("C", {0.5f, -0.5f}, {2});
    m.node("Conv", {"x", "w"}, {"c"}, {{"kernel_shape", {2, 2}}}, "conv");
    m.node("BatchNormalization", {"c", "scale", "B", "mean", "var"}, {"bn"}, {{"epsilon", 1e-5f}}, "bn");
    m.node("Relu", {"bn"}, {"r"}, {}, "relu");
    m.node("Flatten", {"r"}, {"f"}, {{"axis", 1}}, "flatten");
    m.node("Gemm", {"f", "G", "C"}, {"y"}, {}, "gemm");
    m.output("y");
    return m.save("validate_one_channel.onnx");
}

TEST(ValidateEndToEnd, OneChannelModelMatchesHandComputedValues) {
    const std::string path = one_channel_model();
    const Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
    // conv(i, j) = x(i, j) + 0.5 x(i, j+1) - x(i+1, j+1) = [-3, -2.5, -1.5, -1].
    // bn = 2 (c + 2.5) / sqrt(4 + eps) + 0.25 = k (c + 2.5) + 0.25 with k = 2 / sqrt(4 + eps)
    //    = [-0.5k + 0.25, 0.25, k + 0.25, 1.5k + 0.25]; relu zeroes the first (k ~ 1).
    // gemm: y0 = 0.25*0 + (k + .25)*1 + (1.5k + .25)*2 + 0.5 = 4k + 1.25,
    //       y1 = 0.25*1 + (k + .25)*1 - (1.5k + .25) - 0.5 = -0.5k - 0.25.
    const double k = 2 / std::sqrt(4 + 1e-5);
    const std::vector<double> expected = {4 * k + 1.25, -0.5 * k - 0.25};
    for (bool fp16 : {false, true}) {
        SCOPED_TRACE(fp16 ? "fp16" : "fp32");
        auto reference = reference_graph(path, with_fp16(fp16));
        auto converted = converted_graph(path, with_fp16(fp16));
        EXPECT_TRUE(has_op(*reference, "BatchNormalization"));  // the reference really is untransformed
        EXPECT_FALSE(has_op(*converted, "BatchNormalization"));
        EXPECT_FALSE(has_op(*converted, "Gemm"));
        for (const Graph* g : {reference.get(), converted.get()}) {
            auto out = evaluate(*g, {x});
            ASSERT_EQ(out.size(), 1u);
            EXPECT_EQ(out[0].shape(), (Shape{1, 2}));
            auto y = out[0].to_f64();
            ASSERT_EQ(y.size(), 2u);
            const double tol = fp16 && g == converted.get() ? 1e-2 : 1e-5;
            for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(y[i], expected[i], tol * std::abs(expected[i])) << i;
        }
        auto report = validate(*reference, *converted, {x}, fp16 ? Tolerance{1e-4, 1e-2} : Tolerance{1e-5, 1e-5});
        EXPECT_TRUE(report.ok()) << report.text();
        ASSERT_EQ(report.outputs.size(), 1u);
        EXPECT_EQ(report.outputs[0].name, "y");
    }
}

// Several channels, padding and random weights: reference and converted graphs must agree.
std::string multi_channel_model() {
    auto floats = [](size_t n, uint64_t seed) {
        return random_tensor(ElementType::f32, {static_cast<int64_t>(n)}, seed).to_f64();
    };
    auto as_f32 = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
    std::vector<float> var = as_f32(floats(4, 4));
    for (float& v : var) v = v * v + 0.1f;  // variances are positive
    OnnxModelBuilder m(13);
    m.input("x", {2, 3, 5, 5});
    m.initializer("w", as_f32(floats(4 * 3 * 3 * 3, 1)), {4, 3, 3, 3});
    m.initializer("scale", as_f32(floats(4, 2)), {4});
    m.initializer("B", as_f32(floats(4, 3)), {4});
    m.initializer("mean", as_f32(floats(4, 5)), {4});
    m.initializer("var", var, {4});
    m.initializer("G", as_f32(floats(6 * 100, 6)), {6, 100});
    m.initializer("C", as_f32(floats(6, 7)), {6});
    m.node("Conv", {"x", "w"}, {"c"}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}, "conv");
    m.node("BatchNormalization", {"c", "scale", "B", "mean", "var"}, {"bn"}, {}, "bn");
    m.node("Relu", {"bn"}, {"r"}, {}, "relu");
    m.node("Flatten", {"r"}, {"f"}, {}, "flatten");
    m.node("Gemm", {"f", "G", "C"}, {"y"}, {{"transB", 1}, {"alpha", 0.5f}}, "gemm");
    m.output("y");
    return m.save("validate_multi_channel.onnx");
}

TEST(ValidateEndToEnd, ConvertedGraphAgreesWithTheExtractedOne) {
    const std::string path = multi_channel_model();
    for (bool fp16 : {false, true}) {
        SCOPED_TRACE(fp16 ? "fp16" : "fp32");
        auto reference = reference_graph(path, with_fp16(fp16));
        auto converted = converted_graph(path, with_fp16(fp16));
        auto inputs = random_inputs(*converted, 2024);
        auto report = validate(*reference, *converted, inputs, fp16 ? Tolerance{1e-4, 1e-2} : Tolerance{1e-5, 1e-5});
        EXPECT_TRUE(report.ok()) << report.text();
        ASSERT_EQ(report.outputs.size(), 1u);
        EXPECT_EQ(report.outputs[0].elements, 12u);  // [2, 6]
        // f16 weights really change the numbers a little; f32 ones agree to rounding.
        if (fp16) EXPECT_GT(report.outputs[0].max_abs_error, 0.0);
        else EXPECT_LT(report.outputs[0].max_rel_error, 1e-5);
    }
}

TEST(ValidateEndToEnd, ReferenceTensorsAreComparedInOrder) {
    auto converted = converted_graph(one_channel_model(), with_fp16(false));
    const Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
    const double k = 2 / std::sqrt(4 + 1e-5);
    auto good = Tensor::from_vector<float>({static_cast<float>(4 * k + 1.25), static_cast<float>(-0.5 * k - 0.25)}, {1, 2});
    EXPECT_TRUE(validate(*converted, {x}, {good}).ok());
    auto bad = Tensor::from_vector<float>({5.25f, 0.75f}, {1, 2});  // sign of y1 wrong
    auto report = validate(*converted, {x}, {bad});
    EXPECT_FALSE(report.ok());
    EXPECT_EQ(report.outputs[0].mismatches, 1u);
    EXPECT_EQ(report.text().substr(0, 7), "FAIL y:");
    EXPECT_THROW(validate(*converted, {x}, {good, good}), Error);
}

}  // namespace
}  // namespace mo
