// Decoder-only transformers against ONNX Runtime's outputs for two decoding steps
// (scripts/make_llm_reference.js): the IR as converted, and the stateful IR of --transform
// MakeStateful, which keeps the cache in variables between calls. Two fixtures:
// * llm: bench/make_llm.py (an exporter's form: rotary embedding, grouped-query attention and
//   the KV cache as opset ops, f32 weights, position_ids input);
// * llm_int4: bench/make_genai_llm.py (ONNX Runtime GenAI's form: 4-bit MatMulNBits in blocks
//   of 32 and 128, GroupQueryAttention with rotary embedding and KV cache, skip RMS norms).
#include <gtest/gtest.h>

#include <filesystem>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "tools/cli.hpp"
#include "tools/convert.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

struct LlmFixture {
    std::string dir;                  // under tests/e2e/data
    std::vector<std::string> inputs;  // of the stateful IR
    int layers;
};

std::ostream& operator<<(std::ostream& os, const LlmFixture& f) { return os << f.dir; }

fs::path fixture_dir(const LlmFixture& f) { return fs::path(MO_SOURCE_DIR) / "tests/e2e/data" / f.dir; }

Tensor reference(const LlmFixture& f, int step, const std::string& kind, const std::string& name) {
    return read_npy((fixture_dir(f) / ("step" + std::to_string(step) + "_" + kind + "_" + name + ".npy")).string());
}

std::string tensor_name(const Node& n) {
    const auto& names = n.is("Result") ? n.in(0).src().names() : n.out(0).names();
    return names.empty() ? n.name() : names.front();
}

std::unique_ptr<Graph> convert_llm(const LlmFixture& f, test::ScratchDir& out, bool stateful) {
    ConversionOptions options;
    options.input_model = (fixture_dir(f) / "model.onnx").string();
    options.output_dir = out.path().string();
    options.compress_to_fp16 = false;
    options.make_stateful = stateful;
    return read_ir(convert(options).xml_path, test::builtin_ops());
}

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
    test::expect_close(got, want, 1e-4, 1e-4, what);
}

std::vector<Tensor> step_inputs(const LlmFixture& f, const Graph& ir, int step) {
    std::vector<Tensor> inputs;
    for (const Node& p : ir.parameters()) inputs.push_back(reference(f, step, "in", tensor_name(p)));
    return inputs;
}

class Llm : public ::testing::TestWithParam<LlmFixture> {};

TEST_P(Llm, IrGivesOnnxRuntimesLogitsAndCacheForTwoSteps) {
    const LlmFixture& f = GetParam();
    test::ScratchDir out{"llm"};
    auto ir = convert_llm(f, out, false);
    EXPECT_EQ(ir->parameters().size(), f.inputs.size() + 2 * f.layers);  // + (key, value) per layer
    for (int step : {1, 2}) {
        auto outputs = evaluate(*ir, step_inputs(f, *ir, step));
        ASSERT_EQ(outputs.size(), 1u + 2 * f.layers);
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string name = tensor_name(ir->results()[i]);
            expect_close(outputs[i], reference(f, step, "out", name), "step " + std::to_string(step) + " " + name);
        }
    }
}

TEST_P(Llm, StatefulIrKeepsTheCacheInVariablesAndDecodesLikeOnnxRuntime) {
    const LlmFixture& f = GetParam();
    test::ScratchDir out{"llm_stateful"};
    auto ir = convert_llm(f, out, true);
    std::vector<std::string> inputs;
    for (const Node& p : ir->parameters()) inputs.push_back(tensor_name(p));
    EXPECT_EQ(inputs, f.inputs);
    ASSERT_EQ(ir->results().size(), 1u);
    EXPECT_EQ(tensor_name(ir->results()[0]), "logits");
    int read_values = 0;
    for (const Node& n : ir->nodes()) read_values += n.is("ReadValue");
    EXPECT_EQ(read_values, 2 * f.layers);
    ASSERT_EQ(ir->sinks().size(), 2u * f.layers);  // the Assigns, read back from the IR as sinks
    for (const Node& a : ir->sinks()) EXPECT_TRUE(a.is("Assign"));
    // The variable's batch dimension stays dynamic.
    for (const Node& n : ir->nodes())
        if (n.is("ReadValue")) EXPECT_FALSE(n.attr<PartialShape>("variable_shape")[0].is_static()) << n.describe();

    VariableState state;
    for (int step : {1, 2}) {
        auto logits = evaluate(*ir, step_inputs(f, *ir, step), state);
        ASSERT_EQ(logits.size(), 1u);
        expect_close(logits[0], reference(f, step, "out", "logits"), "stateful step " + std::to_string(step));
    }
    // After two calls each variable holds the cache ONNX Runtime returned at step 2.
    ASSERT_EQ(state.size(), 2u * f.layers);
    for (int layer = 0; layer < f.layers; ++layer)
        for (const char* kind : {"key", "value"}) {
            const std::string name = "past_key_values." + std::to_string(layer) + "." + kind;
            const std::string present = "present." + std::to_string(layer) + "." + kind;
            ASSERT_TRUE(state.count(name + present)) << name;
            expect_close(state.at(name + present), reference(f, 2, "out", present), present);
        }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Llm,
                         ::testing::Values(LlmFixture{"llm", {"input_ids", "attention_mask", "position_ids"}, 2},
                                           LlmFixture{"llm_int4", {"input_ids", "attention_mask"}, 2}));

