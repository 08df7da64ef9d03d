// MO_TOOL_API marks what libmo exports for mo's own programs (mo, mo-run, the Python module):
// the driver's entry points and the few internals they call. It is not the plugin API: these
// headers are not installed and carry no ABI promise (core/api.hpp's MO_API is that).
#pragma once

#define MO_TOOL_API __attribute__((visibility("default")))
