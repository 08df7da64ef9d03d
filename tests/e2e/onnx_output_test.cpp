// `mo --output_format onnx` end to end on the committed fixtures: the written ONNX (checked by
// the ONNX checker as it is written), read back by mo's ONNX loader and evaluated, gives the
// source runtime's saved outputs (TFLite's, TensorFlow.js's, ONNX Runtime's for the ONNX
// fixtures). ONNX Runtime itself runs the same files outside CI (scripts/onnx_output_check.py,
// docs/onnx-output.md). Also the command line: formats, the IR written alongside, --validate,
// an IR as the input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <onnx/onnx_pb.h>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "support/graph_builder.hpp"
#include "support/run_command.hpp"
#include "tools/convert.hpp"
#include "tools/load_and_transform.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(MO_SOURCE_DIR) / "tests" / "e2e" / "data";

std::string model_file(const fs::path& dir) {
    for (const char* f : {"model.json", "model.tflite", "model.pb", "model.onnx"})
        if (fs::exists(dir / f)) return (dir / f).string();
    return {};
}

std::vector<Tensor> numbered(const fs::path& dir, const std::string& prefix) {
    std::vector<Tensor> t;
    for (size_t i = 0; fs::exists(dir / (prefix + "_" + std::to_string(i) + ".npy")); ++i)
        t.push_back(read_npy((dir / (prefix + "_" + std::to_string(i) + ".npy")).string()));
    return t;
}

onnx::ModelProto load_model(const std::string& path) {
    onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(test::read_bytes(path))) << path;
    return m;
}

size_t count_ops(const onnx::GraphProto& g, const std::string& type) {
    size_t n = 0;
    for (const auto& node : g.node()) {
        n += node.op_type() == type;
        for (const auto& a : node.attribute())
            if (a.has_g()) n += count_ops(a.g(), type);
    }
    return n;
}

struct Fixture {
    std::string dir;     // under tests/e2e/data
    size_t transposes;   // in the written ONNX
    double tolerance;    // float outputs: max |got - want| / range of want; integer outputs: steps
};

void PrintTo(const Fixture& f, std::ostream* os) { *os << f.dir; }

class OnnxOutputFixture : public ::testing::TestWithParam<Fixture> {};

TEST_P(OnnxOutputFixture, WrittenOnnxGivesTheSourceRuntimesOutputs) {
    const Fixture& f = GetParam();
    const fs::path dir = kData / f.dir;
    test::ScratchDir out("onnx_output");
    ConversionOptions o;
    o.input_model = model_file(dir);
    o.output_dir = out.path().string();
    o.model_name = "model";
    o.output_formats = {"onnx"};
    ConversionResult r = convert(o);
    EXPECT_TRUE(r.xml_path.empty());
    EXPECT_EQ(out.entries(), std::vector<std::string>{"model.onnx"});
    EXPECT_EQ(count_ops(load_model(r.onnx_path).graph(), "Transpose"), f.transposes);

    Pipeline pipeline{ConversionOptions{}};
    ConversionOptions back;
    back.input_model = r.onnx_path;
    back.compress_to_fp16 = false;
    auto graph = load_and_transform(back, pipeline, back);
    std::vector<Tensor> inputs = numbered(dir, "input");
    for (size_t i = 0; i < inputs.size() && i < graph->parameters().size(); ++i) {
        const ElementType want = graph->parameters()[i].out(0).type();
        if (inputs[i].type() != want) inputs[i] = inputs[i].convert(want);  // TF.js saves uint8 as int32
    }
    const auto got = evaluate(*graph, inputs);
    const auto want = numbered(dir, "output");
    ASSERT_GE(got.size(), want.size());  // beyond: a stateless model's variables
    for (size_t j = 0; j < want.size(); ++j) {
        ASSERT_EQ(got[j].shape(), want[j].shape()) << "output " << j;
        const auto a = got[j].to_f64(), b = want[j].to_f64();
        double worst = 0, lo = 0, hi = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            worst = std::max(worst, std::abs(a[i] - b[i]));
            lo = i == 0 ? b[i] : std::min(lo, b[i]);
            hi = i == 0 ? b[i] : std::max(hi, b[i]);
        }
        const bool integer = is_integral(want[j].type()) || want[j].type() == ElementType::boolean;
        const double error = integer || hi == lo ? worst : worst / (hi - lo);
        std::cout << "  output " << j << ": " << error << (integer ? " steps" : " of the range") << "\n";
        EXPECT_LE(error, f.tolerance) << "output " << j;
    }
}

