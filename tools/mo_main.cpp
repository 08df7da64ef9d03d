// The `mo` command: parse flags, convert, print Model Optimizer's [ SUCCESS ] summary.
// Exit codes: 0 success, 1 conversion error, 2 bad command line, 3 internal error.
#include <malloc.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>

#include "core/log.hpp"
#include "emit/staged_file.hpp"
#include "driver/cli.hpp"
#include "driver/convert.hpp"
#include "driver/validate_conversion.hpp"

#ifndef MO_VERSION
#define MO_VERSION "unknown"
#endif

namespace {

double peak_rss_mb() {
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

std::string absolute(const std::string& path) {
    std::error_code ec;
    auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

int run(const std::vector<std::string>& args) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    mo::CliRequest req = mo::parse_command_line(args);
    if (req.action == mo::CliRequest::Action::Help) {
        std::cout << mo::usage_text();
        return 0;
    }
    if (req.action == mo::CliRequest::Action::Version) {
        std::cout << "mo " << MO_VERSION << " (OpenVINO IR v11)\n";
        return 0;
    }
    mo::set_log_level(req.log_level);
    if (req.action == mo::CliRequest::Action::ListTransformations) {
        std::cout << mo::list_transformations(req.options);
        return 0;
    }
    if (req.action == mo::CliRequest::Action::ListOps) {
        std::cout << mo::list_ops(req.options);
        return 0;
    }
    // The program ends after converting: its graph is left to the exit, unless validation,
    // which converts the model again, follows.
    mo::ConversionResult result = mo::convert(
        req.options, req.validation.enabled ? mo::GraphAfterConversion::FreeGraph : mo::GraphAfterConversion::LeaveToExit);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    char line[128];
    if (!result.xml_path.empty())
        std::cout << "[ SUCCESS ] Generated IR version 11 model.\n"
                  << "[ SUCCESS ] XML file: " << absolute(result.xml_path) << "\n"
                  << "[ SUCCESS ] BIN file: " << absolute(result.bin_path) << "\n"
                  << "[ SUCCESS ] Layers: " << result.layers << ", weights: " << result.bin_bytes << " bytes\n";
    if (!result.onnx_path.empty())
        std::cout << "[ SUCCESS ] ONNX file: " << absolute(result.onnx_path) << " (opset " << result.onnx_opset << ", "
                  << result.onnx_nodes << " nodes; checked by onnx::checker)\n";
    std::snprintf(line, sizeof line, "[ SUCCESS ] Total execution time: %.2f seconds.\n", seconds);
    std::cout << line;
    std::snprintf(line, sizeof line, "[ SUCCESS ] Memory consumed: %.0f MB.\n", peak_rss_mb());
    std::cout << line;
    if (!req.validation.enabled) return 0;
    mo::ConversionValidation v = mo::validate_conversion(req.options, result, req.validation);
    std::cout << "[ VALIDATE ] " << v.report;
    if (!v.report.empty() && v.report.back() != '\n') std::cout << "\n";
    std::cout << (v.ok ? "[ VALIDATE ] passed\n" : "[ VALIDATE ] FAILED: outputs differ beyond tolerance (the files were written)\n");
    return v.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    // A conversion allocates millions of small objects that mostly live to the end. glibc's
    // fastbins only delay coalescing the few that are freed, and then coalesce all of them
    // whenever a larger block is asked for: on a million-node graph that costs 17% of the run
    // (measured in docs/performance.md), on small graphs nothing. Without them: no such sweeps.
    ::mallopt(M_MXFAST, 0);
    mo::remove_staged_files_on_signals();
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        return run(args);
    } catch (const mo::UsageError& e) {
        std::cerr << "[ ERROR ] " << e.what() << "\n[ ERROR ] run 'mo --help' for the list of flags\n";
        return 2;
    } catch (const mo::Error& e) {
        std::cerr << "[ ERROR ] " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "[ ERROR ] out of memory\n";
        return 1;
    } catch (const std::exception& e) {
        // MO_ASSERT's message starts with the prefix already; a library's (std::length_error,
        // std::out_of_range) does not, and alone it does not say that the bug is mo's.
        const std::string prefix = "internal error (please report): ", what = e.what();
        std::cerr << "[ ERROR ] " << (what.rfind(prefix, 0) == 0 ? "" : prefix) << what << "\n";
        return 3;
    }
}
