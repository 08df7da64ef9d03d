// The whole conversion: load -> extract -> transformations -> emit. Used by the `mo` command
// and by the end-to-end tests.
#pragma once

#include <string>

#include "core/options.hpp"
#include "core/tool_api.hpp"

namespace mo {

struct ConversionResult {
    std::string xml_path, bin_path;  // empty when no IR was asked for
    size_t layers = 0;
    size_t bin_bytes = 0;
    std::string onnx_path;           // --output_format onnx (external data: onnx_path + ".data")
    size_t onnx_nodes = 0;
    int onnx_opset = 0;
};

// What becomes of the converted graph. A program that exits right after converting (the `mo`
// command) leaves it to the operating system: freeing a graph node by node took 1.5 s of a
// 24 s conversion of 2.4 million layers. The graph stays reachable from a global pointer until
// the process ends (leak checkers do not count it); convert again only with FreeGraph.
enum class GraphAfterConversion { FreeGraph, LeaveToExit };

MO_TOOL_API ConversionResult convert(const ConversionOptions& options,
                                     GraphAfterConversion after = GraphAfterConversion::FreeGraph);

// `mo --list_transformations`: the registry in run order after plugins, environment switches
// and --transformations_config, one tab-separated line each: id, phase, enabled, origin.
MO_TOOL_API std::string list_transformations(const ConversionOptions& options);

// `mo --list_ops`: every op schema after plugins (built-in and plugin ones, a plugin's named), as
// a Markdown table sorted by type: IR spelling, opset, input and output counts, and each
// attribute's IR name, kind and default. docs/ops.md holds the built-in table.
MO_TOOL_API std::string list_ops(const ConversionOptions& options);

}  // namespace mo
