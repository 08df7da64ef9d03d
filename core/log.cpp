#include "core/log.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>

namespace mo {

static LogLevel g_level = LogLevel::Warning;

void set_log_level(LogLevel level) { g_level = level; }
LogLevel log_level() { return g_level; }

LogLevel parse_log_level(std::string_view text) {
    std::string s(text);
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
    if (s == "ERROR" || s == "CRITICAL") return LogLevel::Error;
    if (s == "WARNING" || s == "WARN") return LogLevel::Warning;
    if (s == "INFO") return LogLevel::Info;
    if (s == "DEBUG") return LogLevel::Debug;
    throw Error("unknown log level '" + std::string(text) + "'", "--log_level", "use ERROR, WARNING, INFO or DEBUG");
}

void log_message(LogLevel level, const std::string& text) {
    static const char* names[] = {"ERROR", "WARNING", "INFO", "DEBUG"};
    std::cerr << "[ " << names[static_cast<int>(level)] << " ] " << text << '\n';
}

}  // namespace mo
