#include "tools/plugin_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

namespace mo {

namespace fs = std::filesystem;

namespace {

constexpr const char* kHint = "see docs/extending.md";

// Appends the canonical paths of the libraries at `entry` (a file, or a directory's *.so).
void collect(const std::string& entry, const std::string& source, std::vector<std::string>& out,
             std::set<std::string>& seen) {
    std::error_code ec;
    fs::path path(entry);
    if (!fs::exists(path, ec))
        throw Error("plugin library or directory not found", entry + " (from " + source + ")",
                    "check the path; " + std::string(kHint));
    std::vector<fs::path> files;
    if (fs::is_directory(path, ec)) {
        for (const auto& e : fs::directory_iterator(path, ec))
            if (e.path().extension() == ".so" && !fs::is_directory(e.path(), ec)) files.push_back(e.path());
        std::sort(files.begin(), files.end());
    } else {
        files.push_back(path);
    }
    for (const fs::path& f : files) {
        std::string canonical = fs::canonical(f, ec).string();
        if (ec) canonical = fs::absolute(f).string();
        if (seen.insert(canonical).second) out.push_back(canonical);
    }
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, sep))
        if (!item.empty()) parts.push_back(item);
    return parts;
}

// What to do about dlopen's `reason` for `path`. The loader names a dependency it cannot find
// ("libfoo.so: cannot open shared object file"); any other reason is about the file itself.
std::string load_failure_hint(const std::string& reason, const std::string& path) {
    const bool about_the_file = reason.rfind(path + ":", 0) == 0;
    if (reason.find("cannot open shared object file") != std::string::npos)
        return about_the_file ? "check that the file can be read"
                              : "a missing dependency is named above: install it or add its directory to LD_LIBRARY_PATH";
    if (reason.find("undefined symbol") != std::string::npos)
        return "the plugin uses a symbol that neither mo nor its dependencies define: rebuild it against this mo "
               "(find_package(mo))";
    return "the file is not a shared library built as a mo plugin: " + std::string(kHint);
}

MoPluginInfo entry_info(const std::string& path) {
    // dlopen would read a pipe or a device until it ends, if it does.
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw Error("plugin library is not a regular file", path,
                    "pass a shared library built as a mo plugin: " + std::string(kHint));
    // RTLD_LOCAL: two plugins may define the same internal symbols without clashing.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* error = ::dlerror();
        const std::string reason = error ? error : "unknown reason";
        throw Error("plugin library does not load: " + reason, path, load_failure_hint(reason, path));
    }
    // Never dlclosed: the registries hold the plugin's functions until the process ends.
    using EntryFn = MoPluginInfo (*)();
    auto entry = reinterpret_cast<EntryFn>(::dlsym(handle, MO_PLUGIN_ENTRY_POINT_NAME));
    if (!entry)
        throw Error("not a mo plugin: it exports no '" + std::string(MO_PLUGIN_ENTRY_POINT_NAME) + "' function", path,
                    "define the entry point with MO_DEFINE_PLUGIN (include/mo/plugin.hpp); " + std::string(kHint));
    MoPluginInfo info = entry();
    if (info.abi_version != MO_PLUGIN_ABI_VERSION)
        throw Error("plugin was built for plugin ABI version " + std::to_string(info.abi_version) +
                        ", this mo has version " + std::to_string(MO_PLUGIN_ABI_VERSION),
                    path, "rebuild the plugin against this mo's headers (find_package(mo))");
    if (!info.register_plugin)
        throw Error("plugin has no register function", path, "fill MoPluginInfo::register_plugin; " + std::string(kHint));
    return info;
}

void set_origin(Registries& r, const std::string& origin) {
    r.ops.set_origin(origin);
    r.loaders.set_origin(origin);
    r.extractors.set_origin(origin);
    r.transforms.set_origin(origin);
}

}  // namespace

std::string installed_plugin_dir() {
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<void*>(&installed_plugin_dir), &info) || !info.dli_fname) return {};
    return (fs::path(info.dli_fname).parent_path() / "mo" / "plugins").string();
}

std::vector<std::string> find_plugins(const std::vector<std::string>& extensions) {
    std::vector<std::string> paths;
    std::set<std::string> seen;
    for (const std::string& e : extensions) collect(e, "--extensions", paths, seen);
    if (const char* env = std::getenv("MO_PLUGIN_PATH"))
        for (const std::string& e : split(env, ':')) collect(e, "MO_PLUGIN_PATH", paths, seen);
    std::error_code ec;
    std::string installed = installed_plugin_dir();
    if (!installed.empty() && fs::is_directory(installed, ec)) collect(installed, "the installed plugin directory", paths, seen);
    return paths;
}

std::vector<LoadedPlugin> load_plugins(const std::vector<std::string>& paths, Registries& registries) {
    std::vector<LoadedPlugin> loaded;
    for (const std::string& path : paths) {
        MoPluginInfo info = entry_info(path);
        // The same plugin twice (an installed copy and a build tree's, say) would clash on its
        // first registration, blaming ids rather than the two files.
        const std::string name = info.name ? info.name : "";
        for (const LoadedPlugin& earlier : loaded)
            if (!name.empty() && earlier.name == name)
                throw Error("plugin '" + name + "' is loaded twice: from " + earlier.path + " and from " + path, path,
                            "load one copy: drop one from --extensions or MO_PLUGIN_PATH, or remove the one in " +
                                installed_plugin_dir());
        set_origin(registries, path);
        try {
            info.register_plugin(registries);
        } catch (const Error& e) {
            set_origin(registries, "built-in");
            throw Error("plugin registration failed: " + e.what_part(), path + (e.where().empty() ? "" : ": " + e.where()),
                        e.hint());
        } catch (const std::exception& e) {
            set_origin(registries, "built-in");
            throw Error("plugin registration failed: " + std::string(e.what()), path, kHint);
        }
        set_origin(registries, "built-in");
        loaded.push_back({path, info.name ? info.name : "", info.version ? info.version : ""});
        MO_LOG(Info, "loaded plugin ", loaded.back().name, " ", loaded.back().version, " from ", path);
    }
    return loaded;
}

}  // namespace mo
