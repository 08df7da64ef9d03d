// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool.
#include "extractors/onnx/conv_common.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

std::vector<int64_t> kernel(ExtractContext& c) {
    std::vector<int64_t> k = c.ints("kernel_shape");
    if (k.empty()) c.fail("kernel_shape is required", "fix the model");
    return k;
}

void max_pool(ExtractContext& c) {
    std::vector<int64_t> k = kernel(c);
    // dilations and ceil_mode exist from opset 10; storage_order only affects the indices'
    // layout for column-major, which OpenVINO has no equivalent for.
    SpatialAttrs a = onnx_spatial_attrs(c, k.size(), c.opset() >= 10);
    if (c.i("storage_order", 0) != 0 && c.output_used(1)) c.unsupported("storage_order=1 with indices output");
    c.become("MaxPool", {{"kernel", k},
                         {"strides", a.strides},
                         {"pads_begin", a.pads_begin},
                         {"pads_end", a.pads_end},
                         {"dilations", a.dilations},
                         {"auto_pad", a.auto_pad},
                         {"rounding_type", std::string(c.i("ceil_mode", 0) ? "ceil" : "floor")},
                         {"index_element_type", ElementType::i64},
                         {"axis", int64_t{0}}});
}

void average_pool(ExtractContext& c) {
    std::vector<int64_t> k = kernel(c);
    SpatialAttrs a = onnx_spatial_attrs(c, k.size(), false);
    if (c.has("dilations")) {
        for (int64_t d : c.ints("dilations"))
            if (d != 1) c.unsupported("AveragePool with dilations");
    }
    c.become("AvgPool", {{"kernel", k},
                         {"strides", a.strides},
                         {"pads_begin", a.pads_begin},
                         {"pads_end", a.pads_end},
                         {"auto_pad", a.auto_pad},
                         {"rounding_type", std::string(c.i("ceil_mode", 0) ? "ceil" : "floor")},
                         {"exclude-pad", c.i("count_include_pad", 0) == 0}});
}

// Global pooling = a reduction over the spatial axes 2.. that keeps them as 1s.
void global_pool(ExtractContext& c, const char* reduction) {
    OutPort x = c.input(0);
    OutPort axes = c.axes_from("axes", x, 2);
    c.set_output(0, c.op(reduction, "", {x, axes}, {{"keep_dims", true}}));
}

}  // namespace

void register_onnx_pooling(ExtractorRegistry& r) {
    r.add({"onnx", "", "MaxPool", 1, INT64_MAX, max_pool});
    r.add({"onnx", "", "AveragePool", 1, INT64_MAX, average_pool});
    r.add({"onnx", "", "GlobalAveragePool", 1, INT64_MAX, [](ExtractContext& c) { global_pool(c, "ReduceMean"); }});
    r.add({"onnx", "", "GlobalMaxPool", 1, INT64_MAX, [](ExtractContext& c) { global_pool(c, "ReduceMax"); }});
}

}  // namespace mo
