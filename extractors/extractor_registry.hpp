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

#include "../core/api.hpp"
#include "../core/graph.hpp"

namespace mo {

class ExtractContext;
using ExtractFn = std::function<void(ExtractContext&)>;

// The opsets an extractor handles, written as they read: since(11), opsets(1, 10), or
// all_versions for frameworks without opsets (TFLite, TensorFlow, Caffe).
struct OpsetRange {
    int64_t since = 1;
    int64_t until = INT64_MAX;
};
constexpr OpsetRange since(int64_t first) { return {first, INT64_MAX}; }
constexpr OpsetRange opsets(int64_t first, int64_t last) { return {first, last}; }
inline constexpr OpsetRange all_versions{};

struct Extractor {
    std::string framework;  // "onnx", "tflite", "tf", or a plugin's own framework
    std::string domain;     // ONNX: "" for ai.onnx, "com.example" for a custom domain; others: ""
    std::string op_type;    // the framework's op type (TFLite CUSTOM ops: their custom code)
    int64_t since_version = 1;          // first opset this extractor handles
    int64_t until_version = INT64_MAX;  // last opset this extractor handles
    ExtractFn fn;
    std::string origin = "built-in";  // set by the registry: "built-in" or the plugin's file

    Extractor() = default;
    // {"onnx", "", "Clip", since(11), fn}
    Extractor(std::string framework, std::string domain, std::string op_type, OpsetRange range, ExtractFn fn)
        : framework(std::move(framework)), domain(std::move(domain)), op_type(std::move(op_type)),
          since_version(range.since), until_version(range.until), fn(std::move(fn)) {}
    // {"onnx", "", "Clip", 11, INT64_MAX, fn}: the form of plugins written for API version 1.
    Extractor(std::string framework, std::string domain, std::string op_type, int64_t since, int64_t until, ExtractFn fn)
        : Extractor(std::move(framework), std::move(domain), std::move(op_type), OpsetRange{since, until},
                    std::move(fn)) {}
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
