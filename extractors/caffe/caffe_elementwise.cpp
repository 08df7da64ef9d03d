// Activations (ReLU with negative_slope, PReLU, ELU, Sigmoid, TanH, AbsVal, BNLL, Clip, Swish,
// Threshold), Power / Exp / Log with their scale and shift, Eltwise (SUM with coefficients,
// PROD, MAX), Scale and Bias (a blob or a second bottom, along axis / num_axes), and the layers
// that pass their input on (Dropout at test time, Split).
#include <cmath>

#include "extractors/caffe/caffe_extractors.hpp"

namespace mo {

namespace {

using caffe::scalar;

void unary(ExtractContext& c, const char* op, const AttrMap& attrs = {}) { c.set_output(0, c.op(op, "", {c.input(0)}, attrs)); }

void relu(ExtractContext& c) {
    const double slope = c.f("relu_param.negative_slope", 0.0);
    if (slope == 0.0) return unary(c, "Relu");
    c.set_output(0, c.op("PRelu", "", {c.input(0), c.constant("slope", Tensor::from_vector<float>({static_cast<float>(slope)}, {1}))}));
}

// Slopes [channels], or one shared slope.
void prelu(ExtractContext& c) {
    const Tensor slope = caffe::blob(c, 0, "slopes");
    const bool shared = c.i("prelu_param.channel_shared", 0) != 0;
    if (shared && slope.size() != 1) c.fail("a shared PReLU slope must be one value, not " + std::to_string(slope.size()));
    const int64_t n = static_cast<int64_t>(slope.size());
    c.set_output(0, c.op("PRelu", "", {c.input(0), caffe::blob_as(c, 0, "slopes", {n})}));
}

// x * scale + shift, skipping the identities.
OutPort linear(ExtractContext& c, OutPort x, double scale, double shift, const std::string& prefix, bool last) {
    if (scale != 1.0) x = c.op("Multiply", last && shift == 0.0 ? "" : prefix + "scale", {x, scalar(c, prefix + "scale/value", scale)});
    if (shift != 0.0) x = c.op("Add", last ? "" : prefix + "shift", {x, scalar(c, prefix + "shift/value", shift)});
    return x;
}

// (shift + scale x) ^ power
void power(ExtractContext& c) {
    const std::string p = "power_param.";
    const double pw = c.f(p + "power", 1.0), scale = c.f(p + "scale", 1.0), shift = c.f(p + "shift", 0.0);
    OutPort y = linear(c, c.input(0), scale, shift, "", pw == 1.0);
    if (pw != 1.0) y = c.op("Power", "", {y, scalar(c, "power", pw)});
    if (y == c.input(0)) y = c.op("Multiply", "", {y, scalar(c, "one", 1.0)});  // keep a node of the layer's name
    c.set_output(0, y);
}

// base ^ (shift + scale x) (base -1: e), as Caffe computes it: base^shift * exp(ln(base) scale x).
void exp(ExtractContext& c) {
    const std::string p = "exp_param.";
    const double base = c.f(p + "base", -1.0), scale = c.f(p + "scale", 1.0), shift = c.f(p + "shift", 0.0);
    if (base != -1.0 && base <= 0.0) c.fail("base must be -1 (for e) or positive, not " + std::to_string(base));
    const double log_base = base == -1.0 ? 1.0 : std::log(base);
    const double outer = shift == 0.0 ? 1.0 : std::exp(log_base * shift);
    OutPort x = c.input(0);
    if (log_base * scale != 1.0) x = c.op("Multiply", "inner", {x, scalar(c, "inner/value", log_base * scale)});
    OutPort y = c.op("Exp", outer == 1.0 ? "" : "exp", {x});
    if (outer != 1.0) y = c.op("Multiply", "", {y, scalar(c, "outer", outer)});
    c.set_output(0, y);
}

// log_base(shift + scale x) (base -1: e).
void log(ExtractContext& c) {
    const std::string p = "log_param.";
    const double base = c.f(p + "base", -1.0), scale = c.f(p + "scale", 1.0), shift = c.f(p + "shift", 0.0);
    if (base != -1.0 && (base <= 0.0 || base == 1.0)) c.fail("base must be -1 (for e) or positive and not 1");
    const double base_scale = base == -1.0 ? 1.0 : 1.0 / std::log(base);
    OutPort y = c.op("Log", base_scale == 1.0 ? "" : "log", {linear(c, c.input(0), scale, shift, "input_", false)});
    if (base_scale != 1.0) y = c.op("Multiply", "", {y, scalar(c, "base_scale", base_scale)});
    c.set_output(0, y);
}

// y = x > threshold ? 1 : 0
void threshold(ExtractContext& c) {
    OutPort above = c.op("Greater", "greater", {c.input(0), scalar(c, "threshold", c.f("threshold_param.threshold", 0.0))});
    c.set_output(0, c.op("Convert", "", {above}, {{"destination_type", ElementType::f32}}));
}

void clip(ExtractContext& c) {
    if (!c.has("clip_param.min") || !c.has("clip_param.max")) c.fail("clip_param needs min and max");
    unary(c, "Clamp", {{"min", c.f("clip_param.min", 0)}, {"max", c.f("clip_param.max", 0)}});
}

void swish(ExtractContext& c) {
    c.set_output(0, c.op("Swish", "", {c.input(0), scalar(c, "beta", c.f("swish_param.beta", 1.0))}));
}

void pass_through(ExtractContext& c) {
    for (size_t j = 0; j < c.output_count(); ++j) c.set_output(j, c.input(0));
}

void eltwise(ExtractContext& c) {
    const std::string p = "eltwise_param.";
    const std::string operation = c.s(p + "operation", "SUM");
    const size_t n = c.input_count();
    if (n < 2) c.fail("Eltwise needs at least two bottoms");
    const std::vector<double> coeff = c.floats(p + "coeff");
    if (!coeff.empty() && operation != "SUM") c.fail("coefficients are for SUM only");
    if (!coeff.empty() && coeff.size() != n)
        c.fail("Eltwise has " + std::to_string(n) + " bottoms but " + std::to_string(coeff.size()) + " coefficients");
    const char* op = operation == "SUM" ? "Add" : operation == "PROD" ? "Multiply" : operation == "MAX" ? "Maximum" : nullptr;
    if (!op) c.fail("unknown Eltwise operation " + operation);
    auto term = [&](size_t i) {
        OutPort x = c.input(i);
        if (!coeff.empty() && coeff[i] != 1.0)
            x = c.op("Multiply", "coeff_" + std::to_string(i), {x, scalar(c, "coeff_" + std::to_string(i) + "/value", coeff[i])});
        return x;
    };
    OutPort y = term(0);
    for (size_t i = 1; i < n; ++i) y = c.op(op, i + 1 == n ? "" : "sum_" + std::to_string(i), {y, term(i)});
    c.set_output(0, y);
}

// Scale: x * scale (+ bias); Bias: x + bias. The scale (or bias) is a second bottom or blob 0;
// Scale's bias is the blob after it. Its shape covers x's axes [axis, axis + its rank).
void scale_or_bias(ExtractContext& c, bool is_scale) {
    const std::string p = is_scale ? "scale_param." : "bias_param.";
    const int64_t rank = caffe::input_rank(c, 0, std::string(is_scale ? "Scale" : "Bias") + " broadcasts along it");
    const int64_t axis = caffe::axis(c, c.i(p + "axis", 1), std::max<int64_t>(rank, 1), "axis");
    const int64_t num_axes = c.i(p + "num_axes", 1);
    const PartialShape& xs = c.input(0).shape();
    // The dims the parameter covers, from a blob: x's dims [axis, axis + num_axes).
    auto covered = [&](int64_t count) {
        const int64_t end = num_axes < 0 ? rank : axis + num_axes;
        if (end > rank) c.fail("num_axes " + std::to_string(num_axes) + " reaches beyond the input's rank");
        std::vector<int64_t> dims;
        for (int64_t a = axis; a < end; ++a) {
            if (!xs[static_cast<size_t>(a)].is_static()) {
                if (end - axis == 1) return std::vector<int64_t>{count};
                c.fail("the input's axis " + std::to_string(a) + " is dynamic", "give the inputs static shapes");
            }
            dims.push_back(xs[static_cast<size_t>(a)].get_length());
        }
        return dims;
    };
    OutPort y = c.input(0);
    size_t next_blob = 0;
    auto param = [&](const std::string& what, bool from_bottom) -> std::pair<OutPort, std::vector<int64_t>> {
        if (from_bottom) {
            const PartialShape& s = c.input(1).shape();
            if (!s.is_static()) c.fail("the shape of the second bottom must be known");
            std::vector<int64_t> dims;
            for (size_t d = 0; d < s.rank(); ++d) dims.push_back(s[d].get_length());
            if (axis + static_cast<int64_t>(dims.size()) > rank) c.fail("the second bottom has more axes than fit after axis");
            return {c.input(1), dims};
        }
        const Tensor t = caffe::blob(c, next_blob, what);
        std::vector<int64_t> dims = covered(static_cast<int64_t>(t.size()));
        OutPort v = caffe::blob_as(c, next_blob++, what, Shape(dims.begin(), dims.end()));
        return {v, dims};
    };
    const bool bottom = c.input_count() > 1;
    const bool bias_term = is_scale && c.i(p + "bias_term", 0) != 0;
    auto [v, dims] = param(is_scale ? "scale" : "bias", bottom);
    v = caffe::broadcast_along(c, v, dims, axis, rank, is_scale ? "scale/shape" : "bias/shape");
    y = c.op(is_scale ? "Multiply" : "Add", bias_term ? "scale" : "", {y, v});
    if (bias_term) {
        const Tensor t = caffe::blob(c, next_blob, "bias");
        std::vector<int64_t> bdims = dims;
        if (static_cast<int64_t>(t.size()) != shape_size(Shape(bdims.begin(), bdims.end())))
            c.fail("the bias holds " + std::to_string(t.size()) + " values, the scale's shape needs " +
                   std::to_string(shape_size(Shape(bdims.begin(), bdims.end()))));
        OutPort b = caffe::blob_as(c, next_blob, "bias", Shape(bdims.begin(), bdims.end()));
        y = c.op("Add", "", {y, caffe::broadcast_along(c, b, bdims, axis, rank, "bias/shape")});
    }
    c.set_output(0, y);
}

}  // namespace

void register_caffe_elementwise(ExtractorRegistry& r) {
    caffe::add(r, "ReLU", relu);
    caffe::add(r, "PReLU", prelu);
    caffe::add(r, "ELU", [](ExtractContext& c) { unary(c, "Elu", {{"alpha", c.f("elu_param.alpha", 1.0)}}); });
    caffe::add(r, "Sigmoid", [](ExtractContext& c) { unary(c, "Sigmoid"); });
    caffe::add(r, "TanH", [](ExtractContext& c) { unary(c, "Tanh"); });
    caffe::add(r, "AbsVal", [](ExtractContext& c) { unary(c, "Abs"); });
    caffe::add(r, "BNLL", [](ExtractContext& c) { unary(c, "SoftPlus"); });  // log(1 + e^x)
    caffe::add(r, "Clip", clip);
    caffe::add(r, "Swish", swish);
    caffe::add(r, "Threshold", threshold);
    caffe::add(r, "Power", power);
    caffe::add(r, "Exp", exp);
    caffe::add(r, "Log", log);
    caffe::add(r, "Dropout", pass_through);  // test phase: the identity
    caffe::add(r, "Split", pass_through);
    caffe::add(r, "Eltwise", eltwise);
    caffe::add(r, "Scale", [](ExtractContext& c) { scale_or_bias(c, true); });
    caffe::add(r, "Bias", [](ExtractContext& c) { scale_or_bias(c, false); });
}

}  // namespace mo
