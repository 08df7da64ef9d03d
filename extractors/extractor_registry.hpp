// Extractors of every framework in one registry, keyed by (framework, domain, op type, opset
// range). An extractor turns one FrameworkNode into canonical ops (ops/) with typed
// attributes. Built-in extractors and those of plugins register here the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/api.hpp"
#include "core/graph.hpp"

namespace mo {

class ExtractContext;
using ExtractFn = std::function<void(ExtractContext&)>;

struct Extractor {
    std::string framework;  // "onnx", "tflite", "tf", or a plugin's own framework
    std::string domain;     // ONNX: "" for ai.onnx, "com.example" for a custom domain; others: ""
    std::string op_type;    // the framework's op type (TFLite CUSTOM ops: their custom code)
    int64_t since_version = 1;          // first opset this extractor handles
    int64_t until_version = INT64_MAX;  // last opset this extractor handles
    ExtractFn fn;
    std::string origin = "built-in";  // set by the registry: "built-in" or the plugin's file
};

class MO_API ExtractorRegistry {
public:
    // Throws mo::Error when an extractor for the same (framework, domain, op type) already
    // covers one of these opsets: a second registration never silently wins.
    void add(Extractor e);
    // The extractor for this op in this opset, or nullptr.
    const Extractor* find(const std::string& framework, const std::string& domain, const std::string& op_type,
                          int64_t opset) const;
    size_t size() const { return size_; }
    size_t size(const std::string& framework) const;
    // Registrations made until the next call are attributed to `origin` (a plugin's path).
    void set_origin(std::string origin) { origin_ = std::move(origin); }

private:
    using Key = std::tuple<std::string, std::string, std::string>;  // framework, domain, op type
    std::map<Key, std::vector<Extractor>> items_;
    size_t size_ = 0;
    std::string origin_ = "built-in";
};

// Runs the extractor of every FrameworkNode that has one. The others stay FrameworkNodes: a
// configured replacement may remove them; report_unsupported_ops()
// (transforms/back/report_unsupported_ops.hpp) reports those left, all at once.
MO_API void extract(Graph& graph, const ExtractorRegistry& extractors);

}  // namespace mo
