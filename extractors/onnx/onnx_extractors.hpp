// ONNX extractors: one per (domain, op type, opset range), each turning a FrameworkNode into
// canonical ops (ops/) with typed attributes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/graph.hpp"

namespace onnx { class NodeProto; }

namespace mo {

class OnnxExtractContext;
using OnnxExtractFn = std::function<void(OnnxExtractContext&)>;

struct OnnxExtractor {
    std::string domain;  // "" for ai.onnx
    std::string op_type;
    int64_t since_version = 1;        // first opset this extractor handles
    int64_t until_version = INT64_MAX;  // last opset this extractor handles
    OnnxExtractFn fn;
};

class OnnxExtractorRegistry {
public:
    void add(OnnxExtractor e);
    // The extractor for this op in this opset, or nullptr.
    const OnnxExtractor* find(const std::string& domain, const std::string& op_type, int64_t opset) const;
    size_t size() const { return items_.size(); }

private:
    std::vector<OnnxExtractor> items_;
};

void register_onnx_extractors(OnnxExtractorRegistry& r);

// Runs the extractor of every FrameworkNode with framework "onnx". Unknown op types are
// collected first and reported in one mo::Error listing each type with its node names.
void extract_onnx(Graph& graph, const OnnxExtractorRegistry& extractors);

}  // namespace mo
