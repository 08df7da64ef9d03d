// Convolution-1, GroupConvolution-1, ConvolutionBackpropData-1, GroupConvolutionBackpropData-1.
// One table row per op: whether the weights carry a leading group axis and whether the op is
// the transposed (backprop data) convolution. Evaluation is im2col / col2im around a blocked
// GEMM, with 1D and 2D treated as 3D with unit leading spatial axes.
#include <algorithm>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

struct ConvKind {
    const char* type;
    bool grouped;
    bool backprop;
};

constexpr ConvKind kConvKinds[] = {
    {"Convolution", false, false},
    {"GroupConvolution", true, false},
    {"ConvolutionBackpropData", false, true},
    {"GroupConvolutionBackpropData", true, true},
};

// The spatial attributes, checked against each other.
struct ConvAttrs {
    std::vector<int64_t> strides, dilations, pads_begin, pads_end, output_padding;
    std::string auto_pad;
    size_t spatial = 0;
};

ConvAttrs read_attrs(const Node& n, bool backprop) {
    ConvAttrs a;
    a.strides = n.attr<std::vector<int64_t>>("strides");
    a.dilations = n.attr<std::vector<int64_t>>("dilations");
    a.pads_begin = n.attr<std::vector<int64_t>>("pads_begin");
    a.pads_end = n.attr<std::vector<int64_t>>("pads_end");
    a.auto_pad = n.attr<std::string>("auto_pad");
    if (backprop) a.output_padding = n.attr<std::vector<int64_t>>("output_padding");
    a.spatial = a.strides.size();
    auto where = n.describe();
    if (a.spatial < 1 || a.spatial > 3)
        throw Error("strides must have 1 to 3 values (one per spatial axis)", where);
    if (a.dilations.size() != a.spatial) throw Error("dilations and strides differ in length", where);
    // With auto_pad the pads are computed; an empty list is then acceptable.
    for (auto* pads : {&a.pads_begin, &a.pads_end}) {
        if (pads->empty() && a.auto_pad != "explicit") pads->assign(a.spatial, 0);
        if (pads->size() != a.spatial) throw Error("pads_begin/pads_end must have one value per spatial axis", where);
    }
    if (a.output_padding.empty()) a.output_padding.assign(a.spatial, 0);
    if (a.output_padding.size() != a.spatial) throw Error("output_padding must have one value per spatial axis", where);
    for (size_t i = 0; i < a.spatial; ++i) {
        if (a.strides[i] < 1 || a.dilations[i] < 1) throw Error("strides and dilations must be positive", where);
        if (a.pads_begin[i] < 0 || a.pads_end[i] < 0 || a.output_padding[i] < 0)
            throw Error("pads must not be negative", where);
    }
    if (a.auto_pad != "explicit" && a.auto_pad != "valid" && a.auto_pad != "same_upper" && a.auto_pad != "same_lower")
        throw Error("unknown auto_pad '" + a.auto_pad + "'", where, "use explicit, valid, same_upper or same_lower");
    return a;
}

WindowAxis axis_of(const ConvAttrs& a, size_t i, int64_t kernel) {
    return WindowAxis{kernel, a.strides[i], a.dilations[i], a.pads_begin[i], a.pads_end[i]};
}

// Transposed convolution along one axis: the window geometry (pads resolved) and the output
// extent. `requested` is the output_shape input's value for this axis, or -1.
struct BackpropAxis {
    WindowAxis w;
    int64_t out = 0;
};

BackpropAxis backprop_axis(const ConvAttrs& a, size_t i, int64_t kernel, int64_t in, int64_t requested) {
    BackpropAxis r{axis_of(a, i, kernel), 0};
    const int64_t full = fit_int64(__int128{r.w.stride} * (in - 1) + r.w.effective_kernel() + a.output_padding[i],
                                   "the transposed convolution's output extent");
    if (requested >= 0) {
        // The spec: pads follow from the requested extent; same_upper gives the odd one to the
        // start, every other auto_pad (explicit included) to the end.
        r.out = requested;
        const int64_t total = std::max<int64_t>(0, full - requested);
        r.w.pad_end = a.auto_pad == "same_upper" ? total / 2 : total - total / 2;
        r.w.pad_begin = total - r.w.pad_end;
        return r;
    }
    if (a.auto_pad != "explicit") r.w.pad_begin = r.w.pad_end = 0;  // the spec: auto_pad means no pads here
    r.out = fit_int64(__int128{full} - r.w.pad_begin - r.w.pad_end, "the transposed convolution's output extent");
    return r;
}

