// Greedy decoding of the stateful IRs (validate/generate.hpp, `mo-run --generate`) against ONNX
// Runtime's greedy tokens: scripts/make_greedy_reference.js (llm, llm_int4) and
// scripts/make_genai_reference.js (every GenAI model-builder form, genai_*) write, per fixture
// folder, prompt.npy (int64 [1, 5]) and greedy_tokens.npy (the 16 tokens ONNX Runtime picks).
// Every folder of kGreedyFixtures is checked the same way; a new LLM fixture joins by having the
// two files and its name in the list.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/run_command.hpp"
#include "tools/convert.hpp"
#include "validate/generate.hpp"
#include "validate/npy.hpp"
#include "validate/runner.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kGreedyFixtures = {
    "llm",        "llm_int4",        "genai_0_5",       "genai_0_11",    "genai_0_12",       "genai_0_14",
    "genai_0_15", "genai_head_swa",  "genai_cuda_fp16", "genai_dml_fp16", "genai_int8", "genai_tied_kquant",
    "genai_gather_int4"};

fs::path data(const std::string& fixture, const std::string& file) {
    return fs::path(MO_SOURCE_DIR) / "tests/e2e/data" / fixture / file;
}

std::string stateful_ir(const std::string& fixture, const test::ScratchDir& out) {
    ConversionOptions options;
    options.input_model = data(fixture, "model.onnx").string();
    options.output_dir = out.path().string();
    options.compress_to_fp16 = false;
    options.make_stateful = true;
    return convert(options).xml_path;
}

std::string token_line(const std::vector<int64_t>& tokens) {
    std::ostringstream s;
    s << "tokens:";
    for (int64_t t : tokens) s << ' ' << t;
    return s.str();
}

class LlmGenerate : public ::testing::TestWithParam<std::string> {};

TEST_P(LlmGenerate, GreedyTokensAreOnnxRuntimesForSixteenSteps) {
    const std::string& fixture = GetParam();
    test::ScratchDir out{"llm_generate"};
    auto ir = read_ir(stateful_ir(fixture, out), test::builtin_ops());
    const std::vector<int64_t> want = read_npy(data(fixture, "greedy_tokens.npy").string()).to_i64();
    ASSERT_EQ(want.size(), 16u);
    VariableState state;
    const GenerateResult r = generate_greedy(*ir, read_npy(data(fixture, "prompt.npy").string()), 16, state);
    ASSERT_EQ(r.tokens.size(), 1u);
    EXPECT_EQ(r.tokens[0], want);
    EXPECT_EQ(r.call_seconds.size(), 16u);
}

// A batch of two copies of the prompt (beam_idx 0, 1: each entry keeps its own cache): both
// entries get ONNX Runtime's tokens.
TEST_P(LlmGenerate, EachEntryOfABatchDecodesOnItsOwn) {
    const std::string& fixture = GetParam();
    test::ScratchDir out{"llm_generate_batch"};
    auto ir = read_ir(stateful_ir(fixture, out), test::builtin_ops());
    const std::vector<int64_t> want = read_npy(data(fixture, "greedy_tokens.npy").string()).to_i64();
    std::vector<int64_t> prompt = read_npy(data(fixture, "prompt.npy").string()).to_i64();
    const int64_t length = static_cast<int64_t>(prompt.size());
    prompt.insert(prompt.end(), prompt.begin(), prompt.end());
    VariableState state;
    const GenerateResult r = generate_greedy(*ir, Tensor::from_vector<int64_t>(prompt, {2, length}), 16, state);
    ASSERT_EQ(r.tokens.size(), 2u);
    EXPECT_EQ(r.tokens[0], want);
    EXPECT_EQ(r.tokens[1], want);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LlmGenerate, ::testing::ValuesIn(kGreedyFixtures));

