// FrameworkAttributes of a TFLite CUSTOM operator, read from its custom_options bytes:
//   "custom_options"  the raw bytes, a u8 tensor [n] (always, when the operator has options);
//   every key of the options when they are a flexbuffer map (what TFLite's own custom ops and
//   the converters write, read with flatbuffers' flexbuffers reader after its verifier):
//   bool / int / uint -> int, float -> float, string / key -> string, blob -> u8 tensor,
//   vectors of numbers -> ints (all integral) or floats, vectors of strings -> strings;
//   a null reads as absent, a nested map or mixed vector is an error when read.
// Bytes that are not a flexbuffer map (MediaPipe's ops store a C struct) give custom_options only.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/framework_attributes.hpp"

namespace mo {

// The custom code of the operators the Edge TPU compiler writes in place of the layers it took.
inline constexpr const char* kEdgeTpuCustomCode = "edgetpu-custom-op";

// `options` may be empty (no attributes). The bytes are copied.
std::shared_ptr<const FrameworkAttributes> tflite_custom_attributes(std::span<const uint8_t> options);

}  // namespace mo
