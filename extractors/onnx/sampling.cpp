// RoiAlign-10/16 -> ROIAlign-9 and GridSample-16 -> GridSample-9, each one op with the same inputs.
// RoiAlign: ONNX's output_half_pixel (the only behaviour of opset 10) is OpenVINO's asymmetric,
// ONNX's half_pixel (x * scale - 0.5, no 1 x 1 minimum) is half_pixel_for_nn. ONNX's max mode
// takes the max of the four weighted corner values of each sample, OpenVINO's the max of the
// interpolated samples (from 0): different values, so it is refused.
#include <string>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

void roi_align(ExtractContext& c) {
    const std::string mode = c.s("mode", "avg");
    if (mode == "max")
        c.unsupported("RoiAlign mode 'max' (ONNX takes the max of the weighted corner values of each sample, "
                      "OpenVINO's ROIAlign the max of the interpolated samples)");
    if (mode != "avg") c.fail("unknown RoiAlign mode '" + mode + "'", "use avg or max");
    std::string aligned = "asymmetric";
    if (c.opset() >= 16) {
        const std::string transform = c.s("coordinate_transformation_mode", "half_pixel");
        if (transform == "half_pixel") aligned = "half_pixel_for_nn";
        else if (transform != "output_half_pixel")
            c.fail("unknown coordinate_transformation_mode '" + transform + "'", "use half_pixel or output_half_pixel");
    }
    const int64_t sampling_ratio = c.i("sampling_ratio", 0);
    if (sampling_ratio < 0) c.fail("sampling_ratio must not be negative");
    const int64_t height = c.i("output_height", 1), width = c.i("output_width", 1);
    if (height <= 0 || width <= 0) c.fail("output_height and output_width must be positive");
    const double scale = c.f("spatial_scale", 1.0);
    if (!(scale > 0)) c.fail("spatial_scale must be positive");
    c.become("ROIAlign", {{"pooled_h", height},
                          {"pooled_w", width},
                          {"sampling_ratio", sampling_ratio},
                          {"spatial_scale", scale},
                          {"mode", mode},
                          {"aligned_mode", aligned}});
}

void grid_sample(ExtractContext& c) {
    const std::string mode = c.s("mode", "bilinear");
    if (mode != "bilinear" && mode != "bicubic" && mode != "nearest")
        c.fail("unknown GridSample mode '" + mode + "'", "use bilinear, bicubic or nearest");
    const std::string padding = c.s("padding_mode", "zeros");
    if (padding != "zeros" && padding != "border" && padding != "reflection")
        c.fail("unknown GridSample padding_mode '" + padding + "'", "use zeros, border or reflection");
    c.become("GridSample", {{"align_corners", c.i("align_corners", 0) != 0}, {"mode", mode}, {"padding_mode", padding}});
}

}  // namespace

void register_onnx_sampling(ExtractorRegistry& r) {
    r.add({"onnx", "", "RoiAlign", since(10), roi_align});
    // Opset 20 renames the modes (linear, cubic) and allows N-D grids.
    r.add({"onnx", "", "GridSample", opsets(16, 19), grid_sample});
}

}  // namespace mo
