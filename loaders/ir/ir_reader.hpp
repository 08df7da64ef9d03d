// Reads OpenVINO IR v10/v11 (model.xml + model.bin next to it) back into a Graph, as strictly
// as OpenVINO's own reader (shared/ir/ir-format.md §1-§9) and stricter where mo can be: unknown
// attributes, missing required attributes and port dims that disagree with shape inference are
// errors. Every error is a mo::Error naming the file and the layer (name, id, type).
#pragma once

#include <memory>
#include <string>

#include "core/graph.hpp"
#include "core/tool_api.hpp"

namespace mo {

// Constant values are views into the memory-mapped .bin (kept alive by graph.keep_alive).
MO_TOOL_API std::unique_ptr<Graph> read_ir(const std::string& xml_path, const OpRegistry& ops);

}  // namespace mo
