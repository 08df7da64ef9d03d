// TFLite full-integer models (tests/e2e/data/tflite_int8, written by make_tflite_int8_models.cpp)
// against the TFLite interpreter's outputs (the WebAssembly build of @tensorflow/tfjs-tflite
// 0.0.1-alpha.10, run by scripts/tflite_outputs.js). Each converts with the mo command; the IR
// keeps the model's 8-bit weights as stored, each behind a decompression Convert; the BIN is
// about the size of those weights; and the IR read back gives the runtime's outputs within one
// quantization step of each output. Every expected count and size is read from the .tflite file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "loaders/tflite/tflite_schema_generated.h"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/run_command.hpp"
#include "support/tflite_model_builder.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;
using tflite::BuiltinOperator;
using tflite::TensorType;

const fs::path kData = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/tflite_int8";

std::vector<char> read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool is_8bit(TensorType t) { return t == TensorType::INT8 || t == TensorType::UINT8; }

bool quantized(const tflite::Tensor& t) {
    return t.quantization() && t.quantization()->scale() && t.quantization()->scale()->size();
}

// What the source model stores: its quantized 8-bit constants (weights), their bytes and scales.
struct SourceWeights {
    size_t tensors = 0, bytes = 0, scales = 0;
};

SourceWeights source_weights(const tflite::Model& m) {
    SourceWeights w;
    for (const tflite::Tensor* t : *m.subgraphs()->Get(0)->tensors()) {
        const tflite::Buffer* b = m.buffers()->Get(t->buffer());
        if (!is_8bit(t->type()) || !quantized(*t) || !b->data() || b->data()->size() == 0) continue;
        ++w.tensors;
        w.bytes += b->data()->size();
        w.scales += t->quantization()->scale()->size();
    }
    return w;
}

// One quantization step of model output `k`: 1 for a quantized output (compared as stored), the
// scale of the tensor a DEQUANTIZE read for a float one; 0 for a float output of float ops.
double output_step(const tflite::Model& m, size_t k) {
    const tflite::SubGraph& g = *m.subgraphs()->Get(0);
    const int32_t index = g.outputs()->Get(static_cast<uint32_t>(k));
    if (quantized(*g.tensors()->Get(static_cast<uint32_t>(index)))) return 1;
    for (const tflite::Operator* op : *g.operators()) {
        if (op->outputs()->Get(0) != index) continue;
        const auto code = m.operator_codes()->Get(op->opcode_index())->builtin_code();
        const tflite::Tensor& in = *g.tensors()->Get(static_cast<uint32_t>(op->inputs()->Get(0)));
        if (code == BuiltinOperator::DEQUANTIZE && quantized(in)) return in.quantization()->scale()->Get(0);
    }
    return 0;
}

struct Fixture {
    std::string name;
    bool bin_checked;  // the weights dominate the file: BIN within 1.1x of their bytes + f32 scales
    // The expected outputs: "output" (<expected>_<k>.npy), the TFLite interpreter's (tfjs-tflite,
    // its XNNPACK delegate), or "reference", TFLite's reference kernels' integer arithmetic
    // (scripts/tflite_reference_kernels.py).
    std::string expected = "output";
};

void PrintTo(const Fixture& f, std::ostream* os) { *os << f.name; }

class TfliteInt8 : public ::testing::TestWithParam<Fixture> {};

