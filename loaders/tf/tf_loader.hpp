// Loads TensorFlow graphs: frozen GraphDef (.pb binary, .pbtxt text) and TF.js graph models
// (model.json: the same GraphDef as JSON plus weight shards). Placeholders become Parameters
// (dtype and shape attributes; --input overrides), Consts become Constants (their value
// attribute, or for TF.js the manifest's weight of the same name), every other node a
// FrameworkNode of framework "tf" and type = the op. Node inputs "name", "name:k" and control
// inputs "^name" (ignored) are resolved; a missing producer, an index k >= kMaxTfOutputs or a
// cycle is an error naming the node. Outputs: the TF.js signature's outputs, else every node
// whose outputs nothing reads (Consts and NoOps aside), in the graph's order. A TF.js signature
// also orders the inputs (its Placeholders first) and adds its keys as tensor names.
#pragma once

#include <memory>
#include <string>

#include "core/graph.hpp"
#include "core/options.hpp"
#include "loaders/loader_registry.hpp"

namespace mo {

// The most outputs a TensorFlow node may have. The loader gives a node as many outputs as the
// largest index its consumers read ("name:k"), and extractors as many as Split / Unpack ask
// for; a larger k or count is refused. Far above real graphs (a split into thousands of parts),
// low enough that one hostile number cannot make mo allocate millions of ports.
inline constexpr int64_t kMaxTfOutputs = 65536;
// The same over the whole graph, counting the outputs beyond each node's first: a thousand
// nodes each read at ":65535" would otherwise ask for 11 GB of ports.
inline constexpr int64_t kMaxTfExtraOutputs = int64_t{1} << 20;

std::unique_ptr<Graph> load_tf(const std::string& path, const ConversionOptions& options, const OpRegistry& ops);

// Registers framework "tf": .pb, .pbtxt and model.json (a TF.js graph model).
void register_tf_loader(LoaderRegistry& r);

}  // namespace mo
