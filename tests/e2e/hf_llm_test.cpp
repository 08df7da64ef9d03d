// Hugging Face exports as optimum writes them and transformers.js ships them, against ONNX
// Runtime's outputs (scripts/make_hf_models.py writes the models, scripts/make_hf_reference.js
// the references): Llama-, Qwen2-, Phi-3- and Gemma-shaped decoders as model.onnx,
// model_quantized.onnx (DynamicQuantizeLinear + MatMulInteger), model_q4.onnx (MatMulNBits) and
// model_fp16.onnx; optimum's legacy decoder_model_merged.onnx (an If on use_cache_branch) of a
// Llama and of a Whisper decoder with its cross-attention cache (also quantized); a BERT encoder
// with attention_mask (also quantized per channel).
// * The IR as converted with --compress_to_fp16=False gives ONNX Runtime's outputs, every one,
//   for the 5-token prompt and for one decode step with the presents fed back (1e-4).
// * With default flags (f16-compressed weights) the logits stay within the error that rounding
//   the model's weights to f16 alone causes: ONNX Runtime run on such a copy (f16ref_*.npy).
// * The stateful IR of --transform MakeStateful decodes like ONNX Runtime: the two steps, then
//   greedy decoding of 16 tokens from the prompt gives ONNX Runtime's greedy tokens.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

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

struct HfForm {
    std::string dir;  // under tests/e2e/data
};

std::ostream& operator<<(std::ostream& os, const HfForm& f) { return os << f.dir; }

fs::path dir_of(const HfForm& f) { return fs::path(MO_SOURCE_DIR) / "tests/e2e/data" / f.dir; }

nlohmann::json spec_of(const HfForm& f) {
    std::ifstream in(dir_of(f) / "fixture.json");
    return nlohmann::json::parse(in);
}

bool is_decoder(const nlohmann::json& spec) { return spec["kind"] != "encoder"; }
bool is_fp16(const HfForm& f) { return f.dir.find("_fp16") != std::string::npos; }
bool is_dynamic_quantized(const HfForm& f) { return f.dir.find("_quantized") != std::string::npos; }
std::string main_output(const nlohmann::json& spec) { return is_decoder(spec) ? "logits" : "last_hidden_state"; }

Tensor reference(const HfForm& f, const std::string& file) { return read_npy((dir_of(f) / file).string()); }
Tensor reference(const HfForm& f, int step, const std::string& kind, const std::string& name) {
    return reference(f, "step" + std::to_string(step) + "_" + kind + "_" + name + ".npy");
}
bool has_step(const HfForm& f, int step) {
    return fs::exists(dir_of(f) / ("step" + std::to_string(step) + "_out_" + main_output(spec_of(f)) + ".npy"));
}

std::string tensor_name(const Node& n) {
    const auto& names = n.is("Result") ? n.in(0).src().names() : n.out(0).names();
    return names.empty() ? n.name() : names.front();
}

struct Converted {
    std::unique_ptr<Graph> ir;
    ConversionResult result;
};

Converted convert_form(const HfForm& f, test::ScratchDir& out, bool compress, bool stateful) {
    ConversionOptions options;
    options.input_model = (dir_of(f) / spec_of(f)["model"].get<std::string>()).string();
    options.output_dir = out.path().string();
    options.compress_to_fp16 = compress;
    options.make_stateful = stateful;
    Converted c;
    c.result = convert(options);
    c.ir = read_ir(c.result.xml_path, test::builtin_ops());
    return c;
}

double max_abs(const Tensor& t) {
    const Tensor f = t.type() == ElementType::f32 ? t : t.convert(ElementType::f32);
    double m = 0;
    for (size_t i = 0; i < f.size(); ++i) m = std::max(m, std::fabs(static_cast<double>(f.data<float>()[i])));
    return m;
}

double max_diff(const Tensor& a, const Tensor& b) {
    EXPECT_EQ(a.shape(), b.shape());
    if (a.shape() != b.shape()) return INFINITY;
    const Tensor x = a.convert(ElementType::f32), y = b.convert(ElementType::f32);
    double m = 0;
    for (size_t i = 0; i < x.size(); ++i)
        m = std::max(m, std::fabs(static_cast<double>(x.data<float>()[i]) - y.data<float>()[i]));
    return m;
}

// The fp16 forms compute in f16. ONNX Runtime's CPU runs ops without f16 kernels in f32 (its
// inserted Casts merge across such ops), mo's evaluator rounds every op's output to f16: they
// agree within a few f16 units in the last place, not within 1e-4. Measured: at most 4 ulps of
// the largest logit; the bound is 2^-8 · max|ref| (6.4 ulps at 3.2).
double tolerance(const HfForm& f, const Tensor& want) { return is_fp16(f) ? std::ldexp(max_abs(want), -8) : 1e-4; }

