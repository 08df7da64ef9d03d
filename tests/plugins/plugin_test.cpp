// The plugin mechanism through the real `mo`: the example plugin's op, extractor and
// transformation (plugins/example_ops), where plugins are found, and every way a plugin can
// be wrong (tests/plugins/faulty_plugin.cpp), each a clear error that leaves nothing behind.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include <flatbuffers/flexbuffers.h>
#include <pugixml.hpp>

#include <mo/plugin.hpp>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/onnx_model_builder.hpp"
#include "support/run_command.hpp"
#include "support/tflite_model_builder.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

using test::CommandResult;
using test::OnnxModelBuilder;

const std::string kPlugin = MO_EXAMPLE_PLUGIN;

std::string faulty(const std::string& name) {
    return std::string(MO_FAULTY_PLUGIN_DIR) + "/libmo_faulty_" + name + ".so";
}

CommandResult run_mo(const std::string& args, const std::string& env = {}) {
    return test::run_command((env.empty() ? "" : env + " ") + MO_BINARY, args);
}

// x (f32 [4]) -> com.example.ScaledTanh(alpha, beta) -> y
std::string scaled_tanh_model(const test::ScratchDir& dir, double alpha, double beta) {
    OnnxModelBuilder m(13);
    m.import("com.example", 1);
    m.input("x", {4});
    m.node("ScaledTanh", {"x"}, {"y"}, {{"alpha", alpha}, {"beta", beta}}, "st", "com.example");
    m.output("y");
    return m.save(dir.file("scaled_tanh.onnx"));
}

// type -> count of <layer type=...> in an IR.
std::map<std::string, int> layer_types(const std::string& xml_path) {
    pugi::xml_document doc;
    EXPECT_TRUE(doc.load_file(xml_path.c_str())) << xml_path;
    std::map<std::string, int> types;
    for (auto l : doc.child("net").child("layers").children("layer")) ++types[l.attribute("type").value()];
    return types;
}

