// configs/ssd.json on torchvision SSD exports (scripts/make_ssd_models.py): the IR's
// DetectionOutput gives PyTorch's detections. tiny_ssd (torchvision's SSD class around a
// two-layer backbone) is committed; ssdlite320 and ssd300 run when $MO_MODELS_DIR/ssd (default
// /work/models/ssd) holds them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "driver/convert.hpp"
#include "core/evaluator.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

fs::path model_dir(const std::string& name) {
    if (name == "tiny_ssd") return fs::path(MO_SOURCE_DIR) / "tests/e2e/data/tiny_ssd";
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
    for (size_t i = 0; i < scores.size(); ++i) {
        bool found = false;
        for (size_t j = 0; j < got.size() && !found; ++j) {
            if (used[j] || got[j].label != labels[i] || std::abs(got[j].score - scores[i]) > 1e-4) continue;
            bool close = true;
            for (size_t k = 0; k < 4; ++k) close = close && std::abs(got[j].box[k] - boxes[i * 4 + k]) <= box_tolerance;
            if (close) used[j] = found = true;
        }
        matched += found;
        if (!found) EXPECT_LE(scores[i], cut + 1e-4) << "PyTorch detection " << i << " (label " << labels[i] << ", score " << scores[i] << ") is missing";
    }
    EXPECT_GE(matched + 2, scores.size());  // at most a couple of boundary swaps
}

INSTANTIATE_TEST_SUITE_P(Torchvision, SsdConfig, ::testing::Values("tiny_ssd", "ssdlite320", "ssd300"));

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
