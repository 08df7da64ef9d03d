// Detection post-processing as ONNX.
// * NonMaxSuppression-9: ONNX's NonMaxSuppression, whose selections come per batch and class in
//   selection order (OpenVINO's sort_result_descending false); with it true, the selections are
//   sorted by score with TopK, which keeps ties in index order (batch, class, box) as OpenVINO
//   does. The scores and count outputs are computed from the selections. Soft NMS (a non-zero
//   soft_nms_sigma) has no ONNX form.
// * DetectionOutput (SSD post-processing) is decomposed into standard ONNX ops, no com.microsoft
//   op: the boxes decoded against the priors (CORNER or CENTER_SIZE), the scores of the
//   background class and those beyond top_k per class pushed below the confidence threshold,
//   ONNX's NonMaxSuppression per class, the keep_top_k best across classes chosen with TopK and
//   put back in (label, NMS order) order, and the [1, 1, rows, 7] output padded as OpenVINO pads
//   it (a row starting with -1 after the last detection). One image, normalized priors, shared
//   locations; anything else is refused with its reason.
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

// The 4 columns of a [P, 4] value as [P, 1] values.
std::vector<std::string> columns(OnnxNodeContext& c, const std::string& v, const std::string& hint) {
    std::vector<std::string> cols;
    for (int k = 0; k < 4; ++k) cols.push_back(c.fresh(c.node.name() + "/" + hint + std::to_string(k)));
    c.add("Split", {v}, cols, {a_int("axis", 1)});
    return cols;
}

