// GridSample-9: output[n, c, y, x] samples data[n, c] at the normalised point grid[n, y, x] =
// (x, y) in [-1, 1] (align_corners: -1 and 1 are the centres of the corner pixels, otherwise their
// outer edges), by bilinear, bicubic (A = -0.75) or nearest (half to even) interpolation. Taps
// outside the map read 0 (zeros), the nearest edge pixel (border) or the pixel mirrored about the
// edge (reflection: about the corner centres with align_corners, their outer edges otherwise),
// as OpenVINO's reference pads each integer tap.
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

enum class Interp { bilinear, bicubic, nearest };
enum class Padding { zeros, border, reflection };

struct GridSampleAttrs {
    bool align_corners;
    Interp mode;
    Padding padding;
};

GridSampleAttrs grid_sample_attrs(const Node& n) {
    GridSampleAttrs a{n.attr<bool>("align_corners"), Interp::bilinear, Padding::zeros};
    const auto mode = n.attr<std::string>("mode");
    if (mode == "bicubic") a.mode = Interp::bicubic;
    else if (mode == "nearest") a.mode = Interp::nearest;
    else if (mode != "bilinear") throw Error("unknown mode '" + mode + "'", n.describe(), "use bilinear, bicubic or nearest");
    const auto padding = n.attr<std::string>("padding_mode");
    if (padding == "border") a.padding = Padding::border;
    else if (padding == "reflection") a.padding = Padding::reflection;
    else if (padding != "zeros")
        throw Error("unknown padding_mode '" + padding + "'", n.describe(), "use zeros, border or reflection");
    return a;
}

// The tap index inside [0, size), or -1 for a zero (zeros padding only).
int64_t pad_index(int64_t i, int64_t size, Padding p, bool align_corners) {
    if (size == 0) return -1;  // an empty axis has no tap to pad from: zeros
    if (i >= 0 && i < size) return i;
    switch (p) {
    case Padding::zeros: return -1;
    case Padding::border: return i < 0 ? 0 : size - 1;
    case Padding::reflection:
        if (align_corners) {  // mirror about 0 and size - 1: period 2 (size - 1)
            const int64_t period = size == 1 ? 1 : 2 * (size - 1);
            i = std::llabs(i) % period;
            return i >= size ? period - i : i;
        } else {  // mirror about -0.5 and size - 0.5: period 2 size
            const int64_t period = 2 * size;
            i = (i % period + period) % period;
            return i >= size ? period - 1 - i : i;
        }
    }
    return -1;
}

