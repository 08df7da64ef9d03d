// End to end: ONNX models built in the test -> convert() -> IR checked as XML + BIN.
#include "tools/convert.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "emit/ir_test_util.hpp"
#include "support/op_test_util.hpp"
#include "support/onnx_model_builder.hpp"

namespace mo {
namespace {

using test::OnnxModelBuilder;
using test::ScratchDir;

struct Converted {
    ConversionResult result;
    pugi::xml_document doc;
    std::string bin;
};

std::unique_ptr<Converted> convert_model(const std::string& model, ConversionOptions o, const ScratchDir& out) {
    o.input_model = model;
    o.output_dir = out.path().string();
    auto c = std::make_unique<Converted>();
    c->result = convert(o);
    auto ok = c->doc.load_file(c->result.xml_path.c_str());
    EXPECT_TRUE(ok) << ok.description();
    c->bin = test::read_bytes(c->result.bin_path);
    EXPECT_EQ(test::edge_problems(c->doc), std::vector<std::string>{});
    return c;
}

ConversionOptions fp32() {
    ConversionOptions o;
    o.compress_to_fp16 = false;
    return o;
}

std::vector<float> floats_of(const std::string& bytes) {
    std::vector<float> v(bytes.size() / sizeof(float));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
    return v;
}

std::vector<std::string> dims_of(const pugi::xml_node& port) {
    std::vector<std::string> d;
    for (auto dim : port.children("dim")) d.push_back(dim.text().get());
    return d;
}

TEST(EndToEnd, ConvBatchNormIsFoldedIntoConvolutionAndAdd) {
    const std::vector<float> w = {1.f, 2.f, -1.f, 0.5f, 3.f, -2.f};  // [3, 2, 1, 1]
    const std::vector<float> scale = {2.f, 0.5f, 1.f}, bias = {0.1f, -0.2f, 0.3f}, mean = {1.f, -1.f, 0.f},
                             var = {4.f, 1.f, 0.25f};
    const float eps = 1e-5f;
    OnnxModelBuilder m(13);
    m.input("x", {1, 2, 4, 4});
    m.initializer("w", w, {3, 2, 1, 1});
    m.initializer("scale", scale, {3});
    m.initializer("B", bias, {3});
    m.initializer("mean", mean, {3});
    m.initializer("var", var, {3});
    m.node("Conv", {"x", "w"}, {"c"}, {{"kernel_shape", {1, 1}}}, "conv");
    m.node("BatchNormalization", {"c", "scale", "B", "mean", "var"}, {"y"}, {{"epsilon", eps}}, "bn");
    m.output("y");
    ScratchDir out("e2e");
    auto c = convert_model(m.save("conv_bn.onnx"), fp32(), out);

    EXPECT_EQ(test::layer_types(c->doc),
              (std::vector<std::string>{"Parameter", "Const", "Convolution", "Const", "Add", "Result"}));
    // Independent expectation: w' = w * s / sqrt(v + eps), b' = B - mean * s / sqrt(v + eps).
    std::vector<float> w_expected, b_expected;
    for (int o = 0; o < 3; ++o) {
        double k = scale[o] / std::sqrt(static_cast<double>(var[o]) + eps);
        for (int i = 0; i < 2; ++i) w_expected.push_back(static_cast<float>(w[o * 2 + i] * k));
        b_expected.push_back(static_cast<float>(bias[o] - mean[o] * k));
    }
    auto conv = test::layer_of_type(c->doc, "Convolution");
    auto weights = floats_of(test::const_bytes(test::producer_of(c->doc, conv, 1), c->bin));
    ASSERT_EQ(weights.size(), w_expected.size());
    for (size_t i = 0; i < weights.size(); ++i) EXPECT_NEAR(weights[i], w_expected[i], 1e-5) << i;
    auto add = test::layer_of_type(c->doc, "Add");
    auto add_const = test::producer_of(c->doc, add, 1);
    EXPECT_STREQ(add_const.child("data").attribute("shape").value(), "1, 3, 1, 1");
    auto b = floats_of(test::const_bytes(add_const, c->bin));
    ASSERT_EQ(b.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(b[i], b_expected[i], 1e-5) << i;
    // The model's output tensor name ends up on the last producer.
    EXPECT_STREQ(add.child("output").child("port").attribute("names").value(), "y");
}

TEST(EndToEnd, GemmIsLoweredToMatMul) {
    OnnxModelBuilder m(13);
    m.input("a", {2, 3});
    m.initializer("b", std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}, {4, 3});
    m.initializer("c", std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}, {4});
    m.node("Gemm", {"a", "b", "c"}, {"y"}, {{"transB", 1}}, "gemm");
    m.output("y");
    ScratchDir out("e2e");
    auto c = convert_model(m.save("gemm.onnx"), fp32(), out);
    auto types = test::layer_types(c->doc);
    EXPECT_EQ(std::count(types.begin(), types.end(), "MatMul"), 1);
    EXPECT_EQ(std::count(types.begin(), types.end(), "Gemm"), 0);
    auto matmul = test::layer_of_type(c->doc, "MatMul");
    EXPECT_TRUE(matmul.child("data").attribute("transpose_a"));
    auto result = test::layer_of_type(c->doc, "Result");
    EXPECT_EQ(dims_of(result.child("input").child("port")), (std::vector<std::string>{"2", "4"}));
}

TEST(EndToEnd, Fp16CompressionStoresHalfWeightsBehindADecompressionConvert) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 1, 2, 2});
    m.initializer("w", std::vector<float>{0.5f, -2.f}, {2, 1, 1, 1});
    m.node("Conv", {"x", "w"}, {"y"}, {{"kernel_shape", {1, 1}}}, "conv");
    m.output("y");
    ScratchDir out("e2e");
    auto c = convert_model(m.save("conv_fp16.onnx"), ConversionOptions{}, out);  // compress_to_fp16 by default
    auto conv = test::layer_of_type(c->doc, "Convolution");
    auto convert = test::producer_of(c->doc, conv, 1);
    ASSERT_STREQ(convert.attribute("type").value(), "Convert");
    EXPECT_STREQ(convert.child("data").attribute("destination_type").value(), "f32");
    EXPECT_TRUE(convert.child("rt_info").find_child_by_attribute("attribute", "name", "decompression"));
    auto weights = test::producer_of(c->doc, convert, 0);
    ASSERT_STREQ(weights.attribute("type").value(), "Const");
    EXPECT_STREQ(weights.child("data").attribute("element_type").value(), "f16");
    EXPECT_STREQ(weights.child("output").child("port").attribute("precision").value(), "FP16");
    // 0.5 = 0x3800 and -2 = 0xC000 in IEEE half precision, little-endian.
    EXPECT_EQ(test::const_bytes(weights, c->bin), std::string("\x00\x38\x00\xC0", 4));
    // The activations stay f32.
    EXPECT_STREQ(conv.child("output").child("port").attribute("precision").value(), "FP32");
}