// Transposes: what the layout change leaves in each NHWC model (the same as in its IR).
INSTANTIATE_TEST_SUITE_P(
    Fixtures, OnnxOutputFixture,
    ::testing::Values(Fixture{"control_flow/data_dependent_if", 0, 1e-6}, Fixture{"control_flow/list_of_slices", 0, 1e-6},
                      Fixture{"control_flow/nested_branches", 0, 1e-6}, Fixture{"control_flow/recurrence", 0, 1e-6},
                      Fixture{"control_flow/while_halving", 0, 1e-6}, Fixture{"tflite_control_flow/while_countdown", 0, 1e-6},
                      Fixture{"tflite_control_flow/onnx_tf_if_then", 0, 1e-6}, Fixture{"tflite_control_flow/variables", 0, 1e-6},
                      Fixture{"tf_control_flow/tf1_cond_in_while", 0, 1e-6}, Fixture{"tf_control_flow/tf2_lowered_map_fn", 0, 1e-6},
                      Fixture{"tf_control_flow/tf2_while", 0, 1e-6}, Fixture{"tfjs_fused_signature", 4, 1e-5},
                      Fixture{"tflite_int8/int8_io", 2, 1}, Fixture{"tflite_int8/uint8_ops", 2, 1e-6},
                      Fixture{"tflite_int8/int8_cnn", 4, 1e-6}),
    [](const auto& info) {
        std::string n = info.param.dir;
        for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        return n;
    });

// The quantized fixtures keep their 8-bit weights as INT8 / UINT8 initializers read by
// DequantizeLinear, and their activations' quantization as QuantizeLinear / DequantizeLinear.
TEST(OnnxOutput, QuantizedTfliteKeepsIntegerWeightsAndQdq) {
    test::ScratchDir out("onnx_output_int8");
    ConversionOptions o;
    o.input_model = (kData / "tflite_int8" / "int8_cnn" / "model.tflite").string();
    o.output_dir = out.path().string();
    o.output_formats = {"onnx"};
    const auto m = load_model(convert(o).onnx_path);
    size_t integer_elements = 0, float_elements = 0;
    for (const auto& init : m.graph().initializer()) {
        size_t n = 1;
        for (int64_t d : init.dims()) n *= static_cast<size_t>(d);
        if (init.data_type() == onnx::TensorProto::INT8 || init.data_type() == onnx::TensorProto::UINT8) integer_elements += n;
        if (init.data_type() == onnx::TensorProto::FLOAT) float_elements += n;
    }
    EXPECT_GT(integer_elements, 8000u);
    EXPECT_LT(float_elements, integer_elements / 4) << "weights were dequantized into floats";
    EXPECT_GE(count_ops(m.graph(), "DequantizeLinear"), 5u);
    EXPECT_GE(count_ops(m.graph(), "QuantizeLinear"), 3u);
}

TEST(OnnxOutput, IrAndOnnxTogetherGiveTheIrOfIrAloneAndBadFormatsAreRefused) {
    test::ScratchDir both("onnx_output_both"), ir_only("onnx_output_ir");
    const std::string model = (fs::path(MO_SOURCE_DIR) / "samples" / "tiny_cnn.prototxt").string();
    auto run = test::run_command(MO_BINARY, "--input_model " + model + " --output_dir " + both.path().string() +
                                                " --output_format ir,onnx --validate");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("ONNX read back from"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("[ VALIDATE ] passed"), std::string::npos) << run.output;
    EXPECT_EQ(both.entries(), (std::vector<std::string>{"tiny_cnn.bin", "tiny_cnn.onnx", "tiny_cnn.xml"}));
    run = test::run_command(MO_BINARY, "--input_model " + model + " --output_dir " + ir_only.path().string() +
                                           " --output_format onnx,ir");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    // A second run writes the same ONNX bytes.
    EXPECT_EQ(test::read_bytes(both.file("tiny_cnn.onnx")), test::read_bytes(ir_only.file("tiny_cnn.onnx")));
    std::filesystem::remove(ir_only.file("tiny_cnn.onnx"));
    run = test::run_command(MO_BINARY, "--input_model " + model + " --output_dir " + ir_only.path().string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(ir_only.entries(), (std::vector<std::string>{"tiny_cnn.bin", "tiny_cnn.xml"}));
    EXPECT_EQ(test::read_bytes(both.file("tiny_cnn.xml")), test::read_bytes(ir_only.file("tiny_cnn.xml")));
    EXPECT_EQ(test::read_bytes(both.file("tiny_cnn.bin")), test::read_bytes(ir_only.file("tiny_cnn.bin")));

    run = test::run_command(MO_BINARY, "--input_model " + model + " --output_dir " + ir_only.path().string() +
                                           " --output_format onnx,onnx");
    EXPECT_EQ(run.exit_code, 2) << run.output;
    run = test::run_command(MO_BINARY, "--input_model " + model + " --output_format tflite");
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("--output_format takes ir, onnx or ir,onnx"), std::string::npos) << run.output;
}