// The low-bit weight Constants of `types` in `g` and in its bodies (the merged decoders' weights
// are copied into the If branches), each read by one decompression Convert.
size_t low_bit_weights(const Graph& g, std::initializer_list<ElementType> types) {
    size_t n = test::compressed_constants(g, types).size();
    for (const Node& node : g.nodes())
        for (const Body& b : node.bodies()) n += low_bit_weights(*b.graph, types);
    return n;
}

class HfExport : public ::testing::TestWithParam<HfForm> {};

TEST_P(HfExport, IrGivesOnnxRuntimesOutputsForThePromptAndOneDecodeStep) {
    const HfForm& f = GetParam();
    test::ScratchDir out{"hf_f32"};
    Converted c = convert_form(f, out, false, false);
    EXPECT_LE(c.result.bin_bytes, spec_of(f)["weight_bytes"].get<uint64_t>());
    for (int step : {1, 2}) {
        if (!has_step(f, step)) continue;
        std::vector<Tensor> inputs;
        for (const Node& p : c.ir->parameters()) inputs.push_back(reference(f, step, "in", tensor_name(p)));
        auto outputs = evaluate(*c.ir, inputs);
        ASSERT_EQ(outputs.size(), c.ir->results().size());
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string name = tensor_name(c.ir->results()[i]);
            const Tensor want = reference(f, step, "out", name);
            ASSERT_NO_FATAL_FAILURE(test::expect_close(outputs[i], want, tolerance(f, want), 0,
                                                       "step " + std::to_string(step) + " " + name));
        }
    }
}

// Rounding weights to f16 moves a dynamically quantized model's activations across its uint8
// rounding steps, where a change of summation order alone can move one more value by a step:
// those forms get twice the measured bound, the others 1.1 times.
TEST_P(HfExport, DefaultFlagsStayWithinTheErrorOfF16Weights) {
    const HfForm& f = GetParam();
    const nlohmann::json spec = spec_of(f);
    test::ScratchDir out{"hf_f16"};
    Converted c = convert_form(f, out, true, false);
    const std::string name = main_output(spec);
    for (int step : {1, 2}) {
        if (!has_step(f, step)) continue;
        std::vector<Tensor> inputs;
        for (const Node& p : c.ir->parameters()) inputs.push_back(reference(f, step, "in", tensor_name(p)));
        auto outputs = evaluate(*c.ir, inputs);
        const Tensor want = reference(f, step, "out", name);
        const Tensor got = outputs.at(0);
        ASSERT_EQ(tensor_name(c.ir->results()[0]), name);
        if (is_fp16(f)) {  // already f16: nothing to round
            ASSERT_NO_FATAL_FAILURE(test::expect_close(got, want, tolerance(f, want), 0, name));
            continue;
        }
        const double bound = max_diff(reference(f, "f16ref_step" + std::to_string(step) + "_out_" + name + ".npy"), want);
        const double factor = is_dynamic_quantized(f) ? 2.0 : 1.1;
        EXPECT_GT(bound, 0.0);
        EXPECT_LE(max_diff(got, want), factor * bound + 1e-6) << "step " << step << ", f16 rounding of the weights alone: "
                                                              << bound;
    }
    // Low-bit weights stay low-bit (one u4 weight per MatMulNBits, one i8 weight per
    // MatMulInteger), and the BIN is no larger than the source's weights.
    const size_t nbits = spec.value("MatMulNBits", 0), integer = spec.value("MatMulInteger", 0);
    EXPECT_EQ(low_bit_weights(*c.ir, {ElementType::u4, ElementType::i4}), nbits);
    EXPECT_EQ(low_bit_weights(*c.ir, {ElementType::i8}), integer);
    EXPECT_LE(c.result.bin_bytes, spec["weight_bytes"].get<uint64_t>());
}

std::vector<int64_t> i64_values(const Tensor& t) { return test::values<int64_t>(t); }

Tensor i64_tensor(std::vector<int64_t> v, Shape s) { return Tensor::from_vector<int64_t>(v, std::move(s)); }

// Feeds a stateful decoder IR the inputs a generation loop makes: input_ids, a mask of ones over
// past + new tokens, positions, use_cache_branch (false on the first call), the encoder output
// (Whisper, from the fixture), beam_idx 0.
std::vector<Tensor> generation_inputs(const HfForm& f, const Graph& ir, const std::vector<int64_t>& ids, int64_t past) {
    std::vector<Tensor> inputs;
    const auto n = static_cast<int64_t>(ids.size());
    for (const Node& p : ir.parameters()) {
        const std::string name = tensor_name(p);
        if (name == "input_ids") {
            inputs.push_back(i64_tensor(ids, {1, n}));
        } else if (name == "attention_mask") {
            inputs.push_back(i64_tensor(std::vector<int64_t>(static_cast<size_t>(past + n), 1), {1, past + n}));
        } else if (name == "position_ids") {
            std::vector<int64_t> pos;
            for (int64_t i = 0; i < n; ++i) pos.push_back(past + i);
            inputs.push_back(i64_tensor(pos, {1, n}));
        } else if (name == "use_cache_branch") {
            inputs.push_back(test::boolean({past > 0}, {1}));
        } else if (name == "encoder_hidden_states") {
            inputs.push_back(reference(f, 1, "in", name));
        } else if (name == "beam_idx") {
            inputs.push_back(test::i32({0}, {1}));
        } else {
            ADD_FAILURE() << "unexpected input " << name;
        }
    }
    return inputs;
}

