// TFLite control flow (IF, WHILE), resource variables (CALL_ONCE, VAR_HANDLE, READ_VARIABLE,
// ASSIGN_VARIABLE) and empty constants: models of tflite_control_flow_models.hpp converted by mo,
// the IR read back and evaluated, against values worked by hand from TFLite's kernels and against
// the TFLite interpreter's outputs (tests/e2e/data/tflite_control_flow, written by
// mo-make-tflite-control-flow-models and scripts/tflite_outputs.js).
#include <gtest/gtest.h>

#include <filesystem>

#include "core/evaluator.hpp"
#include "e2e/tflite_control_flow_models.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/run_command.hpp"
#include "driver/convert.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;
using tflite::BuiltinOperator;

const fs::path kData = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/tflite_control_flow";

std::unique_ptr<Graph> converted_path(const std::string& path) {
    test::ScratchDir dir{"tflite_control_flow_ir"};
    return test::convert_to_ir(path, dir, false);
}

std::unique_ptr<Graph> converted(const test::TfliteModelBuilder& m, const std::string& file) {
    return converted_path(m.save(file));
}

size_t count_type(const Graph& g, const std::string& type) {
    size_t n = 0;
    for (const Node& node : g.nodes()) n += node.type() == type;
    return n;
}

Tensor floats(std::vector<float> v, Shape shape) { return Tensor::from_vector<float>(v, shape); }

std::string conversion_error(const test::TfliteModelBuilder& m, const std::string& file) {
    try {
        converted(m, file);
    } catch (const Error& e) {
        return e.what();
    }
    return "(converted)";
}

TEST(TfliteControlFlow, IfTakesTheBranchTheConditionNames) {
    auto ir = converted(test::if_select_model(), "if_select.tflite");
    ASSERT_EQ(count_type(*ir, "If"), 1u);
    const auto x = floats({1.5f, -2.f, 0.25f, 3.f, -0.5f, 4.f}, {2, 3});
    const auto y = floats({2.f, 0.5f, -4.f, 1.f, 6.f, -0.25f}, {2, 3});
    auto sum = evaluate(*ir, {Tensor::from_vector<bool>({true}, {1}), x, y});
    auto product = evaluate(*ir, {Tensor::from_vector<bool>({false}, {1}), x, y});
    EXPECT_EQ(sum.at(0).to_f64(), (std::vector<double>{3.5, -1.5, -3.75, 4, 5.5, 3.75}));
    EXPECT_EQ(product.at(0).to_f64(), (std::vector<double>{3, -1, -1, 3, -3, -1}));
}

// onnx-tf's If: branches reshaping to scalars with an empty int32 shape tensor (no buffer bytes).
TEST(TfliteControlFlow, OnnxTfIfWithBranchesReshapingToScalars) {
    auto ir = converted(test::onnx_tf_if_model(), "onnx_tf_if.tflite");
    auto then_out = evaluate(*ir, {Tensor::scalar<bool>(true), floats({-1.25f}, {1, 1})});
    auto else_out = evaluate(*ir, {Tensor::scalar<bool>(false), floats({-1.25f}, {1, 1})});
    EXPECT_EQ(then_out.at(0).shape(), Shape{});
    EXPECT_EQ(then_out.at(0).to_f64(), std::vector<double>{-0.25});
    EXPECT_EQ(else_out.at(0).shape(), Shape{});
    EXPECT_EQ(else_out.at(0).to_f64(), std::vector<double>{-3.75});
}

TEST(TfliteControlFlow, EmptyTensorWithoutBytesIsAConstant) {
    test::TfliteModelBuilder m;
    const int x = m.input("x", {1, 1});
    const int y = m.tensor("y", {});
    m.op(BuiltinOperator::RESHAPE, {x, m.constant_bytes("shape", {0}, tflite::TensorType::INT32, nullptr, 0)}, {y});
    m.output(y);
    auto ir = converted(m, "empty_shape.tflite");
    auto r = evaluate(*ir, {floats({7.5f}, {1, 1})});
    EXPECT_EQ(r.at(0).shape(), Shape{});
    EXPECT_EQ(r.at(0).to_f64(), std::vector<double>{7.5});
    // A tensor of one element without bytes is still missing data.
    test::TfliteModelBuilder missing;
    const int a = missing.input("x", {1, 1});
    const int b = missing.tensor("y", {1});
    missing.op(BuiltinOperator::RESHAPE, {a, missing.tensor("shape", {1}, tflite::TensorType::INT32)}, {b});
    missing.output(b);
    EXPECT_NE(conversion_error(missing, "missing_shape.tflite").find("has no data and is produced by no operator"),
              std::string::npos);
}