void emit_detection_output(OnnxNodeContext& c) {
    if (c.node.input_count() > 3) c.fail("DetectionOutput with the additional (ARM) inputs");
    if (!c.attr<bool>("share_location")) c.fail("DetectionOutput with share_location false");
    if (c.attr<bool>("decrease_label_id")) c.fail("DetectionOutput with decrease_label_id");
    if (!c.attr<bool>("normalized")) c.fail("DetectionOutput with unnormalized priors");
    const PartialShape &logits = c.in_shape(0), &preds = c.in_shape(1), &proposals = c.in_shape(2);
    if (!logits.is_static() || !preds.is_static() || !proposals.is_static())
        c.fail("DetectionOutput on inputs of dynamic shape");
    if (logits[0].get_length() != 1) c.fail("DetectionOutput on more than one image");
    const int64_t P = proposals[2].get_length() / 4, C = preds[1].get_length() / P;
    const ElementType t = c.in_type(0);
    if (t != ElementType::f32) c.fail("DetectionOutput on " + std::string(ir_name(t)) + " (f32 only)");
    const bool variance_in_target = c.attr<bool>("variance_encoded_in_target");
    const bool center = c.attr<std::string>("code_type") == "caffe.PriorBoxParameter.CENTER_SIZE";
    const int64_t background = c.attr<int64_t>("background_label_id"), top_k = c.attr<int64_t>("top_k");
    const auto keep = c.attr<std::vector<int64_t>>("keep_top_k");
    const int64_t keep_top_k = keep.empty() ? -1 : keep[0];
    const double confidence = c.attr<double>("confidence_threshold");
    const int64_t rows = keep_top_k > 0 ? keep_top_k : top_k > 0 ? top_k * C : P * C;

    // Decoding: priors [P, 4], variances [P, 4], codes [P, 4].
    auto row = [&](int64_t r, const char* hint) {
        const std::string s = c.add_tmp("Slice", {c.in(2), c.ints({0, r}, "begin"), c.ints({1, r + 1}, "end"), c.ints({0, 1}, "axes")});
        return c.add_tmp("Reshape", {s, c.ints({P, 4}, "p4")}, {}, hint);
    };
    const std::string priors = row(0, "priors");
    const std::string var = variance_in_target ? c.values({1, 1, 1, 1}, ElementType::f32, "unit_variance") : row(1, "variances");
    const std::string codes = c.add_tmp("Reshape", {c.in(0), c.ints({P, 4}, "p4")}, {}, "codes");
    const std::string scaled = c.add_tmp("Mul", {var, codes}, {}, "scaled_codes");
    std::string boxes;
    if (!center) {
        boxes = c.add_tmp("Add", {priors, scaled}, {}, "boxes");
    } else {
        const auto p = columns(c, priors, "prior"), s = columns(c, scaled, "code");
        const std::string half = c.scalar(0.5, t, "half");
        const std::string pw = c.add_tmp("Sub", {p[2], p[0]}), ph = c.add_tmp("Sub", {p[3], p[1]});
        const std::string pcx = c.add_tmp("Mul", {c.add_tmp("Add", {p[0], p[2]}), half});
        const std::string pcy = c.add_tmp("Mul", {c.add_tmp("Add", {p[1], p[3]}), half});
        const std::string cx = c.add_tmp("Add", {c.add_tmp("Mul", {s[0], pw}), pcx});
        const std::string cy = c.add_tmp("Add", {c.add_tmp("Mul", {s[1], ph}), pcy});
        const std::string hw = c.add_tmp("Mul", {c.add_tmp("Mul", {c.add_tmp("Exp", {s[2]}), pw}), half});
        const std::string hh = c.add_tmp("Mul", {c.add_tmp("Mul", {c.add_tmp("Exp", {s[3]}), ph}), half});
        boxes = c.add_tmp("Concat", {c.add_tmp("Sub", {cx, hw}), c.add_tmp("Sub", {cy, hh}), c.add_tmp("Add", {cx, hw}),
                                     c.add_tmp("Add", {cy, hh})},
                          {a_int("axis", 1)}, "boxes");
    }
    const std::string zero = c.scalar(0, t, "zero"), one = c.scalar(1, t, "one");
    if (c.attr<bool>("clip_before_nms")) boxes = c.add_tmp("Clip", {boxes, zero, one});

    // Scores [1, C, P]: the background and all but each class's top_k pushed below the threshold.
    std::string scores = c.add_tmp("Transpose", {c.add_tmp("Reshape", {c.in(1), c.ints({P, C}, "pc")})}, {a_ints("perm", {1, 0})});
    const std::string lowest = c.scalar(-3.0e38, t, "lowest");
    if (background >= 0 && background < C) {
        std::vector<uint8_t> is_background(static_cast<size_t>(C), 0);
        is_background[static_cast<size_t>(background)] = 1;
        const std::string mask = c.constant(Tensor::from_vector<uint8_t>(is_background, {C, 1}).convert(ElementType::boolean), "background");
        scores = c.add_tmp("Where", {mask, lowest, scores});
    }
    if (top_k > 0 && top_k < P) {
        const std::string kth_values = c.fresh(c.node.name() + "/top_k_values"), kth_indices = c.fresh(c.node.name() + "/top_k_indices");
        c.add("TopK", {scores, c.ints({top_k}, "top_k")}, {kth_values, kth_indices}, {a_int("axis", 1)});
        const std::string kth = c.add_tmp("Slice", {kth_values, c.ints({top_k - 1}, "last"), c.ints({top_k}, "end"), c.ints({1}, "axis")});
        scores = c.add_tmp("Where", {c.add_tmp("Less", {scores, kth}), lowest, scores});
    }
    scores = c.add_tmp("Unsqueeze", {scores, c.ints({0}, "zero")}, {}, "class_scores");
    const std::string boxes3 = c.add_tmp("Unsqueeze", {boxes, c.ints({0}, "zero")});
    std::string selected = c.add_tmp("NonMaxSuppression",
                                     {boxes3, scores, c.ints({P}, "max_boxes"), c.values({c.attr<double>("nms_threshold")}, ElementType::f32, "iou"),
                                      c.values({confidence}, ElementType::f32, "confidence")},
                                     {}, "selected");
    std::string picked = c.add_tmp("GatherND", {scores, selected}, {}, "picked_scores");
    if (keep_top_k > -1) {
        // The keep_top_k best, then back in their order of selection (label, then NMS order).
        const std::string count = c.add_tmp("Shape", {picked});
        const std::string k = c.add_tmp("Min", {count, c.ints({keep_top_k}, "keep_top_k")});
        const std::string best_values = c.fresh(c.node.name() + "/best_values"), best = c.fresh(c.node.name() + "/best");
        c.add("TopK", {picked, k}, {best_values, best}, {a_int("axis", 0)});
        const std::string zeros = c.add_tmp("Expand", {c.values({0}, ElementType::u8, "no"), count});
        const std::string ones = c.add_tmp("Expand", {c.values({1}, ElementType::u8, "yes"), k});
        const std::string chosen = c.add_tmp("ScatterElements", {zeros, best, ones}, {a_int("axis", 0)});
        const std::string in_order = c.add_tmp("Squeeze", {c.add_tmp("NonZero", {chosen}), c.ints({0}, "zero")});
        selected = c.add_tmp("Gather", {selected, in_order}, {a_int("axis", 0)});
        picked = c.add_tmp("Gather", {picked, in_order}, {a_int("axis", 0)});
    }
    // Rows [image, label, score, xmin, ymin, xmax, ymax].
    const std::string label = c.add_tmp("Cast", {c.add_tmp("Slice", {selected, c.ints({1}, "b"), c.ints({2}, "e"), c.ints({1}, "a")})},
                                        {a_int("to", onnx::TensorProto::FLOAT)}, "label");
    const std::string prior = c.add_tmp("Squeeze", {c.add_tmp("Slice", {selected, c.ints({2}, "b"), c.ints({3}, "e"), c.ints({1}, "a")}),
                                                    c.ints({1}, "axis")});
    std::string box = c.add_tmp("Gather", {boxes, prior}, {a_int("axis", 0)});
    if (c.attr<bool>("clip_after_nms")) box = c.add_tmp("Clip", {box, zero, one});
    const std::string image = c.add_tmp("Mul", {label, zero}, {}, "image");
    const std::string score = c.add_tmp("Unsqueeze", {picked, c.ints({1}, "axis")});
    const std::string found = c.add_tmp("Concat", {image, label, score, box}, {a_int("axis", 1)}, "detections");
    // Padded to `rows`: one row starting with -1 after the last detection, zeros after it.
    std::vector<float> pad(static_cast<size_t>((rows + 1) * 7), 0.0f);
    pad[0] = -1.0f;
    const std::string padding = c.constant(Tensor::from_vector<float>(pad, {rows + 1, 7}), "padding");
    const std::string all = c.add_tmp("Concat", {found, padding}, {a_int("axis", 0)});
    const std::string cut = c.add_tmp("Slice", {all, c.ints({0}, "zero"), c.ints({rows}, "rows"), c.ints({0}, "axis")});
    c.add("Reshape", {cut, c.ints({1, 1, rows, 7}, "shape")}, {c.out(0)});
}

}  // namespace

std::vector<OnnxRule> detection_rules() {
    return {
        {"NonMaxSuppression", 13, emit_nms, "NonMaxSuppression (+ TopK when sorted by score)"},
        {"DetectionOutput", 13, emit_detection_output,
         "decomposed: box decoding, NonMaxSuppression, TopK for keep_top_k, the padded [1, 1, rows, 7] rows"},
    };
}

}  // namespace mo::onnx_emit
