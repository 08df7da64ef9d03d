// configs/ssd.json on torchvision SSD exports (scripts/make_ssd_models.py): the IR's
// DetectionOutput gives PyTorch's detections. tiny_ssd (torchvision's SSD class around a
// two-layer backbone) and tiny_ssd_wrapped (the same in a module that picks the outputs, so its
// nodes are /m/Softmax, ..., with non-default thresholds and detections per image) are
// committed; ssdlite320, ssd300 and their _wrapped forms run when $MO_MODELS_DIR/ssd (default
// /work/models/ssd) holds them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "tools/convert.hpp"
#include "core/evaluator.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

fs::path model_dir(const std::string& name) {
    if (name.starts_with("tiny_ssd")) return fs::path(MO_SOURCE_DIR) / "tests/e2e/data" / name;
    const char* env = std::getenv("MO_MODELS_DIR");
    return fs::path(env ? env : "/work/models") / "ssd" / name;
}

struct Detection {
    int64_t label;
    float score;
    float box[4];  // pixels of the input image
};

// The DetectionOutput rows up to the one whose image is -1, boxes scaled to pixels.
std::vector<Detection> ir_detections(const Tensor& out, float width, float height) {
    std::vector<Detection> d;
    const auto v = out.convert(ElementType::f32).to_f64();
    for (size_t r = 0; r * 7 < v.size() && v[r * 7] >= 0; ++r) {
        const double* row = v.data() + r * 7;
        d.push_back({static_cast<int64_t>(row[1]), static_cast<float>(row[2]),
                     {static_cast<float>(row[3] * width), static_cast<float>(row[4] * height),
                      static_cast<float>(row[5] * width), static_cast<float>(row[6] * height)}});
    }
    return d;
}

// The settings make_ssd_models.py gives the wrapped models (none is torchvision's default), as
// DetectionOutput must carry them: score threshold, NMS threshold, top_k, keep_top_k.
struct Settings {
    double confidence, nms;
    int64_t top_k, keep_top_k;
};
const std::map<std::string, Settings> kWrappedSettings{{"tiny_ssd_wrapped", {0.8, 0.3, 60, 150}},
                                                       {"ssdlite320_wrapped", {0.02, 0.4, 150, 100}},
                                                       {"ssd300_wrapped", {0.05, 0.35, 80, 120}}};

class SsdConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(SsdConfig, DetectionOutputGivesPyTorchsDetections) {
    const fs::path dir = model_dir(GetParam());
    if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " is absent (scripts/make_ssd_models.py makes it)";
    test::ScratchDir out{"ssd"};
    ConversionOptions options;
    options.input_model = (dir / "model.onnx").string();
    options.output_dir = out.path().string();
    options.transformations_config = (fs::path(MO_SOURCE_DIR) / "configs/ssd.json").string();
    options.compress_to_fp16 = false;  // compare the conversion, not f16 rounding
    ConversionResult result = convert(options);

    auto ir = read_ir(result.xml_path, test::builtin_ops());
    int detection_outputs = 0;
    for (const Node& n : ir->nodes()) {
        detection_outputs += n.is("DetectionOutput");
        EXPECT_FALSE(n.is("NonMaxSuppression") || n.is("TopK")) << "post-processing left: " << n.describe();
        auto wrapped = kWrappedSettings.find(GetParam());
        if (!n.is("DetectionOutput") || wrapped == kWrappedSettings.end()) continue;
        const Settings& want = wrapped->second;
        EXPECT_NEAR(n.attr<double>("confidence_threshold"), want.confidence, 1e-7);
        EXPECT_NEAR(n.attr<double>("nms_threshold"), want.nms, 1e-7);
        EXPECT_EQ(n.attr<int64_t>("top_k"), want.top_k);
        EXPECT_EQ(n.attr<std::vector<int64_t>>("keep_top_k"), std::vector<int64_t>{want.keep_top_k});
    }
    EXPECT_EQ(detection_outputs, 1);

