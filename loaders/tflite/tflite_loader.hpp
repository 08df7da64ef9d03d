// Loads a TFLite flatbuffer (.tflite) into a graph of FrameworkNodes, one per operator of the
// main (first) subgraph: framework "tflite", type = the builtin operator's name (CONV_2D, ...)
// and opset = the operator code's version, or for CUSTOM operators domain "custom" and type =
// the custom code, so that a plugin's extractor can claim them. The file is checked with the
// flatbuffers verifier before anything is read. Constant tensors become Constants whose data are
// views of the mapped file; the subgraph's inputs become Parameters (shape_signature -1 =
// dynamic), its outputs Results. Tensor names name the ports; an operator takes the name of its
// first output tensor. A quantized tensor gets a framework node of domain "quantization" that
// makes its real values (tflite_quantization.hpp). The subgraphs an IF or WHILE names become
// bodies of its node (built anew for each use); CALL_ONCE's init subgraph is built into the main
// graph, and resource variables are resolved in operator order: a read gives the value last
// assigned, and a variable the main subgraph reads before assigning it becomes a READ_VARIABLE
// node (its state, reading the initial value) and an ASSIGN_VARIABLE node (a sink) of the last
// value, both with attribute variable_id, for extractors/tflite/tflite_control_flow.cpp.
#pragma once

#include <memory>
#include <string>

#include "core/graph.hpp"
#include "core/options.hpp"
#include "loaders/loader_registry.hpp"

namespace mo {

std::unique_ptr<Graph> load_tflite(const std::string& path, const ConversionOptions& options, const OpRegistry& ops);

// Registers the loader for .tflite files (and any file with the "TFL3" identifier).
void register_tflite_loader(LoaderRegistry& r);

}  // namespace mo
