// The registries of one run of mo, filled the same way for built-ins and plugins: the
// built-in ops, loaders, extractors and transformations first, then every plugin found
// (driver/plugin_loader.hpp), then the MO_ENABLED_TRANSFORMS / MO_DISABLED_TRANSFORMS switches.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/tool_api.hpp"
#include "driver/plugin_loader.hpp"

namespace mo {

// Registers everything mo has built in, through the registries a plugin also receives.
MO_TOOL_API void register_builtins(Registries& r);

class MO_TOOL_API Pipeline {
public:
    // Built-ins and plugins (options.extensions, MO_PLUGIN_PATH, the installed directory).
    // Throws mo::Error for a plugin that cannot be loaded or clashes.
    explicit Pipeline(const ConversionOptions& options);
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    Registries registries() { return Registries{ops, loaders, extractors, transforms}; }
    // Loads the model with the loader for its framework and runs the extractors.
    std::unique_ptr<Graph> load_and_extract(const ConversionOptions& options) const;

    OpRegistry ops;
    LoaderRegistry loaders;
    ExtractorRegistry extractors;
    TransformRegistry transforms;
    std::vector<LoadedPlugin> plugins;
};

}  // namespace mo
