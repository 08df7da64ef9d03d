// PriorBox-8 and PriorBoxClustered-1: the SSD prior (anchor) boxes of a feature map of size
// output_size = [H, W] on an image of size image_size = [IH, IW]. Output [2, 4 * H * W * priors]:
// row 0 the boxes [xmin, ymin, xmax, ymax] normalised by the image size, per cell (row-major),
// per prior; row 1 the variances. Evaluation follows OpenVINO's reference: PriorBox's centres are
// (w + 0.5) * IW / W without `step`, (w + offset) * step with it; its priors per cell are, per
// min_size, the min_size box, the sqrt(min_size * max_size) box and one per aspect ratio (order
// min, max, ratios when min_max_aspect_ratios_order, else min, ratios, max), the ratios being 1,
// then each new one and its inverse when flip. clip clamps every coordinate to [0, 1].
// PriorBox's fixed_size / fixed_ratio / density form (MXNet's, TF's) is not evaluated.
#include <cmath>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

std::vector<float> floats(const Node& n, const char* name) {
    std::vector<float> out;
    for (double v : n.attr<std::vector<double>>(name)) out.push_back(static_cast<float>(v));
    return out;
}

// 1, then every ratio not yet present (within 1e-6), followed by its inverse when flipping.
std::vector<float> aspect_ratios(const Node& n) {
    std::vector<float> ratios = {1.0f};
    for (float r : floats(n, "aspect_ratio")) {
        bool exists = false;
        for (float e : ratios) exists |= std::fabs(r - e) < 1e-6f;
        if (exists) continue;
        ratios.push_back(r);
        if (n.attr<bool>("flip")) ratios.push_back(1.0f / r);
    }
    return ratios;
}

bool uses_fixed_sizes(const Node& n) {
    return !n.attr<std::vector<double>>("fixed_size").empty() || !n.attr<std::vector<double>>("density").empty() ||
           !n.attr<std::vector<double>>("fixed_ratio").empty();
}

int64_t prior_box_count(const Node& n) {
    const int64_t ratios = static_cast<int64_t>(aspect_ratios(n).size());
    const int64_t mins = static_cast<int64_t>(n.attr<std::vector<double>>("min_size").size());
    const int64_t maxs = static_cast<int64_t>(n.attr<std::vector<double>>("max_size").size());
    return n.attr<bool>("scale_all_sizes") ? ratios * mins + maxs : ratios + mins - 1;
}

void check_variance(const InferContext& c) {
    const size_t v = c.attr<std::vector<double>>("variance").size();
    if (v != 0 && v != 1 && v != 4) c.fail("variance must have 0, 1 or 4 values, not " + std::to_string(v));
}

// [2, 4 * H * W * priors] when output_size is known.
void infer_priors(InferContext& c, int64_t priors) {
    check_variance(c);
    for (size_t i = 0; i < c.input_count(); ++i) {
        if (c.in_type(i) != ElementType::dynamic && !is_integral(c.in_type(i))) c.fail("the sizes must be integers");
        if (c.in_shape(i).rank_is_static() && (c.in_shape(i).rank() != 1 || !c.in_shape(i)[0].compatible(2)))
            c.fail("the sizes must be 1D of two values [H, W]");
    }
    Dimension cells;
    if (const Tensor* v = c.in_value(0)) {
        const auto hw = v->to_i64();
        if (hw.size() != 2 || hw[0] < 0 || hw[1] < 0) c.fail("output_size must be two non-negative values");
        if (priors < 0 || hw[0] > (int64_t{1} << 20) || hw[1] > (int64_t{1} << 20)) c.fail("output_size is too large");
        cells = Dimension(4 * hw[0] * hw[1] * priors);
    }
    c.set_output(0, ElementType::f32, PartialShape{Dimension(2), cells});
}

void infer_prior_box(InferContext& c) {
    infer_priors(c, uses_fixed_sizes(c.node) ? -1 : prior_box_count(c.node));
}

