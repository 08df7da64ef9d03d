// TFLite_Detection_PostProcess, the CUSTOM op that ends TF Object Detection API SSD and
// EfficientDet-Lite exports, as TFLite's kernel computes it (tensorflow/lite/kernels/
// detection_postprocess.cc). Inputs: box encodings [1, N, >= 4] (ty, tx, th, tw), class scores
// [1, N, C (+ 1 background in front)], anchors [N, 4] (y, x, h, w); the loader has made
// quantized inputs real-valued, as the kernel dequantizes them. Options: a flexbuffer map.
//
//   decode   yc = ty / y_scale · ah + ay, xc = tx / x_scale · aw + ax,
//            half_h = exp(th / h_scale) · ah / 2, half_w = exp(tw / w_scale) · aw / 2,
//            box = [yc - half_h, xc - half_w, yc + half_h, xc + half_w]     (in f32, kept f32)
//   fast     (use_regular_nms false) one NonMaxSuppression over each anchor's best class score,
//            at most max_detections boxes; each selected box is written max_classes_per_detection
//            times with its best classes (TopK, stable); count = boxes selected
//   regular  NonMaxSuppression per class (detections_per_class each), all selections sorted by
//            score, the first max_detections kept; count = min(selected, max_detections)
//
// Outputs, f32: boxes [1, M, 4], classes [1, M] (0-based, background excluded), scores [1, M],
// count [1], M = max_detections · max_classes_per_detection (regular: max_detections); rows past
// the count are zeros. Both NMS keep a score >= nms_score_threshold (NonMaxSuppression keeps
// scores above its threshold: it gets the next float below), suppress IoU > nms_iou_threshold,
// and take equal scores lower anchor first, as the kernel's stable sort does.
#include <cmath>
#include <limits>

#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

struct Options {
    int64_t max_detections, max_classes_per_detection, detections_per_class, num_classes;
    bool use_regular_nms;
    float score_threshold, iou_threshold;
    double y_scale, x_scale, h_scale, w_scale;
};

Options read_options(ExtractContext& c) {
    if (!c.has("custom_options"))
        c.fail("the operator has no custom options (its flexbuffer map of max_detections, num_classes, ...)",
               "the model is corrupt; re-export it");
    auto required_float = [&](const char* key) {
        if (!c.has(key)) c.fail(std::string("custom option '") + key + "' is missing", "the model is corrupt; re-export it");
        return c.f(key, 0.0);
    };
    Options o;
    o.max_detections = c.i("max_detections");
    o.max_classes_per_detection = c.i("max_classes_per_detection");
    o.detections_per_class = c.i("detections_per_class", 100);  // the kernel's default
    o.use_regular_nms = c.i("use_regular_nms", 0) != 0;
    o.num_classes = c.i("num_classes");
    o.score_threshold = static_cast<float>(required_float("nms_score_threshold"));
    o.iou_threshold = static_cast<float>(required_float("nms_iou_threshold"));
    o.y_scale = required_float("y_scale");
    o.x_scale = required_float("x_scale");
    o.h_scale = required_float("h_scale");
    o.w_scale = required_float("w_scale");
    // The kernel's own checks, and what mo needs on top (at least one detection).
    if (o.max_detections < 1) c.unsupported("max_detections " + std::to_string(o.max_detections) + " (below 1)");
    if (o.num_classes < 1) c.fail("num_classes is " + std::to_string(o.num_classes), "the model is corrupt; re-export it");
    if (!o.use_regular_nms && o.max_classes_per_detection < 1)
        c.fail("max_classes_per_detection is " + std::to_string(o.max_classes_per_detection) + "; it must be positive",
               "the model is corrupt; re-export it");
    if (o.use_regular_nms && o.detections_per_class < 1)
        c.fail("detections_per_class is " + std::to_string(o.detections_per_class) + "; it must be positive",
               "the model is corrupt; re-export it");
    if (!(o.iou_threshold > 0.0f && o.iou_threshold <= 1.0f))
        c.fail("nms_iou_threshold is " + std::to_string(o.iou_threshold) + "; TFLite's kernel needs it in (0, 1]",
               "the model is corrupt; re-export it");
    for (double s : {o.y_scale, o.x_scale, o.h_scale, o.w_scale})
        if (!(s != 0.0 && std::isfinite(s)))
            c.fail("a box scale (y_scale, x_scale, h_scale, w_scale) is " + std::to_string(s),
                   "the model is corrupt; re-export it");
    return o;
}

