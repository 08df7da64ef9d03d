// Quantized tensors (the loader's nodes of domain "quantization", loaders/tflite/
// tflite_quantization.hpp), QUANTIZE and DEQUANTIZE. The graph computes in f32 on real values:
//   DEQUANTIZE_STORED  (f32(q) - zero_point) · scale, per tensor or along quantized_dimension
//   FAKE_QUANTIZE      FakeQuantize(x, lo, hi, lo, hi) with lo = (qmin - zp) · s, hi = (qmax - zp) · s:
//                      the value rounded to the tensor's grid and saturated, as the integer kernel
//                      that produced it does (up to rounding ties)
//   QUANTIZE_OUTPUT    Convert(Clamp(Round(x / s) + zp, qmin, qmax)) to the stored type
//   QUANTIZE           the real value itself (the FAKE_QUANTIZE of its output quantizes it)
//   DEQUANTIZE         the real value itself; float16 weights: Convert to f32
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "extractors/dequantization.hpp"
#include "extractors/tflite/tflite_extractors.hpp"
#include "loaders/tflite/tflite_quantization.hpp"

namespace mo {

namespace {

struct Grid {
    double min, max;
};

// The integer range of the stored type; the loader's nodes carry its IR name.
Grid grid_of(ExtractContext& c, const std::string& what) {
    const std::string storage = c.s("storage", "");
    if (storage == "i8") return {-128, 127};
    if (storage == "u8") return {0, 255};
    if (storage == "i16") return {-32768, 32767};
    c.unsupported(what + " of type " + storage + " (quantized activations are int8, uint8 or int16)");
}

std::string tensor_of(ExtractContext& c) { return "tensor '" + c.s("tensor", "") + "'"; }

// The single (scale, zero point) of a per-tensor quantization.
std::pair<double, double> per_tensor(ExtractContext& c, const std::string& what) {
    const auto scale = c.floats("scale");
    const auto zero_point = c.ints("zero_point");
    if (scale.size() != 1)
        c.unsupported(what + " quantized per channel (" + std::to_string(scale.size()) + " scales along dimension " +
                      std::to_string(c.i("quantized_dimension", 0)) + ")");
    return {scale[0], static_cast<double>(zero_point.at(0))};
}

// An f32 constant of per-channel `values` shaped to broadcast along `axis` of a rank-`rank`
// tensor ([n, 1, ...]); one value gives a scalar.
OutPort along_axis(ExtractContext& c, const std::string& suffix, const std::vector<double>& values, int64_t axis,
                   int64_t rank) {
    std::vector<float> f(values.begin(), values.end());
    if (f.size() == 1) return c.constant(suffix, Tensor::scalar<float>(f[0]));
    Shape shape{static_cast<int64_t>(f.size())};
    shape.insert(shape.end(), static_cast<size_t>(rank - axis - 1), 1);
    return c.constant(suffix, Tensor::from_vector<float>(f, shape));
}

void dequantize_stored(ExtractContext& c) {
    const OutPort q = c.input(0);
    const auto scale = c.floats("scale");
    const auto zp_ints = c.ints("zero_point");
    const int64_t axis = c.i("quantized_dimension", 0), rank = ExtractContext::rank_of(q);
    if (scale.size() > 1 && rank < 0) c.unsupported("per-channel quantization of " + tensor_of(c) + " of unknown rank");
    if (scale.size() > 1 && (axis < 0 || axis >= rank))
        c.fail("quantized_dimension " + std::to_string(axis) + " of " + tensor_of(c) + " is outside its rank " +
                   std::to_string(rank),
               "the model is corrupt; re-export it");
    std::vector<double> zero_point(zp_ints.begin(), zp_ints.end());
    std::optional<OutPort> zp;
    if (std::any_of(zero_point.begin(), zero_point.end(), [](double z) { return z != 0; }))
        zp = along_axis(c, "zero_point", zero_point, axis, rank);
    c.set_output(0, dequantized(c, "stored", q, zp ? &*zp : nullptr, along_axis(c, "scale", scale, axis, rank)));
}

// f16 keeps 11 significant bits; a 16-bit grid has 65536 steps. The ops computing a 16-bit
// activation from the quantized tensors before it stay in f32 (and so do their constant
// inputs under --compress_to_fp16: an f16 bias alone moves the output by about a step).
void keep_in_f32_back_to_quantized(const OutPort& x) {
    std::vector<Node> pending{x.node()};
    std::set<uint64_t> seen;
    while (!pending.empty()) {
        const Node n = pending.back();
        pending.pop_back();
        if (!seen.insert(n.id()).second || n.is("Constant") || n.is("Parameter") || n.is("FakeQuantize") ||
            n.is("FrameworkNode"))
            continue;
        in_f32(n);
        for (size_t i = 0; i < n.input_count(); ++i)
            if (n.in(i).connected()) pending.push_back(n.in(i).src().node());
    }
}

void fake_quantize(ExtractContext& c) {
    const std::string what = "the activation " + tensor_of(c) + " (output of " + c.s("producer", "?") + ")";
    const Grid g = grid_of(c, what);
    const auto [scale, zp] = per_tensor(c, what);
    const OutPort x = c.input(0);
    if (x.type() != ElementType::f32 && x.type() != ElementType::dynamic)
        c.unsupported(what + " computed in " + std::string(ir_name(x.type())) +
                      " (quantized values are computed in f32)");
    OutPort lo = c.constant("low", Tensor::scalar<float>(static_cast<float>((g.min - zp) * scale)));
    OutPort hi = c.constant("high", Tensor::scalar<float>(static_cast<float>((g.max - zp) * scale)));
    const auto levels = static_cast<int64_t>(g.max - g.min + 1);
    if (levels > 256) keep_in_f32_back_to_quantized(x);
    c.set_output(0, c.op("FakeQuantize", "", {x, lo, hi, lo, hi}, {{"levels", levels}}));
}

void quantize_output(ExtractContext& c) {
    const std::string what = "the model output " + tensor_of(c);
    const Grid g = grid_of(c, what);
    const auto [scale, zp] = per_tensor(c, what);
    auto scalar = [&](const std::string& suffix, double v) {
        return c.constant(suffix, Tensor::scalar<float>(static_cast<float>(v)));
    };
    OutPort y = in_f32(c.add("Divide", "scaled", {c.input(0), scalar("scale", scale)}));
    // TFLite rounds half away from zero; the value is on its grid already, so this only removes f32 noise.
    y = c.op("Round", "rounded", {y}, {{"mode", std::string("half_away_from_zero")}});
    if (zp != 0) y = c.op("Add", "plus_zero_point", {y, scalar("zero_point", zp)});
    y = c.op("Clamp", "saturated", {y}, {{"min", g.min}, {"max", g.max}});
    const std::string storage = c.s("storage", "");
    c.set_output(0, c.op("Convert", "", {y}, {{"destination_type", storage == "i8" ? ElementType::i8
                                                                      : storage == "u8" ? ElementType::u8
                                                                                        : ElementType::i16}}));
}

// QUANTIZE (f32 -> int, or int -> int with other parameters: a requantization): the input's real
// value put on the output's grid as TFLite rounds it, x / scale half away from zero (float input)
// or half up (a requantization's fixed-point multiplier); the output's FakeQuantize, which would
// round exact ties half to even, then only saturates. In f32: an f16 scale could move a tie.
void quantize(ExtractContext& c) {
    const auto output = tflite_output_quantization(c, 0);
    if (!output) c.unsupported("QUANTIZE to a tensor without quantization parameters");
    const OutPort x = c.input(0);
    const OutPort scale = c.constant("scale", Tensor::scalar<float>(static_cast<float>(output->first)));
    const OutPort steps = in_f32(c.add("Divide", "steps", {x, scale}));
    const bool requantize = x.node().is("FakeQuantize");  // the input is on a grid of its own
    const OutPort rounded =
        requantize ? c.op("Floor", "rounded", {c.op("Add", "half_up", {steps, c.constant("half", Tensor::scalar<float>(0.5f))})})
                   : c.op("Round", "rounded", {steps}, {{"mode", std::string("half_away_from_zero")}});
    c.set_output(0, in_f32(c.add("Multiply", "", {rounded, scale})));
}

// DEQUANTIZE: float16 / bfloat16 weights convert to f32 (folded); a quantized tensor already
// reads as its real values.
void dequantize(ExtractContext& c) {
    const ElementType in = c.input(0).type();
    if (in == ElementType::f16 || in == ElementType::bf16) {
        c.set_output(0, c.op("Convert", "", {c.input(0)}, {{"destination_type", ElementType::f32}}));
        return;
    }
    if (in != ElementType::f32)
        c.unsupported("DEQUANTIZE of a " + std::string(ir_name(in)) + " tensor without quantization parameters");
    c.set_output(0, c.input(0));
}

// The scales of the real values `p` carries when it reads a quantized tensor: the step of a
// FakeQuantize (an operator's quantized output), or the scales a dequantization multiplies the
// stored integers by (Convert -> [Subtract] -> Multiply: weights, quantized model inputs); empty
// for anything else.
std::vector<double> scales_of(const OutPort& p) {
    const Node n = p.node();
    if (n.is("FakeQuantize")) {
        const Tensor* lo = n.in(1).src().value();
        const Tensor* hi = n.in(2).src().value();
        if (!lo || !hi || lo->size() != 1 || hi->size() != 1) return {};
        return {(hi->to_f64()[0] - lo->to_f64()[0]) / static_cast<double>(n.attr<int64_t>("levels") - 1)};
    }
    if (n.is("Multiply") && n.in(0).connected() && n.in(1).connected()) {
        const Node stored = n.in(0).src().node();
        if (const Tensor* scale = n.in(1).src().value(); scale && (stored.is("Convert") || stored.is("Subtract")))
            return scale->to_f64();
    }
    return {};
}

// The right shift of TFLite's requantization multiplier for the real multiplier m: m = f · 2^e,
// f in [0.5, 1), quantized to 31 bits (a fraction that rounds to 1 moves up an exponent);
// shift = -e, 0 when m >= 0.5 (QuantizeMultiplier, quantization_util.cc).
int right_shift(double m) {
    int e = 0;
    const double f = std::frexp(m, &e);
    if (std::llround(f * 2147483648.0) == 2147483648LL) ++e;
    return std::max(0, -e);
}

}  // namespace

OutPort tflite_reference_requantization(ExtractContext& c, const OutPort& y, size_t input, size_t weights,
                                        int64_t channel_axis, int64_t rank) {
    const auto output = tflite_output_quantization(c, 0);
    const ElementType stored = c.node().out(0).type();
    if (!output || (stored != ElementType::i8 && stored != ElementType::u8) || !c.has_input(input) ||
        !c.has_input(weights))
        return y;
    const auto input_scale = scales_of(c.input(input)), weight_scales = scales_of(c.input(weights));
    if (input_scale.size() != 1 || weight_scales.empty()) return y;
    // The bias stays f32 under --compress_to_fp16: an f16 bias moves the accumulator by up to
    // 2^-11 of itself, across the rounding steps below.
    if (y.node().is("Add")) in_f32(y.node());
    const double so = output->first;
    std::vector<double> up, down;
    for (double sw : weight_scales) {
        const int shift = right_shift(input_scale[0] * sw / so);
        up.push_back(std::ldexp(1.0, shift) / so);
        down.push_back(std::ldexp(1.0, -shift));
    }
    const int64_t axis = weight_scales.size() == 1 ? 0 : channel_axis;
    OutPort t = in_f32(c.add("Multiply", "requantize/shifted", {y, along_axis(c, "requantize/up", up, axis, rank)}));
    t = c.op("Floor", "requantize/high_mul",
             {c.op("Add", "requantize/half_up", {t, c.constant("requantize/half", Tensor::scalar<float>(0.5f))})});
    t = in_f32(c.add("Multiply", "requantize/unshifted", {t, along_axis(c, "requantize/down", down, axis, rank)}));
    t = c.op("Round", "requantize/rounded", {t}, {{"mode", std::string("half_away_from_zero")}});
    const OutPort scale = c.constant("requantize/scale", Tensor::scalar<float>(static_cast<float>(so)));
    return in_f32(c.add("Multiply", "requantize", {t, scale}));
}

std::optional<std::pair<double, double>> tflite_output_quantization(ExtractContext& c, size_t j) {
    const auto targets = c.node().out(j).targets();
    if (targets.empty()) return std::nullopt;
    const Node fq = targets[0].node();
    if (!fq.is("FrameworkNode") || fq.framework().domain != kTfliteQuantizationDomain ||
        fq.framework().type != kFakeQuantizeTensor)
        return std::nullopt;
    // The loader gives a quantized output its FAKE_QUANTIZE as the only consumer.
    ExtractContext q(c.graph(), fq);
    return per_tensor(q, "the activation " + tensor_of(q));
}

void register_tflite_quantization(ExtractorRegistry& r) {
    r.add({"tflite", kTfliteQuantizationDomain, kDequantizeStored, 1, INT64_MAX, dequantize_stored});
    r.add({"tflite", kTfliteQuantizationDomain, kFakeQuantizeTensor, 1, INT64_MAX, fake_quantize});
    r.add({"tflite", kTfliteQuantizationDomain, kQuantizeOutput, 1, INT64_MAX, quantize_output});
    r.add({"tflite", "", "QUANTIZE", 1, INT64_MAX, quantize});
    r.add({"tflite", "", "DEQUANTIZE", 1, INT64_MAX, dequantize});
}

}  // namespace mo
