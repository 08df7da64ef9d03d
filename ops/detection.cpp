// NonMaxSuppression-9: per batch and class, greedily selects the highest-scoring box and drops
// (or, with soft_nms_sigma > 0, decays the score of) the boxes overlapping it. Outputs: the
// selected [batch, class, box] triplets, the same with the final score (f32), and their count.
// Order: batch, class, then selection order; sort_result_descending sorts all selections by
// score (ties: batch, class, box index), as OpenVINO's CPU plugin does. The number of selected
// boxes depends on the data: inference gives an interval [0, bound].
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <string>
#include <vector>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

constexpr size_t kBoxes = 0, kScores = 1, kMaxBoxes = 2, kIou = 3, kScoreThreshold = 4, kSigma = 5;

struct Box {
    float y1, x1, y2, x2;
};

// Corner boxes may give any diagonal pair of corners; center boxes are [xc, yc, w, h].
Box normalized_box(const float* b, bool center) {
    if (center) return {b[1] - b[3] / 2.0f, b[0] - b[2] / 2.0f, b[1] + b[3] / 2.0f, b[0] + b[2] / 2.0f};
    return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// In f32 and in this order, as OpenVINO's reference: ties with the threshold must agree.
float intersection_over_union(const Box& a, const Box& b) {
    const float area_a = (a.y2 - a.y1) * (a.x2 - a.x1);
    const float area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
    if (area_a <= 0.0f || area_b <= 0.0f) return 0.0f;
    const float h = std::max(std::min(a.y2, b.y2) - std::max(a.y1, b.y1), 0.0f);
    const float w = std::max(std::min(a.x2, b.x2) - std::max(a.x1, b.x1), 0.0f);
    const float inter = h * w;
    return inter / (area_a + area_b - inter);
}

struct Candidate {
    int64_t box;
    float score;
    size_t checked_up_to;  // selections before this one were already applied to `score`
};

// Highest score first; equal scores: the lower box index first.
struct LowerPriority {
    bool operator()(const Candidate& a, const Candidate& b) const {
        return a.score < b.score || (a.score == b.score && a.box > b.box);
    }
};

struct Selection {
    int64_t batch, cls, box;
    float score;
};

// The single value of an optional scalar input (0D or 1D of one element).
const Tensor* scalar_input(const std::vector<Tensor>& in, size_t i, const std::string& where) {
    if (i >= in.size() || in[i].empty()) return nullptr;
    if (in[i].size() != 1 || in[i].shape().size() > 1)
        throw Error("input " + std::to_string(i) + " of NonMaxSuppression must be a scalar or a 1D tensor of one element",
                    where);
    return &in[i];
}

// IoU tests eval_nms may make: every box of every batch and class against at most
// max_output_boxes_per_class selections (0 for malformed inputs, which eval refuses).
int64_t nms_operations(const std::vector<Tensor>& in) {
    if (in.size() <= kScores || in[kScores].shape().size() != 3) return 0;
    const Shape& s = in[kScores].shape();
    int64_t max_boxes = 0;
    if (in.size() > kMaxBoxes && in[kMaxBoxes].size() == 1) max_boxes = in[kMaxBoxes].to_i64()[0];
    return saturating_product({s[0], s[1], s[2], std::clamp<int64_t>(max_boxes, 1, std::max<int64_t>(s[2], 1))});
}

std::vector<Tensor> eval_nms(const Node& n, const std::vector<Tensor>& in) {
    const std::string where = n.describe();
    const ElementType out_type = n.attr<ElementType>("output_type");
    if (out_type != ElementType::i32 && out_type != ElementType::i64)
        throw Error("output_type of NonMaxSuppression must be i32 or i64", where);
    const bool center = n.attr<std::string>("box_encoding") == "center";
    const Tensor boxes = in.at(kBoxes).convert(ElementType::f32);
    const Tensor scores = in.at(kScores).convert(ElementType::f32);
    if (boxes.shape().size() != 3 || scores.shape().size() != 3 || boxes.shape()[2] != 4 ||
        boxes.shape()[0] != scores.shape()[0] || boxes.shape()[1] != scores.shape()[2])
        throw Error("NonMaxSuppression needs boxes [B, N, 4] and scores [B, C, N]", where);
    const int64_t batches = scores.shape()[0], classes = scores.shape()[1], num_boxes = scores.shape()[2];

    // Absent inputs: no boxes, threshold 0, score threshold 0, hard NMS. A negative count selects
    // nothing (OpenVINO leaves it undefined).
    const Tensor* t = scalar_input(in, kMaxBoxes, where);
    const int64_t max_boxes = t ? std::max<int64_t>(t->to_i64()[0], 0) : 0;
    t = scalar_input(in, kIou, where);
    const float iou_threshold = t ? static_cast<float>(t->to_f64()[0]) : 0.0f;
    t = scalar_input(in, kScoreThreshold, where);
    const float score_threshold = t ? static_cast<float>(t->to_f64()[0]) : 0.0f;
    t = scalar_input(in, kSigma, where);
    const float sigma = t ? static_cast<float>(t->to_f64()[0]) : 0.0f;
    const bool soft = sigma > 0.0f;
    const float scale = soft ? -0.5f / sigma : 0.0f;
    EvalBudget::charge_operations(nms_operations(in), "the NonMaxSuppression");

    const float* bd = boxes.data<float>();
    const float* sd = scores.data<float>();
    std::vector<Selection> all;
    std::vector<Box> box(static_cast<size_t>(num_boxes));
    for (int64_t b = 0; b < batches; ++b) {
        for (int64_t i = 0; i < num_boxes; ++i) box[size_t(i)] = normalized_box(bd + (b * num_boxes + i) * 4, center);
        for (int64_t c = 0; c < classes; ++c) {
            const float* s = sd + (b * classes + c) * num_boxes;
            std::priority_queue<Candidate, std::vector<Candidate>, LowerPriority> queue;
            for (int64_t i = 0; i < num_boxes; ++i)
                if (s[i] > score_threshold) queue.push({i, s[i], 0});
            std::vector<Selection> selected;
            while (!queue.empty() && int64_t(selected.size()) < max_boxes) {
                Candidate cand = queue.top();
                queue.pop();
                const float original = cand.score;
                bool suppressed = false;
                // Newest selections first, only those not yet applied (soft NMS re-queues).
                for (size_t j = selected.size(); j-- > cand.checked_up_to;) {
                    const float iou = intersection_over_union(box[size_t(cand.box)], box[size_t(selected[j].box)]);
                    if (!soft && iou > iou_threshold) {
                        suppressed = true;
                        break;
                    }
                    if (soft) cand.score *= std::exp(scale * iou * iou);  // the spec ignores iou_threshold here
                    if (cand.score <= score_threshold) break;
                }
                cand.checked_up_to = selected.size();
                if (suppressed) continue;
                if (cand.score == original) selected.push_back({b, c, cand.box, cand.score});
                else if (cand.score > score_threshold) queue.push(cand);
            }
            all.insert(all.end(), selected.begin(), selected.end());
        }
    }
    if (n.attr<bool>("sort_result_descending")) {
        std::sort(all.begin(), all.end(), [](const Selection& l, const Selection& r) {
            if (l.score != r.score) return l.score > r.score;
            if (l.batch != r.batch) return l.batch < r.batch;
            if (l.cls != r.cls) return l.cls < r.cls;
            return l.box < r.box;
        });
    }

    const int64_t count = int64_t(all.size());
    std::vector<int64_t> indices;
    std::vector<float> selected_scores;
    for (const Selection& s : all) {
        indices.insert(indices.end(), {s.batch, s.cls, s.box});
        selected_scores.insert(selected_scores.end(), {float(s.batch), float(s.cls), s.score});
    }
    return {Tensor::from_vector<int64_t>(indices, {count, 3}).convert(out_type),
            Tensor::from_vector<float>(selected_scores, {count, 3}),
            Tensor::from_vector<int64_t>({count}, {1}).convert(out_type)};
}

// Upper bound of a product of bounds (kUnbounded absorbs; so does an overflow).
int64_t bound_mul(int64_t a, int64_t b) {
    if (a == 0 || b == 0) return 0;
    int64_t product = 0;
    if (a == Dimension::kUnbounded || b == Dimension::kUnbounded || __builtin_mul_overflow(a, b, &product))
        return Dimension::kUnbounded;
    return product;
}

void infer_nms(InferContext& c) {
    const ElementType out_type = c.attr<ElementType>("output_type");
    if (out_type != ElementType::i32 && out_type != ElementType::i64)
        c.fail("output_type must be i32 or i64, got " + std::string(ir_name(out_type)));
    const std::string encoding = c.attr<std::string>("box_encoding");
    if (encoding != "corner" && encoding != "center")
        c.fail("box_encoding must be 'corner' or 'center', got '" + encoding + "'");

    auto check_type = [&](size_t i, bool want_float, const char* name) {
        if (!c.has_input(i)) return;
        const ElementType t = c.in_type(i);
        if (t == ElementType::dynamic) return;
        if (want_float ? !is_float(t) : !is_integral(t))
            c.fail(std::string("the ") + name + " input must be " + (want_float ? "floating-point" : "an integer") +
                   ", got " + std::string(ir_name(t)));
    };
    check_type(kBoxes, true, "boxes");
    check_type(kScores, true, "scores");
    check_type(kMaxBoxes, false, "max_output_boxes_per_class");
    check_type(kIou, true, "iou_threshold");
    check_type(kScoreThreshold, true, "score_threshold");
    check_type(kSigma, true, "soft_nms_sigma");
    for (size_t i = kMaxBoxes; i <= kSigma; ++i) {
        if (!c.has_input(i)) continue;
        const PartialShape& s = c.in_shape(i);
        if (s.rank_is_static() && (s.rank() > 1 || (s.rank() == 1 && !s[0].compatible(1))))
            c.fail("input " + std::to_string(i) + " must be a scalar or a 1D tensor of one element, got [" +
                   s.to_string() + "]");
    }

    // All inputs constant (and not too many boxes to fold): the exact result.
    bool all_constant = true;
    for (size_t i = 0; i < c.input_count(); ++i) all_constant = all_constant && (!c.has_input(i) || c.in_value(i));
    std::vector<Tensor> in;
    if (all_constant)
        for (size_t i = 0; i < c.input_count(); ++i) in.push_back(c.has_input(i) ? c.in_value(i)->aligned() : Tensor());
    if (all_constant && EvalBudget::affordable(nms_operations(in))) {
        std::vector<Tensor> out;
        try {
            out = c.node.op().eval(c.node, in);
        } catch (const Error& e) {
            c.fail(e.what_part(), e.hint());
        }
        for (size_t j = 0; j < 3; ++j) c.set_output(j, out[j].type(), PartialShape(out[j].shape()));
        return;
    }

    const PartialShape& boxes = c.in_shape(kBoxes);
    const PartialShape& scores = c.in_shape(kScores);
    if (boxes.rank_is_static() && boxes.rank() != 3) c.fail("boxes must be 3D [B, N, 4], got [" + boxes.to_string() + "]");
    if (scores.rank_is_static() && scores.rank() != 3) c.fail("scores must be 3D [B, C, N], got [" + scores.to_string() + "]");
    if (boxes.rank_is_static() && !boxes[2].compatible(4))
        c.fail("the last dimension of boxes must be 4, got [" + boxes.to_string() + "]");
    Dimension batches, classes, num_boxes;
    try {
        if (boxes.rank_is_static()) {
            batches = boxes[0];
            num_boxes = boxes[1];
        }
        if (scores.rank_is_static()) {
            batches = Dimension::merge(batches, scores[0]);
            classes = scores[1];
            num_boxes = Dimension::merge(num_boxes, scores[2]);
        }
    } catch (const Error&) {
        c.fail("boxes [" + boxes.to_string() + "] and scores [" + scores.to_string() +
               "] disagree on the number of batches or boxes");
    }

    // At most min(N, max_output_boxes_per_class) per batch and class; an absent count selects none.
    int64_t per_class = num_boxes.max();
    if (!c.has_input(kMaxBoxes)) {
        per_class = 0;
    } else if (const Tensor* v = c.in_value(kMaxBoxes); v && v->size() == 1) {
        const int64_t m = std::max<int64_t>(v->to_i64()[0], 0);
        per_class = per_class == Dimension::kUnbounded ? m : std::min(per_class, m);
    }
    const int64_t bound = bound_mul(bound_mul(per_class, batches.max()), classes.max());
    const Dimension selected(0, bound);
    c.set_output(0, out_type, PartialShape{selected, 3});
    c.set_output(1, ElementType::f32, PartialShape{selected, 3});
    c.set_output(2, out_type, PartialShape{1});
}

}  // namespace

void register_detection_ops(OpRegistry& r) {
    OpSchema s = make_schema("NonMaxSuppression", "NonMaxSuppression", "opset9", 2, 6, 3,
                             {{"box_encoding", AttrKind::String, std::string("corner")},
                              {"sort_result_descending", AttrKind::Bool, true},
                              {"output_type", AttrKind::Type, ElementType::i64}});
    s.infer = infer_nms;
    s.eval = eval_nms;
    // Thresholds decide membership: an f16 rounding (or -inf -> -65504 clamp) would change the result.
    s.precision_sensitive_inputs = {kIou, kScoreThreshold, kSigma};
    r.add(std::move(s));
}

}  // namespace mo