int64_t static_dim(ExtractContext& c, size_t input, int64_t rank, int64_t axis, const char* what) {
    const PartialShape& s = c.input(input).shape();
    if (!s.rank_is_static() || static_cast<int64_t>(s.rank()) != rank)
        c.fail(std::string("the ") + what + " must be " + std::to_string(rank) + "-D, not [" + s.to_string() + "]",
               "the model is corrupt; re-export it");
    if (!s[static_cast<size_t>(axis)].is_static())
        c.unsupported(std::string("a ") + what + " input of dynamic shape [" + s.to_string() + "]");
    return s[static_cast<size_t>(axis)].get_length();
}

// x[..., begin:end] along `axis` (Slice-8).
OutPort slice(ExtractContext& c, const std::string& suffix, const OutPort& x, int64_t axis, int64_t begin, int64_t end) {
    return c.op("Slice", suffix,
                {x, c.i64s(suffix + "/begin", {begin}), c.i64s(suffix + "/end", {end}), c.i64s(suffix + "/step", {1}),
                 c.i64s(suffix + "/axes", {axis})});
}

OutPort f32_scalar(ExtractContext& c, const std::string& suffix, double v) {
    return c.constant(suffix, Tensor::scalar<float>(static_cast<float>(v)));
}

// [1, N, 4] corner boxes (ymin, xmin, ymax, xmax) from the encodings and anchors.
OutPort decode(ExtractContext& c, const Options& o, int64_t encoding_length) {
    OutPort encodings = c.input(0);
    if (encoding_length > 4) encodings = slice(c, "encodings", encodings, 2, 0, 4);  // keypoints follow
    Node parts = c.add("Split", "encoding", {encodings, c.i64("encoding/axis", 2)}, {{"num_splits", int64_t{4}}});
    parts.set_output_count(4);
    Node anchor = c.add("Split", "anchor", {c.input(2), c.i64("anchor/axis", 1)}, {{"num_splits", int64_t{4}}});
    anchor.set_output_count(4);
    // [1, N, 1] against [N, 1]: broadcast to [1, N, 1].
    auto center = [&](const char* name, size_t t, double scale, size_t origin, size_t size) {
        OutPort v = c.op("Divide", std::string(name) + "/scaled", {parts.out(t), f32_scalar(c, std::string(name) + "/scale", scale)});
        v = c.op("Multiply", std::string(name) + "/sized", {v, anchor.out(size)});
        return c.op("Add", name, {v, anchor.out(origin)});
    };
    auto half = [&](const char* name, size_t t, double scale, size_t size) {
        OutPort v = c.op("Divide", std::string(name) + "/scaled", {parts.out(t), f32_scalar(c, std::string(name) + "/scale", scale)});
        v = c.op("Exp", std::string(name) + "/exp", {v});
        v = c.op("Multiply", std::string(name) + "/half", {v, f32_scalar(c, std::string(name) + "/one_half", 0.5)});
        return c.op("Multiply", name, {v, anchor.out(size)});
    };
    const OutPort yc = center("decode/ycenter", 0, o.y_scale, 0, 2), xc = center("decode/xcenter", 1, o.x_scale, 1, 3);
    const OutPort hh = half("decode/half_h", 2, o.h_scale, 2), hw = half("decode/half_w", 3, o.w_scale, 3);
    return c.op("Concat", "decode",
                {c.op("Subtract", "decode/ymin", {yc, hh}), c.op("Subtract", "decode/xmin", {xc, hw}),
                 c.op("Add", "decode/ymax", {yc, hh}), c.op("Add", "decode/xmax", {xc, hw})},
                {{"axis", int64_t{2}}});
}

// The first `rows` rows of x [K, ...] followed by zero rows: [rows, ...] for any K.
OutPort first_rows_zero_padded(ExtractContext& c, const std::string& suffix, const OutPort& x, int64_t rows,
                               std::vector<int64_t> row_shape) {
    row_shape.insert(row_shape.begin(), rows);
    const OutPort zeros = c.constant(suffix + "/zeros", Tensor::allocate(ElementType::f32, row_shape));
    const OutPort padded = c.op("Concat", suffix + "/padded", {x, zeros}, {{"axis", int64_t{0}}});
    return slice(c, suffix, padded, 0, 0, rows);
}

OutPort to_f32(ExtractContext& c, const std::string& suffix, const OutPort& x) {
    return c.op("Convert", suffix, {x}, {{"destination_type", ElementType::f32}});
}

