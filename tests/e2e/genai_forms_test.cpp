// Every graph form ONNX Runtime GenAI's model builder has written for an int4 / int8 decoder
// (bench/genai_forms.py: releases 0.5 ... main, CPU / CUDA / DML, tied and quantized embeddings,
// sliding-window cache), converted plain and with MakeStateful, against ONNX Runtime's outputs
// for a 5-token prompt and one decode step (scripts/make_genai_reference.js; the fixtures are
// made by scripts/make_genai_fixtures.sh).
// * --compress_to_fp16=False: every output within 1e-4 of ONNX Runtime's. Forms whose
//   MatMulNBits have accuracy_level 4 are compared with ONNX Runtime computing them in float
//   (level 0): the IR computes the float product (docs/llm-forms.md).
// * default flags (weights and scales rounded to f16): the logits within 1e-4 of ONNX Runtime's
//   for the same model with every f32 weight rounded to f16 (step*_f16r_*), so the IR computes
//   what that model computes; and so within the error f16 rounding alone causes, measured as the
//   largest |ORT(rounded model) - ORT(model)| over the same inputs, + 1e-4.
// * fp16 exports (CUDA, DML): the IR keeps f16 activations and, like ONNX Runtime, rounds to f16
//   at different points. B = max |ORT(f16) - ORT(the f32 copy)| on the same inputs is how far f16
//   rounding alone moves ONNX Runtime's logits from the exact ones; the IR's logits must be
//   within 2 B of ONNX Runtime's (two f16 evaluations of the same exact values, each about B away).
//   The DML graph's f32 copy (genai_dml_fp16/f32_copy) is held to 1e-4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "tools/convert.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

struct GenaiForm {
    std::string dir;                  // under tests/e2e/data
    bool f16;                         // an fp16 export: f16 references, compared within 2 B
    std::vector<std::string> inputs;  // of the stateful IR
    ElementType low_bit;              // the weights' type in the IR
    size_t low_bit_constants;         // of that type, with default flags (plus i4 embedding below)
    size_t i4_constants = 0;
    bool windowed = false;  // a window-sized cache: the variable holds the window, not GenAI's window + slack
};

std::ostream& operator<<(std::ostream& os, const GenaiForm& f) { return os << f.dir; }

constexpr int kLayers = 2;
constexpr int kKvHeads = 2, kHead = 16;  // scripts/make_genai_fixtures.sh: hidden 64, 4 heads, 2 KV heads
const std::vector<std::string> kTextInputs = {"input_ids", "attention_mask"};

fs::path fixture_dir(const GenaiForm& f) { return fs::path(MO_SOURCE_DIR) / "tests/e2e/data" / f.dir; }

Tensor reference(const GenaiForm& f, const std::string& file) {
    return read_npy((fixture_dir(f) / (file + ".npy")).string());
}

Tensor step_reference(const GenaiForm& f, int step, const std::string& kind, const std::string& name) {
    return reference(f, "step" + std::to_string(step) + "_" + kind + "_" + name);
}

std::string tensor_name(const Node& n) {
    const auto& names = n.is("Result") ? n.in(0).src().names() : n.out(0).names();
    return names.empty() ? n.name() : names.front();
}

struct Converted {
    std::unique_ptr<Graph> ir;
    uint64_t bin_bytes;
};

Converted convert_form(const GenaiForm& f, test::ScratchDir& out, bool compress, bool stateful) {
    ConversionOptions options;
    options.input_model = (fixture_dir(f) / "model.onnx").string();
    options.output_dir = out.path().string();
    options.compress_to_fp16 = compress;
    options.make_stateful = stateful;
    const ConversionResult result = convert(options);
    return {read_ir(result.xml_path, test::builtin_ops()), result.bin_bytes};
}

// The step's inputs from ONNX Runtime's; a stateful IR's beam_idx is [0]: the one entry keeps its cache.
std::vector<Tensor> step_inputs(const GenaiForm& f, const Graph& ir, int step) {
    std::vector<Tensor> inputs;
    for (const Node& p : ir.parameters())
        inputs.push_back(tensor_name(p) == "beam_idx" ? Tensor::from_vector<int32_t>({0}, {1})
                                                      : step_reference(f, step, "in", tensor_name(p)));
    return inputs;
}

int count_type(const Graph& g, const std::string& type) {
    int n = 0;
    for (const Node& node : g.nodes()) n += node.is(type);
    return n;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
    EXPECT_EQ(a.shape(), b.shape());
    if (a.shape() != b.shape()) return INFINITY;
    const Tensor x = a.convert(ElementType::f32), y = b.convert(ElementType::f32);
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i)
        worst = std::max(worst, std::abs(static_cast<double>(x.data<float>()[i]) - y.data<float>()[i]));
    return worst;
}

