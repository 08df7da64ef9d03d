// What a long conversion is doing, for its user: named phases with their wall time and memory
// (a table at INFO when the conversion ends), and, when stderr is a terminal and the run has
// taken more than about 2 s, one progress line kept up to date (phase, pass, weight bytes
// written of the total). One conversion at a time per process reports here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/tool_api.hpp"

namespace mo {

class MO_TOOL_API Progress {
public:
    // Starts timing from now; forgets earlier phases.
    static void start();
    // Ends the current phase (if any) and begins `name`.
    static void phase(std::string name);
    // What the current phase is working on now (a transformation's id, a body, ...).
    static void step(std::string_view what);
    // Bytes of weights written so far of `total`.
    static void bytes(uint64_t done, uint64_t total);
    // Ends the last phase, clears the progress line and, at INFO, logs the table.
    static void finish();

    // Resident and peak resident memory of this process, MiB (0 where /proc is unavailable).
    static double rss_mib();
    static double peak_rss_mib();
};

}  // namespace mo
