#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

void register_onnx_extractors(ExtractorRegistry& r) {
    register_onnx_eltwise(r);
    register_onnx_conv(r);
    register_onnx_pooling(r);
    register_onnx_normalization(r);
    register_onnx_reduction(r);
    register_onnx_shape(r);
    register_onnx_data(r);
    register_onnx_softmax(r);
    register_onnx_resize(r);
    register_onnx_rnn(r);
    register_onnx_loss(r);
    register_onnx_matrix(r);
    register_onnx_einsum_unique(r);
    register_onnx_misc(r);
    register_onnx_quantization(r);
    register_onnx_sampling(r);
    register_onnx_detection(r);
    register_onnx_control_flow(r);
    register_onnx_sequence(r);
    register_onnx_signal(r);
    register_onnx_microsoft_contrib(r);
    register_onnx_microsoft_attention(r);
    register_onnx_microsoft_qlinear(r);
    register_onnx_microsoft_fused(r);
}

}  // namespace mo
