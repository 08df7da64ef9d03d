// Writes the TFLite_Detection_PostProcess fixtures of tests/e2e/data/tflite_detection (model.tflite
// and input_<i>.npy per directory); scripts/tflite_outputs.js then runs the TFLite interpreter on
// them for output_<i>.npy. Not run by CI:
//   ./build/tests/mo-make-tflite-detection-models tests/e2e/data/tflite_detection
//   NODE_PATH=... node scripts/tflite_outputs.js tests/e2e/data/tflite_detection/*
//
// Each model is the op alone, its inputs the model's inputs and its anchors a constant, in the form
// the TF Object Detection API's TFLite export writes (object_detection/export_tflite_ssd_graph_lib.py
// with TOCO): the box encodings [1, N, 4] (ty, tx, th, tw) and class predictions [1, N, classes + 1
// background] (the SSD's sigmoid scores), the anchors [N, 4] (y, x, h, w), float32 or, in the quantized
// export, uint8 with the anchors a uint8 constant; the options a flexbuffer map of 32-bit values with
// the exporter's keys (max_detections, max_classes_per_detection, detections_per_class,
// use_regular_nms, nms_score_threshold, nms_iou_threshold, num_classes, y/x/h/w_scale, and the
// converter's _output_quantized, _support_output_type_float_in_quantized_op). The anchors are 4 x 4
// positions x 3 shapes so that neighbours overlap and NMS has work to do; the encodings and scores are
// fixed random numbers.
#include <flatbuffers/flexbuffers.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "support/tflite_model_builder.hpp"

