// Writes a graph of canonical ops as an ONNX model (`<name>.onnx`, plus `<name>.onnx.data` when
// the weights pass 2 GB) with the ONNX library's own protobuf classes, then checks the written
// file with onnx::checker::check_model and strict shape inference (what onnx.checker's
// full_check does). Each op is written by its rule (onnx_rules.hpp); the opset is the lowest,
// 13 or above, that every rule used accepts. See docs/onnx-output.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "core/tool_api.hpp"

namespace mo {

struct OnnxEmitOptions {
    std::string path;        // <dir>/<name>.onnx; external data goes to <path>.data
    std::string model_name;  // the graph's name
    // metadata_props, in this order (the command line, as the IR's conversion_parameters).
    std::vector<std::pair<std::string, std::string>> metadata;
    // Initializer bytes above which every initializer of 1 KiB or more goes to external data
    // (protobuf cannot hold a message of 2 GB); tests lower it.
    uint64_t external_data_threshold = (uint64_t{1} << 31) - (uint64_t{64} << 20);
    bool check = true;  // run the ONNX checker on the written file
};

struct OnnxEmitStats {
    size_t nodes = 0;           // ONNX nodes of the main graph
    size_t initializers = 0;
    uint64_t weight_bytes = 0;  // initializer bytes (inline or external)
    int opset = 0;              // of the default domain
    bool microsoft_domain = false;
    std::string external_data;  // the external data file, empty when none
};

// Throws mo::Error naming every node whose op has no ONNX form (all of them at once), or the
// node whose rule cannot express its attributes. Nothing is left on disk after an error: the
// files are written under temporary names, checked, and renamed at the end.
MO_TOOL_API OnnxEmitStats write_onnx(const Graph& graph, const OnnxEmitOptions& options);

// onnx::checker::check_model on the file plus strict, type-checking shape inference. Throws
// mo::Error with the checker's message.
MO_TOOL_API void check_onnx_file(const std::string& path);

}  // namespace mo
