// RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, CONCATENATION, PAD / PADV2 / MIRROR_PAD, the
// reductions, SOFTMAX, the resizes and DEQUANTIZE (float16 weights), all in the source layout.
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

void reshape(ExtractContext& c) {
    OutPort shape = c.has_input(1) ? c.input(1) : c.i64s("shape", c.ints("new_shape"));
    if (!c.has_input(1) && !c.has("new_shape")) c.fail("RESHAPE without a shape input or new_shape option");
    c.set_output(0, c.op("Reshape", "", {c.input(0), shape}, {{"special_zero", false}}));
}

void squeeze(ExtractContext& c) {
    std::vector<int64_t> axes = c.ints("squeeze_dims");
    if (axes.empty()) c.set_output(0, c.op("Squeeze", "", {c.input(0)}));
    else c.set_output(0, c.op("Squeeze", "", {c.input(0), c.i64s("axes", axes)}));
}

void concatenation(ExtractContext& c) {
    std::vector<OutPort> inputs;
    for (size_t i = 0; i < c.input_count(); ++i) inputs.push_back(c.input(i));
    OutPort y = c.op("Concat", "concat", inputs, {{"axis", c.i("axis", 0)}});
    c.set_output(0, tflite_activation(c, y, "activation"));
}

// paddings [rank, 2] -> Pad(x, begins, ends[, value])
void pad(ExtractContext& c, const std::string& mode) {
    std::vector<int64_t> p = c.input_ints(1);
    if (p.size() % 2) c.fail("paddings must have shape [rank, 2]");
    std::vector<int64_t> begin, end;
    for (size_t i = 0; i < p.size(); i += 2) begin.push_back(p[i]), end.push_back(p[i + 1]);
    std::vector<OutPort> in{c.input(0), c.i64s("pads_begin", begin), c.i64s("pads_end", end)};
    if (mode == "constant" && c.has_input(2)) in.push_back(c.input(2));
    c.set_output(0, c.op("Pad", "", in, {{"pad_mode", mode}}));
}

void reduction(ExtractContext& c, const char* type) {
    c.set_output(0, c.op(type, "", {c.input(0), c.input(1)}, {{"keep_dims", c.i("keep_dims", 0) != 0}}));
}

// softmax(beta * x) over the last axis
void softmax(ExtractContext& c) {
    OutPort x = c.input(0);
    const double beta = c.f("beta", 1.0);
    if (beta != 1.0) x = c.op("Multiply", "beta", {x, c.scalar_like("beta/value", beta, x)});
    c.set_output(0, c.op("Softmax", "", {x}, {{"axis", int64_t{-1}}}));
}

// RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR: Interpolate over axes 1, 2 of NHWC to the size
// input ([new_height, new_width]), with TensorFlow's coordinate rules.
void resize(ExtractContext& c, bool bilinear) {
    const bool align = c.i("align_corners", 0) != 0, half = c.i("half_pixel_centers", 0) != 0;
    if (align && half) c.fail("align_corners and half_pixel_centers are both set");
    std::string coord = align ? "align_corners" : half ? (bilinear ? "half_pixel" : "tf_half_pixel_for_nn") : "asymmetric";
    // Nearest: floor((out [+ 0.5]) * scale), or with align_corners round half away from zero.
    std::string nearest = align ? "round_prefer_ceil" : "floor";
    c.set_output(0, c.op("Interpolate", "", {c.input(0), c.input(1), c.i64s("axes", {1, 2})},
                         {{"mode", std::string(bilinear ? "linear_onnx" : "nearest")},
                          {"shape_calculation_mode", std::string("sizes")},
                          {"coordinate_transformation_mode", coord},
                          {"nearest_mode", nearest},
                          {"cube_coeff", -0.75},
                          {"antialias", false}}));
}

void dequantize(ExtractContext& c) {
    const ElementType in = c.input(0).type();
    if (in != ElementType::f16 && in != ElementType::bf16)
        c.unsupported("DEQUANTIZE of " + std::string(ir_name(in)) + " (quantized models are not read yet)");
    c.set_output(0, c.op("Convert", "", {c.input(0)}, {{"destination_type", ElementType::f32}}));
}

}  // namespace

void register_tflite_shape(ExtractorRegistry& r) {
    r.add({"tflite", "", "RESHAPE", 1, INT64_MAX, reshape});
    r.add({"tflite", "", "SQUEEZE", 1, INT64_MAX, squeeze});
    r.add({"tflite", "", "EXPAND_DIMS", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Unsqueeze", "", {c.input(0), c.input(1)})); }});
    r.add({"tflite", "", "TRANSPOSE", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Transpose", "", {c.input(0), c.input(1)})); }});
    r.add({"tflite", "", "CONCATENATION", 1, INT64_MAX, concatenation});
    r.add({"tflite", "", "PAD", 1, INT64_MAX, [](ExtractContext& c) { pad(c, "constant"); }});
    r.add({"tflite", "", "PADV2", 1, INT64_MAX, [](ExtractContext& c) { pad(c, "constant"); }});
    r.add({"tflite", "", "MIRROR_PAD", 1, INT64_MAX,
           [](ExtractContext& c) { pad(c, c.i("mode", 0) == 0 ? "reflect" : "symmetric"); }});
    r.add({"tflite", "", "MEAN", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceMean"); }});
    r.add({"tflite", "", "SUM", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceSum"); }});
    r.add({"tflite", "", "REDUCE_MAX", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceMax"); }});
    r.add({"tflite", "", "REDUCE_MIN", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceMin"); }});
    r.add({"tflite", "", "SOFTMAX", 1, INT64_MAX, softmax});
    r.add({"tflite", "", "DEQUANTIZE", 1, INT64_MAX, dequantize});
    r.add({"tflite", "", "RESIZE_BILINEAR", 1, INT64_MAX, [](ExtractContext& c) { resize(c, true); }});
    r.add({"tflite", "", "RESIZE_NEAREST_NEIGHBOR", 1, INT64_MAX, [](ExtractContext& c) { resize(c, false); }});
}

}  // namespace mo
