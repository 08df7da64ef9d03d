// Loads Caffe models: a deploy.prototxt (text NetParameter) for the topology and a .caffemodel
// (binary NetParameter) for the learned blobs, matched to the prototxt's layers by name, as
// OpenVINO's Model Optimizer does. `--input_model m.caffemodel` reads `--input_proto` or else the
// m.prototxt beside it, or else the layers the .caffemodel holds; `--input_model deploy.prototxt
// --framework caffe` (or `--input_proto` alone) reads a topology without weights.
// * Both the current `layer` and the deprecated V1 `layers` form are read; V1 layers are
//   upgraded (type enum -> type name, parameters moved) as Caffe's upgrade_proto does. Layers
//   a TEST-phase net leaves out (include / exclude rules) are left out.
// * Inputs: the net's `input` with `input_shape` or 4 `input_dim` each, and every top of an
//   `Input` layer (input_param.shape); each becomes a Parameter named after its blob.
// * Every other layer becomes a FrameworkNode of framework "caffe", type = the layer type,
//   inputs = its bottoms, outputs = its tops, attributes = caffe_attributes.hpp (blobs included:
//   f32 views of the mapped .caffemodel). `Silence` layers only consume.
// * A blob written again in place (top == bottom, as ReLU after Convolution) is a new tensor: the
//   last version keeps the blob's name, an earlier one is named "<blob>/<layer that wrote it>",
//   so the graph stays acyclic. The net's outputs are the blobs nothing reads after their last
//   write (Caffe's rule), in the order they were written.
#pragma once

#include <memory>
#include <string>

#include "core/graph.hpp"
#include "core/options.hpp"
#include "loaders/loader_registry.hpp"

namespace mo {

std::unique_ptr<Graph> load_caffe(const std::string& path, const ConversionOptions& options, const OpRegistry& ops);

// Registers framework "caffe": .caffemodel files, and text nets recognized by content.
void register_caffe_loader(LoaderRegistry& r);

}  // namespace mo
