// DFT-7, IDFT-7 and RDFT-9: discrete Fourier transforms over `axes`, complex numbers as a
// trailing dimension of 2 (real, imaginary). `signal_size` trims or zero-pads each transformed
// axis first (-1 keeps it). IDFT divides by the product of the transformed lengths; RDFT takes a
// real input and keeps the first n/2 + 1 bins of its last transformed axis. Evaluation is the
// direct sum of the spec in double, one axis after the other.
#include <cmath>
#include <complex>
#include <numbers>

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
        for (size_t i = 0; i < a.size(); ++i)
            if (s[i] != -1) out[static_cast<size_t>(a[i])] = Dimension(s[i]);
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
        std::vector<std::complex<double>> y(static_cast<size_t>(outer * len * inner));
        const double sign = kind == Kind::Inverse ? 1.0 : -1.0;
        const int64_t used = std::min(in_len, len);  // trimmed, or zero-padded beyond in_len
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
}

}  // namespace mo
