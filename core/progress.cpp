#include "core/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "core/log.hpp"

namespace mo {

namespace {

using Clock = std::chrono::steady_clock;

// Shows the line only after this long, so short conversions print nothing extra.
constexpr double kQuietSeconds = 2.0;
constexpr double kRedrawSeconds = 0.1;

struct PhaseRecord {
    std::string name;
    double seconds = 0;
    double rss_mib = 0;   // resident memory when the phase ended
    double peak_mib = 0;  // peak resident memory of the process up to then
};

struct State {
    std::mutex mutex;
    Clock::time_point start = Clock::now(), phase_start = Clock::now(), last_draw{};
    std::string phase, step;
    uint64_t done = 0, total = 0;
    bool line_shown = false;
    std::vector<PhaseRecord> records;
};

State& state() {
    static State s;
    return s;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool stderr_is_terminal() {
    static const bool tty = ::isatty(STDERR_FILENO) == 1;
    return tty;
}

// A "VmRSS:" or "VmHWM:" line of /proc/self/status, in MiB.
double status_mib(const char* key) {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    double kib = 0;
    const size_t key_len = std::char_traits<char>::length(key);
    while (std::fgets(line, sizeof line, f))
        if (std::char_traits<char>::compare(line, key, key_len) == 0) {
            std::sscanf(line + key_len, "%lf", &kib);
            break;
        }
    std::fclose(f);
    return kib / 1024.0;
}

void draw(State& s, bool force) {
    if (!stderr_is_terminal() || seconds_since(s.start) < kQuietSeconds) return;
    if (!force && s.line_shown && seconds_since(s.last_draw) < kRedrawSeconds) return;
    s.last_draw = Clock::now();
    char bytes[64] = "";
    if (s.total > 0)
        std::snprintf(bytes, sizeof bytes, " %.2f of %.2f GB", static_cast<double>(s.done) / 1e9,
                      static_cast<double>(s.total) / 1e9);
    std::fprintf(stderr, "\r\033[K[ mo ] %.0f s  %s%s%s%s", seconds_since(s.start), s.phase.c_str(),
                 s.step.empty() ? "" : ": ", s.step.c_str(), bytes);
    std::fflush(stderr);
    s.line_shown = true;
}

void end_phase(State& s) {
    if (s.phase.empty()) return;
    s.records.push_back({s.phase, seconds_since(s.phase_start), Progress::rss_mib(), Progress::peak_rss_mib()});
    s.phase.clear();
}

}  // namespace

void Progress::start() {
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.start = s.phase_start = Clock::now();
    s.records.clear();
    s.phase.clear(), s.step.clear();
    s.done = s.total = 0;
}

void Progress::phase(std::string name) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    end_phase(s);
    s.phase = std::move(name);
    s.phase_start = Clock::now();
    s.step.clear();
    s.done = s.total = 0;
    draw(s, true);
}

void Progress::step(std::string_view what) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.step.assign(what);
    draw(s, false);
}

void Progress::bytes(uint64_t done, uint64_t total) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.done = done, s.total = total;
    draw(s, false);
}

void Progress::finish() {
    State& s = state();
    std::lock_guard lock(s.mutex);
    end_phase(s);
    if (s.line_shown) std::fputs("\r\033[K", stderr), s.line_shown = false;
    if (!log_enabled(LogLevel::Info)) return;
    std::string table = "time and memory by phase:\n  phase                 seconds   RSS MiB  peak MiB";
    char row[160];
    double total = 0;
    for (const PhaseRecord& r : s.records) {
        std::snprintf(row, sizeof row, "\n  %-20s %8.3f %9.1f %9.1f", r.name.c_str(), r.seconds, r.rss_mib, r.peak_mib);
        table += row;
        total += r.seconds;
    }
    std::snprintf(row, sizeof row, "\n  %-20s %8.3f", "total", total);
    log_message(LogLevel::Info, table + row);
}

double Progress::rss_mib() { return status_mib("VmRSS:"); }
double Progress::peak_rss_mib() { return status_mib("VmHWM:"); }

}  // namespace mo
