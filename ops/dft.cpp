// DFT-7, IDFT-7 and RDFT-9: discrete Fourier transforms over `axes`, complex numbers as a
// trailing dimension of 2 (real, imaginary). `signal_size` trims or zero-pads each transformed
// axis first (-1 keeps it). IDFT divides by the product of the transformed lengths; RDFT takes a
// real input and keeps the first n/2 + 1 bins of its last transformed axis. Evaluation is the
// direct sum of the spec in double, one axis after the other. STFT-15 below.
#include <cmath>
#include <complex>
#include <numbers>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {

namespace {

enum class Kind { Forward, Inverse, Real };

// Axes normalised against the rank without the complex dimension.
std::vector<int64_t> transform_axes(const Tensor& axes, int64_t signal_rank, const std::string& where) {
    std::vector<int64_t> out;
    for (int64_t a : axes.to_i64()) {
        if (a < -signal_rank || a >= signal_rank)
            throw Error("axis " + std::to_string(a) + " is outside the signal's rank " + std::to_string(signal_rank), where);
        out.push_back(a < 0 ? a + signal_rank : a);
    }
    return out;
}

void infer_dft(InferContext& c, Kind kind) {
    const PartialShape& in = c.in_shape(0);
    if (!in.rank_is_static()) return c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
    PartialShape out = in;
    if (kind == Kind::Real) out.dims().push_back(Dimension(2));
    else if (in.rank() < 2 || !in[in.rank() - 1].compatible(Dimension(2))) c.fail("the last dimension must be 2 (real, imaginary)");
    const auto signal_rank = static_cast<int64_t>(out.rank()) - 1;
    const Tensor* axes = c.in_value(1);
    if (!axes) {
        for (int64_t d = 0; d < signal_rank; ++d) out[static_cast<size_t>(d)] = Dimension::dynamic();
        return c.set_output(0, c.in_type(0), out);
    }
    const auto a = transform_axes(*axes, signal_rank, c.node.describe());
    const Tensor* sizes = c.in_value(2);
    if (c.has_input(2) && !sizes)
        for (int64_t d : a) out[static_cast<size_t>(d)] = Dimension::dynamic();
    if (sizes) {
        const auto s = sizes->to_i64();
        if (s.size() != a.size()) c.fail("signal_size has " + std::to_string(s.size()) + " values for " + std::to_string(a.size()) + " axes");
        for (size_t i = 0; i < a.size(); ++i) {
            if (s[i] < 1 && s[i] != -1) c.fail("signal_size " + std::to_string(s[i]) + " is neither positive nor -1");
            if (s[i] != -1) out[static_cast<size_t>(a[i])] = Dimension(s[i]);
        }
    }
    if (kind == Kind::Real && !a.empty()) {
        Dimension& last = out[static_cast<size_t>(a.back())];
        last = last.is_static() ? Dimension(last.get_length() / 2 + 1) : Dimension::dynamic();
    }
    c.set_output(0, c.in_type(0), out);
}

std::vector<Tensor> evaluate_dft(const Node& n, const std::vector<Tensor>& inputs, Kind kind) {
    const Tensor& data = inputs.at(0);
    Shape shape = data.shape();  // without the complex dimension
    if (kind != Kind::Real) shape.pop_back();
    const auto rank = static_cast<int64_t>(shape.size());
    const auto axes = transform_axes(inputs.at(1), rank, n.describe());
    std::vector<int64_t> sizes(axes.size(), -1);
    if (inputs.size() > 2 && !inputs[2].empty()) sizes = inputs[2].to_i64();
    if (sizes.size() != axes.size()) throw Error("signal_size must have one value per axis", n.describe());
    for (int64_t s : sizes)
        if (s < 1 && s != -1) throw Error("signal_size " + std::to_string(s) + " is neither positive nor -1", n.describe());
    const auto values = data.convert(ElementType::f64).to_f64();
    std::vector<std::complex<double>> x(values.size() / (kind == Kind::Real ? 1 : 2));
    for (size_t i = 0; i < x.size(); ++i)
        x[i] = kind == Kind::Real ? std::complex<double>(values[i], 0) : std::complex<double>(values[2 * i], values[2 * i + 1]);
    double scale = 1;
    for (size_t k = 0; k < axes.size(); ++k) {
        const size_t axis = static_cast<size_t>(axes[k]);
        const int64_t in_len = shape[axis], len = sizes[k] == -1 ? in_len : sizes[k];
        Shape out_shape = shape;
        out_shape[axis] = len;
        int64_t outer = 1, inner = 1;
        for (size_t d = 0; d < axis; ++d) outer *= shape[d];
        for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
        const int64_t used = std::min(in_len, len);  // trimmed, or zero-padded beyond in_len
        EvalBudget::charge_operations(saturating_product({outer, inner, len, used}), "the DFT");
        std::vector<std::complex<double>> y(static_cast<size_t>(outer * len * inner));
        const double sign = kind == Kind::Inverse ? 1.0 : -1.0;
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i)
                for (int64_t m = 0; m < len; ++m) {
                    std::complex<double> sum = 0;
                    for (int64_t j = 0; j < used; ++j) {
                        const double angle = sign * 2 * std::numbers::pi * static_cast<double>((m * j) % len) / static_cast<double>(len);
                        sum += x[static_cast<size_t>((o * in_len + j) * inner + i)] * std::polar(1.0, angle);
                    }
                    y[static_cast<size_t>((o * len + m) * inner + i)] = sum;
                }
        x = std::move(y);
        shape = out_shape;
        scale *= static_cast<double>(len);
    }
    if (kind == Kind::Real && !axes.empty()) {  // keep bins 0 .. n/2 of the last axis
        const size_t axis = static_cast<size_t>(axes.back());
        const int64_t len = shape[axis], kept = len / 2 + 1;
        int64_t outer = 1, inner = 1;
        for (size_t d = 0; d < axis; ++d) outer *= shape[d];
        for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
        std::vector<std::complex<double>> y(static_cast<size_t>(outer * kept * inner));
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t m = 0; m < kept; ++m)
                for (int64_t i = 0; i < inner; ++i)
                    y[static_cast<size_t>((o * kept + m) * inner + i)] = x[static_cast<size_t>((o * len + m) * inner + i)];
        x = std::move(y);
        shape[axis] = kept;
    }
    std::vector<double> out(2 * x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const std::complex<double> v = kind == Kind::Inverse ? x[i] / scale : x[i];
        out[2 * i] = v.real();
        out[2 * i + 1] = v.imag();
    }
    shape.push_back(2);
    return {Tensor::from_vector<double>(out, shape).convert(data.type())};
}