ElementType merged_type(const InferContext& c, size_t a, size_t b) {
    ElementType ta = c.in_type(a), tb = c.in_type(b);
    if (ta == ElementType::dynamic) return tb;
    if (tb != ElementType::dynamic && ta != tb)
        c.fail("data and weights have different element types (" + std::string(ir_name(ta)) + " and " +
                   std::string(ir_name(tb)) + ")",
               "insert a Convert so both inputs have the same type");
    return ta;
}

void check_channels(const InferContext& c, const Dimension& data_c, const Dimension& weights_c) {
    if (!data_c.compatible(weights_c))
        c.fail("input has " + data_c.to_string() + " channels but the weights expect " + weights_c.to_string());
}

void infer_conv(InferContext& c, const ConvKind& kind) {
    const ConvAttrs a = read_attrs(c.node, kind.backprop);
    const ElementType type = merged_type(c, 0, 1);
    const PartialShape& data = c.in_shape(0);
    const PartialShape& weights = c.in_shape(1);
    const size_t rank = a.spatial + 2;
    const size_t weights_rank = rank + (kind.grouped ? 1 : 0);
    if (data.rank_is_static() && data.rank() != rank)
        c.fail("input rank " + std::to_string(data.rank()) + " does not match " + std::to_string(a.spatial) +
               " spatial axes in strides");
    if (weights.rank_is_static() && weights.rank() != weights_rank)
        c.fail("weights rank " + std::to_string(weights.rank()) + " should be " + std::to_string(weights_rank));

    PartialShape out = PartialShape::dynamic(rank);
    const PartialShape d = data.rank_is_static() ? data : PartialShape::dynamic(rank);
    const PartialShape w = weights.rank_is_static() ? weights : PartialShape::dynamic(weights_rank);
    out[0] = d[0];
    // Channel bookkeeping: (input channels the weights expect, output channels).
    Dimension in_c, out_c;
    if (!kind.grouped && !kind.backprop) in_c = w[1], out_c = w[0];
    if (kind.grouped && !kind.backprop) in_c = w[0] * w[2], out_c = w[0] * w[1];
    if (!kind.grouped && kind.backprop) in_c = w[0], out_c = w[1];
    if (kind.grouped && kind.backprop) in_c = w[0] * w[1], out_c = w[0] * w[2];
    if (kind.grouped && w[0].is_static() && d[1].is_static() && w[0].get_length() > 0 &&
        d[1].get_length() % w[0].get_length() != 0)
        c.fail("input channels " + d[1].to_string() + " are not divisible by " + w[0].to_string() + " groups");
    check_channels(c, d[1], in_c);
    out[1] = out_c;

    const size_t kernel_offset = weights_rank - a.spatial;
    std::vector<int64_t> requested(a.spatial, -1);
    bool output_shape_unknown = false;
    if (kind.backprop && c.has_input(2)) {
        if (const Tensor* v = c.in_value(2)) {
            requested = v->to_i64();
            if (requested.size() != a.spatial)
                c.fail("output_shape has " + std::to_string(requested.size()) + " values for " +
                       std::to_string(a.spatial) + " spatial axes");
            for (int64_t r : requested)
                if (r < 0) c.fail("output_shape values must not be negative");
        } else {
            output_shape_unknown = true;
        }
    }
    for (size_t i = 0; i < a.spatial; ++i) {
        const Dimension& in = d[2 + i];
        const Dimension& k = w[kernel_offset + i];
        if (!kind.backprop) {
            if (k.is_static()) {
                if (k.get_length() < 1) c.fail("kernel extents must be positive");
                out[2 + i] = window_output_dim(axis_of(a, i, k.get_length()), a.auto_pad, in, false);
                if (out[2 + i].is_static() && out[2 + i].get_length() < 1)
                    c.fail("the kernel (with dilations) is larger than the padded input along spatial axis " +
                           std::to_string(i));
            }
            continue;
        }
        if (requested[i] >= 0) {
            out[2 + i] = requested[i];
        } else if (!output_shape_unknown && k.is_static()) {
            auto extent = [&](int64_t e) { return backprop_axis(a, i, k.get_length(), e, -1).out; };
            if (in.is_static()) {
                if (extent(in.get_length()) < 1)
                    c.fail("the padding removes the whole output along spatial axis " + std::to_string(i));
                out[2 + i] = extent(in.get_length());
            } else {
                // Monotonic in the input extent: map the interval's bounds.
                const int64_t lo = in.min() >= 1 ? std::max<int64_t>(0, extent(in.min())) : 0;
                out[2 + i] = Dimension(lo, in.max() == Dimension::kUnbounded ? Dimension::kUnbounded : extent(in.max()));
            }
        }
    }
    c.set_output(0, type, out);
}

// Up to three spatial axes, padded with unit axes in front so every case runs as 3D.
struct Geometry3 {
    int64_t in[3], out[3];
    WindowAxis w[3];
};