// The copy's logits: f16-rounded weights (f32 forms) or the f32 copy (fp16 forms), on step's
// inputs, or decoding from its own cache.
Tensor copy_logits(const GenaiForm& f, int step, bool decode) {
    const std::string tag = f.f16 ? "f32" : "f16r";
    return reference(f, "step" + std::to_string(step) + "_" + tag + (decode ? "_decode" : "") + "_out_logits");
}

// EXPECTs the logits of default flags: f32 forms within 1e-4 of the f16-rounded model and so within
// the f16 error + 1e-4 of ONNX Runtime; fp16 forms within 2 B of ONNX Runtime.
void expect_default_logits(const GenaiForm& f, const Tensor& got, int step, bool decode, const std::string& what) {
    const Tensor ort = step_reference(f, step, "out", "logits"), copy = copy_logits(f, step, decode);
    const double f16_error = max_abs_diff(copy, ort);
    const double error = max_abs_diff(got, ort);
    if (f.f16) {
        EXPECT_LE(error, 2 * f16_error) << what << ": f16 error of ONNX Runtime " << f16_error;
        return;
    }
    EXPECT_LE(max_abs_diff(got, copy), 1e-4) << what << " against the f16-rounded model";
    EXPECT_LE(error, f16_error + 1e-4) << what << ": f16 rounding moves ONNX Runtime by " << f16_error;
}

class GenaiForms : public ::testing::TestWithParam<GenaiForm> {};

// --compress_to_fp16=False: the IR gives ONNX Runtime's logits and cache for the prompt and the
// decode step (fp16 exports: the logits within 2 B).
TEST_P(GenaiForms, IrGivesOnnxRuntimesOutputsForPromptAndDecode) {
    const GenaiForm& f = GetParam();
    test::ScratchDir out{"genai_plain"};
    auto c = convert_form(f, out, false, false);
    EXPECT_EQ(c.ir->parameters().size(), f.inputs.size() + 2 * kLayers);
    for (int step : {1, 2}) {
        auto outputs = evaluate(*c.ir, step_inputs(f, *c.ir, step));
        ASSERT_EQ(outputs.size(), 1u + 2 * kLayers);
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string name = tensor_name(c.ir->results()[i]);
            const std::string what = "step " + std::to_string(step) + " " + name;
            if (!f.f16)
                test::expect_close(outputs[i], step_reference(f, step, "out", name), 1e-4, 0, what);
            else if (name == "logits")
                expect_default_logits(f, outputs[i], step, false, what);
        }
    }
}

// MakeStateful: the cache lives in variables, the inputs are the text's and beam_idx, one
// ScaledDotProductAttention per layer; the logits of the prompt and of the decode step as above,
// and the variables end holding ONNX Runtime's step-2 cache.
TEST_P(GenaiForms, StatefulIrDecodesLikeOnnxRuntime) {
    const GenaiForm& f = GetParam();
    test::ScratchDir out{"genai_stateful"};
    auto c = convert_form(f, out, f.f16, true);
    std::vector<std::string> inputs, want = f.inputs;
    want.push_back("beam_idx");
    for (const Node& p : c.ir->parameters()) inputs.push_back(tensor_name(p));
    EXPECT_EQ(inputs, want);
    ASSERT_EQ(c.ir->results().size(), 1u);
    ASSERT_EQ(c.ir->sinks().size(), 2u * kLayers);
    EXPECT_EQ(count_type(*c.ir, "ScaledDotProductAttention"), kLayers);
    // Each variable starts [batch, kv_heads, 0, head_size] (GenAI 0.15+ names the head size
    // kv_cache_dim: it comes from the present's static size) and is read through beam_idx.
    for (const Node& n : c.ir->nodes()) {
        if (!n.is("ReadValue")) continue;
        EXPECT_EQ(n.in(0).shape().to_string(), "?," + std::to_string(kKvHeads) + ",0," + std::to_string(kHead)) << n.describe();
        const auto targets = n.out(0).targets();
        ASSERT_EQ(targets.size(), 1u);
        EXPECT_TRUE(targets[0].node().is("Gather")) << targets[0].node().describe();
    }
    VariableState state;
    for (int step : {1, 2}) {
        auto logits = evaluate(*c.ir, step_inputs(f, *c.ir, step), state);
        ASSERT_EQ(logits.size(), 1u);
        const std::string what = "stateful step " + std::to_string(step);
        if (f.f16)
            expect_default_logits(f, logits[0], step, step == 2, what);
        else
            test::expect_close(logits[0], step_reference(f, step, "out", "logits"), 1e-4, 0, what);
    }
    if (f.f16 || f.windowed) return;  // f16 caches differ by f16 roundings; a window's by its capacity
    ASSERT_EQ(state.size(), 2u * kLayers);
    for (int layer = 0; layer < kLayers; ++layer)
        for (const char* kind : {"key", "value"}) {
            const std::string past = "past_key_values." + std::to_string(layer) + "." + kind;
            const std::string present = "present." + std::to_string(layer) + "." + kind;
            ASSERT_TRUE(state.count(past + present)) << past;
            test::expect_close(state.at(past + present), step_reference(f, 2, "out", present), 1e-4, 0, present);
        }
}

