// DetectionOutput-8: the SSD post-processing. Decodes the box predictions against the prior
// boxes, then per class (the background class skipped) keeps the scores above
// confidence_threshold, the top_k best of them, and the boxes that survive greedy NMS; when more
// than keep_top_k detections remain, the keep_top_k best across classes. Output [1, 1, K, 7]
// rows [image, label, score, xmin, ymin, xmax, ymax], by image, then label, then NMS order;
// after the last detection one row starts with -1 and the rest are zeros.
// The evaluator covers what SSD converters produce: share_location, caffe-style labels, no
// additional (ARM) inputs; anything else is refused when evaluated.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

constexpr size_t kBoxLogits = 0, kClassPreds = 1, kProposals = 2;

struct Attrs {
    int64_t background, top_k, keep_top_k;
    bool variance_in_target, center_size, normalized, clip_before, clip_after;
    double nms_threshold, confidence_threshold;
    int64_t input_height, input_width;
    size_t prior_size() const { return normalized ? 4 : 5; }
};

Attrs read_attrs(const Node& n) {
    Attrs a{};
    a.background = n.attr<int64_t>("background_label_id");
    a.top_k = n.attr<int64_t>("top_k");
    auto keep = n.attr<std::vector<int64_t>>("keep_top_k");
    a.keep_top_k = keep.empty() ? -1 : keep[0];
    a.variance_in_target = n.attr<bool>("variance_encoded_in_target");
    const std::string code = n.attr<std::string>("code_type");
    if (code != "caffe.PriorBoxParameter.CENTER_SIZE" && code != "caffe.PriorBoxParameter.CORNER")
        throw Error("unknown code_type '" + code + "'", n.describe(),
                    "use caffe.PriorBoxParameter.CENTER_SIZE or caffe.PriorBoxParameter.CORNER");
    a.center_size = code == "caffe.PriorBoxParameter.CENTER_SIZE";
    a.normalized = n.attr<bool>("normalized");
    a.clip_before = n.attr<bool>("clip_before_nms");
    a.clip_after = n.attr<bool>("clip_after_nms");
    a.nms_threshold = n.attr<double>("nms_threshold");
    a.confidence_threshold = n.attr<double>("confidence_threshold");
    a.input_height = n.attr<int64_t>("input_height");
    a.input_width = n.attr<int64_t>("input_width");
    return a;
}

// Rows of the output for `images` images of `priors` priors and `classes` classes.
Dimension output_rows(const Attrs& a, const Dimension& images, const Dimension& priors, const Dimension& classes) {
    if (a.keep_top_k > 0) return images * Dimension(a.keep_top_k);
    if (a.top_k > 0) return images * Dimension(a.top_k) * classes;
    return images * priors * classes;
}

void infer_detection_output(InferContext& c) {
    const Attrs a = read_attrs(c.node);
    if (c.input_count() > 3) c.fail("the additional (ARM) inputs are not supported");
    if (!c.node.attr<bool>("share_location")) c.fail("share_location=false is not supported");
    const PartialShape &boxes = c.in_shape(kBoxLogits), &classes = c.in_shape(kClassPreds),
                       &priors = c.in_shape(kProposals);
    for (size_t i : {kBoxLogits, kClassPreds})
        if (c.in_shape(i).rank_is_static() && c.in_shape(i).rank() != 2) c.fail("inputs 0 and 1 must be 2-D [N, ...]");
    if (priors.rank_is_static() && priors.rank() != 3) c.fail("the proposals must be 3-D [1 or N, 1 or 2, P * 4]");
    Dimension images = boxes.rank_is_static() ? boxes[0] : Dimension::dynamic();
    Dimension num_priors = Dimension::dynamic(), num_classes = Dimension::dynamic();
    if (priors.rank_is_static() && priors[2].is_static()) {
        const int64_t values = priors[2].get_length();
        if (values % static_cast<int64_t>(a.prior_size()) != 0)
            c.fail("the proposals' last dimension must be a multiple of " + std::to_string(a.prior_size()));
        num_priors = Dimension(values / static_cast<int64_t>(a.prior_size()));
        if (values == 0) c.fail("the proposals hold no prior");
    }
    // The variances follow the priors (row 1) unless they are encoded in the box logits.
    if (priors.rank_is_static() && priors[1].is_static() &&
        (priors[1].get_length() < (a.variance_in_target ? 1 : 2) || priors[1].get_length() > 2))
        c.fail(std::string("the proposals' second dimension must be ") + (a.variance_in_target ? "1 or 2" : "2") +
               " with variance_encoded_in_target=" + (a.variance_in_target ? "true" : "false"));
    if (priors.rank_is_static() && priors[0].is_static() && priors[0].get_length() != 1 && images.is_static() &&
        priors[0] != images)
        c.fail("the proposals' first dimension must be 1 or the number of images");
    if (classes.rank_is_static() && classes[0].is_static() && images.is_static() && classes[0] != images)
        c.fail("class predictions must hold one row per image");
    if (num_priors.is_static() && classes.rank_is_static() && classes[1].is_static()) {
        if (classes[1].get_length() % num_priors.get_length() != 0)  // num_priors > 0: checked above
            c.fail("class predictions must hold one score per prior and class");
        num_classes = Dimension(classes[1].get_length() / num_priors.get_length());
    }
    c.set_output(0, c.in_type(kBoxLogits), PartialShape{1, 1, output_rows(a, images, num_priors, num_classes), 7});
}

