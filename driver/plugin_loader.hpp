// Finds and loads plugin libraries: from --extensions (files or directories), from
// MO_PLUGIN_PATH (the same, ':'-separated), and from the installed plugin directory
// (<libdir>/mo/plugins beside libmo). Each library is loaded once, however often it is named.
#pragma once

#include <string>
#include <vector>

#include <mo/plugin.hpp>

namespace mo {

struct LoadedPlugin {
    std::string path;  // canonical path of the library
    std::string name, version;
};

// The directory `mo` loads plugins from without being told: <directory of libmo>/mo/plugins.
std::string installed_plugin_dir();

// The plugin libraries named by `extensions`, MO_PLUGIN_PATH and the installed directory, in
// that order, canonical and without repeats. A directory contributes its *.so files (sorted);
// a named file or directory that does not exist is an error.
std::vector<std::string> find_plugins(const std::vector<std::string>& extensions);

// dlopens each library, checks its ABI version and calls its register function. Throws
// mo::Error naming the file: a library that does not load (with the loader's reason, e.g. a
// missing dependency), no entry point, another ABI version, a registration that throws or
// clashes with an id already registered.
std::vector<LoadedPlugin> load_plugins(const std::vector<std::string>& paths, Registries& registries);

}  // namespace mo
