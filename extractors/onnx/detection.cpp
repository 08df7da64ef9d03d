// NonMaxSuppression-10/11 -> NonMaxSuppression-9, one op.
// ONNX lists the selections by batch, class, then selection order: sort_result_descending=false.
// Absent inputs get ONNX's meaning: no max_output_boxes_per_class selects nothing, no
// iou_threshold is 0, and no score_threshold means every box is considered (-inf, where
// OpenVINO's default would drop scores <= 0). ONNX has one output, selected_indices, in i64.
#include <limits>
#include <string>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

void non_max_suppression(ExtractContext& c) {
    const int64_t center_point_box = c.i("center_point_box", 0);
    if (center_point_box != 0 && center_point_box != 1)
        c.fail("center_point_box must be 0 or 1, got " + std::to_string(center_point_box));
    if (const Tensor* max_boxes = c.input_value(2); max_boxes && max_boxes->size() == 1 && max_boxes->to_i64()[0] < 0)
        c.unsupported("a negative max_output_boxes_per_class");  // undefined by ONNX and OpenVINO alike

    const OutPort max_boxes = c.has_input(2) ? c.input(2) : c.i64("max_output_boxes_per_class", 0);
    const OutPort iou = c.has_input(3) ? c.input(3) : c.constant("iou_threshold", Tensor::scalar<float>(0.0f));
    const OutPort score =
        c.has_input(4) ? c.input(4)
                       : c.constant("score_threshold", Tensor::scalar<float>(-std::numeric_limits<float>::infinity()));
    Node nms = c.add("NonMaxSuppression", "", {c.input(0), c.input(1), max_boxes, iou, score},
                     {{"box_encoding", std::string(center_point_box ? "center" : "corner")},
                      {"sort_result_descending", false},
                      {"output_type", ElementType::i64}});
    c.set_output(0, nms.out(0));
}

}  // namespace

void register_onnx_detection(ExtractorRegistry& r) {
    r.add({"onnx", "", "NonMaxSuppression", since(10), non_max_suppression});
}

}  // namespace mo