    const Tensor image = read_npy((dir / "image.npy").string());
    const float height = static_cast<float>(image.shape()[1]), width = static_cast<float>(image.shape()[2]);
    const auto got = ir_detections(evaluate(*ir, {image}).at(0), width, height);
    const auto boxes = read_npy((dir / "boxes.npy").string()).to_f64();
    const auto scores = read_npy((dir / "scores.npy").string()).to_f64();
    const auto labels = read_npy((dir / "labels.npy").string()).to_i64();
    ASSERT_FALSE(scores.empty()) << "the fixture has no detections";
    EXPECT_EQ(got.size(), scores.size());

    // Every PyTorch detection has an IR detection of the same label, score within 1e-4 and box
    // within 1e-3 of the image size, except at the keep_top_k cut: detections scoring within
    // 1e-4 of the last kept score may be swapped for an equal-scoring one (f32 ties).
    const double cut = *std::min_element(scores.begin(), scores.end());
    const double box_tolerance = 1e-3 * std::max(width, height);
    std::vector<bool> used(got.size(), false);
    size_t matched = 0;
    double worst_score = 0, worst_box = 0;
    for (size_t i = 0; i < scores.size(); ++i) {
        bool found = false;
        for (size_t j = 0; j < got.size() && !found; ++j) {
            if (used[j] || got[j].label != labels[i] || std::abs(got[j].score - scores[i]) > 1e-4) continue;
            double box_error = 0;
            for (size_t k = 0; k < 4; ++k) box_error = std::max(box_error, std::abs(got[j].box[k] - boxes[i * 4 + k]));
            if (box_error > box_tolerance) continue;
            used[j] = found = true;
            worst_score = std::max(worst_score, std::abs(got[j].score - scores[i]));
            worst_box = std::max(worst_box, box_error);
        }
        matched += found;
        if (!found) EXPECT_LE(scores[i], cut + 1e-4) << "PyTorch detection " << i << " (label " << labels[i] << ", score " << scores[i] << ") is missing";
    }
    EXPECT_GE(matched + 2, scores.size());  // at most a couple of boundary swaps
    std::cout << "[ ssd ] " << GetParam() << ": " << matched << " of " << scores.size() << " PyTorch detections matched ("
              << got.size() << " in the IR), max |score error| " << worst_score << ", max |box error| " << worst_box
              << " px\n";
}

INSTANTIATE_TEST_SUITE_P(Torchvision, SsdConfig, ::testing::Values("tiny_ssd", "tiny_ssd_wrapped", "ssdlite320", "ssd300",
                                                                    "ssdlite320_wrapped", "ssd300_wrapped"));

// Without the config the exported tail converts as it is: top-k, box decoding and the NMS inside
// the If body. The IR then gives PyTorch's detections as (boxes, scores, labels) tensors.
TEST(SsdConfig, WithoutTheConfigTheTailConvertsWithItsIf) {
    const fs::path dir = model_dir("tiny_ssd");
    test::ScratchDir out{"ssd_plain"};
    ConversionOptions options;
    options.input_model = (dir / "model.onnx").string();
    options.output_dir = out.path().string();
    options.compress_to_fp16 = false;
    ConversionResult result = convert(options);
    auto ir = read_ir(result.xml_path, test::builtin_ops());
    int ifs = 0;
    for (const Node& n : ir->nodes()) ifs += n.is("If");
    EXPECT_GE(ifs, 1);

    const auto outputs = evaluate(*ir, {read_npy((dir / "image.npy").string())});
    ASSERT_EQ(outputs.size(), 3u);
    const auto boxes = read_npy((dir / "boxes.npy").string()).to_f64();
    const auto scores = read_npy((dir / "scores.npy").string()).to_f64();
    const auto labels = read_npy((dir / "labels.npy").string()).to_i64();
    const auto got_boxes = outputs[0].convert(ElementType::f32).to_f64();
    const auto got_scores = outputs[1].convert(ElementType::f32).to_f64();
    const auto got_labels = outputs[2].to_i64();
    ASSERT_EQ(got_scores.size(), scores.size());
    ASSERT_EQ(got_labels, labels);
    for (size_t i = 0; i < scores.size(); ++i) EXPECT_NEAR(got_scores[i], scores[i], 1e-4) << "detection " << i;
    for (size_t i = 0; i < boxes.size(); ++i) EXPECT_NEAR(got_boxes[i], boxes[i], 1e-2) << "box value " << i;
}

}  // namespace
}  // namespace mo
