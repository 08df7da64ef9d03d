// Detection post-processing as ONNX.
#include "emit/onnx/onnx_rules.hpp"

namespace mo::onnx_emit {

std::vector<OnnxRule> detection_rules() { return {}; }

}  // namespace mo::onnx_emit
