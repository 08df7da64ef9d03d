// More element-wise math: SIGN, SQUARE, ROUND, GELU, RELU_0_TO_1, FLOOR_DIV, ADD_N,
// L2_NORMALIZATION, BUCKETIZE, FAKE_QUANT, RIGHT_SHIFT, ATAN2, and the reductions REDUCE_PROD,
// REDUCE_ANY, REDUCE_ALL.
#include <cmath>
#include <numbers>

#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

// FLOOR_DIV: floor(x / y); integers floor too (Divide with m_pythondiv), floats Floor(Divide).
void floor_div(ExtractContext& c) {
    const ElementType t = c.input(0).type();
    if (t == ElementType::dynamic) c.unsupported("FLOOR_DIV of an input of unknown type");
    if (is_float(t)) {
        c.set_output(0, c.op("Floor", "", {c.op("Divide", "quotient", {c.input(0), c.input(1)})}));
        return;
    }
    c.set_output(0, c.op("Divide", "", {c.input(0), c.input(1)}, {{"m_pythondiv", true}}));
}

// ADD_N: x0 + x1 + ... in input order.
void add_n(ExtractContext& c) {
    if (c.input_count() == 0) c.fail("nothing to add: the node has no inputs", "the model is corrupt; re-export it");
    OutPort sum = c.input(0);
    for (size_t i = 1; i < c.input_count(); ++i)
        sum = c.op("Add", i + 1 == c.input_count() ? "" : "sum" + std::to_string(i), {sum, c.input(i)});
    c.set_output(0, sum);
}

// L2_NORMALIZATION over the last axis, as TFLite's kernel: x / max(sqrt(sum(x²)), 1e-6).
void l2_normalization(ExtractContext& c) {
    const OutPort x = c.input(0);
    OutPort sum = c.op("ReduceSum", "sum_of_squares", {c.op("Multiply", "squares", {x, x}), c.i64s("axes", {-1})},
                       {{"keep_dims", true}});
    OutPort norm = c.op("Maximum", "norm", {c.op("Sqrt", "root", {sum}), c.scalar_like("epsilon", 1e-6, x)});
    c.set_output(0, tflite_activation(c, c.op("Divide", "normalized", {x, norm}), "activation"));
}

// BUCKETIZE(x; boundaries): for each element, how many boundaries are at or below it (the index
// i with boundaries[i - 1] <= x < boundaries[i]), int32.
void bucketize(ExtractContext& c) {
    const std::vector<double> b = c.floats("boundaries");
    std::vector<float> boundaries(b.begin(), b.end());
    OutPort x = c.input(0);
    if (x.type() != ElementType::f32) x = c.op("Convert", "f32", {x}, {{"destination_type", ElementType::f32}});
    if (boundaries.empty()) {
        c.set_output(0, c.op("Broadcast", "", {c.constant("zero", Tensor::scalar<int32_t>(0)),
                                               c.op("ShapeOf", "shape", {x}, {{"output_type", ElementType::i64}})},
                             {{"mode", std::string("numpy")}}));
        return;
    }
    const OutPort column = c.op("Unsqueeze", "column", {x, c.i64s("column/axes", {-1})});
    const OutPort above = c.op("GreaterEqual", "at_or_above",
                               {column, c.constant("boundaries", Tensor::from_vector<float>(boundaries, {static_cast<int64_t>(b.size())}))});
    const OutPort counted = c.op("Convert", "counted", {above}, {{"destination_type", ElementType::i32}});
    c.set_output(0, c.op("ReduceSum", "", {counted, c.i64s("axes", {-1})}, {{"keep_dims", false}}));
}

// FAKE_QUANT(x; min, max, num_bits, narrow_range), as TFLite's kernel: the range nudged so that
// zero is on the grid (in f32, as the kernel), x clamped to it and rounded to the grid half up:
// round((clamp(x) - nudged_min) / scale) · scale + nudged_min, kept in f32.
void fake_quant(ExtractContext& c) {
    const int64_t bits = c.i("num_bits", 0);
    if (bits < 2 || bits > 16) c.unsupported("FAKE_QUANT with num_bits " + std::to_string(bits) + " (2 to 16)");
    const float min = static_cast<float>(c.f("min", 0.0)), max = static_cast<float>(c.f("max", 0.0));
    if (!(min <= 0.0f && max >= 0.0f && min < max))
        c.fail("min " + std::to_string(min) + " and max " + std::to_string(max) + " do not enclose 0",
               "the model is corrupt; re-export it");
    const float quant_min = c.i("narrow_range", 0) ? 1.0f : 0.0f, quant_max = static_cast<float>((1 << bits) - 1);
    const float scale = (max - min) / (quant_max - quant_min);
    const float zero_from_min = quant_min - min / scale;
    const float zero = zero_from_min < quant_min ? quant_min : zero_from_min > quant_max ? quant_max : std::round(zero_from_min);
    const float nudged_min = (quant_min - zero) * scale, nudged_max = (quant_max - zero) * scale;
    auto f32 = [&](const std::string& suffix, float v) { return c.constant(suffix, Tensor::scalar<float>(v)); };
    OutPort y = c.op("Clamp", "clamped", {c.input(0)}, {{"min", static_cast<double>(nudged_min)}, {"max", static_cast<double>(nudged_max)}});
    y = c.op("Subtract", "shifted", {y, f32("nudged_min", nudged_min)});
    y = c.op("Multiply", "steps", {y, f32("inverse_scale", 1.0f / scale)});
    y = c.op("Round", "rounded", {y}, {{"mode", std::string("half_away_from_zero")}});
    y = c.op("Multiply", "scaled", {y, f32("scale", scale)});
    c.set_output(0, c.op("Add", "", {y, f32("offset", nudged_min)}));
    for (const Node& n : c.created())
        if (!n.is("Constant")) n.rt_info()[kDisableFp16Compression] = std::string("0");
}

