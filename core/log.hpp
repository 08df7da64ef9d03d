// Leveled logging to stderr, set once by --log_level.
#pragma once

#include <string>
#include <string_view>

#include "api.hpp"
#include "error.hpp"

namespace mo {

enum class LogLevel { Error = 0, Warning = 1, Info = 2, Debug = 3 };

MO_API void set_log_level(LogLevel level);
MO_API LogLevel log_level();
// Parses ERROR, WARNING, INFO, DEBUG (case-insensitive); throws mo::Error otherwise.
MO_API LogLevel parse_log_level(std::string_view text);
MO_API void log_message(LogLevel level, const std::string& text);
inline bool log_enabled(LogLevel level) { return static_cast<int>(level) <= static_cast<int>(log_level()); }

}  // namespace mo

#define MO_LOG(level, ...)                                                                          \
    do {                                                                                            \
        if (::mo::log_enabled(::mo::LogLevel::level))                                               \
            ::mo::log_message(::mo::LogLevel::level, ::mo::detail::concat(__VA_ARGS__));             \
    } while (0)
