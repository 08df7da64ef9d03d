// Small ONNX ops: LRN (-> LRN-1 over the channel axis), Celu (its ONNX function body,
// alpha * Elu(x / alpha)), Scatter-9 (ScatterElements without reduction), the cosine-sum windows
// Hann/Hamming/Blackman (their ONNX function bodies) and BitShift (-> BitwiseLeft/RightShift-15).
#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"
#include "loaders/onnx/onnx_tensor.hpp"

namespace mo {

namespace {

// ONNX sums x^2 over channels [c - floor((size-1)/2), c + ceil((size-1)/2)] and scales it by
// alpha / size; LRN-1 with axes [1] scales by alpha / size^1 over [c - (size-1)/2, c + (size-1)/2].
// The windows agree for odd sizes only.
void lrn(ExtractContext& c) {
    const int64_t size = c.i("size");
    if (size <= 0) c.fail("LRN size must be positive, it is " + std::to_string(size));
    if (size % 2 == 0)
        c.unsupported("LRN with an even size (" + std::to_string(size) +
                      "): ONNX's window is asymmetric there, OpenVINO's LRN window is not");
    c.set_output(0, c.op("LRN", "", {c.input(0), c.i64s("axes", {1})},
                         {{"alpha", c.f("alpha", 1e-4)}, {"beta", c.f("beta", 0.75)}, {"bias", c.f("bias", 1.0)},
                          {"size", size}}));
}

void celu(ExtractContext& c) {
    OutPort x = c.input(0);
    OutPort alpha = c.scalar_like("alpha", c.f("alpha", 1.0), x);
    OutPort elu = c.op("Elu", "elu", {c.op("Divide", "scaled", {x, alpha})}, {{"alpha", 1.0}});
    c.set_output(0, c.op("Multiply", "", {alpha, elu}));
}

void scatter(ExtractContext& c) {
    OutPort axis = c.i64("axis", c.i("axis", 0));
    c.set_output(0, c.op("ScatterElementsUpdate", "", {c.input(0), c.input(1), c.input(2), axis},
                         {{"reduction", std::string("none")}, {"use_init_val", true}}));
}

// a0 - a1 * cos(k * tau / N) + a2 * cos(2 * k * tau / N) for k in [0, size), in f32 as the ONNX
// function computes it, with N = size (periodic) or size - 1 (symmetric); then cast.
void cosine_window(ExtractContext& c, float a0, float a1, float a2) {
    const bool periodic = c.i("periodic", 1) != 0;
    const ElementType type = onnx_element_type(static_cast<int32_t>(c.i("output_datatype", 1)), c.where());
    if (!is_float(type) && !is_integral(type)) c.unsupported("output_datatype " + std::string(ir_name(type)));
    OutPort size = c.op("Convert", "size_fp", {c.input(0)}, {{"destination_type", ElementType::f32}});
    auto f32 = [&](const std::string& suffix, float v) { return c.constant(suffix, Tensor::scalar<float>(v)); };
    OutPort length = periodic ? size : c.op("Subtract", "length", {size, f32("one", 1.0f)});
    OutPort increment = c.op("Divide", "increment", {f32("tau", 6.2831853f), length});
    OutPort k = c.op("Range", "k", {f32("start", 0.0f), size, f32("step", 1.0f)}, {{"output_type", ElementType::f32}});
    OutPort angle = c.op("Multiply", "angle", {k, increment});
    OutPort a1_term = c.op("Multiply", "a1_term", {f32("a1", a1), c.op("Cos", "cos", {angle})});
    OutPort w = c.op("Subtract", type == ElementType::f32 && a2 == 0.0f ? "" : "a0_minus", {f32("a0", a0), a1_term});
    if (a2 != 0.0f) {
        OutPort angle2 = c.op("Multiply", "angle2", {angle, f32("two", 2.0f)});
        OutPort a2_term = c.op("Multiply", "a2_term", {f32("a2", a2), c.op("Cos", "cos2", {angle2})});
        w = c.op("Add", type == ElementType::f32 ? "" : "sum", {w, a2_term});
    }
    if (type != ElementType::f32) w = c.op("Convert", "", {w}, {{"destination_type", type}});
    c.set_output(0, w);
}

// BitShift is defined on unsigned integers only (where OpenVINO's shifts wrap modulo 2^N).
void bit_shift(ExtractContext& c) {
    const std::string direction = c.s("direction", "");
    if (direction != "LEFT" && direction != "RIGHT")
        c.fail("BitShift direction must be LEFT or RIGHT, it is '" + direction + "'");
    const ElementType t = c.input(0).type();
    if (t != ElementType::dynamic && !is_unsigned_int(t))
        c.unsupported("BitShift on " + std::string(ir_name(t)) + " (ONNX defines it for unsigned integers)");
    c.become(direction == "LEFT" ? "BitwiseLeftShift" : "BitwiseRightShift");
}

}  // namespace

void register_onnx_misc(ExtractorRegistry& r) {
    r.add({"onnx", "", "LRN", since(1), lrn});
    r.add({"onnx", "", "Celu", since(12), celu});
    r.add({"onnx", "", "Scatter", opsets(9, 10), scatter});
    // ONNX's constants: Hamming a0 = 25/46, a1 = 21/46 rounded as the function body writes them.
    r.add({"onnx", "", "HannWindow", since(17), [](ExtractContext& c) { cosine_window(c, 0.5f, 0.5f, 0.0f); }});
    r.add({"onnx", "", "HammingWindow", since(17),
           [](ExtractContext& c) { cosine_window(c, 0.54347826087f, 0.45652173913f, 0.0f); }});
    r.add({"onnx", "", "BlackmanWindow", since(17), [](ExtractContext& c) { cosine_window(c, 0.42f, 0.5f, 0.08f); }});
    r.add({"onnx", "", "BitShift", since(11), bit_shift});
}

}  // namespace mo
