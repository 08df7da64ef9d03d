// TFLite_Detection_PostProcess against the TFLite interpreter (the WebAssembly build of
// @tensorflow/tfjs-tflite 0.0.1-alpha.10, run by scripts/tflite_outputs.js):
//  * the fixtures of tests/e2e/data/tflite_detection (make_tflite_detection_models.cpp): the op
//    alone, float and uint8, fast and regular NMS;
//  * real SSD models when $MO_TFLITE_DETECTION_MODELS names a directory of them (one directory a
//    model: model.tflite, input_0.npy, TFLite's output_<i>.npy; see docs/tflite.md): the whole
//    model, and its post-processing alone on TFLite's own inputs to it (output_4, output_5, when
//    scripts/tflite_add_outputs.py added them);
// and the errors: Edge TPU models, options the kernel refuses.
// "Same detections": the same count, and for each detection below it the same score (exactly: a
// score is an input value passed through), class, and box within 1e-3; equal scores may come in
// another order (TFLite's regular NMS orders them with std::partial_sort, which is not stable).
#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <tuple>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/tflite/tflite_schema_generated.h"
#include "support/op_test_util.hpp"
#include "support/run_command.hpp"
#include "support/tflite_model_builder.hpp"
#include "driver/convert.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;
using tflite::TensorType;

const fs::path kData = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/tflite_detection";

struct Detection {
    double score, cls;
    std::vector<double> box;
};

// The first `count` detections (fast NMS with k classes a box: count · k entries), in output order.
std::vector<Detection> detections(const std::vector<Tensor>& out, size_t per_box) {
    const auto boxes = out[0].to_f64(), classes = out[1].to_f64(), scores = out[2].to_f64();
    const size_t n = static_cast<size_t>(out[3].to_f64().at(0)) * per_box;
    std::vector<Detection> d;
    for (size_t i = 0; i < n && i < scores.size(); ++i)
        d.push_back({scores[i], classes[i], {boxes.begin() + 4 * i, boxes.begin() + 4 * i + 4}});
    return d;
}

// Largest box difference; fails unless the detections are the same (see the top of the file).
double expect_same_detections(const std::vector<Tensor>& got, const std::vector<Tensor>& want, size_t per_box,
                              const std::string& what) {
    EXPECT_EQ(got.at(3).to_f64(), want.at(3).to_f64()) << what << ": count";
    std::vector<Detection> g = detections(got, per_box), w = detections(want, per_box);
    if (g.size() != w.size()) return INFINITY;
    for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g[i].score, w[i].score) << what << ": score " << i;
    auto order = [](const Detection& a, const Detection& b) {
        return std::tie(b.score, a.cls, a.box) < std::tie(a.score, b.cls, b.box);
    };
    std::stable_sort(g.begin(), g.end(), order);
    std::stable_sort(w.begin(), w.end(), order);
    double worst = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        EXPECT_EQ(g[i].cls, w[i].cls) << what << ": class of detection " << i << " (score " << w[i].score << ")";
        for (size_t k = 0; k < 4; ++k) worst = std::max(worst, std::abs(g[i].box[k] - w[i].box[k]));
    }
    EXPECT_LE(worst, 1e-3) << what << ": boxes";
    return worst;
}

std::vector<Tensor> npys(const fs::path& dir, const std::string& prefix, size_t from, size_t count) {
    std::vector<Tensor> t;
    for (size_t i = from; i < from + count; ++i) t.push_back(read_npy((dir / (prefix + std::to_string(i) + ".npy")).string()));
    return t;
}

struct Fixture {
    std::string name;
    size_t classes_per_box;  // max_classes_per_detection of fast NMS (1 for regular)
};

void PrintTo(const Fixture& f, std::ostream* os) { *os << f.name; }

class TfliteDetection : public ::testing::TestWithParam<Fixture> {};

