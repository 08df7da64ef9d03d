// Loads TensorFlow graphs: frozen GraphDef (.pb binary, .pbtxt text) and TF.js graph models
// (model.json: the same GraphDef as JSON plus weight shards). Placeholders become Parameters
// (dtype and shape attributes; --input overrides), Consts become Constants (their value
// attribute, or for TF.js the manifest's weight of the same name), every other node a
// FrameworkNode of framework "tf" and type = the op. Node inputs "name", "name:k" and control
// inputs "^name" (ignored) are resolved; a missing producer or a cycle is an error naming the
// node. Outputs: the TF.js signature's outputs, else every node whose outputs nothing reads
// (Consts and NoOps aside), in the graph's order.
#pragma once

#include <memory>
#include <string>

#include "core/graph.hpp"
#include "core/options.hpp"
#include "loaders/loader_registry.hpp"

namespace mo {

std::unique_ptr<Graph> load_tf(const std::string& path, const ConversionOptions& options, const OpRegistry& ops);

// Registers framework "tf": .pb, .pbtxt and model.json (a TF.js graph model).
void register_tf_loader(LoaderRegistry& r);

}  // namespace mo
