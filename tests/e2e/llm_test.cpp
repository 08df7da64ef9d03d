// A decoder-only transformer written by bench/make_llm.py (rotary embedding, grouped-query
// attention, KV cache inputs and outputs, dynamic batch and sequence) against ONNX Runtime's
// outputs for two decoding steps (scripts/make_llm_reference.js): the IR as converted, and the
// stateful IR of --transform MakeStateful, which keeps the cache in variables between calls.
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

const fs::path kDir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/llm";

Tensor reference(int step, const std::string& kind, const std::string& name) {
    return read_npy((kDir / ("step" + std::to_string(step) + "_" + kind + "_" + name + ".npy")).string());
}

std::string tensor_name(const Node& n) {
    const auto& names = n.is("Result") ? n.in(0).src().names() : n.out(0).names();
    return names.empty() ? n.name() : names.front();
}

std::unique_ptr<Graph> convert_llm(test::ScratchDir& out, bool stateful) {
    ConversionOptions options;
    options.input_model = (kDir / "model.onnx").string();
    options.output_dir = out.path().string();
    options.compress_to_fp16 = false;
    options.make_stateful = stateful;
    return read_ir(convert(options).xml_path, test::builtin_ops());
}

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
    test::expect_close(got, want, 1e-4, 1e-4, what);
}

std::vector<Tensor> step_inputs(const Graph& ir, int step) {
    std::vector<Tensor> inputs;
    for (const Node& p : ir.parameters()) inputs.push_back(reference(step, "in", tensor_name(p)));
    return inputs;
}

TEST(Llm, IrGivesOnnxRuntimesLogitsAndCacheForTwoSteps) {
    test::ScratchDir out{"llm"};
    auto ir = convert_llm(out, false);
    EXPECT_EQ(ir->parameters().size(), 7u);  // input_ids, attention_mask, position_ids, 2 layers x (key, value)
    for (int step : {1, 2}) {
        auto outputs = evaluate(*ir, step_inputs(*ir, step));
        ASSERT_EQ(outputs.size(), 5u);
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string name = tensor_name(ir->results()[i]);
            expect_close(outputs[i], reference(step, "out", name), "step " + std::to_string(step) + " " + name);
        }
    }
}

TEST(Llm, StatefulIrKeepsTheCacheInVariablesAndDecodesLikeOnnxRuntime) {
    test::ScratchDir out{"llm_stateful"};
    auto ir = convert_llm(out, true);
    std::vector<std::string> inputs;
    for (const Node& p : ir->parameters()) inputs.push_back(tensor_name(p));
    EXPECT_EQ(inputs, (std::vector<std::string>{"input_ids", "attention_mask", "position_ids"}));
    ASSERT_EQ(ir->results().size(), 1u);
    EXPECT_EQ(tensor_name(ir->results()[0]), "logits");
    int read_values = 0;
    for (const Node& n : ir->nodes()) read_values += n.is("ReadValue");
    EXPECT_EQ(read_values, 4);
    ASSERT_EQ(ir->sinks().size(), 4u);  // the Assigns, read back from the IR as sinks
    for (const Node& a : ir->sinks()) EXPECT_TRUE(a.is("Assign"));
    // The variable's batch dimension stays dynamic.
    for (const Node& n : ir->nodes())
        if (n.is("ReadValue")) EXPECT_FALSE(n.attr<PartialShape>("variable_shape")[0].is_static()) << n.describe();

    VariableState state;
    for (int step : {1, 2}) {
        auto logits = evaluate(*ir, step_inputs(*ir, step), state);
        ASSERT_EQ(logits.size(), 1u);
        expect_close(logits[0], reference(step, "out", "logits"), "stateful step " + std::to_string(step));
    }
    // After two calls each variable holds the cache ONNX Runtime returned at step 2.
    ASSERT_EQ(state.size(), 4u);
    for (int layer : {0, 1})
        for (const char* kind : {"key", "value"}) {
            const std::string name = "past_key_values." + std::to_string(layer) + "." + kind;
            const std::string present = "present." + std::to_string(layer) + "." + kind;
            ASSERT_TRUE(state.count(name + present)) << name;
            expect_close(state.at(name + present), reference(2, "out", present), present);
        }
}

TEST(Llm, MakeStatefulPairsCanBeNamedAndBadPairsAreRefused) {
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
    options.input_model = (kDir / "model.onnx").string();
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