TEST_P(TfliteDetection, GivesTheRuntimesDetections) {
    const fs::path dir = kData / GetParam().name;
    for (const bool f16 : {true, false}) {
        test::ScratchDir out("tflite_detection");
        auto ir = convert_to_ir((dir / "model.tflite").string(), out, f16);
        // The strict IR check, when Python and the shared opsets are there.
        const fs::path opsets = fs::path(MO_SHARED_DIR) / "ir/opsets.json";
        if (f16 && fs::exists("/usr/bin/python3") && fs::exists(opsets)) {
            const fs::path script = fs::path(MO_SOURCE_DIR) / "scripts/check_ir.py";
            const auto check = test::run_command("/usr/bin/python3", script.string() + " --opsets " + opsets.string() +
                                                                         " " + (out.path() / "model.xml").string());
            EXPECT_EQ(check.exit_code, 0) << check.output;
        }
        const auto got = evaluate(*ir, npys(dir, "input_", 0, 2));
        const auto want = npys(dir, "output_", 0, 4);
        ASSERT_EQ(got.size(), 4u);
        for (size_t k = 0; k < 4; ++k) {
            EXPECT_EQ(got[k].type(), ElementType::f32);
            EXPECT_EQ(got[k].shape(), want[k].shape()) << "output " << k;
        }
        const double worst = expect_same_detections(got, want, GetParam().classes_per_box,
                                                    GetParam().name + (f16 ? "" : " (f32)"));
        std::cout << GetParam().name << (f16 ? "" : " (f32)") << ": " << want[3].to_f64()[0]
                  << " detections as TFLite's, boxes within " << worst << "\n";
        // Rows past the count are zeros; TFLite's regular NMS writes zeros there too (its fast NMS
        // leaves them unwritten).
        const size_t count = static_cast<size_t>(want[3].to_f64()[0]) * GetParam().classes_per_box;
        const bool regular = GetParam().name.find("regular") != std::string::npos;
        for (size_t k = 0; k < 3; ++k) {
            const size_t width = k == 0 ? 4 : 1;
            const auto g = got[k].to_f64(), w = want[k].to_f64();
            for (size_t i = count * width; i < g.size(); ++i) {
                EXPECT_EQ(g[i], 0.0) << "output " << k << " element " << i;
                if (regular) EXPECT_EQ(w[i], 0.0) << "TFLite's output " << k << " element " << i;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Tflite, TfliteDetection,
                         ::testing::Values(Fixture{"float_fast", 2}, Fixture{"float_regular", 1},
                                           Fixture{"uint8_fast", 1}, Fixture{"uint8_regular", 1}),
                         [](const auto& info) { return info.param.name; });

// ---- real models ------------------------------------------------------------------------------

std::vector<char> read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A model of the real model's TFLite_Detection_PostProcess alone: its options, its anchors and
// the types and quantization of its inputs, which become the model's inputs.
std::string postprocess_alone(const fs::path& model_path, size_t& classes_per_box) {
    const std::vector<char> file = read_bytes(model_path);
    const tflite::Model& m = *tflite::GetModel(file.data());
    const tflite::SubGraph& g = *m.subgraphs()->Get(0);
    test::TfliteModelBuilder b;
    for (const tflite::Operator* op : *g.operators()) {
        const tflite::OperatorCode& code = *m.operator_codes()->Get(op->opcode_index());
        if (!code.custom_code() || code.custom_code()->str() != "TFLite_Detection_PostProcess") continue;
        std::vector<int32_t> inputs, outputs;
        for (uint32_t i = 0; i < 3; ++i) {
            const tflite::Tensor& t = *g.tensors()->Get(static_cast<uint32_t>(op->inputs()->Get(i)));
            const std::vector<int32_t> shape(t.shape()->begin(), t.shape()->end());
            const auto* data = m.buffers()->Get(t.buffer())->data();
            const int k = data && data->size() ? b.constant_bytes(t.name()->str(), shape, t.type(), data->data(), data->size())
                                               : b.input(t.name()->str(), shape, t.type());
            if (const auto* q = t.quantization(); q && q->scale() && q->scale()->size())
                b.quantize(k, {q->scale()->begin(), q->scale()->end()}, {q->zero_point()->begin(), q->zero_point()->end()});
            inputs.push_back(k);
        }
        for (uint32_t i = 0; i < 4; ++i) {
            const tflite::Tensor& t = *g.tensors()->Get(static_cast<uint32_t>(op->outputs()->Get(i)));
            outputs.push_back(b.tensor(t.name()->str(), {t.shape()->begin(), t.shape()->end()}));
            b.output(outputs.back());
        }
        const std::vector<uint8_t> options(op->custom_options()->begin(), op->custom_options()->end());
        const auto map = flexbuffers::GetRoot(options).AsMap();
        classes_per_box = map["use_regular_nms"].AsBool() ? 1 : static_cast<size_t>(map["max_classes_per_detection"].AsInt32());
        b.custom_op("TFLite_Detection_PostProcess", inputs, outputs, options);
        return b.save("postprocess_alone.tflite");
    }
    ADD_FAILURE() << model_path << " has no TFLite_Detection_PostProcess";
    return {};
}

TEST(TfliteDetectionRealModels, PostProcessingAloneGivesTheRuntimesDetections) {
    const char* env = std::getenv("MO_TFLITE_DETECTION_MODELS");
    if (!env) GTEST_SKIP() << "MO_TFLITE_DETECTION_MODELS is not set (a directory of real SSD models, docs/tflite.md)";
    size_t checked = 0;
    for (const auto& entry : fs::directory_iterator(env)) {
        const fs::path dir = entry.path();
        if (!fs::exists(dir / "model.tflite") || !fs::exists(dir / "output_5.npy")) continue;
        size_t per_box = 1;
        const std::string alone = postprocess_alone(dir / "model.tflite", per_box);
        test::ScratchDir out("tflite_detection_real");
        auto ir = convert_to_ir(alone, out, true);
        const auto got = evaluate(*ir, npys(dir, "output_", 4, 2));
        const double worst = expect_same_detections(got, npys(dir, "output_", 0, 4), per_box, dir.filename().string());
        std::cout << dir.filename().string() << " (post-processing on TFLite's inputs to it): "
                  << got[3].to_f64()[0] << " detections as TFLite's, boxes within " << worst << "\n";
        ++checked;
    }
    if (checked == 0) GTEST_SKIP() << "no model directory in " << env << " has output_4.npy and output_5.npy";
}

TEST(TfliteDetectionRealModels, WholeModelGivesTheRuntimesDetections) {
    const char* env = std::getenv("MO_TFLITE_DETECTION_MODELS");
    if (!env) GTEST_SKIP() << "MO_TFLITE_DETECTION_MODELS is not set (a directory of real SSD models, docs/tflite.md)";
    size_t checked = 0;
    for (const auto& entry : fs::directory_iterator(env)) {
        const fs::path dir = entry.path();
        if (!fs::exists(dir / "model.tflite") || !fs::exists(dir / "output_3.npy")) continue;
        size_t per_box = 1;
        postprocess_alone(dir / "model.tflite", per_box);
        test::ScratchDir out("tflite_detection_real");
        auto ir = convert_to_ir((dir / "model.tflite").string(), out, true);
        const auto got = evaluate(*ir, npys(dir, "input_", 0, 1));
        const double worst = expect_same_detections(got, npys(dir, "output_", 0, 4), per_box, dir.filename().string());
        std::cout << dir.filename().string() << " (whole model): boxes within " << worst << "\n";
        ++checked;
    }
    if (checked == 0) GTEST_SKIP() << "no model directory in " << env;
}

// ---- errors -----------------------------------------------------------------------------------

std::vector<uint8_t> options(double iou, bool with_scales = true, int64_t max_detections = 4) {
    flexbuffers::Builder fbb;
    fbb.Map([&] {
        fbb.Int("max_detections", max_detections);
        fbb.Int("max_classes_per_detection", 1);
        fbb.Int("num_classes", 2);
        fbb.Float("nms_score_threshold", 0.1f);
        fbb.Float("nms_iou_threshold", static_cast<float>(iou));
        if (with_scales)
            for (const char* k : {"y_scale", "x_scale", "h_scale", "w_scale"}) fbb.Float(k, 10.0f);
    });
    fbb.Finish();
    return fbb.GetBuffer();
}

// A post-processing model of 8 anchors with the given options bytes.
test::TfliteModelBuilder postprocess_model(std::vector<uint8_t> custom_options) {
    test::TfliteModelBuilder m;
    const int boxes = m.input("boxes", {1, 8, 4}), scores = m.input("scores", {1, 8, 3});
    const int anchors = m.constant("anchors", {8, 4}, std::vector<float>(32, 0.5f));
    std::vector<int32_t> outs{m.tensor("d", {1, 4, 4}), m.tensor("c", {1, 4}), m.tensor("s", {1, 4}), m.tensor("n", {1})};
    m.custom_op("TFLite_Detection_PostProcess", {boxes, scores, anchors}, outs, std::move(custom_options));
    for (int t : outs) m.output(t);
    return m;
}

void expect_conversion_error(const test::TfliteModelBuilder& m, std::initializer_list<const char*> fragments) {
    test::ScratchDir dir{"tflite_detection_bad"};
    ConversionOptions o;
    // One file per test: ctest runs the tests of this file in parallel processes.
    o.input_model = m.save(std::string("detection_bad_") + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           ".tflite");
    o.output_dir = dir.path().string();
    test::expect_error([&] { convert(o); }, fragments);
}

TEST(TfliteDetection, OptionsTheKernelRefusesAreErrors) {
    expect_conversion_error(postprocess_model(options(0.0)), {"node 'd' (TFLite_Detection_PostProcess", "nms_iou_threshold is 0"});
    expect_conversion_error(postprocess_model(options(0.5, false)), {"custom option 'y_scale' is missing"});
    expect_conversion_error(postprocess_model({}), {"has no custom options"});
    // A hostile count is refused before anything that large is made.
    expect_conversion_error(postprocess_model(options(0.5, true, INT32_MAX)),
                            {"the padded detections", "more than --max_constant_size"});
    // Not a flexbuffer map: only the raw bytes are readable.
    expect_conversion_error(postprocess_model({1, 2, 3, 4}), {"required attribute 'max_detections' is missing"});
    // A well-formed model converts (the same builder, good options).
    test::ScratchDir dir{"tflite_detection_good"};
    ConversionOptions o;
    o.input_model = postprocess_model(options(0.5)).save("detection_good.tflite");
    o.output_dir = dir.path().string();
    EXPECT_NO_THROW(convert(o));
}

// What the Edge TPU compiler writes: the layers it took in one CUSTOM operator.
TEST(TfliteDetection, EdgeTpuModelsAreRefusedByName) {
    test::TfliteModelBuilder m;
    const int x = m.input("x", {1, 4}, TensorType::UINT8);
    const int y = m.tensor("y", {1, 4}, TensorType::UINT8);
    m.custom_op("edgetpu-custom-op", {x}, {y}, {0x10, 0x20});
    m.output(y);
    expect_conversion_error(m, {"this model was compiled for the Edge TPU (edgetpu-custom-op)",
                                "convert the CPU .tflite it was compiled from"});
}

}  // namespace
}  // namespace mo