// The image and feature sizes (H, W) from the inputs.
std::pair<std::vector<int64_t>, std::vector<int64_t>> sizes(const Node& n, const std::vector<Tensor>& in) {
    auto layer = in.at(0).to_i64();
    auto image = in.size() > 1 && !in[1].empty() ? in[1].to_i64() : std::vector<int64_t>{};
    if (layer.size() != 2 || (image.size() != 2 && !image.empty()) || layer[0] < 0 || layer[1] < 0)
        throw Error("output_size and image_size must be [H, W]", n.describe());
    for (int64_t v : image)
        if (v <= 0) throw Error("image_size must be positive", n.describe());
    EvalBudget::charge_operations(saturating_product({layer[0], layer[1], 8}), "the prior boxes");
    return {layer, image};
}

void write_variances(float* out, int64_t boxes, const std::vector<float>& variance) {
    std::vector<float> v = variance.empty() ? std::vector<float>{0.1f} : variance;
    for (int64_t i = 0; i < boxes; ++i)
        for (int64_t j = 0; j < 4; ++j) out[4 * boxes + 4 * i + j] = v.size() == 1 ? v[0] : v[static_cast<size_t>(j)];
}

std::vector<Tensor> eval_prior_box(const Node& n, const std::vector<Tensor>& in) {
    if (uses_fixed_sizes(n)) throw Error("evaluation of PriorBox with fixed_size, fixed_ratio or density is not supported", n.describe());
    const auto [layer, image] = sizes(n, in);
    if (image.empty()) throw Error("PriorBox needs image_size", n.describe());
    const int64_t H = layer[0], W = layer[1], IH = image[0], IW = image[1];
    const auto ratios = aspect_ratios(n);
    const auto min_sizes = floats(n, "min_size"), max_sizes = floats(n, "max_size");
    const bool all_sizes = n.attr<bool>("scale_all_sizes"), min_max_first = n.attr<bool>("min_max_aspect_ratios_order");
    const int64_t priors = prior_box_count(n);
    const int64_t boxes = H * W * priors;
    Tensor t = Tensor::allocate(ElementType::f32, {2, 4 * boxes});
    float* out = t.mutable_data<float>();
    const float step = static_cast<float>(n.attr<double>("step")), offset = static_cast<float>(n.attr<double>("offset"));
    if (!all_sizes) throw Error("evaluation of PriorBox without scale_all_sizes (MXNet's form) is not supported", n.describe());
    const float step_x = step == 0 ? static_cast<float>(IW) / static_cast<float>(W) : step;
    const float step_y = step == 0 ? static_cast<float>(IH) / static_cast<float>(H) : step;
    const float inv_w = 1.0f / static_cast<float>(IW), inv_h = 1.0f / static_cast<float>(IH);
    int64_t k = 0;
    auto box = [&](float cx, float cy, float half_w, float half_h) {
        out[k++] = (cx - half_w) * inv_w;
        out[k++] = (cy - half_h) * inv_h;
        out[k++] = (cx + half_w) * inv_w;
        out[k++] = (cy + half_h) * inv_h;
    };
    for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) {
            const float cx = step == 0 ? (static_cast<float>(w) + 0.5f) * step_x : (offset + static_cast<float>(w)) * step;
            const float cy = step == 0 ? (static_cast<float>(h) + 0.5f) * step_y : (offset + static_cast<float>(h)) * step;
            for (size_t s = 0; s < min_sizes.size(); ++s) {
                box(cx, cy, min_sizes[s] * 0.5f, min_sizes[s] * 0.5f);
                auto max_box = [&] {
                    if (s >= max_sizes.size()) return;
                    const float half = std::sqrt(min_sizes[s] * max_sizes[s]) * 0.5f;
                    box(cx, cy, half, half);
                };
                auto ratio_boxes = [&] {
                    for (float r : ratios) {
                        if (std::fabs(r - 1.0f) < 1e-6f) continue;
                        const float root = std::sqrt(r);
                        box(cx, cy, min_sizes[s] * 0.5f * root, min_sizes[s] * 0.5f / root);
                    }
                };
                if (min_max_first) max_box(), ratio_boxes();
                else ratio_boxes(), max_box();
            }
        }
    if (n.attr<bool>("clip"))
        for (int64_t i = 0; i < 4 * boxes; ++i) out[i] = std::min(std::max(out[i], 0.0f), 1.0f);
    write_variances(out, boxes, floats(n, "variance"));
    return {t};
}

