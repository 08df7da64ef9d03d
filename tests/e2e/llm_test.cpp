// Decoder-only transformers against ONNX Runtime's outputs for two decoding steps
// (scripts/make_llm_reference.js): the IR as converted, and the stateful IR of --transform
// MakeStateful in the form OpenVINO GenAI loads (beam_idx, one ScaledDotProductAttention per
// layer, rotary embedding and RMS norms in the forms OpenVINO's fusions match). Two fixtures:
// * llm: bench/make_llm.py --layers 2 --hidden 32 --heads 4 --kv_heads 2 --ffn 64 --vocab 50
//   --max_positions 32 (an exporter's form: rotary embedding, grouped-query attention with an
//   additive causal mask and the KV cache as opset ops, f32 weights, position_ids input);
// * llm_int4: bench/make_genai_llm.py (ONNX Runtime GenAI's form: 4-bit MatMulNBits in blocks
//   of 32 and 128, GroupQueryAttention with rotary embedding and KV cache, skip RMS norms).
#include <gtest/gtest.h>

#include <filesystem>

#include "core/evaluator.hpp"
#include "e2e/openvino_llm_patterns.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/run_command.hpp"
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
    int64_t rotary_half;  // half the rotary width (head size / 2)
    // Layers whose attention SDPAToPagedAttention's pattern reads: GroupQueryAttention keeps ONNX
    // Runtime's per-entry cache placement (Select), not the Concat that pattern needs.
    int paged_layers;
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

std::string convert_llm_xml(const LlmFixture& f, test::ScratchDir& out, bool stateful, bool compress = false) {
    ConversionOptions options;
    options.input_model = (fixture_dir(f) / "model.onnx").string();
    options.output_dir = out.path().string();
    options.compress_to_fp16 = compress;
    options.make_stateful = stateful;
    return convert(options).xml_path;
}

std::unique_ptr<Graph> convert_llm(const LlmFixture& f, test::ScratchDir& out, bool stateful) {
    return read_ir(convert_llm_xml(f, out, stateful), test::builtin_ops());
}

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
    test::expect_close(got, want, 1e-4, 1e-4, what);
}

// The strict structural check OpenVINO's reader would make (scripts/check_ir.py), when Python
// and the shared opsets are there.
void expect_strict_check_passes(const std::string& xml) {
    const fs::path opsets = fs::path(MO_SHARED_DIR) / "ir/opsets.json";
    if (!fs::exists("/usr/bin/python3") || !fs::exists(opsets)) GTEST_SKIP() << "no python3 or shared opsets";
    const fs::path script = fs::path(MO_SOURCE_DIR) / "scripts/check_ir.py";
    const auto check = test::run_command("/usr/bin/python3", script.string() + " --opsets " + opsets.string() + " " + xml);
    EXPECT_EQ(check.exit_code, 0) << check.output;
}

// beam_idx 0..batch-1: every batch entry continues its own cache.
Tensor beams_in_order(int64_t batch) {
    std::vector<int32_t> v(static_cast<size_t>(batch));
    for (int32_t i = 0; i < batch; ++i) v[static_cast<size_t>(i)] = i;
    return Tensor::from_vector<int32_t>(v, {batch});
}

std::vector<Tensor> step_inputs(const LlmFixture& f, const Graph& ir, int step) {
    std::vector<Tensor> inputs;
    for (const Node& p : ir.parameters())
        inputs.push_back(tensor_name(p) == "beam_idx" ? beams_in_order(1) : reference(f, step, "in", tensor_name(p)));
    return inputs;
}

int count_type(const Graph& g, const std::string& type) {
    int n = 0;
    for (const Node& node : g.nodes()) n += node.is(type);
    return n;
}

class Llm : public ::testing::TestWithParam<LlmFixture> {};

