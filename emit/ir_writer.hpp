// Writes a graph of opset ops as OpenVINO IR v11: model.xml + model.bin.
#pragma once

#include <string>
#include <vector>

#include "core/graph.hpp"

namespace mo {

struct EmitOptions {
    std::string xml_path;  // the .bin goes next to it
    std::string bin_path;
    std::string model_name;
    // <rt_info><conversion_parameters> entries and other meta data, written in this order.
    std::vector<std::pair<std::string, std::string>> conversion_parameters;
};

struct EmitStats {
    size_t layers = 0;
    size_t edges = 0;
    size_t bin_bytes = 0;
};

// Files are written under temporary names and renamed at the end; on any error nothing is
// left behind. Throws mo::Error naming the node for internal ops or unsupported types.
EmitStats write_ir(const Graph& graph, const EmitOptions& options);

}  // namespace mo