// With default flags (f16 compression) the int4 model's IR keeps every projection's 4-bit
// weights and zero points as u4 Constants behind decompression Converts, its scales become f16,
// and the BIN stays within 1.1x of the model's own weight file (f32 embedding and scales, packed
// 4-bit weights). Logits then differ from ONNX Runtime's by the f16 rounding of the scales.
TEST(LlmInt4, DefaultFlagsKeepFourBitWeightsAndTheBinWithinTheSourceWeights) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/llm_int4";
    test::ScratchDir out{"llm_int4_default"};
    ConversionOptions options;
    options.input_model = (dir / "model.onnx").string();
    options.output_dir = out.path().string();
    const ConversionResult result = convert(options);
    auto ir = read_ir(result.xml_path, test::builtin_ops());
    // Weights and zero points of 7 projections x 2 layers and of the LM head.
    EXPECT_EQ(test::compressed_constants(*ir, {ElementType::u4}).size(), 2u * (7 * 2 + 1));
    const auto source = fs::file_size(dir / "model.onnx.data");
    EXPECT_LE(static_cast<double>(result.bin_bytes), 1.1 * static_cast<double>(source)) << result.bin_bytes << " vs " << source;
    const LlmFixture f{"llm_int4", {}, 2};
    for (int step : {1, 2}) {
        auto outputs = evaluate(*ir, step_inputs(f, *ir, step));
        test::expect_close(outputs.at(0), reference(f, step, "out", "logits"), 2e-3, 2e-3, "f16 scales, step " + std::to_string(step));
    }
}

TEST(LlmCli, MakeStatefulPairsCanBeNamedAndBadPairsAreRefused) {
    auto req = parse_command_line({"--input_model", "m.onnx", "--transform",
                                   "MakeStateful[param_res_names={'past_key_values.0.key':'present.0.key', "
                                   "\"past_key_values.0.value\":\"present.0.value\"}]"});
    EXPECT_TRUE(req.options.make_stateful);
    ASSERT_EQ(req.options.stateful_pairs.size(), 2u);
    EXPECT_EQ(req.options.stateful_pairs[1], (std::pair<std::string, std::string>{"past_key_values.0.value", "present.0.value"}));
    EXPECT_THROW(parse_command_line({"--input_model", "m.onnx", "--transform", "LowLatency2"}), UsageError);
    EXPECT_THROW(parse_command_line({"--input_model", "m.onnx", "--transform", "MakeStateful[param_res_names={'a'}]"}),
                 UsageError);
    EXPECT_THROW(parse_command_line({"--input_model", "m.onnx", "--transform", "MakeStateful", "--validate"}), UsageError);

    test::ScratchDir out{"llm_pairs"};
    ConversionOptions options;
    options.input_model = (fs::path(MO_SOURCE_DIR) / "tests/e2e/data/llm/model.onnx").string();
    options.output_dir = out.path().string();
    options.make_stateful = true;
    options.stateful_pairs = {{"past_key_values.0.key", "present.0.key"}};
    auto ir = read_ir(convert(options).xml_path, test::builtin_ops());
    EXPECT_EQ(ir->parameters().size(), 6u);  // only one pair became a variable
    EXPECT_EQ(ir->sinks().size(), 1u);
    options.stateful_pairs = {{"past_key_values.0.key", "logits"}};  // rank 4 and rank 3
    try {
        convert(options);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot be one variable"), std::string::npos) << e.what();
    }
    options.stateful_pairs = {{"no_such_input", "logits"}};
    EXPECT_THROW(convert(options), Error);
}

}  // namespace
}  // namespace mo