// The command line: mo converts, mo-run --generate prints ONNX Runtime's tokens; split in two
// runs that carry the cache in --state files (4 tokens, then the 4th fed back for 12 more), it
// prints the same 16.
TEST(LlmGenerateCli, MoRunGeneratesAndContinuesFromStateFiles) {
    test::ScratchDir dir{"llm_generate_cli"};
    const std::string model = data("llm", "model.onnx").string();
    const auto converted = test::run_command(MO_BINARY, "--input_model " + model + " --output_dir " + dir.file("ir") +
                                                            " --transform MakeStateful --compress_to_fp16=False");
    ASSERT_EQ(converted.exit_code, 0) << converted.output;
    const std::string xml = dir.file("ir/model.xml"), prompt = data("llm", "prompt.npy").string();
    const std::vector<int64_t> want = read_npy(data("llm", "greedy_tokens.npy").string()).to_i64();

    const auto all = test::run_command(MO_RUN_BINARY, xml + " --generate 16 --inputs " + prompt);
    ASSERT_EQ(all.exit_code, 0) << all.output;
    EXPECT_NE(all.output.find(token_line(want) + "\n"), std::string::npos) << all.output;
    EXPECT_NE(all.output.find("time per token: "), std::string::npos) << all.output;

    const auto first = test::run_command(MO_RUN_BINARY, xml + " --generate 4 --inputs " + prompt + " --state " + dir.file("state"));
    ASSERT_EQ(first.exit_code, 0) << first.output;
    EXPECT_NE(first.output.find(token_line({want.begin(), want.begin() + 4}) + "\n"), std::string::npos) << first.output;
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir.file("state"))) files += entry.path().extension() == ".npy";
    EXPECT_EQ(files, 4u);  // key and value of 2 layers
    write_npy(dir.file("fourth.npy"), Tensor::from_vector<int64_t>({want[3]}, {1, 1}));
    const auto rest = test::run_command(MO_RUN_BINARY, xml + " --generate 12 --inputs input_ids=" + dir.file("fourth.npy") +
                                                           " --state " + dir.file("state"));
    ASSERT_EQ(rest.exit_code, 0) << rest.output;
    EXPECT_NE(rest.output.find(token_line({want.begin() + 4, want.end()}) + "\n"), std::string::npos) << rest.output;

    // Usage errors: --generate without one prompt file, or with --out.
    EXPECT_EQ(test::run_command(MO_RUN_BINARY, xml + " --generate 4").exit_code, 2);
    EXPECT_EQ(test::run_command(MO_RUN_BINARY, xml + " --generate 0 --inputs " + prompt).exit_code, 2);
    EXPECT_EQ(test::run_command(MO_RUN_BINARY, xml + " --generate 4 --inputs " + prompt + " --out " + dir.file("o")).exit_code, 2);
}

// mo-run --state on one ordinary call: the variables written are the cache ONNX Runtime returns
// (scripts/make_llm_reference.js's step 1: present.N.key / value).
TEST(LlmGenerateCli, StateFilesHoldOnnxRuntimesCacheAfterACall) {
    test::ScratchDir dir{"llm_state_files"};
    auto ir = read_ir(stateful_ir("llm", dir), test::builtin_ops());
    RunOptions options;
    for (const char* name : {"input_ids", "attention_mask", "position_ids"})
        options.input_files.push_back(std::string(name) + "=" + data("llm", std::string("step1_in_") + name + ".npy").string());
    write_npy(dir.file("beams.npy"), Tensor::from_vector<int32_t>({0}, {1}));
    options.input_files.push_back("beam_idx=" + dir.file("beams.npy"));
    options.state_dir = dir.file("state");
    const RunResult r = run_model(*ir, options);
    EXPECT_EQ(r.state_files.size(), 4u);
    for (int layer = 0; layer < 2; ++layer)
        for (const char* kind : {"key", "value"}) {
            const std::string suffix = std::to_string(layer) + "." + kind;
            const Tensor got = read_npy(state_file(options.state_dir, "past_key_values." + suffix + "present." + suffix));
            test::expect_close(got, read_npy(data("llm", "step1_out_present." + suffix + ".npy").string()), 1e-4, 1e-4, suffix);
        }
}

}  // namespace
}  // namespace mo
