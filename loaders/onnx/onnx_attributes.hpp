// FrameworkAttributes over an ONNX NodeProto: what extractors read of ONNX attributes.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/framework_attributes.hpp"

namespace onnx { class NodeProto; }

namespace mo {

// `node` must outlive the result (the loader keeps the parsed model alive with the graph).
std::shared_ptr<const FrameworkAttributes> onnx_attributes(const onnx::NodeProto& node);

// The attributes of a serialized NodeProto: `node_bytes` (inside memory `owner` keeps alive,
// the mapped model file) are scanned for the attribute asked for, which alone is parsed.
// `file` names the model in errors about malformed bytes.
std::shared_ptr<const FrameworkAttributes> onnx_attributes(std::shared_ptr<const void> owner,
                                                           std::string_view node_bytes,
                                                           std::shared_ptr<const std::string> file);

}  // namespace mo
