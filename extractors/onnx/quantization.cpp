// Linear quantization as opset arithmetic, bit-exact with ONNX:
//   QuantizeLinear       y = Convert(Clamp(Round_half_even(x / scale) + zp, qmin, qmax))
//   DequantizeLinear     y = (f32(x) - f32(zp)) * scale
//   DynamicQuantizeLinear  scale and zp from min(0, min x) and max(0, max x), then as above
//   MatMulInteger / ConvInteger  MatMul / Convolution on i32(x) - i32(zp)
//   QLinearMatMul / QLinearConv  the same i32 accumulation (+ bias), then requantized (see below)
// Clamp precedes Convert: Convert truncates, which matches ONNX only on rounded, in-range values.
#include <algorithm>
#include <optional>

#include "extractors/dequantization.hpp"
#include "extractors/onnx/conv_common.hpp"
#include "extractors/onnx/onnx_extractors.hpp"
#include "extractors/onnx/quantization_common.hpp"

namespace mo {

namespace {

bool is_zero_constant(const Tensor* v) {
    if (!v) return false;
    const auto values = v->to_f64();
    return std::all_of(values.begin(), values.end(), [](double d) { return d == 0.0; });
}

OutPort to_type(ExtractContext& c, const std::string& suffix, const OutPort& p, ElementType t) {
    if (p.type() == t) return p;
    return c.op("Convert", suffix, {p}, {{"destination_type", t}});
}

// Scale or zero point of a (de)quantize node, shaped to broadcast against `x`: a scalar as is,
// a 1-element 1D tensor as a scalar (per tensor, whatever the axis says: PyTorch's exports give
// bias DequantizeLinears such a zero point with the default axis 1 on a rank-1 input, and ONNX
// Runtime reads it per tensor), any other 1D tensor (opset 13 per-axis) along `axis` as
// [D, 1, ...] for the axes after it.
OutPort along_axis(ExtractContext& c, const std::string& suffix, const OutPort& p, const OutPort& x) {
    const int64_t rank = ExtractContext::rank_of(p);
    if (rank == 0) return p;
    if (rank != 1) c.fail(suffix + " must be a scalar or a 1D tensor (got rank " + std::to_string(rank) + ")",
                          "fix the model");
    if (p.shape()[0].is_static() && p.shape()[0].get_length() == 1)
        return c.op("Reshape", suffix + "/scalar", {p, c.i64s(suffix + "/scalar_shape", {})}, {{"special_zero", false}});
    if (c.opset() < 13) c.unsupported("a 1D " + suffix + " before opset 13 (per-axis quantization needs opset 13)");
    const int64_t x_rank = ExtractContext::rank_of(x);
    if (x_rank < 0) c.unsupported("per-axis " + suffix + " with an input of unknown rank");
    int64_t axis = c.i("axis", 1);
    if (axis < -x_rank || axis >= x_rank)
        c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(x_rank), "fix the model");
    if (axis < 0) axis += x_rank;
    const int64_t trailing = x_rank - axis - 1;
    if (trailing == 0) return p;
    std::vector<int64_t> shape{-1};
    shape.insert(shape.end(), static_cast<size_t>(trailing), 1);
    return c.op("Reshape", suffix + "/per_axis", {p, c.i64s(suffix + "/per_axis_shape", shape)},
                {{"special_zero", false}});
}

// Clamp(Round(q) + zp, range of `type`) converted to `type` (the node named after the ONNX
// node); `zp` (f32) may be null.
OutPort saturate_round(ExtractContext& c, const OutPort& q, const OutPort* zp, ElementType type) {
    OutPort y = c.op("Round", "rounded", {q}, {{"mode", std::string("half_to_even")}});
    if (zp) y = c.op("Add", "plus_zero_point", {y, *zp});
    const bool is_signed = type == ElementType::i8;
    y = c.op("Clamp", "saturated", {y}, {{"min", is_signed ? -128.0 : 0.0}, {"max", is_signed ? 127.0 : 255.0}});
    return c.op("Convert", "", {y}, {{"destination_type", type}});
}

void require_f32(ExtractContext& c, const OutPort& p, const std::string& what) {
    if (p.type() != ElementType::f32 && p.type() != ElementType::dynamic)
        c.unsupported(what + " of type " + std::string(ir_name(p.type())) + " (only f32 converts exactly)");
}

ElementType quantized_type(ExtractContext& c, const OutPort& zp) {
    const ElementType t = zp.type();
    if (t == ElementType::dynamic) c.fail("the zero point's element type is unknown", "give the model typed inputs");
    if (t != ElementType::u8 && t != ElementType::i8)
        c.unsupported("a zero point of type " + std::string(ir_name(t)) + " (uint8 and int8 are supported)");
    return t;
}

// Output 0 = saturate(round(q) + zero point) in the type of the zero point, input `zp_in`, which
// `shape` makes broadcast against q; with that optional input absent, uint8 and no zero point.
// A zero constant adds nothing.
template <typename Shape>
void set_saturated(ExtractContext& c, const OutPort& q, size_t zp_in, Shape shape) {
    if (!c.has_input(zp_in)) {
        c.set_output(0, saturate_round(c, q, nullptr, ElementType::u8));
        return;
    }
    const ElementType type = quantized_type(c, c.input(zp_in));
    if (is_zero_constant(c.input_value(zp_in))) {
        c.set_output(0, saturate_round(c, q, nullptr, type));
        return;
    }
    OutPort zp = to_type(c, "y_zero_point/f32", shape(c.input(zp_in)), ElementType::f32);
    c.set_output(0, saturate_round(c, q, &zp, type));
}

void set_saturated(ExtractContext& c, const OutPort& q, size_t zp_in) {
    set_saturated(c, q, zp_in, [](const OutPort& zp) { return zp; });
}

void quantize_linear(ExtractContext& c) {
    OutPort x = c.input(0), scale = c.input(1);
    require_f32(c, x, "input x");
    require_f32(c, scale, "y_scale");
    OutPort q = in_f32(c.add("Divide", "scaled", {x, along_axis(c, "y_scale", scale, x)}));
    set_saturated(c, q, 2, [&](const OutPort& zp) { return along_axis(c, "y_zero_point", zp, x); });
}

// Blocked DequantizeLinear (opset 21, block_size > 0): scale and zero point have x's rank with
// ceil(D / block_size) entries along `axis`, entry i / block_size serving element i. Computed in
// the blocked shape [..., D / block_size, block_size, ...] and reshaped back: for constant
// weights the blocked views are the stored bytes (no copy), OpenVINO's grouped compressed form.
void dequantize_blocked(ExtractContext& c, int64_t block) {
    OutPort x = c.input(0), scale = c.input(1);
    if (!x.shape().is_static()) c.unsupported("blocked quantization of an input of unknown shape");
    const Shape shape = x.shape().to_shape();
    const auto rank = static_cast<int64_t>(shape.size());
    int64_t axis = c.i("axis", 1);
    if (axis < -rank || axis >= rank) c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    if (axis < 0) axis += rank;
    const auto a = static_cast<size_t>(axis);
    if (shape[a] % block != 0)
        c.unsupported("block_size " + std::to_string(block) + " that does not divide dimension " + std::to_string(shape[a]) +
                      " (a padded last block)");
    Shape blocked = shape, per_block = shape;
    blocked[a] = per_block[a] = shape[a] / block;
    blocked.insert(blocked.begin() + axis + 1, block);
    per_block.insert(per_block.begin() + axis + 1, 1);
    // A constant is re-viewed in the blocked shape; anything else is reshaped.
    auto in_shape = [&](const std::string& name, const OutPort& p, const Shape& to) {
        if (const Tensor* v = p.value(); v && p.node().is("Constant")) {
            if (static_cast<size_t>(shape_size(to)) != v->size()) c.fail(name + " does not have " + std::to_string(shape_size(to)) + " values");
            return c.constant(name + "/blocked", v->reshaped(to));
        }
        return c.op("Reshape", name + "/blocked", {p, c.i64s(name + "/blocked_shape", to)}, {{"special_zero", false}});
    };
    OutPort x_blocked = in_shape("x", x, blocked);
    OutPort y = keep_8bit_weights(to_type(c, "x/f32", x_blocked, ElementType::f32), x_blocked);
    if (c.has_input(2) && !is_zero_constant(c.input_value(2))) {
        OutPort zp_blocked = in_shape("x_zero_point", c.input(2), per_block);
        y = c.op("Subtract", "shifted", {y, keep_8bit_weights(to_type(c, "x_zero_point/f32", zp_blocked, ElementType::f32), zp_blocked)});
    }
    y = in_f32(c.add("Multiply", "dequantized", {y, in_shape("x_scale", scale, per_block)}));
    c.set_output(0, c.op("Reshape", "", {y, c.i64s("shape", shape)}, {{"special_zero", false}}));
}

void dequantize_linear(ExtractContext& c) {
    OutPort x = c.input(0), scale = c.input(1);
    require_f32(c, scale, "x_scale");
    const ElementType t = x.type();
    if (c.has("output_dtype") && c.i("output_dtype") != 0 && c.i("output_dtype") != 1)  // 1: FLOAT
        c.unsupported("output_dtype " + std::to_string(c.i("output_dtype")) + " (float output only)");
    const bool supported = t == ElementType::u8 || t == ElementType::i8 || t == ElementType::i32 || t == ElementType::dynamic ||
                           t == ElementType::u4 || t == ElementType::i4 || t == ElementType::u16 || t == ElementType::i16;
    if (!supported)
        c.unsupported("input x of type " + std::string(ir_name(t)) + " (4-, 8-, 16-bit integers and int32 are supported)");
    if (const int64_t block = c.i("block_size", 0); block > 0) {
        dequantize_blocked(c, block);
        return;
    }
    // Values up to 16 bits and their difference are exact in f32; int32 converts as ONNX Runtime does.
    std::optional<OutPort> zp;
    if (c.has_input(2) && !is_zero_constant(c.input_value(2)))
        zp = to_type(c, "x_zero_point/f32", along_axis(c, "x_zero_point", c.input(2), x), ElementType::f32);
    c.set_output(0, dequantized(c, "x", x, zp ? &*zp : nullptr, along_axis(c, "x_scale", scale, x)));
}

// DynamicQuantizeLinear's uint8 parameters of x: scale = (max(0, max x) - min(0, min x)) / 255
// and zero point saturate(round(-min / scale)), the latter in f32 for the arithmetic.
struct DynamicRange {
    OutPort scale, zero_point;
};

DynamicRange dynamic_range(ExtractContext& c, const OutPort& x) {
    require_f32(c, x, "input x");
    OutPort zero = c.constant("zero", Tensor::scalar<float>(0.0f));
    OutPort axes = c.axes_from("all_axes", x, 0);
    OutPort lo = c.op("Minimum", "min", {c.op("ReduceMin", "min/reduce", {x, axes}, {{"keep_dims", false}}), zero});
    OutPort hi = c.op("Maximum", "max", {c.op("ReduceMax", "max/reduce", {x, axes}, {{"keep_dims", false}}), zero});
    OutPort scale = c.op("Divide", "y_scale", {c.op("Subtract", "range", {hi, lo}),
                                               c.constant("qrange", Tensor::scalar<float>(255.0f))});
    OutPort zp_rounded = c.op("Round", "y_zero_point/round", {c.op("Divide", "y_zero_point/scaled",
                                                                    {c.op("Negative", "neg_min", {lo}), scale})},
                              {{"mode", std::string("half_to_even")}});
    return {scale, c.op("Clamp", "y_zero_point/saturate", {zp_rounded}, {{"min", 0.0}, {"max", 255.0}})};
}

void dynamic_quantize_linear(ExtractContext& c) {
    OutPort x = c.input(0);
    const DynamicRange r = dynamic_range(c, x);
    c.set_output(0, saturate_round(c, c.op("Divide", "scaled", {x, r.scale}), &r.zero_point, ElementType::u8));
    if (c.output_count() > 1) c.set_output(1, r.scale);
    if (c.output_count() > 2)
        c.set_output(2, c.op("Convert", "y_zero_point", {r.zero_point}, {{"destination_type", ElementType::u8}}));
}

void require_8bit(ExtractContext& c, const OutPort& p, const std::string& what) {
    const ElementType t = p.type();
    if (t != ElementType::u8 && t != ElementType::i8 && t != ElementType::dynamic)
        c.unsupported(what + " of type " + std::string(ir_name(t)) + " (uint8 and int8 are supported)");
}

// i32(x) - i32(zp), the zero point reshaped by `shape_zp` first; no Subtract for a zero constant.
template <typename ShapeZp>
OutPort shifted_i32(ExtractContext& c, const std::string& name, const OutPort& x, size_t zp_input,
                    ShapeZp shape_zp) {
    OutPort v = keep_8bit_weights(to_type(c, name + "/i32", x, ElementType::i32), x);
    if (!c.has_input(zp_input) || is_zero_constant(c.input_value(zp_input))) return v;
    OutPort zp = c.input(zp_input);
    require_8bit(c, zp, name + " zero point");
    zp = to_type(c, name + "_zero_point/i32", shape_zp(zp), ElementType::i32);
    return c.op("Subtract", name + "/shifted", {v, zp});
}

// The i32 product of MatMulInteger / QLinearMatMul: (i32(A) - i32(a_zp)) x (i32(B) - i32(b_zp)),
// with A, B and their zero points the ONNX node's inputs a, b, a_zp, b_zp.
// With `transpose_b` (QGemm's transB), B is [N, K] and a 1D b_zero_point holds one value per row.
OutPort integer_matmul(ExtractContext& c, const std::string& suffix, size_t a_in, size_t a_zp, size_t b_in,
                       size_t b_zp, bool transpose_b = false) {
    OutPort a = c.input(a_in), b = c.input(b_in);
    require_8bit(c, a, "input A");
    require_8bit(c, b, "input B");
    // A 1D a_zero_point holds one value per row of A: [M] -> [M, 1]. b's [N] broadcasts as is.
    OutPort a_shifted = shifted_i32(c, "A", a, a_zp, [&](const OutPort& zp) {
        const int64_t zp_rank = ExtractContext::rank_of(zp), a_rank = ExtractContext::rank_of(a);
        if (zp_rank < 0 || (zp_rank == 1 && a_rank < 0))
            c.unsupported("a_zero_point or A of unknown rank");
        if (zp_rank != 1 || a_rank < 2) return zp;
        return c.op("Unsqueeze", "A_zero_point/per_row", {zp, c.i64s("A_zero_point/axis", {1})});
    });
    OutPort b_shifted = shifted_i32(c, "B", b, b_zp, [&](const OutPort& zp) {
        if (!transpose_b || ExtractContext::rank_of(zp) != 1) return zp;
        return c.op("Unsqueeze", "B_zero_point/per_row", {zp, c.i64s("B_zero_point/axis", {1})});
    });
    return c.op("MatMul", suffix, {a_shifted, b_shifted}, {{"transpose_a", false}, {"transpose_b", transpose_b}});
}

void matmul_integer(ExtractContext& c) { c.set_output(0, integer_matmul(c, "", 0, 2, 1, 3)); }

// ONNX Runtime's com.microsoft MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point?,
// b_zero_point?, bias?): f32(the i32 product) · a_scale · b_scale (+ bias), the product computed
// exactly as MatMulInteger's (weights stay 8-bit in the IR).
void matmul_integer_to_float(ExtractContext& c) {
    OutPort product = to_type(c, "product/f32", integer_matmul(c, "product", 0, 4, 1, 5), ElementType::f32);
    OutPort scale = c.op("Multiply", "scale", {c.input(2), c.input(3)});
    OutPort y = c.op("Multiply", c.has_input(6) ? "scaled" : "", {product, scale});
    if (c.has_input(6)) y = c.op("Add", "", {y, c.input(6)});
    c.set_output(0, y);
}

// ONNX Runtime's com.microsoft DynamicQuantizeMatMul(A, B, b_scale, b_zero_point?, bias?): A is
// quantized to uint8 as DynamicQuantizeLinear does, multiplied in i32 with the 8-bit B (zero
// points subtracted; B's per tensor or per column), then f32 · a_scale · b_scale (+ bias).
void dynamic_quantize_matmul(ExtractContext& c) {
    OutPort a = c.input(0);
    const DynamicRange r = dynamic_range(c, a);
    OutPort q = c.op("Round", "A/rounded", {c.op("Divide", "A/scaled", {a, r.scale})}, {{"mode", std::string("half_to_even")}});
    q = c.op("Clamp", "A/saturated", {c.op("Add", "A/plus_zero_point", {q, r.zero_point})}, {{"min", 0.0}, {"max", 255.0}});
    OutPort a_shifted = to_type(c, "A/i32", c.op("Subtract", "A/shifted", {q, r.zero_point}), ElementType::i32);
    require_8bit(c, c.input(1), "input B");
    OutPort b_shifted = shifted_i32(c, "B", c.input(1), 3, [](const OutPort& zp) { return zp; });
    OutPort product = c.op("MatMul", "product", {a_shifted, b_shifted}, {{"transpose_a", false}, {"transpose_b", false}});
    OutPort scale = c.op("Multiply", "scale", {r.scale, c.input(2)});
    OutPort y = c.op("Multiply", c.has_input(4) ? "scaled" : "", {to_type(c, "product/f32", product, ElementType::f32), scale});
    if (c.has_input(4)) y = c.op("Add", "", {y, c.input(4)});
    c.set_output(0, y);
}

// The i32 result of ConvInteger / QLinearConv before any bias, with x, w and their zero points
// the ONNX node's inputs x_in, x_zp, w_in, w_zp; `spatial` receives the number of spatial dims.
OutPort integer_conv(ExtractContext& c, const std::string& suffix, size_t x_in, size_t x_zp, size_t w_in,
                     size_t w_zp, size_t& spatial) {
    OutPort x = c.input(x_in), w = c.input(w_in);
    require_8bit(c, x, "input x");
    require_8bit(c, w, "input w");
    const int64_t w_rank = ExtractContext::rank_of(w);
    spatial = c.has("kernel_shape") ? c.ints("kernel_shape").size()
            : w_rank >= 3           ? static_cast<size_t>(w_rank - 2)
                                    : 0;
    if (spatial == 0)
        c.fail("cannot tell the number of spatial dimensions", "give the model a kernel_shape or constant weights");
    const SpatialAttrs a = onnx_spatial_attrs(c, spatial, true);
    const int64_t group = c.i("group", 1);
    if (group < 1) c.fail("group must be positive", "fix the model");

    // Subtracting before the convolution makes the padding equal the zero point, as ONNX pads.
    OutPort xs = shifted_i32(c, "x", x, x_zp, [&](const OutPort& zp) {
        if (!zp.shape().is_static() || shape_size(zp.shape().to_shape()) != 1)
            c.unsupported("an x_zero_point that is not a single value");
        return zp;
    });
    // A 1D w_zero_point holds one value per output channel: [M] -> [M, 1, ...].
    const size_t n_spatial = spatial;
    OutPort ws = shifted_i32(c, "w", w, w_zp, [&](const OutPort& zp) {
        const int64_t zp_rank = ExtractContext::rank_of(zp);
        if (zp_rank < 0) c.unsupported("a w_zero_point of unknown rank");
        if (zp_rank != 1) return zp;
        std::vector<int64_t> shape{-1};
        shape.insert(shape.end(), n_spatial + 1, 1);
        return c.op("Reshape", "w_zero_point/per_channel", {zp, c.i64s("w_zero_point/shape", shape)},
                    {{"special_zero", false}});
    });
    if (group > 1) {
        // [M, C/G, k...] -> [G, M/G, C/G, k...]
        if (!w.shape().is_static()) c.unsupported("a grouped integer convolution with weights of unknown shape");
        Shape s = w.shape().to_shape();
        if (s.empty() || s[0] % group != 0)
            c.fail("weights' first dimension is not divisible by group " + std::to_string(group), "fix the model");
        Shape grouped{group, s[0] / group};
        grouped.insert(grouped.end(), s.begin() + 1, s.end());
        ws = c.op("Reshape", "w/grouped", {ws, c.i64s("w/grouped_shape", grouped)}, {{"special_zero", false}});
    }
    return c.op(group > 1 ? "GroupConvolution" : "Convolution", suffix, {xs, ws},
                {{"strides", a.strides}, {"pads_begin", a.pads_begin}, {"pads_end", a.pads_end},
                 {"dilations", a.dilations}, {"auto_pad", a.auto_pad}});
}

void conv_integer(ExtractContext& c) {
    size_t spatial = 0;
    c.set_output(0, integer_conv(c, "", 0, 2, 1, 3, spatial));
}

// ---- QLinearMatMul / QLinearConv: requantization of the i32 accumulator ----------------------
// y = saturate(round_half_even(f32(acc) * (a_scale * b_scale / y_scale)) + y_zp), every step in
// f32 as ONNX Runtime computes it (ONNX leaves the precision open); a double multiplier would
// move values that sit near .5 after scaling.

void require_single(ExtractContext& c, const OutPort& p, const std::string& what) {
    if (!p.shape().is_static() || shape_size(p.shape().to_shape()) != 1)
        c.unsupported(what + " that is not a single value (per-tensor quantization only)");
}

// Requantizes `acc` (i32) with the multiplier s1 * s2 / s3 (f32 inputs), adding y_zp (input
// `y_zp_in`, whose type is the output type). Each f32 step is kept out of f16 compression.
void requantize(ExtractContext& c, const OutPort& acc, const OutPort& s1, const OutPort& s2, const OutPort& s3,
                size_t y_zp_in) {
    OutPort scale = in_f32(c.add("Multiply", "multiplier/product", {s1, s2}));
    scale = in_f32(c.add("Divide", "multiplier", {scale, s3}));
    OutPort q = in_f32(c.add("Multiply", "scaled", {to_type(c, "acc/f32", acc, ElementType::f32), scale}));
    set_saturated(c, q, y_zp_in);
}

// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point. a and y are
// per tensor; b may be per column (its [N] scale and zero point broadcast along the last axis).
void qlinear_matmul(ExtractContext& c) {
    for (size_t i : {1u, 4u, 6u}) require_f32(c, c.input(i), "the scale input " + std::to_string(i));
    require_single(c, c.input(1), "an a_scale");
    require_single(c, c.input(2), "an a_zero_point");
    require_single(c, c.input(6), "a y_scale");
    require_single(c, c.input(7), "a y_zero_point");
    for (size_t i : {4u, 5u})
        if (ExtractContext::rank_of(c.input(i)) > 1)
            c.unsupported("a b_scale or b_zero_point of rank above 1");
    OutPort acc = integer_matmul(c, "acc", 0, 2, 3, 5);
    requantize(c, acc, c.input(1), c.input(4), c.input(6), 7);
}

// ONNX Runtime's com.microsoft QGemm(A, a_scale, a_zero_point, B, b_scale, b_zero_point, C?,
// y_scale?, y_zero_point?; alpha, transA, transB): alpha · (A - a_zp)(B - b_zp) · a_scale ·
// b_scale, C an int32 bias in the product's scale added to the accumulator; quantized with
// y_scale / y_zero_point when they are given (a requantization as QLinearMatMul's), else f32.
// a per tensor; b per tensor or per column (per row of B with transB).
void qgemm(ExtractContext& c) {
    if (c.i("transA", 0) != 0) c.unsupported("transA=1");
    for (size_t i : {1u, 4u}) require_f32(c, c.input(i), "the scale input " + std::to_string(i));
    require_single(c, c.input(1), "an a_scale");
    if (c.has_input(2)) require_single(c, c.input(2), "an a_zero_point");
    for (size_t i : {4u, 5u})
        if (c.has_input(i) && ExtractContext::rank_of(c.input(i)) > 1) c.unsupported("a b_scale or b_zero_point of rank above 1");
    const bool transpose_b = c.i("transB", 0) != 0;
    OutPort acc = integer_matmul(c, "acc", 0, 2, 3, 5, transpose_b);
    if (c.has_input(6)) {
        if (c.input(6).type() != ElementType::i32 && c.input(6).type() != ElementType::dynamic)
            c.fail("the bias C must be int32, it is " + std::string(ir_name(c.input(6).type())));
        acc = c.op("Add", "acc/biased", {acc, c.input(6)});
    }
    // b_scale [N] scales the output's columns, with transB or not.
    OutPort scale = in_f32(c.add("Multiply", "multiplier/product", {c.input(1), c.input(4)}));
    if (const double alpha = c.f("alpha", 1.0); alpha != 1.0)
        scale = in_f32(c.add("Multiply", "multiplier/alpha", {scale, c.scalar_like("alpha", alpha, scale)}));
    OutPort product = to_type(c, "acc/f32", acc, ElementType::f32);
    if (!c.has_input(7)) {
        c.set_output(0, in_f32(c.add("Multiply", "", {product, scale})));
        return;
    }
    require_f32(c, c.input(7), "y_scale");
    require_single(c, c.input(7), "a y_scale");
    OutPort q = in_f32(c.add("Multiply", "scaled", {product, in_f32(c.add("Divide", "multiplier", {scale, c.input(7)}))}));
    if (c.has_input(8)) require_single(c, c.input(8), "a y_zero_point");
    set_saturated(c, q, 8);
}

// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B (int32).
// w_scale / w_zero_point may be per output channel ([M]).
void qlinear_conv(ExtractContext& c) {
    for (size_t i : {1u, 4u, 6u}) require_f32(c, c.input(i), "the scale input " + std::to_string(i));
    require_single(c, c.input(1), "an x_scale");
    require_single(c, c.input(6), "a y_scale");
    require_single(c, c.input(7), "a y_zero_point");
    size_t spatial = 0;
    OutPort acc = integer_conv(c, "acc", 0, 2, 3, 5, spatial);
    // [M] -> [M, 1, ...] to broadcast along the channel axis of [N, M, spatial...].
    auto per_channel = [&](const std::string& name, const OutPort& p) {
        const int64_t rank = ExtractContext::rank_of(p);
        if (rank < 0 || rank > 1) c.unsupported("a " + name + " that is not a scalar or a 1D tensor");
        if (rank == 0) return p;
        std::vector<int64_t> shape{-1};
        shape.insert(shape.end(), spatial, 1);
        return c.op("Reshape", name + "/per_channel", {p, c.i64s(name + "/shape", shape)}, {{"special_zero", false}});
    };
    if (c.has_input(8)) {
        OutPort bias = c.input(8);
        if (bias.type() != ElementType::i32 && bias.type() != ElementType::dynamic)
            c.fail("the bias B must be int32, it is " + std::string(ir_name(bias.type())), "fix the model");
        acc = c.op("Add", "acc/biased", {acc, per_channel("B", bias)});
    }
    requantize(c, acc, c.input(1), per_channel("w_scale", c.input(4)), c.input(6), 7);
}

}  // namespace

