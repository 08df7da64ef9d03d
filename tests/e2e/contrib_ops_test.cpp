// ONNX Runtime contrib ops (com.microsoft) against ONNX Runtime's own outputs: one small model
// per op, written by scripts/make_contrib_models.py, outputs from onnxruntime-node 1.30
// (scripts/ort_outputs.js). Each converts to opset ops only and gives ORT's values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/onnx_model_builder.hpp"
#include "tools/convert.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;
using test::OnnxModelBuilder;

std::unique_ptr<Graph> convert_to_ir(const std::string& model, test::ScratchDir& out) {
    ConversionOptions options;
    options.input_model = model;
    options.output_dir = out.path().string();
    options.compress_to_fp16 = false;
    return read_ir(convert(options).xml_path, test::builtin_ops());
}

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
    test::expect_close(got, want, 1e-5, 1e-5, what);
}

class ContribOp : public ::testing::TestWithParam<std::string> {};

TEST_P(ContribOp, GivesOnnxRuntimesOutputs) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/contrib" / GetParam();
    test::ScratchDir out{"contrib"};
    auto ir = convert_to_ir((dir / "model.onnx").string(), out);
    std::vector<Tensor> inputs;
    for (size_t i = 0; fs::exists(dir / ("input_" + std::to_string(i) + ".npy")); ++i)
        inputs.push_back(read_npy((dir / ("input_" + std::to_string(i) + ".npy")).string()));
    auto outputs = evaluate(*ir, inputs);
    ASSERT_FALSE(outputs.empty());
    for (size_t i = 0; i < outputs.size(); ++i)
        expect_close(outputs[i], read_npy((dir / ("output_" + std::to_string(i) + ".npy")).string()),
                     GetParam() + " output " + std::to_string(i));
}

INSTANTIATE_TEST_SUITE_P(Microsoft, ContribOp,
                         ::testing::Values("Gelu", "BiasGelu", "FastGelu", "QuickGelu", "SkipLayerNormalization",
                                           "SkipLayerNormalization_no_beta", "SkipSimplifiedLayerNormalization",
                                           "SimplifiedLayerNormalization", "FusedMatMul", "FusedMatMul_transA",
                                           "Trilu", "GatherND", "EmbedLayerNormalization",
                                           "RotaryEmbedding", "RotaryEmbedding_3d", "Attention", "Attention_causal",
                                           "MultiHeadAttention", "MultiHeadAttention_causal", "MatMulNBits",
                                           "MatMulNBits_bias", "MatMulNBits_8bit", "MatMulIntegerToFloat",
                                           "RotaryEmbedding_interleaved", "RotaryEmbedding_partial",
                                           "GroupQueryAttention", "GroupQueryAttention_prompt",
                                           "GroupQueryAttention_packed", "GroupQueryAttention_interleaved",
                                           "GroupQueryAttention_scaled", "GroupQueryAttention_ragged_prompt",
                                           "GroupQueryAttention_ragged_decode", "MatMulNBits_odd_blocks", "MatMulNBits_padded_k",
                                           "Range", "Pad", "Pad_reflect", "DynamicQuantizeMatMul", "DynamicQuantizeMatMul_uint8", "FusedConv", "FusedConv_clip",
                                           "FusedConv_hard_sigmoid", "FusedGemm", "FusedGemm_tanh", "QGemm_float", "MatMulNBits_2bit", "Attention_past",
                                           "GatherBlockQuantized", "GatherBlockQuantized_8bit", "GatherBlockQuantized_2bit",
                                           "GatherBlockQuantized_int4", "GatherBlockQuantized_uint4"));

// The QLinear* ops' 8-bit outputs. A value whose exact result is a rounding tie (x.5 steps) may
// round either way in f32, depending on the order of the arithmetic: every element must agree
// within one step, and at most one element, or 2 in 100, may differ at all. (QLinearAveragePool's
// one differing element is such a tie, checked in float64.)
class ContribQLinearOp : public ::testing::TestWithParam<std::string> {};

