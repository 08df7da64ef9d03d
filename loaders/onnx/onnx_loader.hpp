// Loads an ONNX model file into a graph of FrameworkNodes (one per NodeProto), Parameters for
// the graph inputs that are not initializers, Constants for initializers, and Results for the
// graph outputs. Nothing is interpreted yet: each FrameworkNode keeps its op type, domain and
// opset, and reads its attributes through node.framework().attributes (null when it has none)
// from the NodeProto's bytes in the mapped file.
#pragma once

#include <memory>
#include <string>

#include "core/graph.hpp"
#include "core/options.hpp"
#include "loaders/loader_registry.hpp"

namespace mo {

// framework().type of a body Parameter that receives an ONNX sequence rather than a tensor.
inline constexpr const char* kOnnxSequence = "sequence";

// Throws mo::Error (what, where = file/node, what to do) for unreadable or malformed files.
// Applies options.inputs (shape overrides; unknown names are errors).
std::unique_ptr<Graph> load_onnx(const std::string& path, const ConversionOptions& options, const OpRegistry& ops);

// True when the file looks like an ONNX model (used to guess --framework).
bool looks_like_onnx(const std::string& path);

// Registers the ONNX loader (framework "onnx").
void register_onnx_loader(LoaderRegistry& r);

}  // namespace mo
