// ROIAlign-9: each ROI [x1, y1, x2, y2] is scaled by spatial_scale (shifted per aligned_mode),
// cut into pooled_h x pooled_w bins, and each bin pools (avg or max) bilinear samples taken at
// the centres of a regular grid of sampling_ratio x sampling_ratio cells (0: ceil(bin size)
// cells per axis). Where the spec is silent this follows OpenVINO's reference: a sample beyond
// [-1, size] is 0, coordinates in [-1, 0) clamp to 0, and max pooling starts from 0.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

struct RoiAlignAttrs {
    int64_t pooled_h, pooled_w, sampling_ratio;
    double spatial_scale;
    bool max_mode;
    std::string aligned_mode;
};

RoiAlignAttrs roi_align_attrs(const Node& n) {
    RoiAlignAttrs a{n.attr<int64_t>("pooled_h"), n.attr<int64_t>("pooled_w"), n.attr<int64_t>("sampling_ratio"),
                    n.attr<double>("spatial_scale"), false, n.attr<std::string>("aligned_mode")};
    const auto where = n.describe();
    if (a.pooled_h <= 0 || a.pooled_w <= 0) throw Error("pooled_h and pooled_w must be positive", where);
    if (a.sampling_ratio < 0) throw Error("sampling_ratio must not be negative", where);
    if (!(a.spatial_scale > 0)) throw Error("spatial_scale must be positive", where);
    const auto mode = n.attr<std::string>("mode");
    if (mode != "avg" && mode != "max") throw Error("unknown mode '" + mode + "'", where, "use avg or max");
    a.max_mode = mode == "max";
    if (a.aligned_mode != "asymmetric" && a.aligned_mode != "half_pixel_for_nn" && a.aligned_mode != "half_pixel")
        throw Error("unknown aligned_mode '" + a.aligned_mode + "'", where,
                    "use asymmetric, half_pixel_for_nn or half_pixel");
    return a;
}

// One bilinear sample: four feature-map offsets (within a channel) and their weights.
template <typename T>
struct Sample {
    std::array<int64_t, 4> at{};
    std::array<T, 4> w{};
};

// The sample at (y, x) of an H x W map; all weights 0 when it lies beyond [-1, size].
template <typename T>
Sample<T> bilinear_sample(T y, T x, int64_t H, int64_t W) {
    Sample<T> s;
    // NaN fails every comparison: written so that it lands here too.
    if (!(y >= T(-1) && y <= T(H) && x >= T(-1) && x <= T(W))) return s;
    y = std::max(y, T(0));
    x = std::max(x, T(0));
    int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= H - 1) {
        y0 = y1 = H - 1;
        y = T(y0);
    }
    if (x0 >= W - 1) {
        x0 = x1 = W - 1;
        x = T(x0);
    }
    const T ly = y - T(y0), lx = x - T(x0), hy = T(1) - ly, hx = T(1) - lx;
    s.at = {y0 * W + x0, y0 * W + x1, y1 * W + x0, y1 * W + x1};
    s.w = {hy * hx, hy * lx, ly * hx, ly * lx};
    return s;
}

template <typename T>
void roi_align(const Node& n, const RoiAlignAttrs& a, const Tensor& data, const Tensor& rois,
               const std::vector<int64_t>& batch, Tensor& out) {
    const int64_t N = data.shape()[0], C = data.shape()[1], H = data.shape()[2], W = data.shape()[3];
    const int64_t R = rois.shape()[0], PH = a.pooled_h, PW = a.pooled_w;
    const T* d = data.data<T>();
    const T* r = rois.data<T>();
    T* o = out.mutable_data<T>();
    const T scale = static_cast<T>(static_cast<float>(a.spatial_scale));  // an f32 attribute in the IR
    // asymmetric: x * scale; half_pixel_for_nn: x * scale - 0.5; half_pixel: (x + 0.5) * scale - 0.5.
    const T src_offset = a.aligned_mode == "half_pixel" ? T(0.5) : T(0);
    const T dst_offset = a.aligned_mode == "asymmetric" ? T(0) : T(-0.5);
    for (int64_t k = 0; k < R; ++k) {
        const int64_t b = batch[size_t(k)];
        if (b < 0 || b >= N)
            throw Error("batch index " + std::to_string(b) + " of ROI " + std::to_string(k) + " is outside [0, " +
                            std::to_string(N) + ")",
                        n.describe());
        auto coord = [&](int64_t i) { return (r[k * 4 + i] + src_offset) * scale + dst_offset; };
        const T x1 = coord(0), y1 = coord(1);
        T roi_w = coord(2) - x1, roi_h = coord(3) - y1;
        if (a.aligned_mode == "asymmetric") {  // malformed boxes become 1 x 1
            roi_w = std::max(roi_w, T(1));
            roi_h = std::max(roi_h, T(1));
        }
        const T bin_w = roi_w / T(PW), bin_h = roi_h / T(PH);
        const int64_t grid_w = a.sampling_ratio ? a.sampling_ratio : saturate_cast<int64_t>(std::ceil(bin_w));
        const int64_t grid_h = a.sampling_ratio ? a.sampling_ratio : saturate_cast<int64_t>(std::ceil(bin_h));
        if (grid_w < 0 || grid_h < 0)
            throw Error("ROI " + std::to_string(k) + " has a negative extent", n.describe(),
                        "with aligned_mode other than asymmetric, x2 >= x1 and y2 >= y1 are required");
        // A huge box sampled adaptively (sampling_ratio 0) makes a huge grid: charged before it is built.
        EvalBudget::charge_operations(saturating_product({PH, PW, grid_h, grid_w, std::max<int64_t>(C, 1)}),
                                      "the RoiAlign samples");
        const int64_t count = grid_w * grid_h;
        const T step_w = bin_w / T(grid_w), step_h = bin_h / T(grid_h);
        if (H == 0 || W == 0) continue;  // no sample: the bins keep allocate()'s zeros
        // Samples are computed where they are used, not stored: a grid may be larger than memory.
        for (int64_t c = 0; c < C; ++c) {
            const T* plane = d + (b * C + c) * H * W;
            for (int64_t ph = 0; ph < PH; ++ph)
                for (int64_t pw = 0; pw < PW; ++pw) {
                    T pooled = 0;
                    for (int64_t iy = 0; iy < grid_h; ++iy) {
                        const T y = y1 + T(ph) * bin_h + step_h * (T(iy) + T(0.5));
                        for (int64_t ix = 0; ix < grid_w; ++ix) {
                            const Sample<T> s = bilinear_sample(y, x1 + T(pw) * bin_w + step_w * (T(ix) + T(0.5)), H, W);
                            const T v = s.w[0] * plane[s.at[0]] + s.w[1] * plane[s.at[1]] + s.w[2] * plane[s.at[2]] +
                                        s.w[3] * plane[s.at[3]];
                            if (a.max_mode) pooled = std::max(pooled, v);
                            else pooled += v / T(count);
                        }
                    }
                    o[(k * C + c) * PH * PW + ph * PW + pw] = pooled;
                }
        }
    }
}

