// `mo --validate`: reads the written IR back (loaders/ir), evaluates it and compares it with
// reference outputs, or, without them, with the source model's graph as extracted (which
// proves the transformations and the emitter, not the extractors).
#pragma once

#include <string>

#include "core/options.hpp"
#include "core/tool_api.hpp"
#include "driver/cli.hpp"
#include "driver/convert.hpp"
#include "validate/compare.hpp"

namespace mo {

struct ConversionValidation {
    bool ok = false;
    std::string report;  // one line per output, preceded by what was compared with what
};

// Tolerances (an element fails only beyond both): fp32 IR atol 5e-4 / rtol 1e-4, since
// summation order differs from the source framework's (Inception-V3 differs from PyTorch by
// 1.9e-4 on logits up to 6.9); an f16-compressed IR atol 5e-2 / rtol
// 5e-2, since f16 weights change the outputs by design (this bound catches structural errors,
// not f16 rounding). Throws mo::Error for unreadable files or mismatched counts.
MO_TOOL_API Tolerance validation_tolerance(const ConversionOptions& options);
MO_TOOL_API ConversionValidation validate_conversion(const ConversionOptions& options, const ConversionResult& result,
                                         const ValidationRequest& request);

}  // namespace mo