TEST_P(Llm, IrGivesOnnxRuntimesLogitsAndCacheForTwoSteps) {
    const LlmFixture& f = GetParam();
    test::ScratchDir out{"llm"};
    auto ir = convert_llm(f, out, false);
    EXPECT_EQ(ir->parameters().size(), f.inputs.size() - 1 + 2 * f.layers);  // no beam_idx; (key, value) per layer
    EXPECT_EQ(count_type(*ir, "ScaledDotProductAttention"), f.layers);
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
    const Node beam_idx = ir->parameters().back();
    EXPECT_EQ(beam_idx.out(0).type(), ElementType::i32);
    EXPECT_EQ(beam_idx.out(0).shape().to_string(), "?");
    ASSERT_EQ(ir->results().size(), 1u);
    EXPECT_EQ(tensor_name(ir->results()[0]), "logits");
    EXPECT_EQ(count_type(*ir, "ReadValue"), 2 * f.layers);
    EXPECT_EQ(count_type(*ir, "ScaledDotProductAttention"), f.layers);
    ASSERT_EQ(ir->sinks().size(), 2u * f.layers);  // the Assigns, read back from the IR as sinks
    for (const Node& a : ir->sinks()) EXPECT_TRUE(a.is("Assign"));
    for (const Node& n : ir->nodes()) {
        if (!n.is("ReadValue")) continue;
        // optimum-intel's variables: id = input name + output name, the input's type and shape
        // (batch and sequence dynamic), read only through Gather(·, beam_idx, axis 0).
        const std::string id = n.attr<std::string>("variable_id");
        EXPECT_EQ(id.find("past_key_values."), 0u) << id;
        EXPECT_NE(id.find("present."), std::string::npos) << id;
        const PartialShape shape = n.attr<PartialShape>("variable_shape");
        EXPECT_EQ(shape.to_string(), "?," + std::to_string(n.out(0).shape()[1].get_length()) + ",?," +
                                         std::to_string(2 * f.rotary_half)) << n.describe();
        // The initial value [batch, kv_heads, 0, head_size], from which GenAI finds the axes.
        const PartialShape& init = n.in(0).shape();
        EXPECT_EQ(init.to_string(), "?," + std::to_string(shape[1].get_length()) + ",0," + std::to_string(2 * f.rotary_half));
        const auto targets = n.out(0).targets();
        ASSERT_EQ(targets.size(), 1u);
        const Node gather = targets[0].node();
        ASSERT_TRUE(gather.is("Gather")) << gather.describe();
        EXPECT_EQ(gather.in(1).src().node(), beam_idx);
        EXPECT_EQ(gather.in(2).value()->to_i64(), std::vector<int64_t>{0});
    }
    // The forms OpenVINO's LLM transformations match.
    EXPECT_EQ(test::rms_fusion_matches(*ir), static_cast<size_t>(2 * f.layers + 1));
    EXPECT_EQ(test::rope_gptneox_matches(*ir, f.rotary_half), static_cast<size_t>(2 * f.layers));  // q and k
    EXPECT_EQ(test::paged_attention_matches(*ir), static_cast<size_t>(f.paged_layers));
    // GenAI's stateful pipeline slices the hidden state before the LM head: logits = MatMul(...).
    EXPECT_TRUE(ir->results()[0].in(0).src().node().is("MatMul"));
    expect_strict_check_passes(out.file("model.xml"));

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

// Two prompts in one batch; at the decode step beam_idx [0, 0] makes both entries continue the
// first one's cache (as beam search does when one beam wins twice), so both get ONNX Runtime's
// step-2 logits of that prompt; with [0, 1] the second entry keeps its own, other cache.
TEST_P(Llm, BeamIdxPicksTheCacheEachBatchEntryContinues) {
    const LlmFixture& f = GetParam();
    test::ScratchDir out{"llm_beams"};
    auto ir = convert_llm(f, out, true);
    auto batch_of_two = [](const Tensor& first, std::vector<int64_t> second) {
        std::vector<int64_t> v = first.to_i64();
        v.insert(v.end(), second.begin(), second.end());
        return Tensor::from_vector<int64_t>(v, {2, first.shape()[1]});
    };
    auto inputs = [&](int step, const Tensor& beams) {
        std::vector<Tensor> in;
        for (const Node& p : ir->parameters()) {
            const std::string name = tensor_name(p);
            const Tensor ref = name == "beam_idx" ? Tensor() : reference(f, step, "in", name);
            if (name == "beam_idx") in.push_back(beams);
            else if (name == "input_ids") in.push_back(batch_of_two(ref, step == 1 ? std::vector<int64_t>{9, 3, 1} : std::vector<int64_t>{7}));
            else in.push_back(batch_of_two(ref, ref.to_i64()));  // attention_mask, position_ids: the same
        }
        return in;
    };
    const Tensor want = reference(f, 2, "out", "logits");  // [1, 1, vocab]
    const int64_t vocab = want.shape()[2];
    auto row = [&](const Tensor& logits, int64_t b) {
        std::vector<float> v(logits.data<float>() + b * vocab, logits.data<float>() + (b + 1) * vocab);
        return Tensor::from_vector<float>(v, {1, 1, vocab});
    };
    for (bool reorder : {true, false}) {
        VariableState state;
        evaluate(*ir, inputs(1, beams_in_order(2)), state);
        const Tensor beams = reorder ? Tensor::from_vector<int32_t>({0, 0}, {2}) : beams_in_order(2);
        const Tensor logits = evaluate(*ir, inputs(2, beams), state).at(0);
        ASSERT_EQ(logits.shape(), (Shape{2, 1, vocab}));
        expect_close(row(logits, 0), want, "entry 0");
        if (reorder) {
            expect_close(row(logits, 1), want, "entry 1 on entry 0's cache");
        } else {
            double diff = 0;
            for (int64_t i = 0; i < vocab; ++i) diff = std::max(diff, double(std::abs(logits.data<float>()[vocab + i] - want.data<float>()[i])));
            EXPECT_GT(diff, 1e-3) << "entry 1 continues its own prompt";
        }
    }
}

// MO_DISABLED_TRANSFORMS=ScaledDotProductAttentionFusion keeps the decomposed attention, which
// decodes the same.
TEST_P(Llm, AttentionStaysDecomposedWhenItsFusionIsSwitchedOff) {
    const LlmFixture& f = GetParam();
    test::ScratchDir out{"llm_decomposed"};
    setenv("MO_DISABLED_TRANSFORMS", "ScaledDotProductAttentionFusion", 1);
    std::unique_ptr<Graph> ir;
    try {
        ir = convert_llm(f, out, true);
    } catch (...) {
        unsetenv("MO_DISABLED_TRANSFORMS");
        throw;
    }
    unsetenv("MO_DISABLED_TRANSFORMS");
    EXPECT_EQ(count_type(*ir, "ScaledDotProductAttention"), 0);
    EXPECT_EQ(count_type(*ir, "Softmax"), f.layers);
    VariableState state;
    for (int step : {1, 2})
        expect_close(evaluate(*ir, step_inputs(f, *ir, step), state).at(0), reference(f, step, "out", "logits"),
                     "decomposed, step " + std::to_string(step));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Llm,
                         ::testing::Values(LlmFixture{"llm", {"input_ids", "attention_mask", "position_ids", "beam_idx"}, 2, 4, 2},
                                           LlmFixture{"llm_int4", {"input_ids", "attention_mask", "beam_idx"}, 2, 16, 0}));

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
    const LlmFixture f{"llm_int4", {}, 2, 16, 0};
    for (int step : {1, 2}) {
        auto outputs = evaluate(*ir, step_inputs(f, *ir, step));
        test::expect_close(outputs.at(0), reference(f, step, "out", "logits"), 2e-3, 2e-3, "f16 scales, step " + std::to_string(step));
    }
}

// The stateful IR with default flags: f16-compressed constants, still one SDPA a layer and the
// RMS form (its constants behind decompression Converts, which RMSFusion accepts), and the
// strict check passes.
TEST(LlmStatefulDefaultFlags, StrictCheckPassesAndTheFormsStay) {
    for (const LlmFixture& f : {LlmFixture{"llm", {}, 2, 4, 2}, LlmFixture{"llm_int4", {}, 2, 16, 0}}) {
        test::ScratchDir out{"llm_stateful_f16"};
        const std::string xml = convert_llm_xml(f, out, true, true);
        auto ir = read_ir(xml, test::builtin_ops());
        EXPECT_EQ(count_type(*ir, "ScaledDotProductAttention"), f.layers) << f.dir;
        EXPECT_EQ(test::rms_fusion_matches(*ir), static_cast<size_t>(2 * f.layers + 1)) << f.dir;
        EXPECT_EQ(test::paged_attention_matches(*ir), static_cast<size_t>(f.paged_layers)) << f.dir;
        expect_strict_check_passes(xml);
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
    EXPECT_EQ(ir->parameters().size(), 7u);  // only one pair became a variable; beam_idx added
    EXPECT_EQ(tensor_name(ir->parameters().back()), "beam_idx");
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
