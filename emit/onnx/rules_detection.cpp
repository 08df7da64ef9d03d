// Detection post-processing as ONNX.
// * NonMaxSuppression-9: ONNX's NonMaxSuppression, whose selections come per batch and class in
//   selection order (OpenVINO's sort_result_descending false); with it true, the selections are
//   sorted by score with TopK, which keeps ties in index order (batch, class, box) as OpenVINO
//   does. The scores and count outputs are computed from the selections. Soft NMS (a non-zero
//   soft_nms_sigma) has no ONNX form.
// * DetectionOutput has no ONNX form here (see docs/onnx-output.md).
#include <climits>

#include "emit/onnx/onnx_rules.hpp"

namespace mo::onnx_emit {

namespace {

std::string one_value(OnnxNodeContext& c, size_t i, ElementType t) {
    return c.add_tmp("Reshape", {c.cast(c.in(i), c.in_type(i), t), c.ints({1}, "one")});
}

void emit_nms(OnnxNodeContext& c) {
    if (c.has_in(5)) {
        const Tensor* sigma = c.in_value(5);
        if (!sigma || sigma->single_f64("soft_nms_sigma") != 0.0) c.fail("soft NMS (soft_nms_sigma) has no ONNX form");
    }
    std::vector<std::string> in{c.in(0), c.in(1)};
    in.push_back(c.has_in(2) ? one_value(c, 2, ElementType::i64) : "");
    in.push_back(c.has_in(3) ? one_value(c, 3, ElementType::f32) : "");
    in.push_back(c.has_in(4) ? one_value(c, 4, ElementType::f32) : "");
    std::string selected = c.add_tmp("NonMaxSuppression", in,
                                     {a_int("center_point_box", c.attr<std::string>("box_encoding") == "center" ? 1 : 0)},
                                     "selected");
    const std::string count = c.add_tmp("Shape", {selected}, {}, "count_all");
    const std::string n = c.add_tmp("Slice", {count, c.ints({0}, "zero"), c.ints({1}, "one")}, {}, "count");
    std::string scores = c.add_tmp("GatherND", {c.in(1), selected}, {}, "scores");
    if (c.attr<bool>("sort_result_descending")) {
        const std::string order = c.fresh(c.node.name() + "/order"), sorted = c.fresh(c.node.name() + "/sorted_scores");
        c.add("TopK", {scores, n}, {sorted, order}, {a_int("axis", 0), a_int("largest", 1), a_int("sorted", 1)});
        selected = c.add_tmp("Gather", {selected, order}, {a_int("axis", 0)}, "selected_sorted");
        scores = sorted;
    }
    const ElementType t = c.out_type(0);
    c.add("Cast", {selected}, {c.out(0)}, {a_int("to", onnx_type(t, c.node.describe()))});
    if (c.node.out(1).has_targets()) {
        const std::string batch_class = c.add_tmp("Slice", {selected, c.ints({0}, "zero"), c.ints({2}, "two"), c.ints({1}, "axis")});
        const std::string as_float = c.add_tmp("Cast", {batch_class}, {a_int("to", onnx::TensorProto::FLOAT)});
        const std::string column = c.add_tmp("Unsqueeze", {scores, c.ints({1}, "axis")});
        c.add("Concat", {as_float, column}, {c.out(1)}, {a_int("axis", 1)});
    }
    if (c.node.out(2).has_targets()) c.add("Cast", {n}, {c.out(2)}, {a_int("to", onnx_type(c.out_type(2), c.node.describe()))});
}

}  // namespace

std::vector<OnnxRule> detection_rules() {
    return {
        {"NonMaxSuppression", 13, emit_nms, "NonMaxSuppression (+ TopK when sorted by score)"},
    };
}

}  // namespace mo::onnx_emit