TEST(TfliteControlFlow, WhileRunsTheBodyUntilTheCondIsFalse) {
    auto ir = converted(test::while_countdown_model(), "while_countdown.tflite");
    ASSERT_EQ(count_type(*ir, "Loop"), 1u);
    const auto x = floats({0.5f, 1.f}, {2});
    // acc = acc * 2 + x three times: [1, -2] -> [2.5, -3] -> [5.5, -5] -> [11.5, -9].
    auto three = evaluate(*ir, {Tensor::from_vector<int32_t>({3}, {}), floats({1.f, -2.f}, {2}), x});
    EXPECT_EQ(three.at(0).to_i64(), std::vector<int64_t>{0});
    EXPECT_EQ(three.at(1).to_f64(), (std::vector<double>{11.5, -9}));
    EXPECT_EQ(three.at(2).to_f64(), (std::vector<double>{0.5, 1}));
    // cond is false at once: no iteration, the inputs come out unchanged.
    auto none = evaluate(*ir, {Tensor::from_vector<int32_t>({0}, {}), floats({1.f, -2.f}, {2}), x});
    EXPECT_EQ(none.at(0).to_i64(), std::vector<int64_t>{0});
    EXPECT_EQ(none.at(1).to_f64(), (std::vector<double>{1, -2}));
}

// CALL_ONCE's init: "bias" only read becomes its constant; "total", read and then assigned, the
// model's state (ReadValue of its initial value, Assign of the new value), kept across calls as
// TFLite keeps it across Invoke()s.
TEST(TfliteControlFlow, CallOnceInitializesVariablesAndAssignedOnesAreState) {
    auto ir = converted(test::variables_model(), "variables.tflite");
    EXPECT_EQ(count_type(*ir, "ReadValue"), 1u);
    EXPECT_EQ(count_type(*ir, "Assign"), 1u);
    VariableState state;
    auto first = evaluate(*ir, {floats({0.25f, 2.f}, {2})}, state);
    EXPECT_EQ(first.at(0).to_f64(), (std::vector<double>{0.75, 1}));
    EXPECT_EQ(first.at(1).to_f64(), (std::vector<double>{0.25, 2}));
    auto second = evaluate(*ir, {floats({1.f, -3.f}, {2})}, state);
    EXPECT_EQ(second.at(0).to_f64(), (std::vector<double>{1.5, -4}));
    EXPECT_EQ(second.at(1).to_f64(), (std::vector<double>{1.25, -1}));
}

TEST(TfliteControlFlow, VariablesNeverAssignedAndVariablesInBodiesAreRefused) {
    using B = BuiltinOperator;
    test::TfliteModelBuilder unassigned;
    const int h = unassigned.tensor("h", {}, tflite::TensorType::RESOURCE);
    unassigned.op(B::VAR_HANDLE, {}, {h}, test::var_handle_options("v"));
    const int v = unassigned.tensor("v", {2});
    unassigned.op(B::READ_VARIABLE, {h}, {v});
    unassigned.output(v);
    EXPECT_NE(conversion_error(unassigned, "unassigned.tflite").find("reads the variable 'v' before anything assigns it"),
              std::string::npos);

    test::TfliteModelBuilder in_body;
    const int cond = in_body.input("cond", {1}, tflite::TensorType::BOOL);
    const int out = in_body.tensor("out", {2});
    in_body.output(out);
    for (int k = 0; k < 2; ++k) {
        in_body.subgraph(k == 0 ? "then" : "else");
        const int bh = in_body.tensor("h", {}, tflite::TensorType::RESOURCE);
        in_body.op(B::VAR_HANDLE, {}, {bh}, test::var_handle_options("v"));
        const int r = in_body.tensor("r", {2});
        in_body.op(B::READ_VARIABLE, {bh}, {r});
        in_body.output(r);
    }
    in_body.use(0);
    in_body.op(B::IF, {cond}, {out}, test::if_options(1, 2));
    EXPECT_NE(conversion_error(in_body, "variable_in_body.tflite").find("VAR_HANDLE in an IF / WHILE subgraph"),
              std::string::npos);
}

