// The mo plugin API: one header a plugin includes. A plugin is a shared library that exports
// one extern "C" function, MO_PLUGIN_ENTRY_POINT, returning an MoPluginInfo; mo calls its
// register function with the registries the built-in ops, loaders, extractors and
// transformations were registered in, so a plugin adds to them with the same API:
//
//     static void register_my_ops(mo::Registries& r) {
//         r.ops.add(...);          // op schemas (core/op_schema.hpp)
//         r.extractors.add(...);   // extractors (extractors/extractor_registry.hpp)
//         r.transforms.add(...);   // transformations (transforms/transformation.hpp)
//         r.loaders.add(...);      // loaders of new frameworks (loaders/loader_registry.hpp)
//     }
//     MO_DEFINE_PLUGIN("my_ops", "1.0", register_my_ops)
//
// docs/extending.md walks through a whole plugin.
#pragma once

#include <cstdint>

#include "core/error.hpp"
#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "core/log.hpp"
#include "core/op_schema.hpp"
#include "extractors/extract_context.hpp"
#include "extractors/extractor_registry.hpp"
#include "loaders/loader_registry.hpp"
#include "transforms/configured.hpp"
#include "transforms/pattern.hpp"
#include "transforms/registry.hpp"
#include "transforms/transformation.hpp"

// Raised whenever a public type changes layout or meaning; mo refuses a plugin built with
// another value (rebuild the plugin against this mo).
#define MO_PLUGIN_ABI_VERSION 3

#define MO_PLUGIN_EXPORT __attribute__((visibility("default")))

namespace mo {

// Every registry of one run of mo.
struct Registries {
    OpRegistry& ops;
    LoaderRegistry& loaders;
    ExtractorRegistry& extractors;
    TransformRegistry& transforms;
};

}  // namespace mo

extern "C" {

// What the entry point returns. `register_plugin` may throw mo::Error; mo then stops with the
// error and the plugin's file name, and writes nothing.
struct MoPluginInfo {
    uint32_t abi_version;  // MO_PLUGIN_ABI_VERSION of the headers the plugin was built with
    const char* name;      // for messages and --list_transformations
    const char* version;
    void (*register_plugin)(mo::Registries& registries);
};

}  // extern "C"

// The symbol mo looks up in every plugin library.
#define MO_PLUGIN_ENTRY_POINT mo_get_plugin_info
#define MO_PLUGIN_ENTRY_POINT_NAME "mo_get_plugin_info"

// Defines the entry point of a plugin named NAME (a string) of version VERSION calling
// REGISTER_FN(mo::Registries&).
#define MO_DEFINE_PLUGIN(NAME, VERSION, REGISTER_FN)                         \
    extern "C" MO_PLUGIN_EXPORT MoPluginInfo MO_PLUGIN_ENTRY_POINT() {        \
        return MoPluginInfo{MO_PLUGIN_ABI_VERSION, NAME, VERSION, &REGISTER_FN}; \
    }
