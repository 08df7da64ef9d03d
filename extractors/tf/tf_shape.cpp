// Identity / IdentityN / StopGradient, Reshape, Squeeze, ExpandDims, Transpose, ConcatV2, Pack,
// Pad / PadV2 / MirrorPad, Mean / Sum / Max / Min / Prod, Softmax, Shape, Cast, resizes.
#include "extractors/tensorflow_family.hpp"
#include "extractors/tf/tf_extractors.hpp"
#include "loaders/tf/tf_tensor.hpp"

namespace mo {

namespace {

void identity_n(ExtractContext& c) {
    for (size_t j = 0; j < c.output_count() && j < c.input_count(); ++j) c.set_output(j, c.input(j));
}

// ConcatV2(values..., axis)
void concat_v2(ExtractContext& c) {
    if (c.input_count() < 2)
        c.fail("ConcatV2 needs at least one value and the axis; the node has " + std::to_string(c.input_count()) +
                   " input(s)",
               "the model is corrupt; re-export it");
    std::vector<OutPort> inputs;
    for (size_t i = 0; i + 1 < c.input_count(); ++i) inputs.push_back(c.input(i));
    const auto axis = c.input_ints(c.input_count() - 1);
    if (axis.size() != 1) c.fail("the axis must be a scalar");
    c.set_output(0, c.op("Concat", "", inputs, {{"axis", axis[0]}}));
}

void reduction(ExtractContext& c, const char* type) {
    c.set_output(0, c.op(type, "", {c.input(0), c.input(1)}, {{"keep_dims", c.i("keep_dims", 0) != 0}}));
}

// Cast to DstT (a DataType value), with the loader's type mapping.
void cast(ExtractContext& c) {
    c.set_output(0, c.op("Convert", "", {c.input(0)}, {{"destination_type", tf_element_type(c.i("DstT"), c.where())}}));
}

// Pad / PadV2 with paddings [rank, 2]; paddings computed at run time (detection post-processing
// pads its boxes to a fixed count) become columns 0 and 1 of that tensor.
void pad(ExtractContext& c, const std::string& mode) {
    if (c.input_value(1)) {
        tf_family::pad(c, mode);
        return;
    }
    OutPort p = c.op("Convert", "paddings", {c.input(1)}, {{"destination_type", ElementType::i64}});
    auto column = [&](int64_t k, const std::string& name) {
        return c.op("Gather", name, {p, c.i64(name + "/index", k), c.i64(name + "/axis", 1)}, {{"batch_dims", int64_t{0}}});
    };
    std::vector<OutPort> in{c.input(0), column(0, "pads_begin"), column(1, "pads_end")};
    if (mode == "constant" && c.has_input(2))
        in.push_back(ExtractContext::rank_of(c.input(2)) > 0
                         ? c.op("Reshape", "pad_value", {c.input(2), c.i64s("pad_value/shape", {})}, {{"special_zero", false}})
                         : c.input(2));
    c.set_output(0, c.op("Pad", "", in, {{"pad_mode", mode}}));
}

void mirror_pad(ExtractContext& c) {
    const std::string mode = c.s("mode", "");
    if (mode != "REFLECT" && mode != "SYMMETRIC") c.fail("mode '" + mode + "' is neither REFLECT nor SYMMETRIC");
    tf_family::pad(c, mode == "REFLECT" ? "reflect" : "symmetric");
}

// ResizeBilinear computes and returns float32 whatever its input type; ResizeNearestNeighbor keeps it.
void resize(ExtractContext& c, bool bilinear) {
    tf_family::resize(c, bilinear, c.i("align_corners", 0) != 0, c.i("half_pixel_centers", 0) != 0,
                      bilinear ? ElementType::f32 : ElementType::dynamic);
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
    r.add({"tf", "", "Squeeze", 1, INT64_MAX, [](ExtractContext& c) { tf_family::squeeze(c, c.ints("squeeze_dims")); }});
    r.add({"tf", "", "ExpandDims", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Unsqueeze", "", {c.input(0), c.input(1)})); }});
    r.add({"tf", "", "Transpose", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Transpose", "", {c.input(0), c.input(1)})); }});
    r.add({"tf", "", "ConcatV2", 1, INT64_MAX, concat_v2});
    r.add({"tf", "", "Pack", 1, INT64_MAX, [](ExtractContext& c) { tf_family::pack(c, c.i("axis", 0)); }});
    r.add({"tf", "", "Pad", 1, INT64_MAX, [](ExtractContext& c) { pad(c, "constant"); }});
    r.add({"tf", "", "PadV2", 1, INT64_MAX, [](ExtractContext& c) { pad(c, "constant"); }});
    r.add({"tf", "", "MirrorPad", 1, INT64_MAX, mirror_pad});
    r.add({"tf", "", "Mean", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceMean"); }});
    r.add({"tf", "", "Sum", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceSum"); }});
    r.add({"tf", "", "Max", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceMax"); }});
    r.add({"tf", "", "Min", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceMin"); }});
    r.add({"tf", "", "Prod", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceProd"); }});
    r.add({"tf", "", "Softmax", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Softmax", "", {c.input(0)}, {{"axis", int64_t{-1}}})); }});
    r.add({"tf", "", "Shape", 1, INT64_MAX, [](ExtractContext& c) {
               const ElementType t = tf_index_type(c, "out_type", mo_tf::DT_INT32);
               c.set_output(0, c.op("ShapeOf", "", {c.input(0)}, {{"output_type", t}}));
           }});
    r.add({"tf", "", "Cast", 1, INT64_MAX, cast});
    r.add({"tf", "", "ResizeBilinear", 1, INT64_MAX, [](ExtractContext& c) { resize(c, true); }});
    r.add({"tf", "", "ResizeNearestNeighbor", 1, INT64_MAX, [](ExtractContext& c) { resize(c, false); }});
}

}  // namespace mo
