// NON_MAX_SUPPRESSION_V4 / V5 (TFLite's kernel non_max_suppression.cc, reference
// NonMaxSuppression): greedy NMS of one class of boxes [N, 4] (y1, x1, y2, x2, any diagonal) by
// scores [N], as NonMaxSuppression-9 over one batch and class. TFLite keeps scores above
// score_threshold, as NonMaxSuppression does, but suppresses an IoU at or above iou_threshold:
// NonMaxSuppression (which suppresses above) gets the next float below. Outputs: the selected
// indices [max_output_size] int32 (V5 also their scores), padded with zeros, and their count.
// V5's soft NMS also suppresses hard at the IoU threshold in TFLite, not in NonMaxSuppression: a
// soft_nms_sigma other than a constant 0 is refused.
#include <cmath>
#include <limits>

#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

OutPort padded(ExtractContext& c, const std::string& suffix, const OutPort& x, int64_t rows, ElementType type) {
    const OutPort zeros = c.constant(suffix + "/zeros", Tensor::allocate(type, {rows}));
    const OutPort joined = c.op("Concat", suffix + "/padded", {x, zeros}, {{"axis", int64_t{0}}});
    return c.op("Slice", suffix, {joined, c.i64s(suffix + "/start", {0}), c.i64s(suffix + "/stop", {rows}),
                                  c.i64s(suffix + "/step", {1}), c.i64s(suffix + "/axes", {0})});
}

OutPort column(ExtractContext& c, const std::string& suffix, const OutPort& x, int64_t j) {
    return c.op("Gather", suffix, {x, c.i64(suffix + "/index", j), c.i64(suffix + "/axis", 1)}, {{"batch_dims", int64_t{0}}});
}

void nms(ExtractContext& c, bool v5) {
    const std::vector<int64_t> max_output = c.input_ints(2);
    if (max_output.size() != 1 || max_output[0] < 0)
        c.fail("max_output_size must be one non-negative value", "the model is corrupt; re-export it");
    const Tensor* iou = c.input_value(3);
    if (!iou || iou->size() != 1) c.unsupported("NON_MAX_SUPPRESSION with an IoU threshold not known at conversion");
    if (v5) {
        const Tensor* sigma = c.input_value(5);
        if (!sigma || sigma->size() != 1 || sigma->to_f64()[0] != 0.0)
            c.unsupported("NON_MAX_SUPPRESSION_V5 with soft NMS (a soft_nms_sigma other than a constant 0)");
    }
    const int64_t rows = max_output[0];
    tflite_constant_elements(c, {rows}, ElementType::i32, "the padded selection (max_output_size)");
    const float at_or_above = std::nextafter(static_cast<float>(iou->to_f64()[0]), -std::numeric_limits<float>::infinity());
    const OutPort boxes = c.op("Unsqueeze", "boxes", {c.input(0), c.i64s("boxes/axes", {0})});
    const OutPort scores = c.op("Unsqueeze", "scores", {c.input(1), c.i64s("scores/axes", {0, 1})});
    Node n = c.add("NonMaxSuppression", "nms",
                   {boxes, scores, c.i64("nms/max_boxes", rows), c.constant("nms/iou_threshold", Tensor::scalar<float>(at_or_above)),
                    c.input(4)},
                   {{"box_encoding", std::string("corner")}, {"sort_result_descending", false}, {"output_type", ElementType::i32}});
    n.set_output_count(3);
    c.set_output(0, padded(c, "selected_indices", column(c, "selected_box", n.out(0), 2), rows, ElementType::i32));
    const size_t count = v5 ? 2 : 1;
    if (v5) c.set_output(1, padded(c, "selected_scores", column(c, "selected_score", n.out(1), 2), rows, ElementType::f32));
    c.set_output(count, c.op("Squeeze", "", {n.out(2), c.i64s("count/axes", {0})}));
}

}  // namespace

void register_tflite_nms(ExtractorRegistry& r) {
    r.add({"tflite", "", "NON_MAX_SUPPRESSION_V4", 1, INT64_MAX, [](ExtractContext& c) { nms(c, false); }});
    r.add({"tflite", "", "NON_MAX_SUPPRESSION_V5", 1, INT64_MAX, [](ExtractContext& c) { nms(c, true); }});
}

}  // namespace mo