struct Box {
    float xmin = 0, ymin = 0, xmax = 0, ymax = 0;
};

float clip01(float v) { return std::max(0.0f, std::min(1.0f, v)); }

float area(const Box& b) { return b.xmax < b.xmin || b.ymax < b.ymin ? 0.0f : (b.xmax - b.xmin) * (b.ymax - b.ymin); }

float overlap(const Box& a, const Box& b) {
    if (b.xmin > a.xmax || b.xmax < a.xmin || b.ymin > a.ymax || b.ymax < a.ymin) return 0.0f;
    const float w = std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin);
    const float h = std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin);
    if (w <= 0 || h <= 0) return 0.0f;
    const float inter = w * h;
    return inter / (area(a) + area(b) - inter);
}

// The decoded box of prior p: `prior` holds its 4 corner values, `var` its 4 variances.
Box decode(const Attrs& a, const float* prior, const float* var, const float* code) {
    float px0 = prior[0], py0 = prior[1], px1 = prior[2], py1 = prior[3];
    if (!a.normalized) {
        px0 /= static_cast<float>(a.input_width), px1 /= static_cast<float>(a.input_width);
        py0 /= static_cast<float>(a.input_height), py1 /= static_cast<float>(a.input_height);
    }
    Box b;
    if (!a.center_size) {
        b = {px0 + var[0] * code[0], py0 + var[1] * code[1], px1 + var[2] * code[2], py1 + var[3] * code[3]};
    } else {
        const float pw = px1 - px0, ph = py1 - py0, pcx = (px0 + px1) / 2, pcy = (py0 + py1) / 2;
        const float cx = var[0] * code[0] * pw + pcx, cy = var[1] * code[1] * ph + pcy;
        const float w = std::exp(var[2] * code[2]) * pw, h = std::exp(var[3] * code[3]) * ph;
        b = {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
    }
    if (a.clip_before) b = {clip01(b.xmin), clip01(b.ymin), clip01(b.xmax), clip01(b.ymax)};
    return b;
}

struct Scored {
    float score;
    int64_t label, prior;
};

// Higher score first; equal scores in prior order.
bool better(const Scored& x, const Scored& y) { return x.score > y.score || (x.score == y.score && x.prior < y.prior); }

// Greedy NMS over the priors of one class, best first: the kept priors in selection order.
std::vector<int64_t> class_nms(const Attrs& a, const std::vector<Box>& boxes, const float* scores, int64_t classes,
                               int64_t label) {
    std::vector<Scored> candidates;
    for (size_t p = 0; p < boxes.size(); ++p) {
        const float s = scores[p * static_cast<size_t>(classes) + static_cast<size_t>(label)];
        if (s > a.confidence_threshold) candidates.push_back({s, label, static_cast<int64_t>(p)});
    }
    std::stable_sort(candidates.begin(), candidates.end(), better);
    if (a.top_k > -1 && static_cast<size_t>(a.top_k) < candidates.size()) candidates.resize(static_cast<size_t>(a.top_k));
    std::vector<int64_t> kept;
    for (const Scored& c : candidates) {
        bool keep = true;
        for (int64_t k : kept)
            if (overlap(boxes[static_cast<size_t>(c.prior)], boxes[static_cast<size_t>(k)]) > a.nms_threshold) {
                keep = false;
                break;
            }
        if (keep) kept.push_back(c.prior);
    }
    return kept;
}

std::vector<Tensor> eval_detection_output(const Node& n, const std::vector<Tensor>& in) {
    const Attrs a = read_attrs(n);
    if (in.size() > 3 && !in[3].empty()) throw Error("the additional (ARM) inputs are not evaluated", n.describe());
    if (n.attr<bool>("decrease_label_id")) throw Error("decrease_label_id=true is not evaluated", n.describe());
    const Tensor boxes_t = in[kBoxLogits].convert(ElementType::f32), scores_t = in[kClassPreds].convert(ElementType::f32),
                 priors_t = in[kProposals].convert(ElementType::f32);
    const Shape& ps = priors_t.shape();
    // The inputs' shapes may have been unknown at inference: checked again here.
    if (boxes_t.shape().size() != 2 || scores_t.shape().size() != 2 || ps.size() != 3)
        throw Error("box logits and class predictions must be 2-D, the proposals 3-D", n.describe());
    const int64_t images = boxes_t.shape()[0], num_priors = ps[2] / static_cast<int64_t>(a.prior_size());
    if (num_priors == 0 || ps[2] % static_cast<int64_t>(a.prior_size()) != 0)
        throw Error("the proposals must hold at least one prior of " + std::to_string(a.prior_size()) + " values",
                    n.describe());
    if ((ps[0] != 1 && ps[0] != images) || ps[1] < (a.variance_in_target ? 1 : 2) || ps[1] > 2)
        throw Error("the proposals must be [1 or N, 2, P * " + std::to_string(a.prior_size()) +
                        "] ([1 or N, 1, ...] with the variances encoded in the box logits)",
                    n.describe());
    if (scores_t.shape()[0] != images || scores_t.shape()[1] % num_priors != 0)
        throw Error("class predictions must hold one score per image, prior and class", n.describe());
    const int64_t classes = scores_t.shape()[1] / num_priors;
    if (boxes_t.shape()[1] != num_priors * 4) throw Error("box logits must hold 4 values per prior", n.describe());
    const float *codes = boxes_t.data<float>(), *scores = scores_t.data<float>(), *priors = priors_t.data<float>();
    const int64_t rows = output_rows(a, Dimension(images), Dimension(num_priors), Dimension(classes)).get_length();
    std::vector<float> out(static_cast<size_t>(rows * 7), 0.0f);
    int64_t count = 0;
    const float unit_variance[4] = {1, 1, 1, 1};
    for (int64_t i = 0; i < images; ++i) {
        const int64_t prior_image = ps[0] == 1 ? 0 : i;
        const float* prior_data = priors + prior_image * ps[1] * ps[2];
        std::vector<Box> decoded(static_cast<size_t>(num_priors));
        for (int64_t p = 0; p < num_priors; ++p) {
            const float* prior = prior_data + p * static_cast<int64_t>(a.prior_size()) + (a.normalized ? 0 : 1);
            const float* var = a.variance_in_target ? unit_variance : prior_data + ps[2] + p * 4;
            decoded[static_cast<size_t>(p)] = decode(a, prior, var, codes + (i * num_priors + p) * 4);
        }
        const float* image_scores = scores + i * num_priors * classes;
        std::map<int64_t, std::vector<int64_t>> kept;  // label -> priors
        size_t total = 0;
        for (int64_t c = 0; c < classes; ++c) {
            if (c == a.background) continue;
            kept[c] = class_nms(a, decoded, image_scores, classes, c);
            total += kept[c].size();
        }
        if (a.keep_top_k > -1 && total > static_cast<size_t>(a.keep_top_k)) {
            std::vector<Scored> all;
            for (const auto& [label, ps_kept] : kept)
                for (int64_t p : ps_kept) all.push_back({image_scores[p * classes + label], label, p});
            std::sort(all.begin(), all.end(), better);
            all.resize(static_cast<size_t>(a.keep_top_k));
            kept.clear();
            for (const Scored& s : all) kept[s.label].push_back(s.prior);
        }
        for (const auto& [label, ps_kept] : kept)
            for (int64_t p : ps_kept) {
                Box b = decoded[static_cast<size_t>(p)];
                if (a.clip_after) b = {clip01(b.xmin), clip01(b.ymin), clip01(b.xmax), clip01(b.ymax)};
                float* row = out.data() + count * 7;
                const float values[7] = {static_cast<float>(i), static_cast<float>(label), image_scores[p * classes + label],
                                         b.xmin, b.ymin, b.xmax, b.ymax};
                std::copy(values, values + 7, row);
                ++count;
            }
    }
    if (count < rows) out[static_cast<size_t>(count * 7)] = -1;
    return {Tensor::from_vector<float>(out, {1, 1, rows, 7}).convert(in[kBoxLogits].type())};
}

}  // namespace