OutPort dequantize_input(ExtractContext& c, const std::string& name, size_t x, size_t scale, size_t zero_point) {
    require_f32(c, c.input(scale), name + "_scale");
    require_single(c, c.input(scale), "a " + name + "_scale");
    OutPort y = keep_8bit_weights(to_type(c, name + "/f32", c.input(x), ElementType::f32), c.input(x));
    if (c.has_input(zero_point) && !is_zero_constant(c.input_value(zero_point))) {
        require_single(c, c.input(zero_point), "a " + name + "_zero_point");
        require_8bit(c, c.input(zero_point), name + "_zero_point");
        y = c.op("Subtract", name + "/shifted", {y, to_type(c, name + "_zero_point/f32", c.input(zero_point), ElementType::f32)});
    }
    return in_f32(c.add("Multiply", name + "/dequantized", {y, c.input(scale)}));
}

void quantize_output(ExtractContext& c, const OutPort& y, size_t scale, size_t zero_point) {
    require_f32(c, c.input(scale), "the output scale");
    require_single(c, c.input(scale), "an output scale");
    OutPort q = in_f32(c.add("Divide", "scaled", {y, c.input(scale)}));
    if (c.has_input(zero_point)) require_single(c, c.input(zero_point), "an output zero point");
    set_saturated(c, q, zero_point);
}

