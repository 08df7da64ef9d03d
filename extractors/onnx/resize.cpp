// Resize (opset 10, 11+) and Upsample -> Interpolate-11.
#include <cmath>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

std::string interpolate_mode(ExtractContext& c, const std::string& mode) {
    if (mode == "nearest") return "nearest";
    if (mode == "linear" || mode == "bilinear") return "linear_onnx";
    if (mode == "cubic") return "cubic";
    c.unsupported("mode '" + mode + "'");
}

// An input that is absent or an empty constant (exporters write "" or a [0] tensor).
bool given(ExtractContext& c, size_t i) {
    if (!c.has_input(i)) return false;
    const Tensor* v = c.input_value(i);
    return !v || v->size() > 0;
}

// Opset 10 Resize and Upsample: scales only, asymmetric coordinates, floor for nearest.
void resize_scales_only(ExtractContext& c, const OutPort& scales) {
    std::string mode = interpolate_mode(c, c.s("mode", "nearest"));
    c.set_output(0, c.op("Interpolate", "", {c.input(0), scales},
                         {{"mode", mode},
                          {"shape_calculation_mode", std::string("scales")},
                          {"coordinate_transformation_mode", std::string("asymmetric")},
                          {"nearest_mode", std::string("floor")}}));
}

// With align_corners ONNX maps x_resized to x_resized * (L - 1) / (L * scale - 1), with the
// unrounded output length L * scale; OpenVINO divides by floor(L * scale) - 1. The two agree
// only where L * scale is a whole number, so anything else is refused rather than converted
// to an IR that computes different values.
void check_align_corners_scales(ExtractContext& c) {
    const Tensor* scales = c.input_value(2);
    if (!scales)
        c.unsupported("coordinate_transformation_mode 'align_corners' with scales computed at run time "
                      "(ONNX and OpenVINO differ unless every input length times its scale is a whole number)");
    const PartialShape& shape = c.input(0).shape();
    std::vector<double> s = scales->to_f64();
    for (size_t axis = 0; axis < s.size(); ++axis) {
        if (s[axis] == std::floor(s[axis])) continue;  // whole scales give whole lengths
        bool known = shape.rank_is_static() && axis < shape.rank() && shape[axis].is_static();
        double length = known ? static_cast<double>(shape[axis].get_length()) * s[axis] : 0.5;
        if (std::fabs(length - std::nearbyint(length)) > 1e-4)
            c.unsupported("coordinate_transformation_mode 'align_corners' with scale " + std::to_string(s[axis]) +
                          " on axis " + std::to_string(axis) +
                          (known ? " (output length " + std::to_string(length) + " is not a whole number;"
                                 : " (the input length is not known at conversion time;") +
                          " ONNX divides by the unrounded length, OpenVINO's Interpolate by the rounded one)");
    }
}

void resize(ExtractContext& c) {
    std::string coord = c.s("coordinate_transformation_mode", "half_pixel");
    if (coord == "tf_crop_and_resize") c.unsupported("coordinate_transformation_mode 'tf_crop_and_resize'");
    if (c.i("exclude_outside", 0)) c.unsupported("exclude_outside=1");
    // Resize-18's additions, unless at their defaults.
    if (c.i("antialias", 0)) c.unsupported("antialias=1");
    if (c.has("axes")) c.unsupported("the axes attribute");
    if (const std::string policy = c.s("keep_aspect_ratio_policy", "stretch"); policy != "stretch")
        c.unsupported("keep_aspect_ratio_policy '" + policy + "'");
    bool sizes = given(c, 3);
    if (!sizes && !given(c, 2)) c.fail("needs scales or sizes", "fix the model");
    if (coord == "align_corners" && !sizes) check_align_corners_scales(c);
    c.set_output(0, c.op("Interpolate", "", {c.input(0), c.input(sizes ? 3 : 2)},
                         {{"mode", interpolate_mode(c, c.s("mode", "nearest"))},
                          {"shape_calculation_mode", std::string(sizes ? "sizes" : "scales")},
                          {"coordinate_transformation_mode", coord},
                          {"nearest_mode", c.s("nearest_mode", "round_prefer_floor")},
                          {"cube_coeff", c.f("cubic_coeff_a", -0.75)},
                          {"antialias", false}}));
}

void upsample(ExtractContext& c) {
    if (c.opset() < 9) {
        std::vector<double> s = c.floats("scales");
        std::vector<float> f(s.begin(), s.end());
        resize_scales_only(c, c.constant("scales", Tensor::from_vector<float>(f, {static_cast<int64_t>(f.size())})));
    } else {
        resize_scales_only(c, c.input(1));
    }
}

}  // namespace

void register_onnx_resize(ExtractorRegistry& r) {
    r.add({"onnx", "", "Resize", opsets(10, 10), [](ExtractContext& c) { resize_scales_only(c, c.input(1)); }});
    r.add({"onnx", "", "Resize", since(11), resize});
    r.add({"onnx", "", "Upsample", opsets(7, 9), upsample});
}

}  // namespace mo