// f16 would turn the scale 0.1 into 0.0999755859375 and 0.25 / scale from 2.5 (rounds to even: 2)
// into 2.5006 (rounds to 3): the quantization scale stays f32 and its Divide says so in rt_info.
TEST(EndToEnd, Fp16CompressionKeepsQuantizationScalesF32) {
    OnnxModelBuilder m(13);
    m.input("x", {2});
    m.initializer("scale", std::vector<float>{0.1f}, {});
    m.node("QuantizeLinear", {"x", "scale"}, {"y"}, {}, "quantize");
    m.output("y", onnx::TensorProto::UINT8);
    ScratchDir out("e2e");
    auto c = convert_model(m.save("quantize_fp16.onnx"), ConversionOptions{}, out);  // compress_to_fp16 by default
    auto divide = test::layer_of_type(c->doc, "Divide");
    EXPECT_TRUE(divide.child("rt_info").find_child_by_attribute("attribute", "name", "disable_fp16_compression"));
    auto scale = test::producer_of(c->doc, divide, 1);
    ASSERT_STREQ(scale.attribute("type").value(), "Const");
    EXPECT_STREQ(scale.child("data").attribute("element_type").value(), "f32");
    const float tenth = 0.1f;
    EXPECT_EQ(test::const_bytes(scale, c->bin), std::string(reinterpret_cast<const char*>(&tenth), 4));
}