// A Caffe layer type mo does not know, with a fork's parameters (unknown to mo's caffe.proto):
// refused without the plugin, naming the type and the layer; converted with it, 2 * tanh(0.5 x).
TEST(Plugin, AddsACaffeLayerType) {
    test::ScratchDir dir("plugin_caffe");
    std::ofstream(dir.file("deploy.prototxt")) << R"(input: "x" input_shape { dim: 4 }
layer { name: "st" type: "ScaledTanh" bottom: "x" top: "y" scaled_tanh_param { alpha: 2 beta: 0.5 } }
)";
    const std::vector<float> x{-1.f, 0.f, 0.5f, 3.f};
    std::vector<float> y;
    for (float v : x) y.push_back(static_cast<float>(2.0 * std::tanh(0.5 * v)));
    write_npy(dir.file("x.npy"), Tensor::from_vector<float>(x, {4}));
    write_npy(dir.file("y.npy"), Tensor::from_vector<float>(y, {4}));
    CommandResult r = run_mo("--input_proto " + dir.file("deploy.prototxt") + " --output_dir " + dir.file("out"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("ScaledTanh"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("caffe ScaledTanh (opset 1): st"), std::string::npos) << r.output;
    r = run_mo("--input_proto " + dir.file("deploy.prototxt") + " --compress_to_fp16=False --output_dir " + dir.file("out") +
               " --extensions " + kPlugin + " --validate_inputs " + dir.file("x.npy") + " --validate_outputs " + dir.file("y.npy"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("[ VALIDATE ] passed"), std::string::npos) << r.output;
    EXPECT_EQ(layer_types(dir.file("out/deploy.xml"))["ScaledTanh"], 1);
}

TEST(Plugin, CustomOnnxOpBecomesAnExtensionOpThatValidates) {
    test::ScratchDir dir("plugin");
    std::string model = scaled_tanh_model(dir, 2.0, 0.5);
    // The reference, worked by hand: 2 * tanh(0.5 * x).
    const std::vector<float> x{-1.f, 0.f, 0.5f, 3.f};
    std::vector<float> y;
    for (float v : x) y.push_back(static_cast<float>(2.0 * std::tanh(0.5 * v)));
    write_npy(dir.file("x.npy"), Tensor::from_vector<float>(x, {4}));
    write_npy(dir.file("y.npy"), Tensor::from_vector<float>(y, {4}));
    write_npy(dir.file("wrong.npy"), Tensor::from_vector<float>({y[0], y[1], y[2], y[3] + 0.01f}, {4}));

    // f32 weights: validation's tight tolerance (atol 5e-4, rtol 1e-4).
    CommandResult r = run_mo("--input_model " + model + " --compress_to_fp16=False --output_dir " + dir.file("out") +
                             " --extensions " + kPlugin + " --validate_inputs " + dir.file("x.npy") + " --validate_outputs " +
                             dir.file("y.npy"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("[ VALIDATE ] passed"), std::string::npos) << r.output;
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file(dir.file("out/scaled_tanh.xml").c_str()));
    auto layer = doc.select_node("//layer[@type='ScaledTanh']").node();
    ASSERT_TRUE(layer) << "no ScaledTanh layer";
    EXPECT_STREQ(layer.attribute("version").value(), "example_opset");
    EXPECT_DOUBLE_EQ(layer.child("data").attribute("alpha").as_double(), 2.0);
    EXPECT_DOUBLE_EQ(layer.child("data").attribute("beta").as_double(), 0.5);

    // The plugin's evaluation is what validation compares: a wrong reference fails.
    r = run_mo("--input_model " + model + " --compress_to_fp16=False --output_dir " + dir.file("out2") + " --extensions " + kPlugin +
               " --validate_inputs " + dir.file("x.npy") + " --validate_outputs " + dir.file("wrong.npy"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("FAILED"), std::string::npos) << r.output;
}

TEST(Plugin, WithoutThePluginTheCustomOpIsNotSupported) {
    test::ScratchDir dir("plugin");
    CommandResult r = run_mo("--input_model " + scaled_tanh_model(dir, 2.0, 0.5) + " --output_dir " + dir.file("out"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("onnx com.example.ScaledTanh (opset 1): st"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST(Plugin, TransformationRunsInItsOrderAndIsSwitchedOffByEnvironment) {
    test::ScratchDir dir("plugin");
    std::string model = scaled_tanh_model(dir, 1.0, 1.0);
    CommandResult r = run_mo("--input_model " + model + " --output_dir " + dir.file("on") + " --extensions " + kPlugin);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto on = layer_types(dir.file("on/scaled_tanh.xml"));
    EXPECT_EQ(on["Tanh"], 1);
    EXPECT_EQ(on.count("ScaledTanh"), 0u);

    r = run_mo("--input_model " + model + " --output_dir " + dir.file("off") + " --extensions " + kPlugin,
               "MO_DISABLED_TRANSFORMS=ExampleScaledTanhToTanh");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto off = layer_types(dir.file("off/scaled_tanh.xml"));
    EXPECT_EQ(off["ScaledTanh"], 1);
    EXPECT_EQ(off.count("Tanh"), 0u);
}

TEST(Plugin, PatternTransformationFusesTheWrittenOutForm) {
    // x -> Mul(0.5, x) -> Tanh -> Mul(., 2): the plugin's fusion makes it ScaledTanh(2, 0.5).
    test::ScratchDir dir("plugin");
    OnnxModelBuilder m(13);
    m.input("x", {4});
    m.initializer("beta", {0.5f}, {});
    m.initializer("alpha", {2.f}, {});
    m.node("Mul", {"beta", "x"}, {"s"}, {}, "scaled");
    m.node("Tanh", {"s"}, {"t"}, {}, "tanh");
    m.node("Mul", {"t", "alpha"}, {"y"}, {}, "out");
    m.output("y");
    const std::string model = m.save(dir.file("written_out.onnx"));
    CommandResult r = run_mo("--input_model " + model + " --compress_to_fp16=False --validate --output_dir " +
                             dir.file("on") + " --extensions " + kPlugin);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("[ VALIDATE ] passed"), std::string::npos) << r.output;
    auto on = layer_types(dir.file("on/written_out.xml"));
    EXPECT_EQ(on["ScaledTanh"], 1);
    EXPECT_EQ(on.count("Tanh"), 0u);
    r = run_mo("--input_model " + model + " --output_dir " + dir.file("off") + " --extensions " + kPlugin,
               "MO_DISABLED_TRANSFORMS=ExampleScaledTanhFusion");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(layer_types(dir.file("off/written_out.xml"))["Tanh"], 1);
}

TEST(Plugin, ListTransformationsShowsOrderStateAndOrigin) {
    CommandResult r = run_mo("--list_transformations --extensions " + kPlugin,
                             "MO_DISABLED_TRANSFORMS=ExampleScaledTanhToTanh");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    size_t inference = r.output.find("PartialInference\tmiddle\tyes\tbuilt-in\n");
    size_t example = r.output.find("ExampleScaledTanhToTanh\tmiddle\tno\t" + kPlugin + "\n");
    ASSERT_NE(inference, std::string::npos) << r.output;
    ASSERT_NE(example, std::string::npos) << r.output;
    EXPECT_LT(inference, example) << "run_after PartialInference";
}

TEST(Plugin, FoundThroughDirectoriesAndEnvironmentAndLoadedOnce) {
    std::string dir = std::filesystem::path(kPlugin).parent_path().string();
    // Named three times: as a file, through its directory and through MO_PLUGIN_PATH.
    CommandResult r = run_mo("--list_transformations --extensions " + kPlugin + "," + dir, "MO_PLUGIN_PATH=" + kPlugin);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("ExampleScaledTanhToTanh"), std::string::npos) << r.output;
    r = run_mo("--list_transformations", "MO_PLUGIN_PATH=/nonexistent:" + dir);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("plugin library or directory not found"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("/nonexistent (from MO_PLUGIN_PATH)"), std::string::npos) << r.output;
}

struct FaultCase {
    std::string plugin;
    std::vector<std::string> fragments;
};

TEST(Plugin, FaultyPluginsAreClearErrorsThatWriteNothing) {
    const std::vector<FaultCase> cases = {
        {"no_entry", {"not a mo plugin", "mo_get_plugin_info"}},
        {"abi", {"plugin ABI version " + std::to_string(MO_PLUGIN_ABI_VERSION - 1),
                 "this mo has version " + std::to_string(MO_PLUGIN_ABI_VERSION), "rebuild the plugin"}},
        {"throws", {"plugin registration failed: cannot register: the licence file is missing",
                    "install the licence file"}},
        {"clash_op", {"op type 'Relu' is registered twice (first by built-in)"}},
        {"clash_extractor", {"extractor of onnx op 'Relu' (opsets 6..6) is registered twice", "built-in"}},
        {"clash_transformation", {"transformation id 'PartialInference' is registered twice (first by built-in)"}},
        {"needs_dependency", {"plugin library does not load", "libmo_test_absent_dependency.so",
                              "a missing dependency is named above", "LD_LIBRARY_PATH"}},
        // Checked once every plugin is registered: a misspelt op type would never match.
        {"typo_pattern", {"transformation 'TypoFusion' looks for op type 'Sigmiod'", "could never match",
                          "mo --list_ops"}},
        {"transformation_throws",
         {"a plugin's code failed: transformation 'FaultyThrowingTransformation' failed: the lookup table ran out",
          "report it to the plugin's author"}},
    };
    test::ScratchDir dir("plugin");
    std::string model = scaled_tanh_model(dir, 2.0, 0.5);
    for (const FaultCase& c : cases) {
        SCOPED_TRACE(c.plugin);
        std::string out = dir.file("out_" + c.plugin);
        CommandResult r = run_mo("--input_model " + model + " --output_dir " + out + " --extensions " +
                                 kPlugin + "," + faulty(c.plugin));
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_NE(r.output.find(faulty(c.plugin)), std::string::npos) << "names the file: " << r.output;
        for (const std::string& f : c.fragments) EXPECT_NE(r.output.find(f), std::string::npos) << f << "\n" << r.output;
        EXPECT_FALSE(std::filesystem::exists(out));
    }
}

// An op of the plugin's own, com.faulty.Boom, read from a constant: its extractor, shape inference
// and evaluation (constant folding) all run.
TEST(Plugin, ErrorsInAPluginsOpsBlameThePluginNotMo) {
    test::ScratchDir dir("plugin");
    OnnxModelBuilder m(13);
    m.import("com.faulty", 1);
    m.initializer("x", {1.f, 2.f, 3.f}, {3});
    m.node("Boom", {"x"}, {"y"}, {}, "boom_node", "com.faulty");
    m.output("y");
    const std::string model = m.save(dir.file("boom.onnx"));
    const std::vector<FaultCase> cases = {
        {"extractor_throws", {"the extractor of onnx op 'com.faulty.Boom' failed: bad optional access"}},
        {"infer_throws", {"the shape inference of op 'Boom' failed: vector::at"}},
        {"eval_wrong_shape", {"the evaluation of op 'Boom' gives output 0 the shape [4], its shape inference [3]"}},
    };
    for (const FaultCase& c : cases) {
        SCOPED_TRACE(c.plugin);
        const std::string out = dir.file("out_" + c.plugin);
        CommandResult r = run_mo("--input_model " + model + " --output_dir " + out + " --extensions " + faulty(c.plugin));
        EXPECT_EQ(r.exit_code, 1) << r.output;
        for (const std::string& f : c.fragments) EXPECT_NE(r.output.find(f), std::string::npos) << f << "\n" << r.output;
        for (const char* f : {"a plugin's code failed", "boom_node", "report it to the plugin's author"})
            EXPECT_NE(r.output.find(f), std::string::npos) << f << "\n" << r.output;
        EXPECT_NE(r.output.find("plugin " + faulty(c.plugin)), std::string::npos) << "names the file: " << r.output;
        EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
        EXPECT_FALSE(std::filesystem::exists(out));
    }
}

TEST(Plugin, TheSamePluginTwiceIsAnErrorNamingBothFiles) {
    test::ScratchDir dir("plugin");
    const std::string copy = dir.file("libmo_example_ops_copy.so");
    std::filesystem::copy_file(kPlugin, copy);
    CommandResult r = run_mo("--list_transformations --extensions " + kPlugin + "," + copy);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    for (const std::string& f : {"is loaded twice: from " + kPlugin + " and from " + copy, std::string("load one copy")})
        EXPECT_NE(r.output.find(f), std::string::npos) << f << "\n" << r.output;
}

TEST(Plugin, MoRunWithoutThePluginSaysHowToLoadIt) {
    test::ScratchDir dir("plugin");
    const std::string model = scaled_tanh_model(dir, 2.0, 0.5);
    CommandResult r = run_mo("--input_model " + model + " --output_dir " + dir.file("out") + " --extensions " + kPlugin);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = test::run_command(MO_RUN_BINARY, dir.file("out/scaled_tanh.xml"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    for (const char* f : {"op type 'ScaledTanh' of version 'example_opset' is not known", "--extensions",
                          "installed plugin directory"})
        EXPECT_NE(r.output.find(f), std::string::npos) << f << "\n" << r.output;
    r = test::run_command(MO_RUN_BINARY, dir.file("out/scaled_tanh.xml") + " --extensions " + kPlugin);
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(Plugin, ListOpsShowsThePluginsOpsAndWhereTheyComeFrom) {
    CommandResult r = run_mo("--list_ops --extensions " + kPlugin);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("| `ScaledTanh` (plugin " + kPlugin + ") | ScaledTanh | example_opset | 1 | 1 | `alpha` float = 1; "
                            "`beta` float = 1 |"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("| `Relu` | ReLU | opset1 | 1 | 1 | — |"), std::string::npos) << r.output;
}

TEST(Plugin, AddsAFrameworkWithItsLoaderAndExtractors) {
    test::ScratchDir dir("plugin");
    std::ofstream(dir.file("net.toy")) << "input x 2,2\nrelu r x\nscale y r 3\noutput y\n";
    // y = 3 * relu(x), worked by hand.
    write_npy(dir.file("x.npy"), Tensor::from_vector<float>({-2.f, -0.5f, 0.25f, 4.f}, {2, 2}));
    write_npy(dir.file("y.npy"), Tensor::from_vector<float>({0.f, 0.f, 0.75f, 12.f}, {2, 2}));
    const std::string plugin = MO_TOY_FRAMEWORK_PLUGIN;
    CommandResult r = run_mo("--input_model " + dir.file("net.toy") + " --output_dir " + dir.file("out") +
                             " --compress_to_fp16=False --extensions " + plugin + " --validate_inputs " +
                             dir.file("x.npy") + " --validate_outputs " + dir.file("y.npy"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("[ VALIDATE ] passed"), std::string::npos) << r.output;
    auto types = layer_types(dir.file("out/net.xml"));
    EXPECT_EQ(types["ReLU"], 1);
    EXPECT_EQ(types["Multiply"], 1);

    // Without the plugin, the file's format is unknown and the error lists what is known.
    r = run_mo("--input_model " + dir.file("net.toy") + " --output_dir " + dir.file("out2"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("cannot tell the framework of this file"), std::string::npos) << r.output;
    r = run_mo("--input_model " + dir.file("net.toy") + " --framework toy --output_dir " + dir.file("out2"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("unsupported framework 'toy'"), std::string::npos) << r.output;
}

// MediaPipe's Convolution2DTransposeBias: x [1, h, w, 2] (NHWC), weights [3, 3, 3, 2] (OHWI), bias
// [3]; its custom options are the 12 bytes of TfLiteTransposeConvParams (padding, stride_width,
// stride_height as little-endian int32).
std::string transpose_conv_bias_model(const std::string& name, int32_t h, int32_t w, std::vector<int32_t> params,
                                      int32_t out_h, int32_t out_w) {
    test::TfliteModelBuilder m;
    const int x = m.input("x", {1, h, w, 2});
    std::vector<float> weights(3 * 3 * 3 * 2);
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5) / 4;
    const int wt = m.constant("weights", {3, 3, 3, 2}, weights);
    const int b = m.constant("bias", {3}, {0.5f, -1.f, 2.f});
    const int y = m.tensor("y", {1, out_h, out_w, 3});
    std::vector<uint8_t> bytes;
    for (int32_t v : params)
        for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * k)));
    m.custom_op("Convolution2DTransposeBias", {x, wt, b}, {y}, bytes);
    m.output(y);
    return m.save(name);
}

// The op's output, worked from its kernel's definition: start from the bias, and let each input
// pixel add input · filter to the outputs at (in · stride - pad + k), pad = half the SAME padding.
std::vector<double> transpose_conv_bias_reference(const std::vector<float>& x, int32_t h, int32_t w, bool same,
                                                  int32_t stride_w, int32_t stride_h, int32_t& out_h, int32_t& out_w) {
    const int32_t pad_h = same ? std::max(0, 3 - (h - 1) % stride_h - 1) : 0;
    const int32_t pad_w = same ? std::max(0, 3 - (w - 1) % stride_w - 1) : 0;
    out_h = stride_h * (h - 1) + 3 - pad_h;
    out_w = stride_w * (w - 1) + 3 - pad_w;
    auto weight = [](int o, int ky, int kx, int i) {
        const size_t at = static_cast<size_t>(((o * 3 + ky) * 3 + kx) * 2 + i);
        return static_cast<double>(static_cast<int>(at * 7 % 11) - 5) / 4;
    };
    const double bias[3] = {0.5, -1, 2};
    std::vector<double> y(static_cast<size_t>(out_h * out_w * 3));
    for (int32_t oy = 0; oy < out_h; ++oy)
        for (int32_t ox = 0; ox < out_w; ++ox)
            for (int o = 0; o < 3; ++o) y[static_cast<size_t>((oy * out_w + ox) * 3 + o)] = bias[o];
    for (int32_t iy = 0; iy < h; ++iy)
        for (int32_t ix = 0; ix < w; ++ix)
            for (int i = 0; i < 2; ++i)
                for (int ky = 0; ky < 3; ++ky)
                    for (int kx = 0; kx < 3; ++kx)
                        for (int o = 0; o < 3; ++o) {
                            const int32_t oy = iy * stride_h - pad_h / 2 + ky, ox = ix * stride_w - pad_w / 2 + kx;
                            if (oy < 0 || oy >= out_h || ox < 0 || ox >= out_w) continue;
                            y[static_cast<size_t>((oy * out_w + ox) * 3 + o)] +=
                                x[static_cast<size_t>((iy * w + ix) * 2 + i)] * weight(o, ky, kx, i);
                        }
    return y;
}

TEST(Plugin, TfliteCustomOpReadsItsOptionBytes) {
    struct Case {
        bool same;
        int32_t stride_w, stride_h, h, w;
    };
    for (const Case& k : {Case{true, 2, 2, 4, 5}, Case{true, 3, 2, 3, 3}, Case{false, 2, 1, 3, 4}}) {
        SCOPED_TRACE((k.same ? "SAME" : "VALID") + std::string(" stride ") + std::to_string(k.stride_w) + "x" +
                     std::to_string(k.stride_h));
        std::vector<float> x;
        for (int32_t i = 0; i < k.h * k.w * 2; ++i) x.push_back(static_cast<float>(i % 5) - 1.5f);
        int32_t out_h = 0, out_w = 0;
        const std::vector<double> want = transpose_conv_bias_reference(x, k.h, k.w, k.same, k.stride_w, k.stride_h, out_h, out_w);
        test::ScratchDir dir("plugin_tflite");
        const std::string model = transpose_conv_bias_model("transpose_conv_bias.tflite", k.h, k.w,
                                                            {k.same ? 1 : 2, k.stride_w, k.stride_h}, out_h, out_w);
        CommandResult r = run_mo("--input_model " + model + " --compress_to_fp16=False --output_dir " + dir.file("out") +
                                 " --extensions " + kPlugin);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        auto ir = read_ir(dir.file("out/transpose_conv_bias.xml"), test::builtin_ops());
        const auto got = evaluate(*ir, {Tensor::from_vector<float>(x, {1, k.h, k.w, 2})});
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].shape(), (Shape{1, out_h, out_w, 3}));
        const auto g = got[0].to_f64();
        ASSERT_EQ(g.size(), want.size());
        for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-5) << i;
    }
    // Without the plugin the op is unknown; with options too short for the struct, an error.
    test::ScratchDir dir("plugin_tflite");
    const std::string model = transpose_conv_bias_model("transpose_conv_bias.tflite", 3, 3, {1, 2, 2}, 6, 6);
    CommandResult r = run_mo("--input_model " + model + " --output_dir " + dir.file("out"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("tflite custom.Convolution2DTransposeBias"), std::string::npos) << r.output;
    const std::string short_options = transpose_conv_bias_model("short.tflite", 3, 3, {1, 2}, 6, 6);
    r = run_mo("--input_model " + short_options + " --output_dir " + dir.file("out") + " --extensions " + kPlugin);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("custom options of 8 bytes; TfLiteTransposeConvParams has 12"), std::string::npos) << r.output;
}

// CONV_2D -> CUSTOM ScaledTanh (flexbuffer options) -> CONV_2D: a plugin op between two NCHW
// convolutions in an NHWC model.
std::string conv_scaled_tanh_conv_model(const std::string& name) {
    test::TfliteModelBuilder m;
    const int x = m.input("x", {1, 4, 4, 2});
    auto conv = [](auto& fb) {
        return std::pair{tflite::BuiltinOptions::Conv2DOptions,
                         tflite::CreateConv2DOptions(fb, tflite::Padding::SAME, 1, 1).Union()};
    };
    std::vector<float> w1(3 * 3 * 3 * 2), w2(2 * 1 * 1 * 3);
    for (size_t i = 0; i < w1.size(); ++i) w1[i] = static_cast<float>(static_cast<int>(i * 5 % 9) - 4) / 8;
    for (size_t i = 0; i < w2.size(); ++i) w2[i] = static_cast<float>(i) / 4 - 0.6f;
    const int a = m.tensor("a", {1, 4, 4, 3}), b = m.tensor("b", {1, 4, 4, 3}), y = m.tensor("y", {1, 4, 4, 2});
    m.op(tflite::BuiltinOperator::CONV_2D, {x, m.constant("w1", {3, 3, 3, 2}, w1), -1}, {a}, conv);
    flexbuffers::Builder options;
    options.Map([&] {
        options.Float("alpha", 2.f);
        options.Float("beta", 0.5f);
    });
    options.Finish();
    m.custom_op("ScaledTanh", {a}, {b}, options.GetBuffer());
    m.op(tflite::BuiltinOperator::CONV_2D, {b, m.constant("w2", {2, 1, 1, 3}, w2), -1}, {y}, conv);
    m.output(y);
    return m.save(name);
}

TEST(Plugin, TfliteCustomOpIsLayoutTransparent) {
    test::ScratchDir dir("plugin_layout");
    const std::string model = conv_scaled_tanh_conv_model("conv_scaled_tanh_conv.tflite");
    std::map<std::string, std::vector<float>> outputs;
    for (const std::string variant : {"out", "kept_nhwc"}) {
        const std::string flags = variant == "out" ? "" : " --disable_nhwc_to_nchw";
        CommandResult r = run_mo("--input_model " + model + " --compress_to_fp16=False --output_dir " + dir.file(variant) +
                                 " --extensions " + kPlugin + flags);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const std::string xml = dir.file(variant + "/conv_scaled_tanh_conv.xml");
        EXPECT_EQ(layer_types(xml)["ScaledTanh"], 1) << variant;
        // With the layout change only the model's boundary keeps a Transpose (in and out); without
        // it each convolution sits between two.
        EXPECT_EQ(layer_types(xml)["Transpose"], variant == "out" ? 2 : 4) << variant;
        std::vector<float> x(32);
        for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) / 3 - 1;
        write_npy(dir.file("x.npy"), Tensor::from_vector<float>(x, {1, 4, 4, 2}));
        r = test::run_command(MO_RUN_BINARY, xml + " --inputs " + dir.file("x.npy") + " --out " + dir.file(variant + "_y") +
                                                 " --extensions " + kPlugin);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const std::vector<double> v = read_npy(dir.file(variant + "_y/y.npy")).to_f64();
        outputs[variant].assign(v.begin(), v.end());
    }
    // The model worked by hand: NHWC convolutions (TFLite weights [out, kh, kw, in], SAME, no
    // bias) around 2 * tanh(0.5 * a).
    std::vector<float> x(32), w1(54), w2(6);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) / 3 - 1;
    for (size_t i = 0; i < w1.size(); ++i) w1[i] = static_cast<float>(static_cast<int>(i * 5 % 9) - 4) / 8;
    for (size_t i = 0; i < w2.size(); ++i) w2[i] = static_cast<float>(i) / 4 - 0.6f;
    std::vector<double> b(4 * 4 * 3), expected(32);
    for (int h = 0; h < 4; ++h)
        for (int w = 0; w < 4; ++w)
            for (int o = 0; o < 3; ++o) {
                double sum = 0;
                for (int kh = 0; kh < 3; ++kh)
                    for (int kw = 0; kw < 3; ++kw) {
                        const int ih = h + kh - 1, iw = w + kw - 1;
                        if (ih < 0 || ih >= 4 || iw < 0 || iw >= 4) continue;
                        for (int c = 0; c < 2; ++c) sum += x[(ih * 4 + iw) * 2 + c] * w1[((o * 3 + kh) * 3 + kw) * 2 + c];
                    }
                b[(h * 4 + w) * 3 + o] = 2 * std::tanh(0.5 * sum);
            }
    for (int p = 0; p < 16; ++p)
        for (int o = 0; o < 2; ++o) {
            double sum = 0;
            for (int c = 0; c < 3; ++c) sum += b[p * 3 + c] * w2[o * 3 + c];
            expected[p * 2 + o] = sum;
        }
    for (const auto& [variant, got] : outputs) {
        ASSERT_EQ(got.size(), 32u) << variant;
        for (size_t i = 0; i < 32; ++i) EXPECT_NEAR(got[i], expected[i], 1e-5) << variant << " " << i;
    }
}

TEST(Plugin, ANonLibraryIsAClearError) {
    test::ScratchDir dir("plugin");
    std::ofstream(dir.file("text.so")) << "not a shared library\n";
    std::ofstream(dir.file("empty.so")).flush();
    // A file the loader reads but cannot load: no dependency is missing, so the hint names none.
    for (const std::string& file : {dir.file("text.so"), dir.file("empty.so"), std::string(MO_BINARY)}) {
        SCOPED_TRACE(file);
        CommandResult r = run_mo("--list_transformations --extensions " + file);
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_NE(r.output.find("plugin library does not load"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find(std::filesystem::canonical(file).string()), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("the file is not a shared library built as a mo plugin: see docs/extending.md"),
                  std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("missing dependency"), std::string::npos) << r.output;
    }
    // A device is refused before the loader reads it: /dev/zero has no end.
    CommandResult r = run_mo("--list_transformations --extensions /dev/zero");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("/dev/zero: plugin library is not a regular file"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mo
