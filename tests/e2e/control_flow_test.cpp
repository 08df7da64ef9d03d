// TorchScript models whose ONNX exports carry If and Loop (scripts/make_control_flow_models.py):
// the IR keeps them as If-8 / Loop-5 with bodies and gives PyTorch's outputs. The recurrence
// appends to a Python list inside the loop: the exported sequence ops become a scan output.
// list_of_slices (MViT's pattern) carries a list through a constant 4-trip Loop and indexes it
// afterwards: the Loop is unrolled at extraction and the sequence ops resolve to tensors.
// nested_branches has an If inside a Loop whose branches read a value from two graphs up.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "driver/cli.hpp"
#include "driver/convert.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

struct Case {
    std::string model;
    std::string op;  // the sub-graph op the IR must keep; empty: none may be left
    std::string static_input;  // --input with the fixture's shape
    int ops_left_static;       // sub-graph ops left with that shape: folded Ifs, unrolled Loops
};

std::unique_ptr<Graph> convert_and_read(const fs::path& dir, test::ScratchDir& out, const std::string& input) {
    ConversionOptions options;
    options.input_model = (dir / "model.onnx").string();
    options.output_dir = out.path().string();
    options.compress_to_fp16 = false;
    if (!input.empty()) options.inputs = parse_input_list(input);
    return read_ir(convert(options).xml_path, test::builtin_ops());
}

int subgraph_ops(const Graph& g) {
    int n = 0;
    for (const Node& node : g.nodes()) n += !node.bodies().empty();
    return n;
}

void expect_pytorch_outputs(const Graph& ir, const fs::path& dir) {
    auto outputs = evaluate(ir, {read_npy((dir / "input_0.npy").string())});
    for (size_t i = 0; i < outputs.size(); ++i) {
        const Tensor expected = read_npy((dir / ("output_" + std::to_string(i) + ".npy")).string());
        ASSERT_EQ(outputs[i].shape(), expected.shape()) << "output " << i;
        const auto got = outputs[i].to_f64(), want = expected.to_f64();
        for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-5) << "output " << i << " element " << k;
    }
}

class ControlFlow : public ::testing::TestWithParam<Case> {};

TEST_P(ControlFlow, IrGivesPyTorchsOutputs) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/control_flow" / GetParam().model;
    test::ScratchDir out{"control_flow"};
    auto ir = convert_and_read(dir, out, "");
    int ops = 0;
    for (const Node& n : ir->nodes()) ops += n.is(GetParam().op) && !n.bodies().empty();
    if (GetParam().op.empty()) EXPECT_EQ(subgraph_ops(*ir), 0);
    else EXPECT_GE(ops, 1) << "no " << GetParam().op << " in the IR";
    expect_pytorch_outputs(*ir, dir);
}

// With the input's shape fixed, a trip count taken from the shape is a constant (the Loop is
// unrolled) and an exporter's "is the batch empty" If has a constant condition (it is folded).
TEST_P(ControlFlow, StaticShapesFoldIfsAndUnrollLoops) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/control_flow" / GetParam().model;
    test::ScratchDir dynamic_out{"control_flow_dynamic"}, static_out{"control_flow_static"};
    auto dynamic_ir = convert_and_read(dir, dynamic_out, "");
    auto static_ir = convert_and_read(dir, static_out, GetParam().static_input);
    EXPECT_EQ(subgraph_ops(*static_ir), GetParam().ops_left_static) << "dynamic: " << subgraph_ops(*dynamic_ir);
    expect_pytorch_outputs(*static_ir, dir);
}

INSTANTIATE_TEST_SUITE_P(TorchScript, ControlFlow,
                         ::testing::Values(Case{"recurrence", "Loop", "input_0[6,2,4]", 0},
                                           Case{"data_dependent_if", "If", "input_0[3,4]", 1},
                                           Case{"while_halving", "Loop", "input_0[2,3]", 1},
                                           Case{"list_of_slices", "", "input_0[2,4]", 0},
                                           Case{"nested_branches", "Loop", "input_0[7,3]", 7}),
                         [](const auto& info) { return info.param.model; });

}  // namespace
}  // namespace mo
