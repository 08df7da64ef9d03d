// Models checked against their own runtime's outputs (TensorFlow.js for TF.js graph models,
// the TFLite interpreter for .tflite): each converts, the IR read back and fed the saved inputs
// gives the saved outputs in the same order, and the layout change leaves the Transposes counted
// here.
// * Small models built in the form the exporters write (tests/e2e/data/, made by
//   scripts/make_tfjs_models.py and scripts/make_tf_control_flow_models.py; outputs by
//   scripts/tfjs_outputs.js).
// * Real models that npm packages ship (MediaPipe's, @vladmandic/human's), prepared outside the
//   repository by scripts/npm_models.sh into $MO_NPM_MODELS; skipped when it is not set.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <google/protobuf/util/json_util.h>
#include <nlohmann/json.hpp>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "loaders/tf/tf_graph.pb.h"
#include "support/graph_builder.hpp"
#include "tools/convert.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

struct RuntimeModel {
    std::string dir;   // the model's directory (model.json, model.tflite or model.pb, input_<i>.npy, output_<j>.npy)
    int transposes;    // in the IR, with the layout change
    double tolerance;  // on max |got - want| / max |want| of each output
};

void PrintTo(const RuntimeModel& m, std::ostream* os) { *os << m.dir; }

std::string model_file(const fs::path& dir) {
    for (const char* f : {"model.json", "model.tflite", "model.pb"})
        if (fs::exists(dir / f)) return (dir / f).string();
    return {};
}

// Converts `model` (default: the model file of `dir`), counts Transposes and compares every
// output with dir's; returns the IR for further checks.
std::unique_ptr<Graph> check_against_runtime(const fs::path& dir, int transposes, double tolerance,
                                             const std::string& model = {}, const std::vector<std::string>& outputs = {}) {
    test::ScratchDir out("runtime_model");
    ConversionOptions o;
    o.input_model = model.empty() ? model_file(dir) : model;
    o.outputs = outputs;
    o.output_dir = out.path().string();
    o.compress_to_fp16 = false;
    ConversionResult r = convert(o);
    auto ir = read_ir(r.xml_path, test::builtin_ops());
    int count = 0;
    for (const Node& n : ir->nodes()) count += n.is("Transpose");
    EXPECT_EQ(count, transposes) << "Transposes left by the layout change";
    std::vector<Tensor> inputs;
    for (size_t i = 0; fs::exists(dir / ("input_" + std::to_string(i) + ".npy")); ++i) {
        inputs.push_back(read_npy((dir / ("input_" + std::to_string(i) + ".npy")).string()));
        // TF.js has no uint8: an image input the model reads as uint8 is saved as int32 0..255.
        if (i < ir->parameters().size()) {
            const ElementType want = ir->parameters()[i].out(0).type();
            if (inputs[i].type() == ElementType::i32 && want == ElementType::u8) inputs[i] = inputs[i].convert(want);
        }
    }
    auto got_outputs = evaluate(*ir, inputs);
    size_t expected = 0;
    while (fs::exists(dir / ("output_" + std::to_string(expected) + ".npy"))) ++expected;
    EXPECT_EQ(got_outputs.size(), expected) << "the runtime gives " << expected << " outputs";
    for (size_t j = 0; j < got_outputs.size() && j < expected; ++j) {
        const Tensor want_t = read_npy((dir / ("output_" + std::to_string(j) + ".npy")).string());
        EXPECT_EQ(got_outputs[j].shape(), want_t.shape()) << "output " << j;
        const auto want = want_t.to_f64(), got = got_outputs[j].to_f64();
        if (got.size() != want.size()) continue;
        double worst = 0, scale = 0;
        for (size_t i = 0; i < got.size(); ++i) {
            worst = std::max(worst, std::abs(got[i] - want[i]));
            scale = std::max(scale, std::abs(want[i]));
        }
        EXPECT_LE(worst, tolerance * std::max(scale, 1e-30)) << "output " << j << ": max abs error " << worst
                                                            << " against max |want| " << scale;
    }
    return ir;
}

// Every fused op tfjs-converter writes (BiasAdd / NoOp, then Prelu, Relu, Relu6, Elu, LeakyRelu,
// Sigmoid) in _FusedConv2D, FusedDepthwiseConv2dNative and _FusedMatMul; the signature orders
// the inputs (offset before image, unlike the graph) and the outputs (logits, features, gate:
// not the sinks' order, and features also feeds the next convolution).
TEST(RuntimeModels, TfjsFusedOpsAndSignatureMatchTensorFlowJs) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/tfjs_fused_signature";
    // Transposes: after the image; before the 4-D outputs features and gate; before the Add of
    // the second input, offset (an NHWC model input the layout change does not transpose).
    auto ir = check_against_runtime(dir, 4, 1e-5);
    ASSERT_EQ(ir->parameters().size(), 2u);
    EXPECT_TRUE(ir->parameters()[0].answers_to("offset"));
    EXPECT_TRUE(ir->parameters()[0].answers_to("offset_in"));
    EXPECT_TRUE(ir->parameters()[1].answers_to("image"));
    ASSERT_EQ(ir->results().size(), 3u);
    EXPECT_TRUE(ir->results()[0].answers_to("logits"));
    EXPECT_TRUE(ir->results()[1].answers_to("features"));
    EXPECT_TRUE(ir->results()[2].answers_to("gate"));
}