// Cubic convolution weights of the taps at -1, 0, 1, 2 for fraction t (A = -0.75).
std::array<double, 4> cubic_weights(double t) {
    constexpr double A = -0.75;
    auto near = [](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };        // |x| <= 1
    auto far = [](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };   // 1 < |x| < 2
    return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

template <typename T, typename G>
void grid_sample(const GridSampleAttrs& a, const Tensor& data, const Tensor& grid, Tensor& out) {
    const int64_t N = data.shape()[0], C = data.shape()[1], H = data.shape()[2], W = data.shape()[3];
    const int64_t HO = grid.shape()[1], WO = grid.shape()[2];
    const T* d = data.data<T>();
    const G* g = grid.data<G>();
    T* o = out.mutable_data<T>();
    // Normalised [-1, 1] to pixel coordinates, in the grid's type as OpenVINO does.
    auto denormalize = [&](G v, int64_t size) -> G {
        return a.align_corners ? (v + 1) * (G(size) - 1) / 2 : ((v + 1) * G(size) - 1) / 2;
    };
    for (int64_t n = 0; n < N; ++n)
        for (int64_t p = 0; p < HO * WO; ++p) {
            const G* point = g + (n * HO * WO + p) * 2;
            const double y = denormalize(point[1], H), x = denormalize(point[0], W);
            for (int64_t c = 0; c < C; ++c) {
                const T* plane = d + (n * C + c) * H * W;
                auto at = [&](int64_t iy, int64_t ix) -> double {
                    iy = pad_index(iy, H, a.padding, a.align_corners);
                    ix = pad_index(ix, W, a.padding, a.align_corners);
                    return iy < 0 || ix < 0 ? 0.0 : static_cast<double>(plane[iy * W + ix]);
                };
                double v = 0;
                if (a.mode == Interp::nearest) {
                    v = at(saturate_cast<int64_t>(std::nearbyint(y)), saturate_cast<int64_t>(std::nearbyint(x)));
                } else {
                    const double fy = std::floor(y), fx = std::floor(x), ty = y - fy, tx = x - fx;
                    const int64_t y0 = saturate_cast<int64_t>(fy), x0 = saturate_cast<int64_t>(fx);
                    if (a.mode == Interp::bilinear) {
                        const double top = (1 - tx) * at(y0, x0) + tx * at(y0, x0 + 1);
                        const double bottom = (1 - tx) * at(y0 + 1, x0) + tx * at(y0 + 1, x0 + 1);
                        v = ty * bottom + (1 - ty) * top;
                    } else {
                        const auto wy = cubic_weights(ty), wx = cubic_weights(tx);
                        for (int64_t j = 0; j < 4; ++j) {
                            double row = 0;
                            for (int64_t i = 0; i < 4; ++i) row += wx[size_t(i)] * at(y0 - 1 + j, x0 - 1 + i);
                            v += wy[size_t(j)] * row;
                        }
                    }
                }
                o[(n * C + c) * HO * WO + p] = static_cast<T>(v);
            }
        }
}

std::vector<Tensor> eval_grid_sample(const Node& n, const std::vector<Tensor>& in) {
    const GridSampleAttrs a = grid_sample_attrs(n);
    const Tensor& data = in.at(0);
    const Tensor& grid = in.at(1);
    const Shape& ds = data.shape();
    const Shape& gs = grid.shape();
    if (ds.size() != 4 || gs.size() != 4 || gs[3] != 2 || gs[0] != ds[0])
        throw Error("GridSample needs data [N, C, H, W] and grid [N, H_out, W_out, 2]", n.describe());
    Tensor out = Tensor::allocate(data.type(), {ds[0], ds[1], gs[1], gs[2]});
    auto with_grid = [&]<typename T>() {
        if (grid.type() == ElementType::f32) grid_sample<T, float>(a, data, grid, out);
        else if (grid.type() == ElementType::f64) grid_sample<T, double>(a, data, grid, out);
        else throw Error("the grid must be floating-point", n.describe());
    };
    if (data.type() == ElementType::f32) with_grid.operator()<float>();
    else if (data.type() == ElementType::f64) with_grid.operator()<double>();
    else throw Error("GridSample evaluates floating-point data only", n.describe());
    return {out};
}

void infer_grid_sample(InferContext& c) {
    try {
        grid_sample_attrs(c.node);
    } catch (const Error& e) {
        c.fail(e.what_part(), e.hint());
    }
    if (c.in_type(1) != ElementType::dynamic && !is_float(c.in_type(1))) c.fail("the grid must be floating-point");
    const PartialShape& data = c.in_shape(0);
    const PartialShape& grid = c.in_shape(1);
    if (data.rank_is_static() && data.rank() != 4) c.fail("the data must be 4D [N, C, H, W]");
    if (grid.rank_is_static() && (grid.rank() != 4 || !grid[3].compatible(2)))
        c.fail("the grid must be [N, H_out, W_out, 2]");
    PartialShape out = PartialShape::dynamic(4);
    if (data.rank_is_static()) {
        out[0] = data[0];
        out[1] = data[1];
    }
    if (grid.rank_is_static()) {
        if (!out[0].compatible(grid[0])) c.fail("the data and the grid disagree on the batch size");
        out[0] = Dimension::merge(out[0], grid[0]);
        out[2] = grid[1];
        out[3] = grid[2];
    }
    c.set_output(0, c.in_type(0), out);
}

}  // namespace

void register_grid_sample_ops(OpRegistry& r) {
    OpSchema s = make_schema("GridSample", "GridSample", "opset9", 2, 2, 1,
                             {{"align_corners", AttrKind::Bool, false},
                              {"mode", AttrKind::String, std::string("bilinear")},
                              {"padding_mode", AttrKind::String, std::string("zeros")}});
    s.infer = infer_grid_sample;
    s.eval = half_via_f32(eval_grid_sample);
    r.add(std::move(s));
}

}  // namespace mo
