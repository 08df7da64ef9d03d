// Softmax / LogSoftmax. Before opset 13 ONNX coerces the input to 2D at `axis` (default 1):
// Flatten(axis) -> Softmax(axis=1) -> Reshape back, or a plain Softmax when axis is the last.
#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

void softmax(ExtractContext& c, const char* type) {
    OutPort x = c.input(0);
    if (c.opset() >= 13) {
        c.become(type, {{"axis", c.i("axis", -1)}});
        return;
    }
    int64_t axis = c.i("axis", 1);
    int64_t rank = ExtractContext::rank_of(x);
    if (axis == -1 || (rank >= 0 && axis == rank - 1)) {
        c.become(type, {{"axis", int64_t{-1}}});
        return;
    }
    OutPort flat = c.op("Flatten", "flatten", {x}, {{"axis", axis}});
    OutPort y = c.op(type, "softmax", {flat}, {{"axis", int64_t{1}}});
    OutPort shape = c.op("ShapeOf", "shape", {x}, {{"output_type", ElementType::i64}});
    c.set_output(0, c.op("Reshape", "", {y, shape}, {{"special_zero", false}}));
}

}  // namespace

void register_onnx_softmax(ExtractorRegistry& r) {
    r.add({"onnx", "", "Softmax", since(1), [](ExtractContext& c) { softmax(c, "Softmax"); }});
    r.add({"onnx", "", "LogSoftmax", since(1), [](ExtractContext& c) { softmax(c, "LogSoftmax"); }});
}

}  // namespace mo
