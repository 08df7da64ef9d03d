// Loaders of every framework in one registry. A loader reads a model file into a graph of
// FrameworkNodes (plus Parameters, Constants and Results); it is chosen by --framework, else
// by the file's extension, else by asking each loader whether it recognizes the content.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../core/api.hpp"
#include "../core/graph.hpp"
#include "../core/options.hpp"

namespace mo {

struct Loader {
    std::string framework;                // "onnx": the --framework value and FrameworkInfo::framework
    std::vector<std::string> extensions;  // with the dot, lower case: ".onnx", ".prototxt"
    // Whether the file's content is this framework's (may be empty: extensions only). Must not
    // throw for a file of another format.
    std::function<bool(const std::string& path)> recognizes;
    // Reads the file; applies options.inputs (shape overrides). Throws mo::Error for a bad file.
    std::function<std::unique_ptr<Graph>(const std::string& path, const ConversionOptions& options,
                                         const OpRegistry& ops)>
        load;
    std::string description;          // one line for messages: "ONNX (.onnx, text .prototxt)"
    std::string origin = "built-in";  // set by the registry: "built-in" or the plugin's file
};

class MO_API LoaderRegistry {
public:
    // Throws mo::Error when the framework name or one of the extensions is taken.
    void add(Loader loader);
    const Loader* find(const std::string& framework) const;
    // The loader for this file: by `framework` when not empty, else by extension, else by
    // content. Throws mo::Error listing the known frameworks when none fits.
    const Loader& choose(const std::string& path, const std::string& framework) const;
    const std::vector<Loader>& loaders() const { return items_; }
    // Registrations made until the next call are attributed to `origin` (a plugin's path).
    void set_origin(std::string origin) { origin_ = std::move(origin); }

private:
    std::string supported() const;

    std::vector<Loader> items_;
    std::string origin_ = "built-in";
};

}  // namespace mo