// Forward convolution of one image and one group through im2col + GEMM.
template <typename T>
void conv_group(const T* x, int64_t channels, const Geometry3& g, const T* weights, int64_t out_channels, T* y,
                std::vector<T>& cols) {
    const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
    const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
    const int64_t ksize = g.w[0].kernel * g.w[1].kernel * g.w[2].kernel;
    bool pointwise = ksize == 1;
    for (const auto& w : g.w) pointwise = pointwise && w.stride == 1 && w.pad_begin == 0;
    const T* rhs = x;
    if (!pointwise || out_plane != in_plane) {
        cols.assign(static_cast<size_t>(channels * ksize * out_plane), T{});
        T* col = cols.data();
        for (int64_t ch = 0; ch < channels; ++ch) {
            const T* plane = x + ch * in_plane;
            for (int64_t kd = 0; kd < g.w[0].kernel; ++kd)
                for (int64_t kh = 0; kh < g.w[1].kernel; ++kh)
                    for (int64_t kw = 0; kw < g.w[2].kernel; ++kw, col += out_plane) {
                        T* dst = col;
                        for (int64_t od = 0; od < g.out[0]; ++od) {
                            const int64_t id = od * g.w[0].stride - g.w[0].pad_begin + kd * g.w[0].dilation;
                            if (id < 0 || id >= g.in[0]) {
                                dst += g.out[1] * g.out[2];
                                continue;
                            }
                            for (int64_t oh = 0; oh < g.out[1]; ++oh, dst += g.out[2]) {
                                const int64_t ih = oh * g.w[1].stride - g.w[1].pad_begin + kh * g.w[1].dilation;
                                if (ih < 0 || ih >= g.in[1]) continue;
                                const T* row = plane + (id * g.in[1] + ih) * g.in[2];
                                for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                                    const int64_t iw = ow * g.w[2].stride - g.w[2].pad_begin + kw * g.w[2].dilation;
                                    if (iw >= 0 && iw < g.in[2]) dst[ow] = row[iw];
                                }
                            }
                        }
                    }
        }
        rhs = cols.data();
    }
    gemm<T>(out_channels, out_plane, channels * ksize, weights, channels * ksize, false, rhs, out_plane, false, y,
            out_plane, false);
}

// Transposed convolution of one image and one group: GEMM into columns, then scatter-add.
template <typename T>
void backprop_group(const T* x, int64_t channels, const Geometry3& g, const T* weights, int64_t out_channels, T* y,
                    std::vector<T>& cols) {
    const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
    const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
    const int64_t ksize = g.w[0].kernel * g.w[1].kernel * g.w[2].kernel;
    cols.assign(static_cast<size_t>(out_channels * ksize * in_plane), T{});
    // weights: [channels, out_channels * ksize]; cols = weights^T * x
    gemm<T>(out_channels * ksize, in_plane, channels, weights, out_channels * ksize, true, x, in_plane, false,
            cols.data(), in_plane, false);
    std::fill(y, y + out_channels * out_plane, T{});
    const T* col = cols.data();
    for (int64_t oc = 0; oc < out_channels; ++oc) {
        T* plane = y + oc * out_plane;
        for (int64_t kd = 0; kd < g.w[0].kernel; ++kd)
            for (int64_t kh = 0; kh < g.w[1].kernel; ++kh)
                for (int64_t kw = 0; kw < g.w[2].kernel; ++kw, col += in_plane) {
                    const T* src = col;
                    for (int64_t id = 0; id < g.in[0]; ++id) {
                        const int64_t od = id * g.w[0].stride - g.w[0].pad_begin + kd * g.w[0].dilation;
                        for (int64_t ih = 0; ih < g.in[1]; ++ih) {
                            const int64_t oh = ih * g.w[1].stride - g.w[1].pad_begin + kh * g.w[1].dilation;
                            const bool row_ok = od >= 0 && od < g.out[0] && oh >= 0 && oh < g.out[1];
                            for (int64_t iw = 0; iw < g.in[2]; ++iw, ++src) {
                                if (!row_ok) continue;
                                const int64_t ow = iw * g.w[2].stride - g.w[2].pad_begin + kw * g.w[2].dilation;
                                if (ow >= 0 && ow < g.out[2]) plane[(od * g.out[1] + oh) * g.out[2] + ow] += *src;
                            }
                        }
                    }
                }
    }
}