// Default flags: low-bit weights stay low-bit, the BIN at most the source's weight file (its f32
// embedding and scales become f16), the logits as expect_default_logits says, plain and stateful.
TEST_P(GenaiForms, DefaultFlagsKeepLowBitWeightsAndStayWithinF16Rounding) {
    const GenaiForm& f = GetParam();
    test::ScratchDir out{"genai_default"};
    auto c = convert_form(f, out, true, false);
    EXPECT_EQ(test::compressed_constants(*c.ir, {f.low_bit}).size(), f.low_bit_constants);
    EXPECT_EQ(test::compressed_constants(*c.ir, {ElementType::i4}).size(), f.i4_constants);
    const auto source = fs::file_size(fixture_dir(f) / "model.onnx.data");
    EXPECT_LE(static_cast<double>(c.bin_bytes), 1.01 * static_cast<double>(source)) << c.bin_bytes << " vs " << source;
    for (int step : {1, 2})
        expect_default_logits(f, evaluate(*c.ir, step_inputs(f, *c.ir, step)).at(0), step, false,
                              "default flags, step " + std::to_string(step));
    test::ScratchDir stateful_out{"genai_default_stateful"};
    auto s = convert_form(f, stateful_out, true, true);
    VariableState state;
    for (int step : {1, 2})
        expect_default_logits(f, evaluate(*s.ir, step_inputs(f, *s.ir, step), state).at(0), step, step == 2,
                              "default flags, stateful step " + std::to_string(step));
}

// ORT's greedy tokens are there for mo-run --generate: the prompt [1, 5], 16 new tokens.
TEST_P(GenaiForms, GreedyTokensFixtureIsThere) {
    const GenaiForm& f = GetParam();
    EXPECT_EQ(reference(f, "prompt").shape(), (Shape{1, 5}));
    const Tensor tokens = reference(f, "greedy_tokens");
    EXPECT_EQ(tokens.type(), ElementType::i64);
    EXPECT_EQ(tokens.shape(), (Shape{16}));
    // The first greedy token is the argmax of the prompt's last logits.
    const Tensor logits = step_reference(f, 1, "out", "logits").convert(ElementType::f32);
    const int64_t vocab = logits.shape()[2];
    const float* last = logits.data<float>() + (logits.shape()[1] - 1) * vocab;
    EXPECT_EQ(tokens.data<int64_t>()[0], std::max_element(last, last + vocab) - last);
}

const std::vector<std::string> kDmlInputs = {"input_ids", "attention_mask", "position_ids"};

INSTANTIATE_TEST_SUITE_P(
    Releases, GenaiForms,
    ::testing::Values(GenaiForm{"genai_0_5", false, kTextInputs, ElementType::u4, 11},
                      GenaiForm{"genai_0_11", false, kTextInputs, ElementType::u4, 11},
                      GenaiForm{"genai_0_12", false, kTextInputs, ElementType::u4, 11},
                      GenaiForm{"genai_0_14", false, kTextInputs, ElementType::u4, 11},
                      GenaiForm{"genai_0_15", false, kTextInputs, ElementType::u4, 11},
                      GenaiForm{"genai_head_swa", false, kTextInputs, ElementType::u4, 11, 0, true},
                      GenaiForm{"genai_cuda_fp16", true, kTextInputs, ElementType::u4, 11},
                      GenaiForm{"genai_dml_fp16", true, kDmlInputs, ElementType::u4, 15},
                      GenaiForm{"genai_dml_fp16/f32_copy", false, kDmlInputs, ElementType::u4, 15},
                      GenaiForm{"genai_int8", false, kTextInputs, ElementType::u8, 11},
                      // 11 MatMulNBits weights and zero points, the embedding's weights and zero points
                      GenaiForm{"genai_tied_kquant", false, kTextInputs, ElementType::u4, 24},
                      GenaiForm{"genai_gather_int4", false, kTextInputs, ElementType::u4, 11, 1}),
    [](const ::testing::TestParamInfo<GenaiForm>& info) {
        std::string name = info.param.dir.substr(6);
        std::replace(name.begin(), name.end(), '/', '_');
        return name;
    });

}  // namespace
}  // namespace mo