TEST_P(ContribQLinearOp, GivesOnnxRuntimesOutputsWithinOneStep) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/contrib" / GetParam();
    test::ScratchDir out{"contrib_qlinear"};
    auto ir = convert_to_ir((dir / "model.onnx").string(), out);
    std::vector<Tensor> inputs;
    for (size_t i = 0; fs::exists(dir / ("input_" + std::to_string(i) + ".npy")); ++i)
        inputs.push_back(read_npy((dir / ("input_" + std::to_string(i) + ".npy")).string()));
    const Tensor got = evaluate(*ir, inputs).at(0);
    const Tensor want = read_npy((dir / "output_0.npy").string());
    ASSERT_EQ(got.type(), want.type());
    ASSERT_EQ(got.shape(), want.shape());
    const auto g = got.to_f64(), w = want.to_f64();
    size_t off_by_one = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        ASSERT_LE(std::abs(g[i] - w[i]), 1.0) << "element " << i;
        off_by_one += g[i] != w[i];
    }
    EXPECT_LE(off_by_one, std::max<size_t>(1, g.size() / 50)) << off_by_one << " of " << g.size() << " elements one step off";
    std::cout << GetParam() << ": " << off_by_one << " of " << g.size() << " elements one step off ONNX Runtime's\n";
}

INSTANTIATE_TEST_SUITE_P(Microsoft, ContribQLinearOp,
                         ::testing::Values("QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearConcat",
                                           "QLinearGlobalAveragePool", "QLinearAveragePool", "QLinearSoftmax", "QGemm"));

// The 4-bit weights reach the IR as they are stored: a u4 Constant (the model's bytes) and a
// Convert marked as decompression, with default f16 compression too.
TEST(ContribOps, MatMulNBitsKeepsFourBitWeights) {
    const fs::path model = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/contrib/MatMulNBits/model.onnx";
    test::ScratchDir out{"contrib_nbits"};
    ConversionOptions options;
    options.input_model = model.string();
    options.output_dir = out.path().string();
    const ConversionResult result = convert(options);
    auto ir = read_ir(result.xml_path, test::builtin_ops());
    // the weights [8, 2, 32] and the zero points [8, 2, 1]
    EXPECT_EQ(test::compressed_constants(*ir, {ElementType::u4}).size(), 2u);
    EXPECT_LT(result.bin_bytes, 600u);  // 256 + 8 bytes of u4, 32 of f16 scales, a few shape constants
}

// ONNX Runtime has no CPU kernel for BiasAdd: X + bias + skip, worked by hand.
TEST(ContribOps, BiasAddAddsBiasAndSkip) {
    OnnxModelBuilder m(17);
    m.import("com.microsoft", 1);
    m.input("x", {1, 2, 3});
    m.initializer("bias", {10, 20, 30}, {3});
    m.initializer("skip", {1, 2, 3, 4, 5, 6}, {1, 2, 3});
    m.node("BiasAdd", {"x", "bias", "skip"}, {"y"}, {}, "", "com.microsoft");
    m.output("y");
    test::ScratchDir out{"contrib_bias_add"};
    auto ir = convert_to_ir(m.save("bias_add.onnx"), out);
    auto y = evaluate(*ir, {Tensor::from_vector<float>({0.5f, 0, -1, 0, 0, 100}, {1, 2, 3})}).at(0).to_f64();
    EXPECT_EQ(y, (std::vector<double>{11.5, 22, 32, 14, 25, 136}));
}

// A model reading a training output of the normalization is refused by name.
TEST(ContribOps, SkipLayerNormalizationStatisticsOutputsAreRefused) {
    OnnxModelBuilder m(17);
    m.import("com.microsoft", 1);
    m.input("x", {1, 2, 3});
    m.initializer("skip", {1, 2, 3, 4, 5, 6}, {1, 2, 3});
    m.initializer("gamma", {1, 1, 1}, {3});
    m.node("SkipLayerNormalization", {"x", "skip", "gamma"}, {"y", "mean"}, {}, "", "com.microsoft");
    m.output("y");
    m.output("mean");
    test::ScratchDir out{"contrib_refused"};
    try {
        convert_to_ir(m.save("skip_ln_mean.onnx"), out);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("output 1"), std::string::npos) << e.what();
    }
}