namespace {

namespace fs = std::filesystem;
using mo::test::TfliteModelBuilder;
using tflite::TensorType;

constexpr int32_t kAnchors = 48, kClasses = 3;

class Random {
public:
    explicit Random(uint32_t seed) : rng_(seed) {}
    double uniform(double lo, double hi) { return lo + (hi - lo) * (static_cast<double>(rng_()) / 4294967296.0); }

private:
    std::mt19937 rng_;
};

// (y, x, h, w) of 4 x 4 centres x 3 shapes.
std::vector<float> anchors() {
    std::vector<float> a;
    const float shapes[3][2] = {{0.3f, 0.3f}, {0.45f, 0.25f}, {0.25f, 0.45f}};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            for (const auto& s : shapes) a.insert(a.end(), {(i + 0.5f) / 4, (j + 0.5f) / 4, s[0], s[1]});
    return a;
}

struct Options {
    int max_detections, max_classes_per_detection, detections_per_class;
    bool regular;
    float score_threshold, iou_threshold;
};

std::vector<uint8_t> flexbuffer_options(const Options& o, bool quantized) {
    flexbuffers::Builder fbb;
    fbb.Map([&] {
        fbb.Bool("_output_quantized", quantized);
        fbb.Bool("_support_output_type_float_in_quantized_op", true);
        fbb.Int("detections_per_class", o.detections_per_class);
        fbb.Float("h_scale", 5.0f);
        fbb.Int("max_classes_per_detection", o.max_classes_per_detection);
        fbb.Int("max_detections", o.max_detections);
        fbb.Float("nms_iou_threshold", o.iou_threshold);
        fbb.Float("nms_score_threshold", o.score_threshold);
        fbb.Int("num_classes", kClasses);
        fbb.Bool("use_regular_nms", o.regular);
        fbb.Float("w_scale", 5.0f);
        fbb.Float("x_scale", 10.0f);
        fbb.Float("y_scale", 10.0f);
    });
    fbb.Finish();
    return fbb.GetBuffer();
}

// The op's four float32 outputs, the model's outputs.
std::vector<int32_t> outputs(TfliteModelBuilder& m, const Options& o) {
    const int32_t detections = o.max_detections * (o.regular ? 1 : o.max_classes_per_detection);
    std::vector<int32_t> out{m.tensor("TFLite_Detection_PostProcess", {1, detections, 4}),
                             m.tensor("TFLite_Detection_PostProcess:1", {1, detections}),
                             m.tensor("TFLite_Detection_PostProcess:2", {1, detections}),
                             m.tensor("TFLite_Detection_PostProcess:3", {1})};
    for (int32_t t : out) m.output(t);
    return out;
}


// float32 inputs; `background` puts a background column in front of the class scores.
void float_model(const fs::path& dir, const Options& o, int32_t encoding_length, bool background, uint32_t seed) {
    Random r(seed);
    TfliteModelBuilder m;
    const int32_t columns = kClasses + (background ? 1 : 0);
    const int boxes = m.input("raw_outputs/box_encodings", {1, kAnchors, encoding_length});
    const int scores = m.input("raw_outputs/class_predictions", {1, kAnchors, columns});
    const int a = m.constant("anchors", {kAnchors, 4}, anchors());
    m.custom_op("TFLite_Detection_PostProcess", {boxes, scores, a}, outputs(m, o), flexbuffer_options(o, false));
    std::vector<float> enc, cls;
    for (int32_t i = 0; i < kAnchors; ++i) {
        for (int32_t k = 0; k < encoding_length; ++k) enc.push_back(static_cast<float>(r.uniform(k < 2 ? -3 : -1.5, k < 2 ? 3 : 1.5)));
        for (int32_t k = 0; k < columns; ++k) cls.push_back(static_cast<float>(r.uniform(0, 1)));
    }
    save_fixture(m, dir,
         {mo::Tensor::from_vector<float>(enc, {1, kAnchors, encoding_length}),
          mo::Tensor::from_vector<float>(cls, {1, kAnchors, columns})});
}

// uint8 inputs and anchors, as the quantized export writes them: the scores on the sigmoid's
// grid (scale 1/256, zero point 0), so that many are equal.
void uint8_model(const fs::path& dir, const Options& o, uint32_t seed) {
    Random r(seed);
    TfliteModelBuilder m;
    const int32_t columns = kClasses + 1;
    const int boxes = m.input("raw_outputs/box_encodings", {1, kAnchors, 4}, TensorType::UINT8);
    m.quantize(boxes, {0.05f}, {128});
    const int scores = m.input("raw_outputs/class_predictions", {1, kAnchors, columns}, TensorType::UINT8);
    m.quantize(scores, {1.0f / 256}, {0});
    std::vector<uint8_t> a;
    for (float v : anchors()) a.push_back(static_cast<uint8_t>(std::lround(v * 255)));
    const int anchor_tensor = m.constant_bytes("anchors", {kAnchors, 4}, TensorType::UINT8, a.data(), a.size());
    m.quantize(anchor_tensor, {1.0f / 255}, {0});
    m.custom_op("TFLite_Detection_PostProcess", {boxes, scores, anchor_tensor}, outputs(m, o), flexbuffer_options(o, true));
    std::vector<uint8_t> enc, cls;
    for (int32_t i = 0; i < kAnchors; ++i) {
        for (int k = 0; k < 4; ++k) enc.push_back(static_cast<uint8_t>(128 + std::lround(r.uniform(k < 2 ? -60 : -30, k < 2 ? 60 : 30))));
        // Scores in steps of 1/256 below 0.75: few values, many ties.
        for (int32_t k = 0; k < columns; ++k) cls.push_back(static_cast<uint8_t>(std::lround(r.uniform(0, 48)) * 4));
    }
    save_fixture(m, dir,
         {mo::Tensor::from_vector<uint8_t>(enc, {1, kAnchors, 4}), mo::Tensor::from_vector<uint8_t>(cls, {1, kAnchors, columns})});
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    const fs::path out = argv[1];
    // Fast NMS, two classes per detection, encodings with two extra (keypoint) values.
    float_model(out / "float_fast", {6, 2, 0, false, 0.3f, 0.5f}, 6, true, 1);
    // Regular NMS without a background column; more selections than max_detections.
    float_model(out / "float_regular", {8, 1, 3, true, 0.25f, 0.45f}, 4, false, 2);
    // The score thresholds are on the scores' grid (176 / 256, 180 / 256): scores equal to them count.
    uint8_model(out / "uint8_fast", {10, 1, 0, false, 0.6875f, 0.6f}, 3);
    // Regular NMS with room for every selection: the order of equal scores is TFLite's to choose.
    uint8_model(out / "uint8_regular", {12, 1, 3, true, 0.703125f, 0.5f}, 4);
    return 0;
}
