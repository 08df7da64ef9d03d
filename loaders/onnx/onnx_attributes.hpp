// FrameworkAttributes over an ONNX NodeProto: what extractors read of ONNX attributes.
#pragma once

#include <memory>
#include <string>

#include "core/framework_attributes.hpp"

namespace onnx { class NodeProto; }

namespace mo {

// `node` must outlive the result (the loader keeps the parsed model alive with the graph).
std::shared_ptr<const FrameworkAttributes> onnx_attributes(const onnx::NodeProto& node);

}  // namespace mo
