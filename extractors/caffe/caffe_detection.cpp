// The SSD fork's PriorBox (and PriorBoxClustered: PriorBox with explicit box widths and
// heights) and DetectionOutput. The priors' sizes come from the feature map (bottom 0) and the
// image (bottom 1, or img_size / img_h / img_w); the ops fold into a constant when both are static.
#include <cfloat>
#include <cmath>

#include "extractors/caffe/caffe_extractors.hpp"

namespace mo {

namespace {

const std::string kParam = "prior_box_param.";

// [H, W] of input i, or of img_h / img_w (img_size) for the image.
OutPort spatial_size(ExtractContext& c, size_t i, const std::string& suffix) {
    if (i == 1) {
        const bool size = c.has(kParam + "img_size"), hw = c.has(kParam + "img_h") || c.has(kParam + "img_w");
        if (size && hw) c.fail("give either img_size or img_h / img_w");
        if (hw && (!c.has(kParam + "img_h") || !c.has(kParam + "img_w"))) c.fail("give both img_h and img_w");
        if (size) return c.i64s(suffix, {c.i(kParam + "img_size"), c.i(kParam + "img_size")});
        if (hw) return c.i64s(suffix, {c.i(kParam + "img_h"), c.i(kParam + "img_w")});
    }
    if (c.input_count() <= i) c.fail("PriorBox needs the feature map and the image as bottoms (or img_size)");
    const PartialShape& s = c.input(i).shape();
    if (s.rank_is_static() && s.rank() != 4) c.fail("bottom " + std::to_string(i) + " must be 4-D");
    if (s.rank_is_static() && s[2].is_static() && s[3].is_static())
        return c.i64s(suffix, {s[2].get_length(), s[3].get_length()});
    OutPort shape = c.op("ShapeOf", suffix + "/shape", {c.input(i)}, {{"output_type", ElementType::i64}});
    return c.op("Slice", suffix, {shape, c.i64s(suffix + "/start", {2}), c.i64s(suffix + "/stop", {4}), c.i64s(suffix + "/step", {1}),
                                  c.i64s(suffix + "/axes", {0})});
}

// The static value of a size computed by spatial_size, if it is one.
std::optional<std::vector<int64_t>> static_size(const OutPort& p) {
    if (const Tensor* v = p.value()) return v->to_i64();
    return std::nullopt;
}

// (step_h, step_w) given as step or step_h / step_w; 0 when neither.
std::pair<double, double> steps(ExtractContext& c) {
    const bool one = c.has(kParam + "step"), two = c.has(kParam + "step_h") || c.has(kParam + "step_w");
    if (one && two) c.fail("give either step or step_h / step_w");
    if (two && (!c.has(kParam + "step_h") || !c.has(kParam + "step_w"))) c.fail("give both step_h and step_w");
    if (one) return {c.f(kParam + "step", 0), c.f(kParam + "step", 0)};
    if (two) return {c.f(kParam + "step_h", 0), c.f(kParam + "step_w", 0)};
    return {0, 0};
}

std::vector<double> variances(ExtractContext& c) {
    std::vector<double> v = c.floats(kParam + "variance");
    if (v.size() > 1 && v.size() != 4) c.fail("variance must have 1 or 4 values, not " + std::to_string(v.size()));
    return v.empty() ? std::vector<double>{0.1} : v;
}

void finish(ExtractContext& c, const OutPort& priors) {
    c.set_output(0, c.op("Unsqueeze", "", {priors, c.i64s("batch_axis", {0})}));  // Caffe's [1, 2, 4 * boxes]
}

void prior_box_clustered(ExtractContext& c) {
    const std::vector<double> widths = c.floats(kParam + "width"), heights = c.floats(kParam + "height");
    if (widths.empty() || widths.size() != heights.size()) c.fail("width and height must give the same number of boxes");
    if (!c.floats(kParam + "offset_h").empty() || !c.floats(kParam + "offset_w").empty())
        c.unsupported("PriorBox with several offsets (offset_h / offset_w)");
    const auto [step_h, step_w] = steps(c);
    OutPort layer = spatial_size(c, 0, "layer_size"), image = spatial_size(c, 1, "image_size");
    finish(c, c.op("PriorBoxClustered", "priors", {layer, image},
                   {{"width", widths}, {"height", heights}, {"clip", c.i(kParam + "clip", 0) != 0},
                    {"step", 0.0}, {"step_h", step_h}, {"step_w", step_w},
                    {"offset", c.f(kParam + "offset", 0.5)}, {"variance", variances(c)}}));
}

// Caffe's priors per cell: for each min_size, the min_size box, the sqrt(min * max) box, then one
// per aspect ratio (1 and duplicates skipped, flip adds 1 / ratio). Centres (w + offset) * step,
// step = image / feature map unless given.
void prior_box(ExtractContext& c) {
    if (!c.floats(kParam + "width").empty() || !c.floats(kParam + "height").empty()) return prior_box_clustered(c);
    if (!c.floats(kParam + "offset_h").empty() || !c.floats(kParam + "offset_w").empty())
        c.unsupported("PriorBox with several offsets (offset_h / offset_w)");
    const std::vector<double> min_sizes = c.floats(kParam + "min_size"), max_sizes = c.floats(kParam + "max_size");
    if (min_sizes.empty()) c.fail("min_size is required");
    if (!max_sizes.empty() && max_sizes.size() != min_sizes.size()) c.fail("give one max_size per min_size");
    for (size_t i = 0; i < max_sizes.size(); ++i)
        if (max_sizes[i] <= min_sizes[i]) c.fail("max_size must be larger than min_size");
    auto [step_h, step_w] = steps(c);
    const double offset = c.f(kParam + "offset", 0.5);
    OutPort layer = spatial_size(c, 0, "layer_size"), image = spatial_size(c, 1, "image_size");
    // OpenVINO's PriorBox has one step, and without it centres cells at offset 0.5: a step that
    // Caffe derives from the sizes is given explicitly when the offset is another.
    if (step_h != step_w) c.unsupported("PriorBox with different step_h and step_w");
    double step = step_h;
    if (step == 0 && offset != 0.5) {
        auto l = static_size(layer), i = static_size(image);
        if (!l || !i) c.unsupported("PriorBox with an offset other than 0.5, no step and sizes known only at run time");
        const double sh = static_cast<double>((*i)[0]) / static_cast<double>((*l)[0]);
        const double sw = static_cast<double>((*i)[1]) / static_cast<double>((*l)[1]);
        if (static_cast<float>(sh) != static_cast<float>(sw))
            c.unsupported("PriorBox with an offset other than 0.5 and a step that differs between height and width");
        step = sw;
    }
    finish(c, c.op("PriorBox", "priors", {layer, image},
                   {{"min_size", min_sizes}, {"max_size", max_sizes}, {"aspect_ratio", c.floats(kParam + "aspect_ratio")},
                    {"flip", c.i(kParam + "flip", 1) != 0}, {"clip", c.i(kParam + "clip", 0) != 0}, {"step", step},
                    {"offset", offset}, {"variance", variances(c)}, {"scale_all_sizes", true},
                    {"min_max_aspect_ratios_order", true}}));
}

void detection_output(ExtractContext& c) {
    const std::string p = "detection_output_param.";
    if (c.input_count() != 3) c.fail("DetectionOutput needs three bottoms: locations, confidences and priors");
    if (!c.has(p + "num_classes")) c.fail("num_classes is required");
    const std::string code = c.s(p + "code_type", "CORNER");
    if (code != "CORNER" && code != "CENTER_SIZE") c.unsupported("DetectionOutput with code_type " + code);
    if (c.f(p + "nms_param.eta", 1.0) != 1.0) c.unsupported("DetectionOutput with adaptive NMS (eta != 1)");
    const int64_t top_k = c.i(p + "nms_param.top_k", -1);
    // Without a threshold Caffe keeps every score (-FLT_MAX).
    const double threshold = c.has(p + "confidence_threshold") ? c.f(p + "confidence_threshold", 0) : -FLT_MAX;
    c.set_output(0, c.op("DetectionOutput", "", {c.input(0), c.input(1), c.input(2)},
                         {{"background_label_id", c.i(p + "background_label_id", 0)},
                          {"top_k", top_k},
                          {"variance_encoded_in_target", c.i(p + "variance_encoded_in_target", 0) != 0},
                          {"keep_top_k", std::vector<int64_t>{c.i(p + "keep_top_k", -1)}},
                          {"code_type", "caffe.PriorBoxParameter." + code},
                          {"share_location", c.i(p + "share_location", 1) != 0},
                          {"nms_threshold", c.f(p + "nms_param.nms_threshold", 0.3)},
                          {"confidence_threshold", threshold},
                          {"normalized", true}}));
}

}  // namespace

void register_caffe_detection(ExtractorRegistry& r) {
    caffe::add(r, "PriorBox", prior_box);
    caffe::add(r, "PriorBoxClustered", prior_box_clustered);
    caffe::add(r, "DetectionOutput", detection_output);
}

}  // namespace mo