std::vector<Tensor> eval_roi_align(const Node& n, const std::vector<Tensor>& in) {
    const RoiAlignAttrs a = roi_align_attrs(n);
    const Tensor& data = in.at(0);
    const Tensor& rois = in.at(1);
    const Tensor& batch = in.at(2);
    if (data.shape().size() != 4 || rois.shape().size() != 2 || rois.shape()[1] != 4 || batch.shape().size() != 1 ||
        batch.shape()[0] != rois.shape()[0])
        throw Error("ROIAlign needs data [N, C, H, W], rois [R, 4] and batch_indices [R]", n.describe());
    if (rois.type() != data.type()) throw Error("rois must have the type of the data", n.describe());
    if (!is_integral(batch.type())) throw Error("batch_indices must be integers", n.describe());
    Tensor out = Tensor::allocate(data.type(), {rois.shape()[0], data.shape()[1], a.pooled_h, a.pooled_w});
    const std::vector<int64_t> indices = batch.to_i64();
    switch (data.type()) {
    case ElementType::f32: roi_align<float>(n, a, data, rois, indices, out); break;
    case ElementType::f64: roi_align<double>(n, a, data, rois, indices, out); break;
    default: throw Error("ROIAlign evaluates floating-point data only", n.describe());
    }
    return {out};
}

void infer_roi_align(InferContext& c) {
    RoiAlignAttrs a{};
    try {
        a = roi_align_attrs(c.node);
    } catch (const Error& e) {
        c.fail(e.what_part(), e.hint());
    }
    const ElementType type = c.in_type(0);
    if (type != ElementType::dynamic && !is_float(type)) c.fail("the data must be floating-point");
    if (c.in_type(1) != ElementType::dynamic && type != ElementType::dynamic && c.in_type(1) != type)
        c.fail("rois must have the type of the data");
    if (c.in_type(2) != ElementType::dynamic && !is_integral(c.in_type(2))) c.fail("batch_indices must be integers");
    const PartialShape& data = c.in_shape(0);
    const PartialShape& rois = c.in_shape(1);
    const PartialShape& batch = c.in_shape(2);
    if (data.rank_is_static() && data.rank() != 4) c.fail("the data must be 4D [N, C, H, W]");
    if (rois.rank_is_static() && (rois.rank() != 2 || !rois[1].compatible(4))) c.fail("rois must be [NUM_ROIS, 4]");
    if (batch.rank_is_static() && batch.rank() != 1) c.fail("batch_indices must be 1D");
    Dimension num_rois = rois.rank_is_static() ? rois[0] : Dimension();
    if (batch.rank_is_static()) {
        if (!num_rois.compatible(batch[0])) c.fail("rois and batch_indices disagree on the number of ROIs");
        num_rois = Dimension::merge(num_rois, batch[0]);
    }
    const Dimension channels = data.rank_is_static() ? data[1] : Dimension();
    c.set_output(0, type, PartialShape{num_rois, channels, a.pooled_h, a.pooled_w});
}

}  // namespace

void register_roi_align_ops(OpRegistry& r) {
    OpSchema s = make_schema("ROIAlign", "ROIAlign", "opset9", 3, 3, 1,
                             {{"pooled_h", AttrKind::Int, {}},
                              {"pooled_w", AttrKind::Int, {}},
                              {"sampling_ratio", AttrKind::Int, {}},
                              {"spatial_scale", AttrKind::Float, {}},
                              {"mode", AttrKind::String, {}},
                              {"aligned_mode", AttrKind::String, std::string("asymmetric")}});
    s.infer = infer_roi_align;
    s.eval = half_via_f32(eval_roi_align);
    r.add(std::move(s));
}

}  // namespace mo
