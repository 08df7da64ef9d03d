// TorchScript models whose ONNX exports carry If and Loop (scripts/make_control_flow_models.py):
// the IR keeps them as If-8 / Loop-5 with bodies and gives PyTorch's outputs. The recurrence
// appends to a Python list inside the loop: the exported sequence ops become a scan output.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "tools/convert.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

struct Case {
    std::string model;
    std::string op;  // the sub-graph op the IR must keep
};

class ControlFlow : public ::testing::TestWithParam<Case> {};

TEST_P(ControlFlow, IrGivesPyTorchsOutputs) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/control_flow" / GetParam().model;
    test::ScratchDir out{"control_flow"};
    ConversionOptions options;
    options.input_model = (dir / "model.onnx").string();
    options.output_dir = out.path().string();
    options.compress_to_fp16 = false;
    ConversionResult result = convert(options);
    auto ir = read_ir(result.xml_path, test::builtin_ops());
    int ops = 0;
    for (const Node& n : ir->nodes()) ops += n.is(GetParam().op) && !n.bodies().empty();
    EXPECT_GE(ops, 1) << "no " << GetParam().op << " in the IR";

    auto outputs = evaluate(*ir, {read_npy((dir / "input_0.npy").string())});
    for (size_t i = 0; i < outputs.size(); ++i) {
        const Tensor expected = read_npy((dir / ("output_" + std::to_string(i) + ".npy")).string());
        ASSERT_EQ(outputs[i].shape(), expected.shape()) << "output " << i;
        const auto got = outputs[i].to_f64(), want = expected.to_f64();
        for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-5) << "output " << i << " element " << k;
    }
}

INSTANTIATE_TEST_SUITE_P(TorchScript, ControlFlow,
                         ::testing::Values(Case{"recurrence", "Loop"}, Case{"data_dependent_if", "If"},
                                           Case{"while_halving", "Loop"}),
                         [](const auto& info) { return info.param.model; });

}  // namespace
}  // namespace mo
