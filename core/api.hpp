// MO_API marks what libmo exports as the plugin API: the installed headers
// (cmake/public_headers.cmake) and nothing else. Everything else is hidden, so a plugin cannot
// come to depend on it; the programs' entry points are MO_TOOL_API (core/tool_api.hpp).
#pragma once

#define MO_API __attribute__((visibility("default")))