// NonMaxSuppression-9 of boxes [1, N, 4] and scores [1, classes, N].
Node nms(ExtractContext& c, const Options& o, const OutPort& boxes, const OutPort& scores, int64_t per_class, bool sort) {
    // >= threshold in TFLite, > threshold in NonMaxSuppression.
    const float below = std::nextafter(o.score_threshold, -std::numeric_limits<float>::infinity());
    Node n = c.add("NonMaxSuppression", "nms",
                   {boxes, scores, c.i64("nms/max_boxes", per_class), f32_scalar(c, "nms/iou_threshold", o.iou_threshold),
                    c.constant("nms/score_threshold", Tensor::scalar<float>(below))},
                   {{"box_encoding", std::string("corner")}, {"sort_result_descending", sort},
                    {"output_type", ElementType::i64}});
    n.set_output_count(3);
    return n;
}

// Column j of the NMS selection [K, 3] as [K].
OutPort column(ExtractContext& c, const std::string& suffix, const OutPort& selected, int64_t j) {
    return c.op("Gather", suffix, {selected, c.i64(suffix + "/index", j), c.i64(suffix + "/axis", 1)},
                {{"batch_dims", int64_t{0}}});
}

OutPort gather_rows(ExtractContext& c, const std::string& suffix, const OutPort& x, const OutPort& rows) {
    return c.op("Gather", suffix, {x, rows, c.i64(suffix + "/axis", 0)}, {{"batch_dims", int64_t{0}}});
}

OutPort reshape(ExtractContext& c, const std::string& suffix, const OutPort& x, std::vector<int64_t> shape) {
    return c.op("Reshape", suffix, {x, c.i64s(suffix + "/shape", shape)}, {{"special_zero", false}});
}

void fast_nms(ExtractContext& c, const Options& o, const OutPort& boxes, const OutPort& scores, int64_t anchors) {
    const int64_t per_box = std::min(o.max_classes_per_detection, o.num_classes), stride = o.max_classes_per_detection;
    const int64_t rows = o.max_detections;
    OutPort best = c.op("ReduceMax", "best_score", {scores, c.i64s("best_score/axes", {2})}, {{"keep_dims", false}});
    best = c.op("Unsqueeze", "best_score/per_class", {best, c.i64s("best_score/per_class/axes", {1})});
    const Node selection = nms(c, o, boxes, best, o.max_detections, false);
    const OutPort anchor_index = column(c, "selected_anchor", selection.out(0), 2);
    // The best per_box classes of each anchor, the first of equal scores first.
    Node top = c.add("TopK", "classes",
                     {reshape(c, "classes/scores", scores, {anchors, o.num_classes}), c.i64("classes/k", per_box)},
                     {{"axis", int64_t{1}}, {"mode", std::string("max")}, {"sort", std::string("value")},
                      {"index_element_type", ElementType::i32}, {"stable", true}});
    top.set_output_count(2);
    // [rows, stride] from the selected anchors' [K, per_box]; columns past per_box are zeros.
    auto per_detection = [&](const std::string& suffix, const OutPort& per_anchor) {
        OutPort v = first_rows_zero_padded(c, suffix + "/rows", gather_rows(c, suffix + "/selected", per_anchor, anchor_index),
                                           rows, {per_box});
        if (stride > per_box)
            v = c.op("Concat", suffix + "/columns",
                     {v, c.constant(suffix + "/columns/zeros", Tensor::allocate(ElementType::f32, {rows, stride - per_box}))},
                     {{"axis", int64_t{1}}});
        return reshape(c, suffix, v, {1, rows * stride});
    };
    OutPort box_rows = first_rows_zero_padded(
        c, "boxes/rows", gather_rows(c, "boxes/selected", reshape(c, "boxes/all", boxes, {anchors, 4}), anchor_index), rows, {4});
    box_rows = c.op("Unsqueeze", "boxes/per_class", {box_rows, c.i64s("boxes/per_class/axes", {1})});
    box_rows = c.op("Broadcast", "boxes/repeated", {box_rows, c.i64s("boxes/repeated/shape", {rows, per_box, 4})},
                    {{"mode", std::string("numpy")}});
    if (stride > per_box)
        box_rows = c.op("Concat", "boxes/columns",
                        {box_rows, c.constant("boxes/columns/zeros", Tensor::allocate(ElementType::f32, {rows, stride - per_box, 4}))},
                        {{"axis", int64_t{1}}});
    c.set_output(0, reshape(c, "boxes", box_rows, {1, rows * stride, 4}));
    c.set_output(1, per_detection("detection_classes", to_f32(c, "classes/f32", top.out(1))));
    c.set_output(2, per_detection("detection_scores", top.out(0)));
    c.set_output(3, to_f32(c, "count", selection.out(2)));
}