TEST_P(TfliteInt8, KeepsWeightsAndGivesTheRuntimesOutputsWithinAStep) {
    const fs::path dir = kData / GetParam().name;
    const std::vector<char> file = read_bytes(dir / "model.tflite");
    const tflite::Model& model = *tflite::GetModel(file.data());
    const SourceWeights weights = source_weights(model);
    std::vector<Tensor> inputs{read_npy((dir / "input_0.npy").string())};

    for (const bool f16 : {true, false}) {
        test::ScratchDir out("tflite_int8");
        const std::string flags = f16 ? "" : " --compress_to_fp16=False";
        const auto run = test::run_command(MO_BINARY, "--input_model " + (dir / "model.tflite").string() +
                                                          " --output_dir " + out.path().string() + flags);
        ASSERT_EQ(run.exit_code, 0) << run.output;
        const fs::path xml = out.path() / "model.xml";
        auto ir = read_ir(xml.string(), test::builtin_ops());

        // The 8-bit weights are the model's, each read by a Convert marked as decompression.
        const std::vector<Node> constants = test::compressed_constants(*ir, {ElementType::i8, ElementType::u8});
        const size_t stored = constants.size();
        for (const Node& n : constants) {
            ASSERT_EQ(n.out(0).target_count(), 1u) << n.describe();
            const Node convert = n.out(0).targets()[0].node();
            // The stored weights are in the layout their consumer reads: no Transpose or Reshape
            // of weights at run time.
            Node user = convert;
            while ((user == convert || user.is("Subtract") || user.is("Multiply")) && user.out(0).target_count() == 1)
                user = user.out(0).targets()[0].node();
            EXPECT_FALSE(user.is("Transpose") || user.is("Reshape")) << user.describe();
        }
        EXPECT_EQ(stored, weights.tensors);

        const size_t bin = fs::file_size(out.path() / "model.bin");
        const size_t budget = weights.bytes + 4 * weights.scales;
        std::cout << GetParam().name << (f16 ? "" : " (f32)") << ": BIN " << bin << " bytes, 8-bit weights "
                  << weights.bytes << " + f32 scales " << 4 * weights.scales << " = " << budget << " (x"
                  << static_cast<double>(bin) / static_cast<double>(budget) << ")\n";
        if (GetParam().bin_checked) EXPECT_LE(static_cast<double>(bin), 1.1 * static_cast<double>(budget));

        const auto outputs = evaluate(*ir, inputs);
        ASSERT_EQ(outputs.size(), static_cast<size_t>(model.subgraphs()->Get(0)->outputs()->size()));
        for (size_t k = 0; k < outputs.size(); ++k) {
            const Tensor want_t = read_npy((dir / (GetParam().expected + "_" + std::to_string(k) + ".npy")).string());
            EXPECT_EQ(outputs[k].type(), want_t.type()) << "output " << k;
            const auto got = outputs[k].to_f64(), want = want_t.to_f64();
            ASSERT_EQ(got.size(), want.size()) << "output " << k;
            const double step = output_step(model, k);
            double worst = 0;  // in steps (float outputs: relative to the tolerance)
            size_t off_by_one = 0;
            for (size_t i = 0; i < got.size(); ++i) {
                const double diff = std::abs(got[i] - want[i]);
                if (step == 0) {
                    worst = std::max(worst, diff / (1e-4 + 1e-3 * std::abs(want[i])));
                    continue;
                }
                worst = std::max(worst, diff / step);
                off_by_one += diff > 0.5 * step;
            }
            std::cout << "  output " << k << ": " << got.size() << " elements, max error "
                      << (step == 0 ? "(of the float tolerance) " : "(steps) ") << worst << ", " << off_by_one
                      << " one step off\n";
            // Rounding ties may go the other way (one step); f32 noise is far below a step.
            EXPECT_LE(worst, step == 0 ? 1.0 : 1.001) << "output " << k;
        }

        // The strict IR check, when Python and the shared opsets are there.
        const fs::path opsets = fs::path(MO_SHARED_DIR) / "ir/opsets.json";
        if (fs::exists("/usr/bin/python3") && fs::exists(opsets)) {
            const fs::path script = fs::path(MO_SOURCE_DIR) / "scripts/check_ir.py";
            const auto check = test::run_command("/usr/bin/python3", script.string() + " --opsets " + opsets.string() +
                                                                         " " + xml.string());
            EXPECT_EQ(check.exit_code, 0) << check.output;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Tflite, TfliteInt8,
                         ::testing::Values(Fixture{"int8_cnn", true}, Fixture{"uint8_ops", false},
                                           Fixture{"int16x8", true}, Fixture{"int8_io", false},
                                           Fixture{"dequantize_weights", false},
                                           Fixture{"uint8_requantize", false, "reference"}),
                         [](const auto& info) { return info.param.name; });

// uint8_requantize (CONV_2D -> DEPTHWISE_CONV_2D -> CONV_2D, multipliers with a right shift of
// 2): TFLite's reference kernels round the requantization twice, XNNPACK (the runtime's delegate)
// once. The IR rounds as the reference kernels, but for f32 noise at a near-tie of the first
// rounding (a few elements); the runtime's outputs differ from the reference in many more: the
// fixture reproduces the drift the double rounding caused before the IR emulated it.
TEST(TfliteInt8, Uint8RequantizationRoundsAsTheReferenceKernels) {
    const fs::path dir = kData / "uint8_requantize";
    test::ScratchDir out("tflite_int8_requantize");
    const auto run = test::run_command(MO_BINARY, "--input_model " + (dir / "model.tflite").string() +
                                                      " --output_dir " + out.path().string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    auto ir = read_ir((out.path() / "model.xml").string(), test::builtin_ops());
    const auto outputs = evaluate(*ir, {read_npy((dir / "input_0.npy").string())});
    ASSERT_EQ(outputs.size(), 3u);
    for (size_t k = 0; k < outputs.size(); ++k) {
        const auto got = outputs[k].to_f64();
        const auto reference = read_npy((dir / ("reference_" + std::to_string(k) + ".npy")).string()).to_f64();
        const auto runtime = read_npy((dir / ("output_" + std::to_string(k) + ".npy")).string()).to_f64();
        ASSERT_EQ(got.size(), reference.size());
        size_t off = 0, runtime_off = 0;
        double worst = 0;
        for (size_t i = 0; i < got.size(); ++i) {
            worst = std::max(worst, std::abs(got[i] - reference[i]));
            off += got[i] != reference[i];
            runtime_off += runtime[i] != reference[i];
        }
        std::cout << "  output " << k << ": " << off << " of " << got.size() << " off the reference kernels (max "
                  << worst << "), the runtime " << runtime_off << "\n";
        EXPECT_LE(worst, 1.0) << "output " << k;
        EXPECT_LE(off * 100, got.size()) << "output " << k;        // at most 1%: near-ties only
        EXPECT_GE(runtime_off * 20, got.size()) << "output " << k;  // at least 5%: the drift is there
    }
}

// CONCATENATION of uint8 inputs whose grids differ from the output's, against TFLite's reference
// kernel worked here (ConcatenationWithScaling: q_out = round((q_in - zp_in) · s_in / s_out) +
// zp_out, clamped). The runtime the fixtures are checked with copies the stored bytes instead (its
// XNNPACK delegate), so this expectation is written from the kernel's arithmetic.
TEST(TfliteInt8, ConcatenationRequantizesInputsOfOtherGrids) {
    test::TfliteModelBuilder m;
    const int a = m.input("a", {1, 4}, TensorType::UINT8), b = m.input("b", {1, 3}, TensorType::UINT8);
    m.quantize(a, {0.07f}, {10});
    m.quantize(b, {0.5f}, {100});
    const int y = m.tensor("y", {1, 7}, TensorType::UINT8);
    m.quantize(y, {0.2f}, {50});
    m.op(BuiltinOperator::CONCATENATION, {a, b}, {y}, [](flatbuffers::FlatBufferBuilder& fb) {
        return std::make_pair(tflite::BuiltinOptions::ConcatenationOptions,
                              tflite::CreateConcatenationOptions(fb, 1).Union());
    });
    m.output(y);
    // a rescales by 0.35 (-3.15, 1.05, 28.35, 85.75: rounded, no ties), b by 2.5 (-250, 10, 385:
    // saturated at both ends).
    const std::vector<uint8_t> qa{1, 13, 91, 255}, qb{0, 104, 254};
    auto requantized = [](uint8_t q, double zp, double scale) {
        return static_cast<uint8_t>(std::clamp(std::lround((q - zp) * scale / 0.2) + 50, 0L, 255L));
    };
    std::vector<uint8_t> want;
    for (uint8_t q : qa) want.push_back(requantized(q, 10, 0.07));
    for (uint8_t q : qb) want.push_back(requantized(q, 100, 0.5));
    test::ScratchDir out("tflite_int8_concat");
    const auto run = test::run_command(MO_BINARY, "--input_model " + m.save("concat_scales.tflite") + " --output_dir " +
                                                      out.path().string() + " --model_name model");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    auto ir = read_ir((out.path() / "model.xml").string(), test::builtin_ops());
    const auto got =
        evaluate(*ir, {Tensor::from_vector<uint8_t>(qa, {1, 4}), Tensor::from_vector<uint8_t>(qb, {1, 3})});
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].type(), ElementType::u8);
    EXPECT_EQ(std::vector<uint8_t>(got[0].data<uint8_t>(), got[0].data<uint8_t>() + got[0].size()), want);
}

// The message of a conversion that must fail.
std::string refusal(const test::TfliteModelBuilder& m, const std::string& file) {
    test::ScratchDir out("tflite_int8_refused");
    const auto run = test::run_command(MO_BINARY, "--input_model " + m.save(file) + " --output_dir " + out.path().string());
    EXPECT_NE(run.exit_code, 0) << run.output;
    EXPECT_TRUE(!fs::exists(out.path()) || fs::is_empty(out.path())) << "nothing is written";
    return run.output;
}

// x (int8, quantized) -> op -> y
test::TfliteModelBuilder int8_chain(BuiltinOperator op, TensorType out_type, std::vector<float> out_scales) {
    test::TfliteModelBuilder m;
    const int x = m.input("x", {1, 2, 2, 2}, TensorType::INT8);
    m.quantize(x, {0.1f}, {0});
    const int y = m.tensor("y", {1, 2, 2, 2}, out_type);
    if (!out_scales.empty()) m.quantize(y, out_scales, std::vector<int64_t>(out_scales.size(), 0), 3);
    m.op(op, {x}, {y});
    m.output(y);
    return m;
}

TEST(TfliteInt8Refused, PerChannelActivationNamesTheTensorAndTheOp) {
    const std::string message = refusal(int8_chain(BuiltinOperator::RELU, TensorType::INT8, {0.1f, 0.2f}),
                                        "per_channel_activation.tflite");
    EXPECT_NE(message.find("tensor 'y' (output of RELU) quantized per channel (2 scales along dimension 3)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("is not supported"), std::string::npos) << message;
}

TEST(TfliteInt8Refused, CastOfAQuantizedTensorNamesTheTensor) {
    const std::string message = refusal(int8_chain(BuiltinOperator::CAST, TensorType::INT32, {}), "cast_quantized.tflite");
    EXPECT_NE(message.find("CAST of the quantized tensor 'x'"), std::string::npos) << message;
}

TEST(TfliteInt8Refused, DequantizeWithoutQuantizationParametersNamesTheOp) {
    test::TfliteModelBuilder m;
    const int x = m.input("x", {2, 2}, TensorType::INT8);
    const int y = m.tensor("y", {2, 2});
    m.op(BuiltinOperator::DEQUANTIZE, {x}, {y});
    m.output(y);
    const std::string message = refusal(m, "dequantize_raw_int8.tflite");
    EXPECT_NE(message.find("DEQUANTIZE of a i8 tensor without quantization parameters is not supported"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("node 'y' (DEQUANTIZE"), std::string::npos) << message;
}

TEST(TfliteInt8Refused, PerChannelScalesThatDoNotMatchTheDimensionAreACorruptModel) {
    test::TfliteModelBuilder m;
    const std::vector<int8_t> q{1, 2, 3, 4, 5, 6, 7, 8};
    const int w = m.constant_bytes("w", {4, 2}, TensorType::INT8, q.data(), q.size());
    m.quantize(w, {0.1f, 0.2f, 0.3f}, {0, 0, 0}, 0);
    const int y = m.tensor("y", {4, 2});
    m.op(BuiltinOperator::DEQUANTIZE, {w}, {y});
    m.output(y);
    const std::string message = refusal(m, "scales_mismatch.tflite");
    EXPECT_NE(message.find("3 quantization scales do not match dimension 0 of the tensor's shape"), std::string::npos)
        << message;
    EXPECT_NE(message.find("tensor 'w'"), std::string::npos) << message;
}

}  // namespace
}  // namespace mo
