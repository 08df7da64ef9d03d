// NonMaxSuppressionV3 / V4 / V5 -> NonMaxSuppression-9 on one batch and one class. TensorFlow's
// boxes are [y1, x1, y2, x2] (OpenVINO's corner encoding), a box is kept when its score is above
// score_threshold and dropped when its IoU with a kept box is above iou_threshold, and the
// indices come in selection order (sort_result_descending=false).
#include "extractors/tf/tf_extractors.hpp"

namespace mo {

namespace {

void non_max_suppression(ExtractContext& c, int version) {
    if (c.i("pad_to_max_output_size", 0)) c.unsupported("NonMaxSuppression with pad_to_max_output_size");
    OutPort boxes = c.op("Unsqueeze", "boxes", {c.input(0), c.i64s("boxes/axes", {0})});          // [1, N, 4]
    OutPort scores = c.op("Unsqueeze", "scores", {c.input(1), c.i64s("scores/axes", {0, 1})});    // [1, 1, N]
    OutPort max = c.op("Convert", "max", {c.input(2)}, {{"destination_type", ElementType::i64}});
    std::vector<OutPort> in{boxes, scores, max, c.input(3)};
    if (version >= 4) in.push_back(c.input(4));
    if (version >= 5) in.push_back(c.input(5));
    Node nms = c.add("NonMaxSuppression", "nms", in,
                     {{"box_encoding", std::string("corner")}, {"sort_result_descending", false},
                      {"output_type", ElementType::i32}});
    // Column 2 of the [batch, class, box] triplets: the box indices.
    auto column = [&](const OutPort& triplets, const std::string& name) {
        return c.op("Gather", name, {triplets, c.i64(name + "/index", 2), c.i64(name + "/axis", 1)}, {{"batch_dims", int64_t{0}}});
    };
    c.set_output(0, column(nms.out(0), "selected_indices"));
    if (version == 5 && c.output_used(1)) c.set_output(1, column(nms.out(1), "selected_scores"));
    const size_t valid = version == 5 ? 2 : 1;
    if (version >= 4 && c.output_used(valid))
        c.set_output(valid, c.op("Reshape", "valid_outputs", {nms.out(2), c.i64s("valid_outputs/shape", {})},
                                 {{"special_zero", false}}));
}

}  // namespace

void register_tf_detection(ExtractorRegistry& r) {
    r.add({"tf", "", "NonMaxSuppressionV3", all_versions, [](ExtractContext& c) { non_max_suppression(c, 3); }});
    r.add({"tf", "", "NonMaxSuppressionV4", all_versions, [](ExtractContext& c) { non_max_suppression(c, 4); }});
    r.add({"tf", "", "NonMaxSuppressionV5", all_versions, [](ExtractContext& c) { non_max_suppression(c, 5); }});
}

}  // namespace mo