// DetectionOutput (configs/ssd.json on torchvision's SSD) decomposed into ONNX ops: the ONNX read
// back gives the IR's detections, which ssd_config_test checks against PyTorch's.
TEST(OnnxOutput, DetectionOutputDecomposedGivesTheIrsDetections) {
    const fs::path dir = kData / "tiny_ssd";
    test::ScratchDir out("onnx_output_ssd");
    ConversionOptions o;
    o.input_model = (dir / "model.onnx").string();
    o.output_dir = out.path().string();
    o.transformations_config = (fs::path(MO_SOURCE_DIR) / "configs" / "ssd.json").string();
    o.compress_to_fp16 = false;
    o.output_formats = {"ir", "onnx"};
    const ConversionResult r = convert(o);
    const auto m = load_model(r.onnx_path);
    EXPECT_EQ(count_ops(m.graph(), "NonMaxSuppression"), 1u);
    for (const auto& opset : m.opset_import()) EXPECT_EQ(opset.domain(), "") << "a decomposition, no custom domain";

    Pipeline pipeline{ConversionOptions{}};
    ConversionOptions back;
    back.input_model = r.onnx_path;
    back.compress_to_fp16 = false;
    auto onnx_graph = load_and_transform(back, pipeline, back);
    ConversionOptions ir_back = back;
    ir_back.input_model = r.xml_path;
    auto ir_graph = load_and_transform(ir_back, pipeline, ir_back);
    const Tensor image = read_npy((dir / "image.npy").string());
    const auto a = evaluate(*onnx_graph, {image}).at(0).to_f64(), b = evaluate(*ir_graph, {image}).at(0).to_f64();
    ASSERT_EQ(a.size(), b.size());
    size_t detections = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_NEAR(a[i], b[i], 1e-5) << "row " << i / 7 << " column " << i % 7;
        detections += i % 7 == 0 && b[i] >= 0;
    }
    EXPECT_GT(detections, 10u);
}

// IR -> ONNX through the IR loader: the ONNX gives what the IR gives.
TEST(OnnxOutput, AnIrConvertsToOnnx) {
    test::ScratchDir ir_dir("onnx_output_from_ir"), onnx_dir("onnx_output_from_ir_onnx");
    ConversionOptions o;
    o.input_model = (fs::path(MO_SOURCE_DIR) / "samples" / "tiny_cnn.prototxt").string();
    o.output_dir = ir_dir.path().string();
    o.compress_to_fp16 = false;
    const ConversionResult ir = convert(o);
    ConversionOptions from_ir;
    from_ir.input_model = ir.xml_path;
    from_ir.output_dir = onnx_dir.path().string();
    from_ir.output_formats = {"onnx"};
    const ConversionResult onnx = convert(from_ir);

    Pipeline pipeline{ConversionOptions{}};
    ConversionOptions back;
    back.input_model = onnx.onnx_path;
    back.compress_to_fp16 = false;
    auto onnx_graph = load_and_transform(back, pipeline, back);
    ConversionOptions ir_back;
    ir_back.input_model = ir.xml_path;
    ir_back.compress_to_fp16 = false;
    auto ir_graph = load_and_transform(ir_back, pipeline, ir_back);
    EXPECT_EQ(ir_graph->source_framework, "ir");
    std::vector<float> image(3 * 32 * 32);
    for (size_t i = 0; i < image.size(); ++i) image[i] = std::cos(0.1f * static_cast<float>(i));
    const Tensor in = Tensor::from_vector<float>(image, {1, 3, 32, 32});
    const auto a = evaluate(*onnx_graph, {in})[0].to_f64(), b = evaluate(*ir_graph, {in})[0].to_f64();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6);
}

}  // namespace
}  // namespace mo
