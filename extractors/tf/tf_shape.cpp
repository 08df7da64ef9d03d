// Identity / IdentityN / StopGradient, Reshape, Squeeze, ExpandDims, Transpose, ConcatV2, Pack,
// Pad / PadV2 / MirrorPad, Mean / Sum / Max / Min / Prod, Softmax, Shape, Cast, resizes.
#include "extractors/tf/tf_extractors.hpp"

namespace mo {

namespace {

void identity_n(ExtractContext& c) {
    for (size_t j = 0; j < c.output_count() && j < c.input_count(); ++j) c.set_output(j, c.input(j));
}

void squeeze(ExtractContext& c) {
    std::vector<int64_t> axes = c.ints("squeeze_dims");
    if (axes.empty()) c.set_output(0, c.op("Squeeze", "", {c.input(0)}));
    else c.set_output(0, c.op("Squeeze", "", {c.input(0), c.i64s("axes", axes)}));
}

// ConcatV2(values..., axis)
void concat_v2(ExtractContext& c) {
    std::vector<OutPort> inputs;
    for (size_t i = 0; i + 1 < c.input_count(); ++i) inputs.push_back(c.input(i));
    const auto axis = c.input_ints(c.input_count() - 1);
    if (axis.size() != 1) c.fail("the axis must be a scalar");
    c.set_output(0, c.op("Concat", "", inputs, {{"axis", axis[0]}}));
}

// Pack(values...; axis): Unsqueeze each at axis, then Concat.
void pack(ExtractContext& c) {
    const int64_t axis = c.i("axis", 0);
    std::vector<OutPort> parts;
    for (size_t i = 0; i < c.input_count(); ++i)
        parts.push_back(c.op("Unsqueeze", "unsqueeze" + std::to_string(i), {c.input(i), c.i64s("axis" + std::to_string(i), {axis})}));
    c.set_output(0, c.op("Concat", "", parts, {{"axis", axis}}));
}

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

void cast(ExtractContext& c) {
    const std::string where = c.where();
    ElementType to = ElementType::dynamic;
    switch (c.i("DstT")) {
        case 1: to = ElementType::f32; break;
        case 2: to = ElementType::f64; break;
        case 3: to = ElementType::i32; break;
        case 4: to = ElementType::u8; break;
        case 9: to = ElementType::i64; break;
        case 10: to = ElementType::boolean; break;
        case 19: to = ElementType::f16; break;
        default: c.unsupported("Cast to TensorFlow type " + std::to_string(c.i("DstT")));
    }
    c.set_output(0, c.op("Convert", "", {c.input(0)}, {{"destination_type", to}}));
}

void resize(ExtractContext& c, bool bilinear) {
    const bool align = c.i("align_corners", 0) != 0, half = c.i("half_pixel_centers", 0) != 0;
    std::string coord = align ? "align_corners" : half ? (bilinear ? "half_pixel" : "tf_half_pixel_for_nn") : "asymmetric";
    c.set_output(0, c.op("Interpolate", "", {c.input(0), c.input(1), c.i64s("axes", {1, 2})},
                         {{"mode", std::string(bilinear ? "linear_onnx" : "nearest")},
                          {"shape_calculation_mode", std::string("sizes")},
                          {"coordinate_transformation_mode", coord},
                          {"nearest_mode", std::string(align ? "round_prefer_ceil" : "floor")},
                          {"cube_coeff", -0.75},
                          {"antialias", false}}));
}

}  // namespace

void register_tf_shape(ExtractorRegistry& r) {
    for (const char* name : {"Identity", "StopGradient", "Snapshot", "PreventGradient"})
        r.add({"tf", "", name, 1, INT64_MAX, [](ExtractContext& c) { c.set_output(0, c.input(0)); }});
    r.add({"tf", "", "IdentityN", 1, INT64_MAX, identity_n});
    r.add({"tf", "", "NoOp", 1, INT64_MAX, [](ExtractContext&) {}});
    r.add({"tf", "", "Reshape", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("Reshape", "", {c.input(0), c.input(1)}, {{"special_zero", false}}));
           }});
    r.add({"tf", "", "Squeeze", 1, INT64_MAX, squeeze});
    r.add({"tf", "", "ExpandDims", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Unsqueeze", "", {c.input(0), c.input(1)})); }});
    r.add({"tf", "", "Transpose", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Transpose", "", {c.input(0), c.input(1)})); }});
    r.add({"tf", "", "ConcatV2", 1, INT64_MAX, concat_v2});
    r.add({"tf", "", "Pack", 1, INT64_MAX, pack});
    r.add({"tf", "", "Pad", 1, INT64_MAX, [](ExtractContext& c) { pad(c, "constant"); }});
    r.add({"tf", "", "PadV2", 1, INT64_MAX, [](ExtractContext& c) { pad(c, "constant"); }});
    r.add({"tf", "", "MirrorPad", 1, INT64_MAX,
           [](ExtractContext& c) { pad(c, c.s("mode", "REFLECT") == "REFLECT" ? "reflect" : "symmetric"); }});
    r.add({"tf", "", "Mean", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceMean"); }});
    r.add({"tf", "", "Sum", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceSum"); }});
    r.add({"tf", "", "Max", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceMax"); }});
    r.add({"tf", "", "Min", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceMin"); }});
    r.add({"tf", "", "Prod", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceProd"); }});
    r.add({"tf", "", "Softmax", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Softmax", "", {c.input(0)}, {{"axis", int64_t{-1}}})); }});
    r.add({"tf", "", "Shape", 1, INT64_MAX, [](ExtractContext& c) {
               const ElementType t = c.i("out_type", 3) == 9 ? ElementType::i64 : ElementType::i32;
               c.set_output(0, c.op("ShapeOf", "", {c.input(0)}, {{"output_type", t}}));
           }});
    r.add({"tf", "", "Cast", 1, INT64_MAX, cast});
    r.add({"tf", "", "ResizeBilinear", 1, INT64_MAX, [](ExtractContext& c) { resize(c, true); }});
    r.add({"tf", "", "ResizeNearestNeighbor", 1, INT64_MAX, [](ExtractContext& c) { resize(c, false); }});
}

}  // namespace mo