std::vector<Tensor> eval_conv(const Node& n, const std::vector<Tensor>& inputs, const ConvKind& kind) {
    const ConvAttrs a = read_attrs(n, kind.backprop);
    const Tensor& x = inputs.at(0);
    const Tensor& w = inputs.at(1);
    const Shape& xs = x.shape();
    const Shape& ws = w.shape();
    const size_t rank = a.spatial + 2, wrank = rank + (kind.grouped ? 1 : 0);
    if (xs.size() != rank || ws.size() != wrank) throw Error("input ranks do not match strides", n.describe());
    const int64_t groups = kind.grouped ? ws[0] : 1;
    const size_t wo = kind.grouped ? 1 : 0;  // weights axis offset past the group axis
    const int64_t in_c = kind.backprop ? ws[wo] : ws[wo + 1];
    const int64_t out_c = kind.backprop ? ws[wo + 1] : ws[wo];
    if (groups < 1 || xs[1] != groups * in_c) throw Error("input channels do not match the weights", n.describe());
    std::vector<int64_t> requested(a.spatial, -1);
    if (kind.backprop && inputs.size() > 2 && !inputs[2].empty()) {
        requested = inputs[2].to_i64();
        if (requested.size() != a.spatial) throw Error("output_shape has the wrong length", n.describe());
    }

    Geometry3 g;
    for (int i = 0; i < 3; ++i) g.in[i] = g.out[i] = 1;
    const size_t lead = 3 - a.spatial;
    for (size_t i = 0; i < a.spatial; ++i) {
        const int64_t in = xs[2 + i], k = ws[wrank - a.spatial + i];
        if (kind.backprop) {
            auto r = backprop_axis(a, i, k, in, requested[i]);
            g.w[lead + i] = r.w;
            g.out[lead + i] = r.out;
        } else {
            WindowAxis wa = axis_of(a, i, k);
            resolve_auto_pad(wa, a.auto_pad, in);
            g.w[lead + i] = wa;
            g.out[lead + i] = window_output_extent(wa, in, false);
        }
        g.in[lead + i] = in;
        if (g.out[lead + i] < 1 || k < 1) throw Error("empty convolution output", n.describe());
    }
    Shape out_shape{xs[0], groups * out_c};
    for (size_t i = 0; i < a.spatial; ++i) out_shape.push_back(g.out[lead + i]);
    // Every (output or, for backprop, input) position meets every weight of its group once.
    const int64_t positions = kind.backprop ? shape_size(xs) : shape_size(out_shape);
    EvalBudget::charge_operations(
        saturating_product({positions, kind.backprop ? out_c : in_c, g.w[0].kernel, g.w[1].kernel, g.w[2].kernel}),
        "the convolution");

    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        if (in[0].type() != in[1].type()) throw Error("data and weights types differ", n.describe());
        Tensor y = Tensor::allocate(in[0].type(), out_shape);
        dispatch_type(in[0].type(), [&]<typename T>() {
            const T* xd = in[0].data<T>();
            const T* wd = in[1].data<T>();
            T* yd = y.mutable_data<T>();
            const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
            const int64_t ksize = g.w[0].kernel * g.w[1].kernel * g.w[2].kernel;
            const int64_t group_weights = in_c * out_c * ksize;
            std::vector<T> cols;
            for (int64_t b = 0; b < xs[0]; ++b)
                for (int64_t gi = 0; gi < groups; ++gi) {
                    const T* xg = xd + (b * groups + gi) * in_c * in_plane;
                    T* yg = yd + (b * groups + gi) * out_c * out_plane;
                    if (kind.backprop) backprop_group(xg, in_c, g, wd + gi * group_weights, out_c, yg, cols);
                    else conv_group(xg, in_c, g, wd + gi * group_weights, out_c, yg, cols);
                }
        }, false);
        return std::vector<Tensor>{y};
    });
}

std::vector<AttrSpec> conv_attrs(bool backprop) {
    std::vector<AttrSpec> attrs = {
        {"strides", AttrKind::Ints, {}},
        {"dilations", AttrKind::Ints, {}},
        {"pads_begin", AttrKind::Ints, {}},
        {"pads_end", AttrKind::Ints, {}},
        {"auto_pad", AttrKind::String, std::string("explicit")},
    };
    if (backprop) attrs.push_back({"output_padding", AttrKind::Ints, std::vector<int64_t>{}});
    return attrs;
}

}  // namespace

void register_convolution_ops(OpRegistry& r) {
    for (const ConvKind& kind : kConvKinds) {
        r.add(OpSchema{
            .type = kind.type, .ir_type = kind.type, .ir_version = "opset1",
            .min_inputs = 2, .max_inputs = kind.backprop ? 3u : 2u, .num_outputs = 1,
            .attrs = conv_attrs(kind.backprop),
            .infer = [kind](InferContext& c) { infer_conv(c, kind); },
            .eval = [kind](const Node& n, const std::vector<Tensor>& in) { return eval_conv(n, in, kind); },
        });
    }
}

}  // namespace mo
