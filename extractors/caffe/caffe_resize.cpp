// Interp (DeepLab-v2 / PSPNet: bilinear with aligned corners, output by zoom_factor,
// shrink_factor, height / width or a second bottom, after cropping by pad_beg / pad_end <= 0)
// and Upsample (SegNet: max-unpooling with the argmax mask of a Pooling layer as second bottom;
// with one bottom, nearest-neighbour by `scale` as the YOLO ports use it).
#include "extractors/caffe/caffe_extractors.hpp"

namespace mo {

namespace {

int64_t static_dim(ExtractContext& c, size_t input, size_t axis, const std::string& why) {
    const PartialShape& s = c.input(input).shape();
    if (!s.rank_is_static() || s.rank() != 4) c.fail("bottom " + std::to_string(input) + " must be 4-D");
    if (!s[axis].is_static())
        c.unsupported(why + " of an input whose spatial size is known only at run time; give the input a static shape");
    return s[axis].get_length();
}

void interp(ExtractContext& c) {
    const std::string p = "interp_param.";
    const int64_t pad_beg = c.i(p + "pad_beg", 0), pad_end = c.i(p + "pad_end", 0);
    if (pad_beg > 0 || pad_end > 0) c.unsupported("Interp with positive padding (Caffe's Interp only crops)");
    const bool zoom = c.has(p + "zoom_factor"), shrink = c.has(p + "shrink_factor");
    const bool size = c.has(p + "height") || c.has(p + "width");
    if (size && (!c.has(p + "height") || !c.has(p + "width"))) c.fail("give both height and width");
    const int specs = (zoom || shrink) + size + (c.input_count() > 1);
    if (specs != 1) c.fail("give the output size one way: zoom_factor and / or shrink_factor, height and width, or a second bottom");
    std::vector<int64_t> in(2), out(2);
    for (size_t a = 0; a < 2; ++a) {
        in[a] = static_dim(c, 0, 2 + a, "Interp") + pad_beg + pad_end;
        if (in[a] < 1) c.fail("the padding crops the whole input");
        if (zoom || shrink) {
            const int64_t zf = c.i(p + "zoom_factor", 1), sf = c.i(p + "shrink_factor", 1);
            if (zf < 1 || sf < 1) c.fail("zoom_factor and shrink_factor must be positive");
            out[a] = (in[a] - 1) / sf + 1;
            out[a] = out[a] + (out[a] - 1) * (zf - 1);
        } else if (size) {
            out[a] = c.i(p + (a == 0 ? "height" : "width"));
        } else {
            out[a] = static_dim(c, 1, 2 + a, "Interp to the size of a second bottom");
        }
        if (out[a] < 1) c.fail("the output size must be positive");
    }
    OutPort x = c.input(0);
    if (pad_beg != 0 || pad_end != 0) {
        const int64_t h = static_dim(c, 0, 2, "Interp"), w = static_dim(c, 0, 3, "Interp");
        x = c.op("Slice", "crop", {x, c.i64s("crop/start", {-pad_beg, -pad_beg}), c.i64s("crop/stop", {h + pad_end, w + pad_end}),
                                   c.i64s("crop/step", {1, 1}), c.i64s("crop/axes", {2, 3})});
    }
    c.set_output(0, c.op("Interpolate", "", {x, c.i64s("sizes", out), c.i64s("axes", {2, 3})},
                         {{"mode", std::string("linear_onnx")},
                          {"shape_calculation_mode", std::string("sizes")},
                          {"coordinate_transformation_mode", std::string("align_corners")}}));
}

void upsample(ExtractContext& c) {
    const std::string p = "upsample_param.";
    const int64_t scale = c.i(p + "scale", 2);
    const int64_t scale_h = c.i(p + "scale_h", scale), scale_w = c.i(p + "scale_w", scale);
    if (scale_h < 1 || scale_w < 1) c.fail("the scale must be positive");
    if (c.input_count() == 1) {
        if (c.has(p + "upsample_h") || c.has(p + "pad_out_h") || c.has(p + "pad_out_w"))
            c.unsupported("Upsample with one bottom and an explicit output size");
        const std::vector<float> scales{static_cast<float>(scale_h), static_cast<float>(scale_w)};
        c.set_output(0, c.op("Interpolate", "", {c.input(0), c.constant("scales", Tensor::from_vector<float>(scales, {2})),
                                                 c.i64s("axes", {2, 3})},
                             {{"mode", std::string("nearest")},
                              {"shape_calculation_mode", std::string("scales")},
                              {"coordinate_transformation_mode", std::string("asymmetric")},
                              {"nearest_mode", std::string("floor")}}));
        return;
    }
    if (c.input_count() != 2) c.fail("Upsample takes the blob and, for unpooling, the Pooling layer's mask");
    const PartialShape& xs = c.input(0).shape();
    if (!xs.is_static() || xs.rank() != 4) c.unsupported("Upsample (unpooling) of an input whose shape is not static and 4-D");
    const int64_t n = xs[0].get_length(), ch = xs[1].get_length(), h = xs[2].get_length(), w = xs[3].get_length();
    int64_t out_h = h * scale_h - (c.i(p + "pad_out_h", 0) ? 1 : 0), out_w = w * scale_w - (c.i(p + "pad_out_w", 0) ? 1 : 0);
    if (c.has(p + "upsample_h") || c.has(p + "upsample_w")) {
        if (!c.has(p + "upsample_h") || !c.has(p + "upsample_w")) c.fail("give both upsample_h and upsample_w");
        out_h = c.i(p + "upsample_h");
        out_w = c.i(p + "upsample_w");
    }
    if (out_h < 1 || out_w < 1) c.fail("the output size must be positive");
    // top[mask[i]] = bottom[i] per (image, channel) plane; the rest stays 0.
    OutPort zeros = c.op("Broadcast", "zeros", {caffe::scalar(c, "zero", 0.0), c.i64s("zeros/shape", {n, ch, out_h * out_w})});
    OutPort index = c.op("Convert", "mask", {c.input(1)}, {{"destination_type", ElementType::i64}});
    index = c.op("Reshape", "mask/flat", {index, c.i64s("mask/flat/shape", {n, ch, h * w})}, {{"special_zero", false}});
    OutPort values = c.op("Reshape", "values", {c.input(0), c.i64s("values/shape", {n, ch, h * w})}, {{"special_zero", false}});
    OutPort y = c.op("ScatterElementsUpdate", "unpool", {zeros, index, values, c.i64("axis", 2)}, {{"reduction", std::string("none")}});
    c.set_output(0, c.op("Reshape", "", {y, c.i64s("shape", {n, ch, out_h, out_w})}, {{"special_zero", false}}));
}

}  // namespace

void register_caffe_resize(ExtractorRegistry& r) {
    caffe::add(r, "Interp", interp);
    caffe::add(r, "Upsample", upsample);
}

}  // namespace mo