OutPort integer_input(ExtractContext& c, const std::string& name, size_t x, size_t zero_point) {
    require_8bit(c, c.input(x), name);
    return shifted_i32(c, name, c.input(x), zero_point, [&](const OutPort& zp) {
        require_single(c, zp, "a " + name + "_zero_point");
        return zp;
    });
}

void requantize_product(ExtractContext& c, const OutPort& acc, size_t s1, size_t s2, size_t s3, size_t zero_point) {
    for (size_t i : {s1, s2, s3}) {
        require_f32(c, c.input(i), "the scale input " + std::to_string(i));
        require_single(c, c.input(i), "a scale input " + std::to_string(i));
    }
    require_single(c, c.input(zero_point), "an output zero point");
    requantize(c, acc, c.input(s1), c.input(s2), c.input(s3), zero_point);
}

void register_onnx_quantization(ExtractorRegistry& r) {
    // Opset 19 adds float8 types and f16 scales (refused by type), opset 21 4- and 16-bit types
    // and blocked quantization (DequantizeLinear only).
    r.add({"onnx", "", "QuantizeLinear", opsets(10, 18), quantize_linear});
    r.add({"onnx", "", "DequantizeLinear", since(10), dequantize_linear});
    r.add({"onnx", "", "DynamicQuantizeLinear", since(11), dynamic_quantize_linear});
    r.add({"onnx", "", "MatMulInteger", since(10), matmul_integer});
    r.add({"onnx", "com.microsoft", "MatMulIntegerToFloat", since(1), matmul_integer_to_float});
    r.add({"onnx", "com.microsoft", "DynamicQuantizeMatMul", since(1), dynamic_quantize_matmul});
    r.add({"onnx", "com.microsoft", "QGemm", since(1), qgemm});
    r.add({"onnx", "", "ConvInteger", since(10), conv_integer});
    r.add({"onnx", "", "QLinearMatMul", opsets(10, 20), qlinear_matmul});
    r.add({"onnx", "", "QLinearConv", since(10), qlinear_conv});
}

}  // namespace mo
