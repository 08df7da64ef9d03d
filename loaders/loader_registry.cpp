#include "loaders/loader_registry.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/error.hpp"
#include "core/plugin_code.hpp"

namespace mo {

void LoaderRegistry::add(Loader loader) {
    if (loader.framework.empty() || !loader.load)
        throw Error("a loader needs a framework name and a load function", origin_, "fill Loader::framework and load");
    loader.origin = origin_;
    for (const Loader& other : items_) {
        if (other.framework == loader.framework)
            throw Error("loader for framework '" + loader.framework + "' is registered twice (first by " +
                            other.origin + ")",
                        loader.origin, "give the framework another name");
        for (const std::string& ext : loader.extensions)
            if (std::find(other.extensions.begin(), other.extensions.end(), ext) != other.extensions.end())
                throw Error("file extension '" + ext + "' of framework '" + loader.framework +
                                "' is already claimed by framework '" + other.framework + "' (" + other.origin + ")",
                            loader.origin, "leave the extension out and recognize such files by content");
    }
    items_.push_back(std::move(loader));
}

const Loader* LoaderRegistry::find(const std::string& framework) const {
    for (const Loader& l : items_)
        if (l.framework == framework) return &l;
    return nullptr;
}

std::string LoaderRegistry::supported() const {
    std::string list;
    for (const Loader& l : items_) list += (list.empty() ? "" : ", ") + l.framework + " (" + l.description + ")";
    return list;
}

const Loader& LoaderRegistry::choose(const std::string& path, const std::string& framework) const {
    if (!framework.empty()) {
        if (const Loader* l = find(framework)) return *l;
        throw Error("unsupported framework '" + framework + "'", "--framework", "supported: " + supported());
    }
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const Loader& l : items_)
        if (std::find(l.extensions.begin(), l.extensions.end(), ext) != l.extensions.end()) return l;
    for (const Loader& l : items_)
        if (l.recognizes && run_plugin_code(
                                l.origin, [&] { return PluginCodeSite{"the " + l.framework + " loader's recognizes()", path}; },
                                [&] { return l.recognizes(path); }))
            return l;
    throw Error("unsupported framework: cannot tell the framework of this file", path,
                "supported: " + supported() + "; or pass --framework NAME");
}

}  // namespace mo