TEST(EndToEnd, OutputCutKeepsOnlyWhatFeedsTheNewOutput) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 2});
    m.node("Relu", {"x"}, {"a"}, {}, "relu");
    m.node("Abs", {"a"}, {"b"}, {}, "abs");
    m.output("b");
    ConversionOptions o = fp32();
    o.outputs = {"a"};
    ScratchDir out("e2e");
    auto c = convert_model(m.save("cut.onnx"), o, out);
    EXPECT_EQ(test::layer_types(c->doc), (std::vector<std::string>{"Parameter", "ReLU", "Result"}));
    auto relu = test::layer_of_type(c->doc, "ReLU");
    EXPECT_STREQ(relu.child("output").child("port").attribute("names").value(), "a");
}

TEST(EndToEnd, InputShapeOverrideMakesDimsDynamic) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 3, 8, 8});
    m.node("Relu", {"x"}, {"y"}, {}, "relu");
    m.output("y");
    ConversionOptions o = fp32();
    o.inputs = {InputSpec{"x", PartialShape{1, 3, Dimension(), Dimension(1, 64)}}};
    ScratchDir out("e2e");
    auto c = convert_model(m.save("shape.onnx"), o, out);
    auto param = test::layer_of_type(c->doc, "Parameter");
    EXPECT_STREQ(param.child("data").attribute("shape").value(), "1,3,?,1..64");
    auto result = test::layer_of_type(c->doc, "Result");
    EXPECT_EQ(dims_of(result.child("input").child("port")), (std::vector<std::string>{"1", "3", "-1", "-1"}));
}

TEST(EndToEnd, UnknownOpsAreAllListedAndNothingIsWritten) {
    OnnxModelBuilder m(13);
    m.input("x", {2});
    m.node("FancyOp", {"x"}, {"a"}, {}, "fancy_node");
    m.node("OtherOp", {"a"}, {"b"}, {}, "other_node");
    m.output("b");
    ScratchDir out("e2e");
    ConversionOptions o;
    o.input_model = m.save("unknown.onnx");
    o.output_dir = out.file("fresh_dir");
    test::expect_error([&] { convert(o); }, {"FancyOp", "fancy_node", "OtherOp", "other_node"});
    EXPECT_EQ(out.entries(), std::vector<std::string>{});  // not even the output directory
}

TEST(EndToEnd, AFailedConversionRemovesEveryDirectoryItCreated) {
    OnnxModelBuilder m(13);
    m.input("x", {2});
    m.node("FancyOp", {"x"}, {"y"}, {}, "fancy_node");
    m.output("y");
    ScratchDir out("e2e");
    std::filesystem::create_directories(out.file("kept"));
    std::ofstream(out.file("kept/note.txt")) << "earlier";
    ConversionOptions o;
    o.input_model = m.save("unknown_fancy_op.onnx");
    o.output_dir = out.file("p1/p2/p3");
    EXPECT_THROW(convert(o), Error);
    // Below a directory that was there: only the levels the conversion made go.
    o.output_dir = out.file("kept/a/b/");
    EXPECT_THROW(convert(o), Error);
    EXPECT_EQ(out.entries(), std::vector<std::string>{"kept"});
    EXPECT_EQ(test::read_bytes(out.file("kept/note.txt")), "earlier");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(out.file("kept")), std::filesystem::directory_iterator{}), 1);
}

// Found by an audit: with PartialInference disabled the IR was written with UNSPECIFIED
// precisions, which OpenVINO's reader (and mo-run) refuse; exit 0.
TEST(EndToEnd, AnIrWithUntypedPortsIsNotWritten) {
    ScratchDir out("e2e_untyped");
    ConversionOptions o;
    o.input_model = std::string(MO_SOURCE_DIR) + "/samples/tiny_cnn.prototxt";
    o.output_dir = out.path().string();
    setenv("MO_DISABLED_TRANSFORMS", "PartialInference", 1);
    test::expect_error([&] { convert(o); }, {"has no element type", "MO_DISABLED_TRANSFORMS leaves PartialInference on"});
    unsetenv("MO_DISABLED_TRANSFORMS");
    EXPECT_TRUE(out.entries().empty());
}

