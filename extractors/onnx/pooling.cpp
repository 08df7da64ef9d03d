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
    // dilations and ceil_mode exist from opset 10; storage_order only changes the indices.
    SpatialAttrs a = onnx_spatial_attrs(c, k.size(), c.opset() >= 10);
    const bool column_major = c.i("storage_order", 0) != 0 && c.output_used(1) && k.size() > 1;
    PartialShape in_shape = c.input(0).shape();
    if (in_shape.rank_is_static() && in_shape.rank() != k.size() + 2)
        c.fail("the input has rank " + std::to_string(in_shape.rank()) + " but kernel_shape has " +
               std::to_string(k.size()) + " dims: the input needs rank " + std::to_string(k.size() + 2));
    if (column_major && (k.size() != 2 || !in_shape.rank_is_static() || !in_shape[2].is_static() || !in_shape[3].is_static()))
        c.unsupported("storage_order=1 with indices output other than 2D pooling of a static height and width");
    const std::vector<InPort> index_uses = column_major ? c.node().out(1).targets() : std::vector<InPort>{};
    Node pool = c.become("MaxPool", {{"kernel", k},
                         {"strides", a.strides},
                         {"pads_begin", a.pads_begin},
                         {"pads_end", a.pads_end},
                         {"dilations", a.dilations},
                         {"auto_pad", a.auto_pad},
                         {"rounding_type", std::string(c.i("ceil_mode", 0) ? "ceil" : "floor")},
                         {"index_element_type", ElementType::i64},
                         {"axis", int64_t{0}}});
    if (!column_major) return;
    // MaxPool gives row-major indices r = base + h·W + w (base counts whole H×W planes); ONNX's
    // column-major order wants base + h + w·H: with p = r mod (H·W), that is r − p + p div W + (p mod W)·H.
    const int64_t h = in_shape[2].get_length(), w = in_shape[3].get_length();
    OutPort r = pool.out(1);
    OutPort p = c.op("FloorMod", "plane_offset", {r, c.i64("plane", h * w)});
    OutPort row = c.op("Divide", "row", {p, c.i64("width", w)}, {{"m_pythondiv", true}});
    OutPort col = c.op("FloorMod", "column", {p, c.i64("width_", w)});
    OutPort col_major = c.op("Add", "column_major",
                             {c.op("Add", "base_row", {c.op("Subtract", "base", {r, p}), row}),
                              c.op("Multiply", "column_offset", {col, c.i64("height", h)})});
    for (const InPort& use : index_uses) use.connect(col_major);
    auto& names = col_major.names();
    names = pool.out(1).names();
    pool.out(1).names().clear();
}

void average_pool(ExtractContext& c) { c.become("AvgPool", onnx_average_pool_attrs(c)); }

// Global pooling = a reduction over the spatial axes 2.. that keeps them as 1s.
void global_pool(ExtractContext& c, const char* reduction) {
    OutPort x = c.input(0);
    OutPort axes = c.axes_from("axes", x, 2);
    c.set_output(0, c.op(reduction, "", {x, axes}, {{"keep_dims", true}}));
}

}  // namespace

AttrMap onnx_average_pool_attrs(ExtractContext& c) {
    std::vector<int64_t> k = kernel(c);
    SpatialAttrs a = onnx_spatial_attrs(c, k.size(), false);
    if (c.has("dilations")) {
        for (int64_t d : c.ints("dilations"))
            if (d != 1) c.unsupported("AveragePool with dilations");
    }
    return {{"kernel", k},
            {"strides", a.strides},
            {"pads_begin", a.pads_begin},
            {"pads_end", a.pads_end},
            {"auto_pad", a.auto_pad},
            {"rounding_type", std::string(c.i("ceil_mode", 0) ? "ceil" : "floor")},
            {"exclude-pad", c.i("count_include_pad", 0) == 0}};
}

void register_onnx_pooling(ExtractorRegistry& r) {
    r.add({"onnx", "", "MaxPool", since(1), max_pool});
    r.add({"onnx", "", "AveragePool", since(1), average_pool});
    r.add({"onnx", "", "GlobalAveragePool", since(1), [](ExtractContext& c) { global_pool(c, "ReduceMean"); }});
    r.add({"onnx", "", "GlobalMaxPool", since(1), [](ExtractContext& c) { global_pool(c, "ReduceMax"); }});
}

}  // namespace mo
