// The whole conversion: load -> extract -> transformations -> emit. Used by the `mo` command
// and by the end-to-end tests.
#pragma once

#include <string>

#include "core/options.hpp"

namespace mo {

struct ConversionResult {
    std::string xml_path, bin_path;
    size_t layers = 0;
    size_t bin_bytes = 0;
};

ConversionResult convert(const ConversionOptions& options);

}  // namespace mo
