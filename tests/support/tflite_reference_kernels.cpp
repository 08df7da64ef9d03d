#include "support/tflite_reference_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mo::test::tflite_reference {

namespace {

double tflite_round(double v) { return v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5); }

std::pair<int64_t, int> quantize_multiplier(double m) {
    if (m == 0) return {0, 0};
    int e = 0;
    const double f = std::frexp(m, &e);
    auto q = static_cast<int64_t>(tflite_round(f * 2147483648.0));
    if (q == 2147483648LL) q /= 2, ++e;
    return {q, e};
}

// The quantized range of the fused activation (CalculateActivationRangeQuantized).
std::pair<int64_t, int64_t> activation_range(int activation, const Quantized& y) {
    const double s = y.scale.at(0);
    const int64_t zp = y.zero_point.at(0);
    auto q = [&](double v) { return zp + static_cast<int64_t>(tflite_round(v / s)); };
    switch (activation) {
        case 0: return {y.qmin, y.qmax};
        case 1: return {std::max(y.qmin, q(0)), y.qmax};
        case 2: return {std::max(y.qmin, q(-1)), std::min(y.qmax, q(1))};
        case 3: return {std::max(y.qmin, q(0)), std::min(y.qmax, q(6))};
        default: throw std::runtime_error("activation " + std::to_string(activation));
    }
}

}  // namespace

int64_t multiply_by_quantized_multiplier(int64_t x, double multiplier) {
    const auto [q, e] = quantize_multiplier(multiplier);
    const int left = std::max(e, 0), right = std::max(-e, 0);
    // SaturatingRoundingDoublingHighMul: (x · q + 2^30) / 2^31 rounded half up (an arithmetic
    // shift floors; for negative products the kernel's nudge and truncation come to the same).
    const int64_t high = (x * (int64_t{1} << left) * q + (int64_t{1} << 30)) >> 31;
    if (right == 0) return high;
    // RoundingDivideByPOT: half away from zero.
    const int64_t mask = (int64_t{1} << right) - 1, remainder = high & mask;
    const int64_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    return (high >> right) + (remainder > threshold ? 1 : 0);
}

void conv(const Quantized& x, const Quantized& filter, const std::vector<int64_t>& bias, const ConvParams& p,
          Quantized& y) {
    const int64_t h = x.shape[1], w = x.shape[2], c = x.shape[3];
    const int64_t kh = filter.shape[1], kw = filter.shape[2];
    const int64_t oh = y.shape[1], ow = y.shape[2], oc = y.shape[3];
    const int64_t pad_h = p.same ? std::max<int64_t>((oh - 1) * p.stride_h + (kh - 1) * p.dilation_h + 1 - h, 0) / 2 : 0;
    const int64_t pad_w = p.same ? std::max<int64_t>((ow - 1) * p.stride_w + (kw - 1) * p.dilation_w + 1 - w, 0) / 2 : 0;
    const int64_t x_zp = x.zero_point.at(0);
    const auto [lo, hi] = activation_range(p.activation, y);
    y.values.assign(static_cast<size_t>(y.shape[0] * oh * ow * oc), 0);
    for (int64_t n = 0; n < y.shape[0]; ++n)
        for (int64_t i = 0; i < oh; ++i)
            for (int64_t j = 0; j < ow; ++j)
                for (int64_t o = 0; o < oc; ++o) {
                    const size_t ch = filter.scale.size() == 1 ? 0 : static_cast<size_t>(o);
                    const int64_t w_zp = filter.zero_point.at(filter.zero_point.size() == 1 ? 0 : ch);
                    int64_t acc = bias.empty() ? 0 : bias[static_cast<size_t>(o)];
                    for (int64_t a = 0; a < kh; ++a)
                        for (int64_t b = 0; b < kw; ++b) {
                            const int64_t yy = i * p.stride_h + a * p.dilation_h - pad_h;
                            const int64_t xx = j * p.stride_w + b * p.dilation_w - pad_w;
                            if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;  // padding reads the zero point
                            const int64_t base = ((n * h + yy) * w + xx) * c;
                            if (p.depthwise) {
                                const int64_t in = x.values[static_cast<size_t>(base + o / (oc / c))] - x_zp;
                                acc += in * (filter.values[static_cast<size_t>((a * kw + b) * oc + o)] - w_zp);
                            } else {
                                for (int64_t k = 0; k < c; ++k)
                                    acc += (x.values[static_cast<size_t>(base + k)] - x_zp) *
                                           (filter.values[static_cast<size_t>(((o * kh + a) * kw + b) * c + k)] - w_zp);
                            }
                        }
                    const double m = x.scale.at(0) * filter.scale.at(ch) / y.scale.at(0);
                    const int64_t q = multiply_by_quantized_multiplier(acc, m) + y.zero_point.at(0);
                    y.values[static_cast<size_t>(((n * oh + i) * ow + j) * oc + o)] = std::clamp(q, lo, hi);
                }
}

void add(const Quantized& a, const Quantized& b, int activation, Quantized& y) {
    if (a.values.size() != b.values.size()) throw std::runtime_error("ADD with broadcasting");
    constexpr int kLeftShift = 20;
    const double twice_max = 2 * std::max(a.scale.at(0), b.scale.at(0));
    const double ma = a.scale.at(0) / twice_max, mb = b.scale.at(0) / twice_max;
    const double my = twice_max / (static_cast<double>(int64_t{1} << kLeftShift) * y.scale.at(0));
    const auto [lo, hi] = activation_range(activation, y);
    y.values.resize(a.values.size());
    for (size_t i = 0; i < a.values.size(); ++i) {
        const int64_t sa = multiply_by_quantized_multiplier((a.values[i] - a.zero_point.at(0)) * (int64_t{1} << kLeftShift), ma);
        const int64_t sb = multiply_by_quantized_multiplier((b.values[i] - b.zero_point.at(0)) * (int64_t{1} << kLeftShift), mb);
        y.values[i] = std::clamp(multiply_by_quantized_multiplier(sa + sb, my) + y.zero_point.at(0), lo, hi);
    }
}

void concatenation(const std::vector<const Quantized*>& inputs, int64_t axis, Quantized& y) {
    const auto rank = static_cast<int64_t>(y.shape.size());
    if (axis < 0) axis += rank;
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= y.shape[static_cast<size_t>(d)];
    y.values.clear();
    for (int64_t o = 0; o < outer; ++o)
        for (const Quantized* in : inputs) {
            int64_t inner = 1;
            for (int64_t d = axis; d < rank; ++d) inner *= in->shape[static_cast<size_t>(d)];
            const bool same = in->scale.at(0) == y.scale.at(0) && in->zero_point.at(0) == y.zero_point.at(0);
            const float scale = static_cast<float>(in->scale.at(0)) * (1.0f / static_cast<float>(y.scale.at(0)));
            const float shift = static_cast<float>(-in->zero_point.at(0)) * scale;
            for (int64_t k = 0; k < inner; ++k) {
                const int64_t v = in->values[static_cast<size_t>(o * inner + k)];
                if (same) {
                    y.values.push_back(v);
                    continue;
                }
                const int64_t q = static_cast<int64_t>(std::round(static_cast<float>(v) * scale + shift)) + y.zero_point.at(0);
                y.values.push_back(std::clamp(q, y.qmin, y.qmax));
            }
        }
}

}  // namespace mo::test::tflite_reference