// A TF.js model.json's graph as a frozen GraphDef (its constants keep their values in the graph);
// `outputs` gets the signature's output tensors, which a GraphDef does not record.
std::string as_frozen_graph(const fs::path& json_file, const fs::path& dir, std::vector<std::string>& outputs) {
    std::ifstream in(json_file);
    const auto j = nlohmann::ordered_json::parse(in);
    for (const auto& [key, info] : j["signature"]["outputs"].items()) outputs.push_back(info["name"].get<std::string>());
    mo_tf::GraphDef g;
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(j["modelTopology"].dump(), &g, options).ok());
    const fs::path pb = dir / "model.pb";
    std::ofstream(pb, std::ios::binary) << g.SerializeAsString();
    return pb.string();
}

struct ControlFlowModel {
    std::string dir;           // under tests/e2e/data/tf_control_flow
    std::string op;            // the IR op it becomes
    std::string nested_op;     // one its body holds, if any
};

void PrintTo(const ControlFlowModel& m, std::ostream* os) { *os << m.dir; }

class TfControlFlow : public ::testing::TestWithParam<ControlFlowModel> {};

// TF2's functional If / While with their function library and TF1's Switch / Merge / Enter /
// Exit / NextIteration / LoopCond, each as a TF.js model.json and as a frozen .pb, give
// TensorFlow.js's outputs through OpenVINO's If / Loop.
TEST_P(TfControlFlow, MatchesTensorFlowJs) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/tf_control_flow" / GetParam().dir;
    test::ScratchDir scratch("tf_control_flow");
    std::vector<std::string> outputs;
    const std::string pb = as_frozen_graph(dir / "model.json", scratch.path(), outputs);
    for (const std::string& model : {(dir / "model.json").string(), pb}) {
        SCOPED_TRACE(model);
        auto ir = check_against_runtime(dir, 0, 1e-6, model, model == pb ? outputs : std::vector<std::string>{});
        Node op;
        for (const Node& n : ir->nodes())
            if (n.is(GetParam().op)) op = n;
        ASSERT_TRUE(op) << "no " << GetParam().op << " in the IR";
        if (GetParam().nested_op.empty()) continue;
        bool nested = false;
        for (const Body& b : op.bodies())
            for (const Node& n : b.graph->nodes()) nested |= n.is(GetParam().nested_op);
        EXPECT_TRUE(nested) << "no " << GetParam().nested_op << " in the " << GetParam().op << "'s body";
    }
}

INSTANTIATE_TEST_SUITE_P(Forms, TfControlFlow,
                         ::testing::Values(ControlFlowModel{"tf2_while", "Loop", ""}, ControlFlowModel{"tf2_if", "If", ""},
                                           ControlFlowModel{"tf2_if_else", "If", ""},
                                           ControlFlowModel{"tf1_while", "Loop", ""},
                                           ControlFlowModel{"tf1_cond", "If", ""},
                                           ControlFlowModel{"tf1_cond_else", "If", ""},
                                           ControlFlowModel{"tf1_cond_in_while", "Loop", "If"},
                                           ControlFlowModel{"tf2_lowered_map_fn", "Loop", "ScatterUpdate"},
                                           ControlFlowModel{"tf2_lowered_map_fn_unknown_shape", "Loop", "Unsqueeze"}),
                         [](const auto& info) { return info.param.dir; });

class NpmModel : public ::testing::TestWithParam<RuntimeModel> {};

TEST_P(NpmModel, MatchesItsRuntime) {
    const char* root = std::getenv("MO_NPM_MODELS");
    if (!root) GTEST_SKIP() << "MO_NPM_MODELS is not set (scripts/npm_models.sh prepares the models)";
    const fs::path dir = fs::path(root) / GetParam().dir;
    if (model_file(dir).empty()) GTEST_SKIP() << dir << " has no model";
    check_against_runtime(dir, GetParam().transposes, GetParam().tolerance);
}

// The counts and errors are listed in docs/tf.md and docs/tflite.md.
INSTANTIATE_TEST_SUITE_P(
    Real, NpmModel,
    ::testing::Values(RuntimeModel{"tfjs/antispoof", 2, 1e-5}, RuntimeModel{"tfjs/blazeface", 5, 1e-5},
                      RuntimeModel{"tfjs/centernet", 4, 1e-5}, RuntimeModel{"tfjs/emotion", 1, 1e-5},
                      RuntimeModel{"tfjs/facemesh", 4, 1e-5}, RuntimeModel{"tfjs/faceres", 1, 2e-5},
                      RuntimeModel{"tfjs/handlandmark-lite", 1, 1e-5}, RuntimeModel{"tfjs/iris", 2, 1e-5},
                      RuntimeModel{"tfjs/liveness", 2, 1e-5}, RuntimeModel{"tfjs/movenet-lightning", 5, 1e-5},
                      // a detector whose preprocessing is a tf.map_fn loop (lowered TF2 While with
                      // TensorLists), its input of dynamic height and width
                      RuntimeModel{"tfjs/handtrack", 14, 1e-5},
                      RuntimeModel{"tflite/palm_detection_full", 5, 1e-5},
                      RuntimeModel{"tflite/palm_detection_lite", 5, 1e-5},
                      RuntimeModel{"tflite/face_landmark", 1, 1e-5},
                      RuntimeModel{"tflite/hand_landmark_full", 1, 1e-5},
                      RuntimeModel{"tflite/hand_landmark_lite", 1, 1e-5},
                      RuntimeModel{"tflite/face_detection_short_range", 5, 1e-5},
                      RuntimeModel{"tflite/face_detection_full_range", 2, 1e-5},
                      RuntimeModel{"tflite/pose_detection", 7, 1e-5}),
    [](const auto& info) {
        std::string name = info.param.dir;
        for (char& ch : name)
            if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        return name;
    });

}  // namespace
}  // namespace mo
