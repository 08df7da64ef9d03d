// Code a plugin registered (a loader, an extractor, an op's inference or evaluation, a
// transformation) runs inside mo. When it fails with anything but mo::Error, or breaks a contract
// mo checks (an evaluation of the wrong shape), the bug is the plugin's, not mo's nor the model's:
// it is reported as a mo::Error (exit 1) that names the plugin's file, the node and the op,
// instead of as an internal error of mo.
#pragma once

#include <exception>
#include <string>

#include "core/error.hpp"

namespace mo {

// The origin of everything mo registers itself (the registries' default).
inline constexpr const char* kBuiltInOrigin = "built-in";

inline bool from_plugin(const std::string& origin) { return origin != kBuiltInOrigin; }

// Throws the Error of plugin code at `origin` (its file) that failed: `what` says what failed,
// `where` names the node and op.
[[noreturn]] void throw_plugin_fault(const std::string& origin, const std::string& what, const std::string& where);

// What plugin code was doing and where, for its error: "the extractor of ONNX op 'Foo'",
// "node 'x' (Foo)".
struct PluginCodeSite {
    std::string what, where;
};

// Runs `body` (plugin code when `origin` names a plugin) and returns what it returns. From a
// plugin, a mo::Error gains the plugin's file in its `where`, and any other exception becomes a
// plugin fault: "<site.what> failed: <its message>". `site()` returns a PluginCodeSite and is
// called only on failure. Built-in code's exceptions pass unchanged.
template <typename Site, typename Body>
decltype(auto) run_plugin_code(const std::string& origin, Site&& site, Body&& body) {
    if (!from_plugin(origin)) return body();
    try {
        return body();
    } catch (const Error& e) {
        throw e.with_context("plugin " + origin);
    } catch (const std::exception& e) {
        const PluginCodeSite s = site();
        throw_plugin_fault(origin, s.what + " failed: " + e.what(), s.where);
    } catch (...) {
        const PluginCodeSite s = site();
        throw_plugin_fault(origin, s.what + " threw something that is not a std::exception", s.where);
    }
}

}  // namespace mo
