// Batch normalisation shared by BatchNormInference-5 and the internal ONNX BatchNormalization,
// which have the same inputs (data, scale, bias, mean, variance on axis 1) and the same math.
#pragma once

#include <vector>

#include "core/graph.hpp"

namespace mo {

void infer_batch_norm(InferContext& c);
std::vector<Tensor> eval_batch_norm(const Node& n, const std::vector<Tensor>& inputs);

}  // namespace mo
