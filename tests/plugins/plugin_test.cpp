// The plugin mechanism through the real `mo`: the example plugin's op, extractor and
// transformation (plugins/example_ops), where plugins are found, and every way a plugin can
// be wrong (tests/plugins/faulty_plugin.cpp), each a clear error that leaves nothing behind.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include <pugixml.hpp>

#include "emit/ir_test_util.hpp"
#include "support/onnx_model_builder.hpp"
#include "support/run_command.hpp"
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
        {"abi", {"plugin ABI version 1001", "this mo has version 1", "rebuild the plugin"}},
        {"throws", {"plugin registration failed: cannot register: the licence file is missing",
                    "install the licence file"}},
        {"clash_op", {"op type 'Relu' is registered twice (first by built-in)"}},
        {"clash_extractor", {"extractor of onnx op 'Relu' (opsets 6..6) is registered twice", "built-in"}},
        {"clash_transformation", {"transformation id 'PartialInference' is registered twice (first by built-in)"}},
        {"needs_dependency", {"plugin library does not load", "libmo_test_absent_dependency.so",
                              "a missing dependency is named above", "LD_LIBRARY_PATH"}},
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