void infer_prior_box_clustered(InferContext& c) {
    const size_t w = c.attr<std::vector<double>>("width").size(), h = c.attr<std::vector<double>>("height").size();
    if (w != h) c.fail("width and height must have as many values (" + std::to_string(w) + " and " + std::to_string(h) + ")");
    infer_priors(c, static_cast<int64_t>(w));
}

// Centres (w + offset) * step_w; steps from step_w / step_h, else step, else image / layer.
std::vector<Tensor> eval_prior_box_clustered(const Node& n, const std::vector<Tensor>& in) {
    const auto [layer, image] = sizes(n, in);
    if (image.empty()) throw Error("PriorBoxClustered needs image_size to be evaluated", n.describe());
    const int64_t H = layer[0], W = layer[1], IH = image[0], IW = image[1];
    const auto widths = floats(n, "width"), heights = floats(n, "height");
    if (widths.size() != heights.size()) throw Error("width and height differ in length", n.describe());
    const int64_t priors = static_cast<int64_t>(widths.size()), boxes = H * W * priors;
    const float step = static_cast<float>(n.attr<double>("step"));
    float step_w = n.attr<double>("step_w") == 0 ? step : static_cast<float>(n.attr<double>("step_w"));
    float step_h = n.attr<double>("step_h") == 0 ? step : static_cast<float>(n.attr<double>("step_h"));
    if (step_w == 0 && step_h == 0) {
        step_w = static_cast<float>(IW) / static_cast<float>(W);
        step_h = static_cast<float>(IH) / static_cast<float>(H);
    }
    const float offset = static_cast<float>(n.attr<double>("offset"));
    const bool clip = n.attr<bool>("clip");
    Tensor t = Tensor::allocate(ElementType::f32, {2, 4 * boxes});
    float* out = t.mutable_data<float>();
    for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) {
            const float cx = (static_cast<float>(w) + offset) * step_w, cy = (static_cast<float>(h) + offset) * step_h;
            for (int64_t s = 0; s < priors; ++s) {
                float* b = out + 4 * ((h * W + w) * priors + s);
                const float bw = widths[static_cast<size_t>(s)], bh = heights[static_cast<size_t>(s)];
                b[0] = (cx - bw / 2.0f) / static_cast<float>(IW);
                b[1] = (cy - bh / 2.0f) / static_cast<float>(IH);
                b[2] = (cx + bw / 2.0f) / static_cast<float>(IW);
                b[3] = (cy + bh / 2.0f) / static_cast<float>(IH);
                if (clip)
                    for (int j = 0; j < 4; ++j) b[j] = std::min(std::max(b[j], 0.0f), 1.0f);
            }
        }
    write_variances(out, boxes, floats(n, "variance"));
    return {t};
}

}  // namespace

void register_prior_box_ops(OpRegistry& r) {
    using A = AttrKind;
    const std::vector<double> none;
    OpSchema box = make_schema("PriorBox", "PriorBox", "opset8", 2, 2, 1,
                               {{"min_size", A::Floats, none},
                                {"max_size", A::Floats, none},
                                {"aspect_ratio", A::Floats, none},
                                {"flip", A::Bool, false},
                                {"clip", A::Bool, false},
                                {"step", A::Float, 0.0},
                                {"offset", A::Float, {}},
                                {"variance", A::Floats, none},
                                {"scale_all_sizes", A::Bool, true},
                                {"fixed_ratio", A::Floats, none},
                                {"fixed_size", A::Floats, none},
                                {"density", A::Floats, none},
                                {"min_max_aspect_ratios_order", A::Bool, true}});
    box.infer = infer_prior_box;
    box.eval = eval_prior_box;
    r.add(std::move(box));
    OpSchema clustered = make_schema("PriorBoxClustered", "PriorBoxClustered", "opset1", 1, 2, 1,
                                     {{"width", A::Floats, std::vector<double>{1.0}},
                                      {"height", A::Floats, std::vector<double>{1.0}},
                                      {"clip", A::Bool, true},
                                      {"step", A::Float, 0.0},
                                      {"step_w", A::Float, 0.0},
                                      {"step_h", A::Float, 0.0},
                                      {"offset", A::Float, {}},
                                      {"variance", A::Floats, none}});
    clustered.infer = infer_prior_box_clustered;
    clustered.eval = eval_prior_box_clustered;
    r.add(std::move(clustered));
}

}  // namespace mo
