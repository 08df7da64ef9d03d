// The weights of a TF.js graph model: model.json's weightsManifest, read from its shard files
// (concatenated in the order given). float32, int32, bool and uint8 weights are read as stored;
// quantized ones (quantization.dtype uint8 / uint16 with scale and min, or float16) are
// dequantized to float32 as TF.js does: value = q * scale + min.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/tensor.hpp"

namespace mo {

// Weight name -> tensor. Throws mo::Error naming the manifest for a missing or short shard, an
// unknown dtype, or a bad entry.
std::map<std::string, Tensor> read_tfjs_weights(const nlohmann::json& manifest, const std::string& model_dir,
                                                const std::string& where);

}  // namespace mo
