// RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, CONCATENATION, PAD / PADV2 / MIRROR_PAD, the
// reductions, SOFTMAX and the resizes, all in the source layout.
#include "extractors/tensorflow_family.hpp"
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

void reshape(ExtractContext& c) {
    OutPort shape = c.has_input(1) ? c.input(1) : c.i64s("shape", c.ints("new_shape"));
    if (!c.has_input(1) && !c.has("new_shape")) c.fail("RESHAPE without a shape input or new_shape option");
    c.set_output(0, c.op("Reshape", "", {c.input(0), shape}, {{"special_zero", false}}));
}

void concatenation(ExtractContext& c) {
    if (c.input_count() == 0) c.fail("nothing to concatenate: the node has no inputs", "the model is corrupt; re-export it");
    std::vector<OutPort> inputs;
    for (size_t i = 0; i < c.input_count(); ++i) inputs.push_back(c.input(i));
    OutPort y = c.op("Concat", "concat", inputs, {{"axis", c.i("axis", 0)}});
    c.set_output(0, tflite_activation(c, y, "activation"));
}

void reduction(ExtractContext& c, const char* type) {
    c.set_output(0, c.op(type, "", {c.input(0), c.input(1)}, {{"keep_dims", c.i("keep_dims", 0) != 0}}));
}

// softmax(beta * x) over the last axis; an absent beta is the schema's default, 0.
void softmax(ExtractContext& c) {
    OutPort x = c.input(0);
    const double beta = c.f("beta", 0.0);
    if (beta != 1.0) x = c.op("Multiply", "beta", {x, c.scalar_like("beta/value", beta, x)});
    c.set_output(0, c.op("Softmax", "", {x}, {{"axis", int64_t{-1}}}));
}

// RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR: Interpolate over axes 1, 2 of NHWC to the size input.
void resize(ExtractContext& c, bool bilinear) {
    tf_family::resize(c, bilinear, c.i("align_corners", 0) != 0, c.i("half_pixel_centers", 0) != 0);
}

}  // namespace

void register_tflite_shape(ExtractorRegistry& r) {
    r.add({"tflite", "", "RESHAPE", all_versions, reshape});
    r.add({"tflite", "", "SQUEEZE", all_versions, [](ExtractContext& c) { tf_family::squeeze(c, c.ints("squeeze_dims")); }});
    r.add({"tflite", "", "EXPAND_DIMS", all_versions,
           [](ExtractContext& c) { c.set_output(0, c.op("Unsqueeze", "", {c.input(0), c.input(1)})); }});
    r.add({"tflite", "", "TRANSPOSE", all_versions,
           [](ExtractContext& c) { c.set_output(0, c.op("Transpose", "", {c.input(0), c.input(1)})); }});
    r.add({"tflite", "", "CONCATENATION", all_versions, concatenation});
    r.add({"tflite", "", "PAD", all_versions, [](ExtractContext& c) { tf_family::pad(c, "constant"); }});
    r.add({"tflite", "", "PADV2", all_versions, [](ExtractContext& c) { tf_family::pad(c, "constant"); }});
    r.add({"tflite", "", "MIRROR_PAD", all_versions,
           [](ExtractContext& c) {
               const int64_t mode = c.i("mode", 0);  // REFLECT (0) or SYMMETRIC (1)
               if (mode != 0 && mode != 1) c.fail("mode " + std::to_string(mode) + " is neither REFLECT (0) nor SYMMETRIC (1)");
               tf_family::pad(c, mode == 0 ? "reflect" : "symmetric");
           }});
    r.add({"tflite", "", "MEAN", all_versions, [](ExtractContext& c) { reduction(c, "ReduceMean"); }});
    r.add({"tflite", "", "SUM", all_versions, [](ExtractContext& c) { reduction(c, "ReduceSum"); }});
    r.add({"tflite", "", "REDUCE_MAX", all_versions, [](ExtractContext& c) { reduction(c, "ReduceMax"); }});
    r.add({"tflite", "", "REDUCE_MIN", all_versions, [](ExtractContext& c) { reduction(c, "ReduceMin"); }});
    r.add({"tflite", "", "SOFTMAX", all_versions, softmax});
    // The loader densified the sparse constant already.
    r.add({"tflite", "", "DENSIFY", all_versions, [](ExtractContext& c) { c.set_output(0, c.input(0)); }});
    r.add({"tflite", "", "RESIZE_BILINEAR", all_versions, [](ExtractContext& c) { resize(c, true); }});
    r.add({"tflite", "", "RESIZE_NEAREST_NEIGHBOR", all_versions, [](ExtractContext& c) { resize(c, false); }});
}

}  // namespace mo