// num_heads = 0 divided the hidden size (found by scripts/mutate_models.py under UBSan: division
// by zero in the Attention extractor); now a clear error, for MultiHeadAttention too.
TEST(ContribOps, ZeroHeadsAreAnError) {
    for (const char* op : {"Attention", "MultiHeadAttention"}) {
        SCOPED_TRACE(op);
        OnnxModelBuilder m(17);
        m.import("com.microsoft", 1);
        m.input("x", {1, 2, 6});
        const int64_t columns = std::string(op) == "Attention" ? 18 : 6;  // Q, K and V packed, or one
        m.initializer("w", std::vector<float>(static_cast<size_t>(6 * columns), 0.5f), {6, columns});
        if (std::string(op) == "Attention") m.node(op, {"x", "w"}, {"y"}, {{"num_heads", 0}}, "", "com.microsoft");
        else m.node(op, {"x", "x", "x"}, {"y"}, {{"num_heads", 0}}, "", "com.microsoft");
        m.output("y");
        test::ScratchDir out{"contrib_zero_heads"};
        test::expect_error([&] { convert_to_ir(m.save("zero_heads.onnx"), out); }, "num_heads must be positive, not 0");
    }
}

// A uint8 initializer.
onnx::TensorProto u8_tensor(const std::string& name, const std::vector<uint8_t>& values, const std::vector<int64_t>& dims) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::UINT8);
    for (int64_t d : dims) t.add_dims(d);
    t.set_raw_data(std::string(values.begin(), values.end()));
    return t;
}

// Forms mo cannot express exactly are refused by name: a GatherBlockQuantized quantized along
// another axis than the last (ONNX Runtime itself refuses it for uint8 data), and MatMulNBits
// weights in a CUDA kernel's prepacked layout.
TEST(ContribOps, GatherBlockQuantizedAndMatMulNBitsRefuseWhatTheyCannotKeep) {
    {
        OnnxModelBuilder m(21);
        m.import("com.microsoft", 1);
        m.input("ids", {2}, onnx::TensorProto::INT64);
        m.initializer(u8_tensor("data", std::vector<uint8_t>(32 * 8, 0x88), {32, 8}));
        m.initializer("scales", std::vector<float>(16, 0.5f), {2, 8});
        m.node("GatherBlockQuantized", {"data", "ids", "scales"}, {"y"},
               {{"gather_axis", 1}, {"quantize_axis", 0}, {"block_size", 16}}, "", "com.microsoft");
        m.output("y");
        test::ScratchDir out{"contrib_gbq_axis"};
        test::expect_error([&] { convert_to_ir(m.save("gbq_axis.onnx"), out); },
                           {"GatherBlockQuantized", "quantize_axis other than the data's last axis is not supported"});
    }
    {
        OnnxModelBuilder m(21);
        m.import("com.microsoft", 1);
        m.input("a", {1, 32});
        m.initializer(u8_tensor("b", std::vector<uint8_t>(8 * 16, 0x88), {8, 1, 16}));
        m.initializer("scales", std::vector<float>(8, 0.5f), {8});
        m.node("MatMulNBits", {"a", "b", "scales"}, {"y"},
               {{"K", 32}, {"N", 8}, {"bits", 4}, {"block_size", 32}, {"weight_prepacked", 1}}, "", "com.microsoft");
        m.output("y");
        test::ScratchDir out{"contrib_prepacked"};
        test::expect_error([&] { convert_to_ir(m.save("prepacked.onnx"), out); },
                           {"weight_prepacked=1", "matmulnbits_weights_prepacked"});
    }
}

}  // namespace
}  // namespace mo
