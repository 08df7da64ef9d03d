// The integer arithmetic of TFLite's reference kernels for 8-bit operators (as the tflite-micro
// reference kernels compute them, the default build: double rounding), written here from the
// kernels' definitions to check mo's IR against them operator by operator:
//   QuantizeMultiplier(m)        m = f · 2^e, f in [0.5, 1): q = round(f · 2^31) (2^31 halves, e + 1)
//   MultiplyByQuantizedMultiplier(x, q, e)
//                                round_half_away(round_half_up(x · 2^max(e,0) · q / 2^31) / 2^max(-e,0))
//   CONV_2D, DEPTHWISE_CONV_2D   acc = Σ (x - x_zp)(w - w_zp) + bias; MBQM(acc, M) + y_zp, clamped to
//                                the fused activation's quantized range (TfLiteRound: half away)
//   ADD                          inputs (x - zp) · 2^20 scaled by s_i / (2 max(s1, s2)), summed,
//                                scaled by 2 max(s1, s2) / (2^20 s_y), + y_zp, clamped
//   CONCATENATION                an input of other scale: round((x - zp) · s_in / s_out) + zp_out in
//                                float (half away), clamped; else the bytes
// Tensors are NHWC int64 values with their quantization (per tensor; weights may be per channel).
#pragma once

#include <cstdint>
#include <vector>

namespace mo::test::tflite_reference {

struct Quantized {
    std::vector<int64_t> shape;
    std::vector<int64_t> values;
    std::vector<double> scale;  // one, or one per output channel (weights)
    std::vector<int64_t> zero_point;
    int64_t qmin = 0, qmax = 255;
};

int64_t multiply_by_quantized_multiplier(int64_t x, double multiplier);

struct ConvParams {
    int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
    bool same = true;    // SAME padding (the odd pixel at the end), else VALID
    int activation = 0;  // TFLite's ActivationFunctionType: NONE, RELU, RELU_N1_TO_1, RELU6
    bool depthwise = false;
};

// CONV_2D (filter [O, KH, KW, I]) or DEPTHWISE_CONV_2D (filter [1, KH, KW, C·M]) into `y`, whose
// shape and quantization the caller sets.
void conv(const Quantized& x, const Quantized& filter, const std::vector<int64_t>& bias, const ConvParams& p,
          Quantized& y);
void add(const Quantized& a, const Quantized& b, int activation, Quantized& y);
void concatenation(const std::vector<const Quantized*>& inputs, int64_t axis, Quantized& y);

}  // namespace mo::test::tflite_reference
