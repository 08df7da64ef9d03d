// The built-in ONNX extractors, one registration function per op family (one .cpp each).
#pragma once

#include "extractors/extractor_registry.hpp"

namespace mo {

// All of the families below.
void register_onnx_extractors(ExtractorRegistry& r);

void register_onnx_eltwise(ExtractorRegistry& r);
void register_onnx_conv(ExtractorRegistry& r);
void register_onnx_pooling(ExtractorRegistry& r);
void register_onnx_normalization(ExtractorRegistry& r);
void register_onnx_reduction(ExtractorRegistry& r);
void register_onnx_shape(ExtractorRegistry& r);
void register_onnx_data(ExtractorRegistry& r);
void register_onnx_softmax(ExtractorRegistry& r);
void register_onnx_resize(ExtractorRegistry& r);
void register_onnx_rnn(ExtractorRegistry& r);
void register_onnx_loss(ExtractorRegistry& r);
void register_onnx_matrix(ExtractorRegistry& r);
void register_onnx_einsum_unique(ExtractorRegistry& r);
void register_onnx_misc(ExtractorRegistry& r);
void register_onnx_quantization(ExtractorRegistry& r);
void register_onnx_sampling(ExtractorRegistry& r);
void register_onnx_detection(ExtractorRegistry& r);
void register_onnx_control_flow(ExtractorRegistry& r);
void register_onnx_sequence(ExtractorRegistry& r);
void register_onnx_signal(ExtractorRegistry& r);
void register_onnx_microsoft_contrib(ExtractorRegistry& r);  // com.microsoft: ONNX Runtime contrib ops
void register_onnx_microsoft_attention(ExtractorRegistry& r);  // com.microsoft: Attention, MultiHeadAttention, RotaryEmbedding, GroupQueryAttention
void register_onnx_microsoft_qlinear(ExtractorRegistry& r);  // com.microsoft: QLinearAdd, QLinearSigmoid, ...
void register_onnx_microsoft_fused(ExtractorRegistry& r);  // com.microsoft: FusedConv, FusedGemm

}  // namespace mo
