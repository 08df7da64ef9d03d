// --input NAME[SHAPE],... applied to a model's inputs, the same way for every loader.
#pragma once

#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/shape.hpp"

namespace mo {

// Replaces shapes[i] of the input named by each --input spec (or, for unnamed specs, the input
// at its position) with the spec's shape. Throws mo::Error for an unknown name or more
// unnamed specs than inputs, naming `path` and the model's inputs.
void apply_input_overrides(const std::vector<std::string>& names, std::vector<PartialShape>& shapes,
                           const ConversionOptions& options, const std::string& path);

}  // namespace mo
