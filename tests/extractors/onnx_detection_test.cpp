// ONNX NonMaxSuppression -> NonMaxSuppression-9: attributes, ONNX's meaning of absent inputs, and
// the output order (batch, class, then score), evaluated against selections worked by hand from
// the ONNX operator definition.
#include <gtest/gtest.h>

#include <cmath>

#include "extractors/onnx_test_support.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using namespace test;

// boxes [1, N, 4], scores [1, C, N]; `optional` names the optional inputs ("" absent).
std::unique_ptr<Graph> nms_model(int64_t n, int64_t classes, const std::vector<std::string>& optional,
                                 const std::vector<OnnxAttr>& attrs = {}, int64_t opset = 11) {
    OnnxModelBuilder m(opset);
    m.input("boxes", {1, n, 4});
    m.input("scores", {1, classes, n});
    for (const auto& name : optional) {
        if (name == "max5") m.initializer_i64(name, {5}, {1});
        if (name == "max_negative") m.initializer_i64(name, {-1}, {1});
        if (name == "iou") m.initializer(name, {0.5f}, {1});
        if (name == "score") m.initializer(name, {0.2f}, {1});
    }
    std::vector<std::string> inputs{"boxes", "scores"};
    inputs.insert(inputs.end(), optional.begin(), optional.end());
    m.node("NonMaxSuppression", inputs, {"selected"}, attrs);
    m.output("selected", onnx::TensorProto::INT64);
    return convert_onnx(m, "nms.onnx");
}


Ints run(const Graph& g, const Tensor& boxes, const Tensor& scores) {
    auto out = evaluate(g, {{"boxes", boxes}, {"scores", scores}});
    EXPECT_EQ(out.at(0).type(), ElementType::i64);
    EXPECT_EQ(out.at(0).shape().size(), 2u);
    EXPECT_EQ(out.at(0).shape().back(), 3);
    return out.at(0).to_i64();
}

// Boxes 0/1 overlap with IoU 0.9/1.1 = 0.82; box 2 overlaps neither. Class 0 scores
// 0.9, 0.8, 0.3; class 1 scores 0.1, 0.95, 0.6.
const Tensor kBoxes = f32({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3}, {1, 3, 4});
const Tensor kScores = f32({0.9f, 0.8f, 0.3f, 0.1f, 0.95f, 0.6f}, {1, 2, 3});

// Class 0 first even though class 1 has the best score: ONNX's order, not a global sort.
TEST(OnnxNonMaxSuppression, ClassMajorOrderAndCornerBoxes) {
    auto g = nms_model(3, 2, {"max5", "iou", "score"});
    Node n = output_node(*g);
    ASSERT_TRUE(n.is("NonMaxSuppression"));
    EXPECT_EQ(n.attr<std::string>("box_encoding"), "corner");
    EXPECT_FALSE(n.attr<bool>("sort_result_descending"));
    EXPECT_EQ(n.attr<ElementType>("output_type"), ElementType::i64);
    // score > 0.2 drops class 1's box 0 (0.1); box 1 suppresses box 0 in class 0.
    EXPECT_EQ(run(*g, kBoxes, kScores), (Ints{0, 0, 0, 0, 0, 2, 0, 1, 1, 0, 1, 2}));
}

// center_point_box = 1: [xc, yc, w, h]. Box 1 [1.5,1,2,2] overlaps box 0 [1,1,2,2] by 3/5 and
// is suppressed; read as corners the IoU would be 0.5 and both kept. Box 2 overlaps neither.
TEST(OnnxNonMaxSuppression, CenterPointBox) {
    auto g = nms_model(3, 1, {"max5", "iou"}, {{"center_point_box", 1}}, 10);
    EXPECT_EQ(output_node(*g).attr<std::string>("box_encoding"), "center");
    Tensor boxes = f32({1, 1, 2, 2, 1.5f, 1, 2, 2, 5, 5, 1, 1}, {1, 3, 4});
    EXPECT_EQ(run(*g, boxes, f32({0.9f, 0.8f, 0.7f}, {1, 1, 3})), (Ints{0, 0, 0, 0, 0, 2}));
}

// No max_output_boxes_per_class: nothing is selected.
TEST(OnnxNonMaxSuppression, AbsentCountSelectsNothing) {
    auto g = nms_model(3, 2, {});
    Node n = output_node(*g);
    ASSERT_TRUE(n.is("NonMaxSuppression"));
    EXPECT_EQ(const_ints(n, 2), (Ints{0}));
    EXPECT_EQ(run(*g, kBoxes, kScores), (Ints{}));
}

// No score_threshold: every box is a candidate, negative scores included (OpenVINO's own
// default of 0 would select none here); no iou_threshold: any overlap suppresses.
TEST(OnnxNonMaxSuppression, AbsentThresholdsKeepOnnxMeaning) {
    auto g = nms_model(3, 1, {"max5"});
    Node n = output_node(*g);
    EXPECT_EQ(const_values(n, 3), (Doubles{0}));
    const auto score = const_values(n, 4);
    ASSERT_EQ(score.size(), 1u);
    EXPECT_TRUE(std::isinf(score[0]) && score[0] < 0);
    EXPECT_EQ(run(*g, kBoxes, f32({-0.5f, -0.4f, -2}, {1, 1, 3})), (Ints{0, 0, 1, 0, 0, 2}));
    // the same with the threshold given between absent inputs
    auto h = nms_model(3, 1, {"max5", "", "score"});
    EXPECT_EQ(const_values(output_node(*h), 3), (Doubles{0}));
    EXPECT_EQ(run(*h, kBoxes, f32({0.3f, 0.4f, 0.1f}, {1, 1, 3})), (Ints{0, 0, 1}));
}

TEST(OnnxNonMaxSuppression, RefusesWhatItCannotConvert) {
    auto error = [](const std::vector<std::string>& optional, const std::vector<OnnxAttr>& attrs) {
        try {
            nms_model(3, 1, optional, attrs);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(error({"max5"}, {{"center_point_box", 2}}).find("center_point_box must be 0 or 1"), std::string::npos);
    EXPECT_NE(error({"max_negative"}, {}).find("negative max_output_boxes_per_class is not supported"),
              std::string::npos);
}

}  // namespace
}  // namespace mo
