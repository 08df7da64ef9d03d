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

// Checks that the model.json value `v`, at `path` ("weightsManifest[0].paths"), is of `type`
// (number_unsigned: a non-negative integer; number_float: any number); throws mo::Error naming
// `where` otherwise.
// model.json is read keeping the order of object members: a signature's outputs are the model's
// outputs in that order, as TF.js reads them.
void tfjs_expect(const nlohmann::ordered_json& v, nlohmann::ordered_json::value_t type, const std::string& path,
                 const std::string& where);
// The member `key` of the object `parent` (at `path`), checked by tfjs_expect; nullptr when it is
// absent and not `required`.
const nlohmann::ordered_json* tfjs_member(const nlohmann::ordered_json& parent, const std::string& path, const char* key,
                                          nlohmann::ordered_json::value_t type, const std::string& where,
                                          bool required = true);

// Weight name -> tensor. Throws mo::Error naming the manifest for a missing or short shard, an
// unknown dtype, or a bad entry.
std::map<std::string, Tensor> read_tfjs_weights(const nlohmann::ordered_json& manifest, const std::string& model_dir,
                                                const std::string& where);

}  // namespace mo