void register_detection_output_op(OpRegistry& r) {
    OpSchema s = make_schema("DetectionOutput", "DetectionOutput", "opset8", 3, 5, 1,
                             {{"background_label_id", AttrKind::Int, int64_t{0}},
                              {"top_k", AttrKind::Int, int64_t{-1}},
                              {"variance_encoded_in_target", AttrKind::Bool, false},
                              {"keep_top_k", AttrKind::Ints, {}},
                              {"code_type", AttrKind::String, std::string("caffe.PriorBoxParameter.CORNER")},
                              {"share_location", AttrKind::Bool, true},
                              {"nms_threshold", AttrKind::Float, {}},
                              {"confidence_threshold", AttrKind::Float, 0.0},
                              {"clip_after_nms", AttrKind::Bool, false},
                              {"clip_before_nms", AttrKind::Bool, false},
                              {"decrease_label_id", AttrKind::Bool, false},
                              {"normalized", AttrKind::Bool, false},
                              {"input_height", AttrKind::Int, int64_t{1}},
                              {"input_width", AttrKind::Int, int64_t{1}},
                              {"objectness_score", AttrKind::Float, 0.0}});
    s.infer = infer_detection_output;
    s.eval = eval_detection_output;
    // Thresholds decide membership; priors are coordinates that f16 would move.
    s.precision_sensitive_inputs = {kProposals};
    r.add(std::move(s));
}

}  // namespace mo
