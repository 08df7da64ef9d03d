// Reading a --transformations_config file (a JSON array of entries in the Model Optimizer's
// format, docs/transformations-config.md) and handing its entries to the configured
// transformations of the registry.
#pragma once

#include <string>
#include <vector>

#include "transforms/configured.hpp"
#include "transforms/registry.hpp"

namespace mo {

// Parses and checks the entries. `path` is for messages. Throws mo::Error: bad JSON (with line
// and column), or a bad entry (its index, the field, what it must be).
std::vector<ConfigEntry> parse_transformations_config(const std::string& text, const std::string& path);

// Reads the file and gives each entry to the configured transformation with its id, which
// switches that transformation on. Throws mo::Error for an unreadable file or an id that no
// configured transformation has (listing the ones there are).
void apply_transformations_config(TransformRegistry& registry, const std::string& path);

}  // namespace mo
