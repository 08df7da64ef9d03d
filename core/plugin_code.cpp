#include "core/plugin_code.hpp"

namespace mo {

void throw_plugin_fault(const std::string& origin, const std::string& what, const std::string& where) {
    throw Error("a plugin's code failed: " + what, "plugin " + origin + (where.empty() ? "" : ": " + where),
                "this is a bug in the plugin, not in mo or the model: report it to the plugin's author, or convert "
                "without it");
}

}  // namespace mo
