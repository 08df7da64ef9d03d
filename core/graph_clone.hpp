// A whole graph duplicated: the model's own copy to rewrite (f16 compression at save time) while
// the original stays as it was, as OpenVINO clones a model before compressing it to save it.
#pragma once

#include <memory>

#include "core/graph.hpp"
#include "core/tool_api.hpp"

namespace mo {

// Every node of `src` (bodies included) with its name, op, attributes, rt_info, fused names,
// framework record, output types, shapes, values and tensor names; the same connections; the
// same parameters, results and sinks; the same source description and kept-alive loader state.
// Nodes are created in src's id order, so every order derived from ids (topological order,
// emitted layer ids, names of nodes made later) is the same in the clone. Values are shared,
// not copied: tensors are immutable.
MO_TOOL_API std::unique_ptr<Graph> clone_graph(const Graph& src);

}  // namespace mo