void regular_nms(ExtractContext& c, const Options& o, const OutPort& boxes, const OutPort& scores, int64_t anchors) {
    const int64_t rows = o.max_detections;
    const OutPort per_class = c.op("Transpose", "scores_per_class", {scores, c.i64s("scores_per_class/order", {0, 2, 1})});
    const Node selection = nms(c, o, boxes, per_class, o.detections_per_class, true);
    const OutPort anchor_index = column(c, "selected_anchor", selection.out(0), 2);
    const OutPort selected_boxes = gather_rows(c, "boxes/selected", reshape(c, "boxes/all", boxes, {anchors, 4}), anchor_index);
    c.set_output(0, reshape(c, "boxes", first_rows_zero_padded(c, "boxes/rows", selected_boxes, rows, {4}), {1, rows, 4}));
    const OutPort classes = to_f32(c, "classes/f32", column(c, "selected_class", selection.out(0), 1));
    c.set_output(1, reshape(c, "detection_classes", first_rows_zero_padded(c, "classes/rows", classes, rows, {}), {1, rows}));
    const OutPort scores_kept = column(c, "selected_score", selection.out(1), 2);
    c.set_output(2, reshape(c, "detection_scores", first_rows_zero_padded(c, "scores/rows", scores_kept, rows, {}), {1, rows}));
    const OutPort count = c.op("Minimum", "count/kept", {selection.out(2), c.i64s("count/max", {rows})});
    c.set_output(3, to_f32(c, "count", count));
}

void detection_postprocess(ExtractContext& c) {
    if (c.input_count() != 3 || c.output_count() != 4)
        c.fail("the operator has " + std::to_string(c.input_count()) + " inputs and " + std::to_string(c.output_count()) +
                   " outputs; TFLite's kernel takes 3 and gives 4",
               "the model is corrupt; re-export it");
    const Options o = read_options(c);
    tflite_constant_elements(c, {o.max_detections, o.use_regular_nms ? 1 : o.max_classes_per_detection, 4}, ElementType::f32,
                             "the padded detections (max_detections x max_classes_per_detection boxes)");
    const int64_t anchors = static_dim(c, 0, 3, 1, "box encodings");
    const int64_t encoding_length = static_dim(c, 0, 3, 2, "box encodings");
    const int64_t classes_with_background = static_dim(c, 1, 3, 2, "class predictions");
    if (static_dim(c, 0, 3, 0, "box encodings") != 1 || static_dim(c, 1, 3, 0, "class predictions") != 1)
        c.unsupported("a batch of more than one image (TFLite's kernel takes one)");
    if (encoding_length < 4) c.fail("the box encodings have fewer than 4 values", "the model is corrupt; re-export it");
    if (static_dim(c, 1, 3, 1, "class predictions") != anchors || static_dim(c, 2, 2, 0, "anchors") != anchors ||
        static_dim(c, 2, 2, 1, "anchors") != 4)
        c.fail("box encodings, class predictions and anchors disagree on the number of anchors (or anchors are not [N, 4])",
               "the model is corrupt; re-export it");
    const int64_t background = classes_with_background - o.num_classes;
    if (background != 0 && background != 1)
        c.fail("the class predictions have " + std::to_string(classes_with_background) + " columns for num_classes " +
                   std::to_string(o.num_classes) + "; TFLite allows one background column at most",
               "the model is corrupt; re-export it");
    for (size_t i = 0; i < 3; ++i)
        if (c.input(i).type() != ElementType::f32 && c.input(i).type() != ElementType::dynamic)
            c.unsupported("an input of type " + std::string(ir_name(c.input(i).type())) +
                          " (TFLite's kernel reads float32 or quantized uint8)");
    if (const Tensor* a = c.input_value(2)) {
        const std::vector<double> v = a->to_f64();
        for (size_t i = 0; i < v.size(); i += 4)
            if (v[i + 2] < 0 || v[i + 3] < 0)
                c.fail("anchor " + std::to_string(i / 4) + " has a negative height or width; TFLite's kernel refuses the "
                       "boxes it decodes", "the model is corrupt; re-export it");
    }

    const OutPort boxes = decode(c, o, encoding_length);
    const OutPort scores = background ? slice(c, "class_scores", c.input(1), 2, 1, classes_with_background) : c.input(1);
    if (o.use_regular_nms) regular_nms(c, o, boxes, scores, anchors);
    else fast_nms(c, o, boxes, scores, anchors);
    // All in f32: f16 anchors would move the boxes by 1e-3, f16 scores would make ties of
    // distinct scores and reorder the detections.
    for (const Node& n : c.created())
        if (!n.is("Constant")) n.rt_info()[kDisableFp16Compression] = std::string("0");
}

}  // namespace

void register_tflite_detection(ExtractorRegistry& r) {
    r.add({"tflite", "custom", "TFLite_Detection_PostProcess", 1, INT64_MAX, detection_postprocess});
}

}  // namespace mo