// ATAN2(y, x): OpenVINO has no Atan2; atan(y / x), moved by ±π where x < 0 (+π for y >= 0),
// and 0 where both are 0 (x = 0 alone gives atan(±inf) = ±π/2).
void atan2(ExtractContext& c) {
    const OutPort y = c.input(0), x = c.input(1);
    auto scalar = [&](const std::string& suffix, double v) { return c.scalar_like(suffix, v, y); };
    OutPort angle = c.op("Atan", "atan", {c.op("Divide", "ratio", {y, x})});
    const OutPort shift = c.op("Select", "shift", {c.op("GreaterEqual", "upper", {y, scalar("zero", 0)}), scalar("pi", std::numbers::pi), scalar("minus_pi", -std::numbers::pi)},
                               {{"auto_broadcast", std::string("numpy")}});
    angle = c.op("Select", "left", {c.op("Less", "x_negative", {x, scalar("x_zero", 0)}), c.op("Add", "shifted", {angle, shift}), angle},
                 {{"auto_broadcast", std::string("numpy")}});
    const OutPort origin = c.op("LogicalAnd", "origin", {c.op("Equal", "x_is_zero", {x, scalar("x_zero2", 0)}),
                                                         c.op("Equal", "y_is_zero", {y, scalar("y_zero", 0)})});
    c.set_output(0, c.op("Select", "", {origin, scalar("origin_angle", 0), angle}, {{"auto_broadcast", std::string("numpy")}}));
    // ±π in f16 would move the angles of the left half-plane by 1e-3.
    for (const Node& n : c.created())
        if (!n.is("Constant")) n.rt_info()[kDisableFp16Compression] = std::string("0");
}

void reduction(ExtractContext& c, const char* type) {
    c.set_output(0, c.op(type, "", {c.input(0), c.input(1)}, {{"keep_dims", c.i("keep_dims", 0) != 0}}));
}

}  // namespace

void register_tflite_math(ExtractorRegistry& r) {
    r.add({"tflite", "", "SIGN", 1, INT64_MAX, [](ExtractContext& c) { c.become("Sign"); }});
    r.add({"tflite", "", "SQUARE", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Multiply", "", {c.input(0), c.input(0)})); }});
    // TFLite rounds half to even (its RoundToNearest), as TensorFlow's Round.
    r.add({"tflite", "", "ROUND", 1, INT64_MAX,
           [](ExtractContext& c) { c.become("Round", {{"mode", std::string("half_to_even")}}); }});
    r.add({"tflite", "", "GELU", 1, INT64_MAX, [](ExtractContext& c) {
               c.become("Gelu", {{"approximation_mode", std::string(c.i("approximate", 0) ? "TANH" : "ERF")}});
           }});
    r.add({"tflite", "", "RELU_0_TO_1", 1, INT64_MAX,
           [](ExtractContext& c) { c.become("Clamp", {{"min", 0.0}, {"max", 1.0}}); }});
    r.add({"tflite", "", "FLOOR_DIV", 1, INT64_MAX, floor_div});
    r.add({"tflite", "", "ADD_N", 1, INT64_MAX, add_n});
    r.add({"tflite", "", "L2_NORMALIZATION", 1, INT64_MAX, l2_normalization});
    r.add({"tflite", "", "BUCKETIZE", 1, INT64_MAX, bucketize});
    r.add({"tflite", "", "ATAN2", 1, INT64_MAX, atan2});
    r.add({"tflite", "", "FAKE_QUANT", 1, INT64_MAX, fake_quant});
    r.add({"tflite", "", "RIGHT_SHIFT", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("BitwiseRightShift", "", {c.input(0), c.input(1)})); }});
    r.add({"tflite", "", "REDUCE_PROD", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceProd"); }});
    r.add({"tflite", "", "REDUCE_ANY", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceLogicalOr"); }});
    r.add({"tflite", "", "REDUCE_ALL", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceLogicalAnd"); }});
}

}  // namespace mo