// STFT-15: frames of `frame_size` samples every `frame_step` of a real [signal] or
// [batch, signal], each multiplied by the window (a shorter window is centred in the frame with
// zeros around it) and transformed; bins 0 .. frame_size / 2 are kept.
void infer_stft(InferContext& c) {
    const PartialShape& in = c.in_shape(0);
    const Tensor* size = c.in_value(2);
    const Tensor* step = c.in_value(3);
    if (!in.rank_is_static()) return c.set_output(0, c.in_type(0), PartialShape::dynamic_rank());
    if (in.rank() != 1 && in.rank() != 2) c.fail("the signal must be 1D or 2D");
    Dimension frames, bins;
    if (size) {
        const int64_t f = size->single_i64("frame_size");
        if (f < 1) c.fail("frame_size must be positive, it is " + std::to_string(f));
        bins = Dimension(f / 2 + 1);
    }
    const Dimension& length = in[in.rank() - 1];
    if (size && step && length.is_static()) {
        const int64_t f = size->single_i64("frame_size"), st = step->single_i64("frame_step");
        if (f < 1 || st < 1 || f > length.get_length()) c.fail("frame_size must be 1 .. signal length and frame_step positive");
        frames = Dimension((length.get_length() - f) / st + 1);
    }
    std::vector<Dimension> dims;
    if (in.rank() == 2) dims.push_back(in[0]);
    if (c.attr<bool>("transpose_frames")) dims.insert(dims.end(), {bins, frames, Dimension(2)});
    else dims.insert(dims.end(), {frames, bins, Dimension(2)});
    c.set_output(0, c.in_type(0), PartialShape(dims));
}

std::vector<Tensor> evaluate_stft(const Node& n, const std::vector<Tensor>& inputs) {
    const Tensor& signal = inputs.at(0);
    const auto x = signal.convert(ElementType::f64).to_f64();
    const auto window = inputs.at(1).convert(ElementType::f64).to_f64();
    const int64_t size = inputs.at(2).single_i64("frame_size"), step = inputs.at(3).single_i64("frame_step");
    const bool batched = signal.shape().size() == 2;
    const int64_t batch = batched ? signal.shape()[0] : 1, length = signal.shape().back();
    const auto win_len = static_cast<int64_t>(window.size());
    if (size < 1 || step < 1 || size > length || win_len > size)
        throw Error("frame_size must be 1 .. signal length, frame_step positive, and the window no longer than a frame", n.describe());
    const int64_t frames = (length - size) / step + 1, bins = size / 2 + 1, left = (size - win_len) / 2;
    const bool transpose = n.attr<bool>("transpose_frames");
    EvalBudget::charge_operations(saturating_product({batch, frames, bins, size}), "the STFT");
    std::vector<double> out(static_cast<size_t>(batch * frames * bins * 2));
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t f = 0; f < frames; ++f)
            for (int64_t k = 0; k < bins; ++k) {
                std::complex<double> sum = 0;
                for (int64_t j = 0; j < win_len; ++j) {
                    const int64_t t = left + j;  // position in the frame
                    const double angle = -2 * std::numbers::pi * static_cast<double>((k * t) % size) / static_cast<double>(size);
                    sum += x[static_cast<size_t>(b * length + f * step + t)] * window[static_cast<size_t>(j)] * std::polar(1.0, angle);
                }
                const int64_t at = transpose ? (b * bins + k) * frames + f : (b * frames + f) * bins + k;
                out[static_cast<size_t>(2 * at)] = sum.real();
                out[static_cast<size_t>(2 * at + 1)] = sum.imag();
            }
    Shape shape;
    if (batched) shape.push_back(batch);
    if (transpose) shape.insert(shape.end(), {bins, frames, 2});
    else shape.insert(shape.end(), {frames, bins, 2});
    return {Tensor::from_vector<double>(out, shape).convert(signal.type())};
}

void add(OpRegistry& r, const char* type, const char* version, Kind kind) {
    OpSchema s = make_schema(type, type, version, 2, 3);
    s.infer = [kind](InferContext& c) { infer_dft(c, kind); };
    s.eval = [kind](const Node& n, const std::vector<Tensor>& in) { return evaluate_dft(n, in, kind); };
    r.add(std::move(s));
}

}  // namespace

void register_dft_ops(OpRegistry& r) {
    add(r, "DFT", "opset7", Kind::Forward);
    add(r, "IDFT", "opset7", Kind::Inverse);
    add(r, "RDFT", "opset9", Kind::Real);
    OpSchema stft = make_schema("STFT", "STFT", "opset15", 4, 4, 1, {{"transpose_frames", AttrKind::Bool, {}}});
    stft.infer = infer_stft;
    stft.eval = evaluate_stft;
    r.add(std::move(stft));
}

}  // namespace mo
