// OpenVINO IR (.xml + .bin) as a loader, so that an IR converts like any model (IR -> ONNX,
// IR -> IR through mo's transformations). The IR reader (ir_reader.hpp) builds canonical ops
// directly: extraction has nothing to do but infer their shapes.
#pragma once

#include <string>

#include "loaders/loader_registry.hpp"

namespace mo {

// True when the file starts like an IR's XML (an XML declaration or <net>, then <net ... version=).
bool looks_like_ir(const std::string& path);

// Registers the IR loader (framework "ir", extension .xml).
void register_ir_loader(LoaderRegistry& r);

}  // namespace mo