int64_t argmax_last(const Tensor& logits) {
    const Tensor l = logits.convert(ElementType::f32);
    const auto vocab = static_cast<size_t>(l.shape().back());
    const float* last = l.data<float>() + (l.size() - vocab);
    return static_cast<int64_t>(std::max_element(last, last + vocab) - last);
}

class HfDecoder : public ::testing::TestWithParam<HfForm> {};

TEST_P(HfDecoder, StatefulIrDecodesLikeOnnxRuntimeAndGivesItsGreedyTokens) {
    const HfForm& f = GetParam();
    const nlohmann::json spec = spec_of(f);
    test::ScratchDir out{"hf_stateful"};
    Converted c = convert_form(f, out, false, true);
    const int layers = spec["layers"];
    const int per_layer = spec["kind"] == "whisper" ? 4 : 2;  // + the cross-attention key and value
    int read_values = 0;
    for (const Node& n : c.ir->nodes()) read_values += n.is("ReadValue");
    EXPECT_EQ(read_values, per_layer * layers);
    EXPECT_EQ(c.ir->sinks().size(), static_cast<size_t>(per_layer * layers));
    ASSERT_EQ(tensor_name(c.ir->results().at(0)), "logits");

    // The two reference steps.
    const std::vector<int64_t> prompt = i64_values(reference(f, "prompt.npy"));
    VariableState state;
    auto logits = evaluate(*c.ir, generation_inputs(f, *c.ir, prompt, 0), state);
    const Tensor want1 = reference(f, 1, "out", "logits");
    ASSERT_NO_FATAL_FAILURE(test::expect_close(logits.at(0), want1, tolerance(f, want1), 0, "stateful step 1"));
    const int64_t next = argmax_last(logits[0]);
    EXPECT_EQ(i64_values(reference(f, 2, "in", "input_ids")), std::vector<int64_t>{next});
    logits = evaluate(*c.ir, generation_inputs(f, *c.ir, {next}, static_cast<int64_t>(prompt.size())), state);
    const Tensor want2 = reference(f, 2, "out", "logits");
    ASSERT_NO_FATAL_FAILURE(test::expect_close(logits.at(0), want2, tolerance(f, want2), 0, "stateful step 2"));

    // Greedy decoding from the prompt, as ONNX Runtime did it.
    state.clear();
    std::vector<int64_t> ids = prompt, tokens;
    int64_t past = 0;
    for (int i = 0; i < 16; ++i) {
        logits = evaluate(*c.ir, generation_inputs(f, *c.ir, ids, past), state);
        tokens.push_back(argmax_last(logits.at(0)));
        past += static_cast<int64_t>(ids.size());
        ids = {tokens.back()};
    }
    EXPECT_EQ(tokens, i64_values(reference(f, "greedy_tokens.npy")));
}

const std::vector<HfForm> kDecoders = {
    {"hf_llama"},          {"hf_llama_quantized"}, {"hf_llama_q4"}, {"hf_llama_fp16"},
    {"hf_qwen2"},          {"hf_qwen2_quantized"}, {"hf_qwen2_q4"}, {"hf_qwen2_fp16"},
    {"hf_phi3"},           {"hf_phi3_quantized"},  {"hf_phi3_q4"},  {"hf_phi3_fp16"},
    {"hf_gemma"},          {"hf_gemma_quantized"}, {"hf_gemma_q4"}, {"hf_gemma_fp16"},
    {"hf_llama_merged"},   {"hf_whisper_merged"},  {"hf_whisper_merged_quantized"},
};

std::vector<HfForm> all_forms() {
    std::vector<HfForm> v = kDecoders;
    v.push_back({"hf_bert"});
    v.push_back({"hf_bert_quantized"});
    return v;
}

std::string form_name(const ::testing::TestParamInfo<HfForm>& info) { return info.param.dir; }

INSTANTIATE_TEST_SUITE_P(Forms, HfExport, ::testing::ValuesIn(all_forms()), form_name);
INSTANTIATE_TEST_SUITE_P(Forms, HfDecoder, ::testing::ValuesIn(kDecoders), form_name);

}  // namespace
}  // namespace mo