TEST(TfliteControlFlow, SubgraphIndicesAndCountsAreChecked) {
    using B = BuiltinOperator;
    // An IF naming a subgraph the model lacks.
    test::TfliteModelBuilder bad;
    const int c = bad.input("cond", {1}, tflite::TensorType::BOOL);
    const int o = bad.tensor("o", {1});
    bad.output(o);
    bad.op(B::IF, {c}, {o}, test::if_options(1, 7));
    EXPECT_NE(conversion_error(bad, "if_beyond.tflite").find("then_subgraph_index 1 is not one of the model's 1 subgraphs"),
              std::string::npos);
    // A WHILE whose body calls itself (subgraph 1 holds a WHILE using subgraph 1 again).
    test::TfliteModelBuilder recursive;
    const int i = recursive.input("i", {1});
    const int r = recursive.tensor("r", {1});
    recursive.output(r);
    recursive.op(B::WHILE, {i}, {r}, test::while_options(1, 1));
    recursive.subgraph("self");
    const int si = recursive.input("i", {1});
    const int so = recursive.tensor("o", {1});
    recursive.op(B::WHILE, {si}, {so}, test::while_options(1, 1));
    recursive.output(so);
    EXPECT_NE(conversion_error(recursive, "while_recursive.tflite").find("nest more than"), std::string::npos);
    // IFs whose two branches are one subgraph, 24 levels deep: 2^24 uses, refused once the
    // operators built pass the bound, not built.
    test::TfliteModelBuilder doubling;
    const int dc = doubling.input("c", {1}, tflite::TensorType::BOOL);
    const int dout = doubling.tensor("out", {1}, tflite::TensorType::BOOL);
    doubling.output(dout);
    doubling.op(B::IF, {dc, dc}, {dout}, test::if_options(1, 1));
    for (int level = 1; level <= 24; ++level) {
        doubling.subgraph("level_" + std::to_string(level));
        const int c = doubling.input("c", {1}, tflite::TensorType::BOOL);
        if (level == 24) {
            doubling.output(c);
            continue;
        }
        const int out = doubling.tensor("out", {1}, tflite::TensorType::BOOL);
        doubling.op(B::IF, {c, c}, {out}, test::if_options(level + 1, level + 1));
        doubling.output(out);
    }
    EXPECT_NE(conversion_error(doubling, "if_doubling.tflite").find("operators once each use is built"),
              std::string::npos);
    // A branch giving another number of outputs than the IF has.
    test::TfliteModelBuilder counts;
    const int cc = counts.input("cond", {1}, tflite::TensorType::BOOL);
    const int cx = counts.input("x", {1});
    const int o1 = counts.tensor("o1", {1}), o2 = counts.tensor("o2", {1});
    counts.output(o1);
    counts.output(o2);
    counts.op(B::IF, {cc, cx}, {o1, o2}, test::if_options(1, 1));
    counts.subgraph("branch");
    counts.output(counts.input("x", {1}));
    EXPECT_NE(conversion_error(counts, "if_counts.tflite").find("has 1 inputs and 1 outputs where the node gives 1 and takes 2"),
              std::string::npos);
}

// The TFLite interpreter's outputs for the same models (where its build runs them).
TEST(TfliteControlFlow, MatchesTheTfliteInterpreter) {
    size_t compared = 0;
    for (const auto& entry : fs::directory_iterator(kData)) {
        const fs::path dir = entry.path();
        if (!fs::exists(dir / "output_0.npy")) continue;
        SCOPED_TRACE(dir.filename().string());
        test::ScratchDir out{"tflite_control_flow_checked"};
        ConversionOptions o;
        o.input_model = (dir / "model.tflite").string();
        o.output_dir = out.path().string();
        const std::string xml = convert(o).xml_path;
        auto ir = read_ir(xml, test::builtin_ops());
        // The strict IR check, when Python and the shared opsets are there.
        const fs::path opsets = fs::path(MO_SHARED_DIR) / "ir/opsets.json";
        if (fs::exists("/usr/bin/python3") && fs::exists(opsets)) {
            const fs::path script = fs::path(MO_SOURCE_DIR) / "scripts/check_ir.py";
            const auto check =
                test::run_command("/usr/bin/python3", script.string() + " --opsets " + opsets.string() + " " + xml);
            EXPECT_EQ(check.exit_code, 0) << check.output;
        }
        std::vector<Tensor> inputs;
        for (size_t i = 0; fs::exists(dir / ("input_" + std::to_string(i) + ".npy")); ++i)
            inputs.push_back(read_npy((dir / ("input_" + std::to_string(i) + ".npy")).string()));
        VariableState state;
        auto outputs = evaluate(*ir, inputs, state);
        for (size_t k = 0; k < outputs.size(); ++k) {
            const Tensor want = read_npy((dir / ("output_" + std::to_string(k) + ".npy")).string());
            EXPECT_EQ(outputs[k].shape(), want.shape()) << "output " << k;
            EXPECT_EQ(outputs[k].to_f64(), want.to_f64()) << "output " << k;
            ++compared;
        }
    }
    EXPECT_GT(compared, 0u);
}

}  // namespace
}  // namespace mo
