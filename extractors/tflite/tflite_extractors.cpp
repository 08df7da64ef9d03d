#include "extractors/tflite/tflite_extractors.hpp"

#include "core/eval_budget.hpp"
#include "core/infer.hpp"

namespace mo {

void register_tflite_extractors(ExtractorRegistry& r) {
    register_tflite_conv_pool(r);
    register_tflite_elementwise(r);
    register_tflite_shape(r);
    register_tflite_slice_gather(r);
    register_tflite_quantization(r);
    register_tflite_control_flow(r);
    register_tflite_detection(r);
    register_tflite_comparison(r);
    register_tflite_math(r);
    register_tflite_tensor(r);
    register_tflite_scatter_segment(r);
    register_tflite_spatial(r);
    register_tflite_fft(r);
    register_tflite_recurrent(r);
    register_tflite_nms(r);
}

int64_t tflite_constant_elements(ExtractContext& c, const std::vector<int64_t>& dims, ElementType type,
                                 const std::string& what) {
    int64_t n = 1;
    for (int64_t d : dims)
        if (d < 0 || __builtin_mul_overflow(n, d, &n))
            c.fail(what + " would have a negative or overflowing size", "the model is corrupt; re-export it");
    if (!fits_bytes(type, n, c.graph().max_constant_bytes))
        c.fail(what + " would have " + std::to_string(n) + " elements, more than --max_constant_size (" +
                   std::to_string(c.graph().max_constant_bytes) + " bytes)",
               "raise --max_constant_size if the model is genuine");
    return n;
}

OutPort tflite_activation(ExtractContext& c, const OutPort& x, const std::string& suffix) {
    // ActivationFunctionType: NONE, RELU, RELU_N1_TO_1, RELU6, TANH, SIGN_BIT.
    switch (c.i("fused_activation_function", 0)) {
        case 0: return x;
        case 1: return c.op("Relu", suffix, {x});
        case 2: return c.op("Clamp", suffix, {x}, {{"min", -1.0}, {"max", 1.0}});
        case 3: return c.op("Clamp", suffix, {x}, {{"min", 0.0}, {"max", 6.0}});
        case 4: return c.op("Tanh", suffix, {x});
        case 5: c.unsupported("fused activation SIGN_BIT");
        default: c.fail("fused_activation_function " + std::to_string(c.i("fused_activation_function", 0)) +
                        " is not a TFLite activation (0 to 5)");
    }
}

}  // namespace mo