// Found by an audit: the flags were ignored silently (the IR's conversion_parameters listed them).
TEST(EndToEnd, AFlagWhoseTransformationIsDisabledIsAnError) {
    ScratchDir out("e2e_flag_disabled");
    ConversionOptions o;
    o.input_model = std::string(MO_SOURCE_DIR) + "/samples/tiny_cnn.prototxt";
    o.output_dir = out.path().string();
    o.mean_values = {{"", {1}}};
    o.reverse_input_channels = true;
    setenv("MO_DISABLED_TRANSFORMS", "InputPreprocessing", 1);
    test::expect_error([&] { convert(o); }, {"--mean_values, --reverse_input_channels needs the transformation InputPreprocessing"});
    o.mean_values.clear();
    o.reverse_input_channels = false;
    o.outputs = {"relu"};
    setenv("MO_DISABLED_TRANSFORMS", "OutputCut", 1);
    test::expect_error([&] { convert(o); }, {"--output needs the transformation OutputCut"});
    unsetenv("MO_DISABLED_TRANSFORMS");
    EXPECT_TRUE(out.entries().empty());
}

TEST(EndToEnd, SampleModelConvertsDeterministically) {
    const std::string sample = std::string(MO_SOURCE_DIR) + "/samples/tiny_cnn.prototxt";
    ScratchDir a("e2e_a"), b("e2e_b");
    ConversionOptions o;
    o.cli_parameters = {{"input_model", "samples/tiny_cnn.prototxt"}};
    auto c = convert_model(sample, o, a);
    auto again = convert_model(sample, o, b);
    EXPECT_EQ(c->result.xml_path, a.file("tiny_cnn.xml"));
    EXPECT_EQ(a.entries(), (std::vector<std::string>{"tiny_cnn.bin", "tiny_cnn.xml"}));
    EXPECT_EQ(test::read_bytes(c->result.xml_path), test::read_bytes(again->result.xml_path));
    EXPECT_EQ(c->bin, again->bin);

    auto types = test::layer_types(c->doc);
    for (const char* t : {"Convolution", "MaxPool", "MatMul", "SoftMax", "Convert"})
        EXPECT_EQ(std::count(types.begin(), types.end(), t) > 0, true) << t;
    for (const char* t : {"Gemm", "Flatten", "BatchNormalization", "FrameworkNode"})
        EXPECT_EQ(std::count(types.begin(), types.end(), t), 0) << t;
    auto result = test::layer_of_type(c->doc, "Result");
    EXPECT_EQ(dims_of(result.child("input").child("port")), (std::vector<std::string>{"1", "10"}));
    auto softmax = test::layer_of_type(c->doc, "SoftMax");
    EXPECT_STREQ(softmax.child("output").child("port").attribute("names").value(), "probabilities");
    EXPECT_STREQ(c->doc.child("net").child("rt_info").child("conversion_parameters").child("input_model")
                     .attribute("value").value(), "samples/tiny_cnn.prototxt");
}

TEST(EndToEnd, UnsupportedFrameworkAndPlannedFlagsAreErrors) {
    ScratchDir dir("e2e");
    std::string path = dir.file("model.weird");
    std::ofstream(path) << "this is not a model";
    ConversionOptions o;
    o.input_model = path;
    o.output_dir = dir.file("out");
    test::expect_error([&] { convert(o); }, {"unsupported framework", "onnx"});
    o.input_model = dir.file("missing.onnx");
    EXPECT_THROW(convert(o), Error);
    o.input_model = std::string(MO_SOURCE_DIR) + "/samples/tiny_cnn.prototxt";
    o.transformations_config = dir.file("missing_config.json");
    test::expect_error([&] { convert(o); }, {"cannot read the transformations config", "missing_config.json"});
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.weird"});
}

}  // namespace
}  // namespace mo
