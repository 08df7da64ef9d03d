// `mo-conformance [--data DIR] [--expected FILE] [--fixes DIR] [--filter SUBSTR] [--jobs N] [--timeout S]`:
// runs the ONNX backend tests (Debian's libonnx-testdata) through convert -> read_ir ->
// evaluate -> compare and prints a per-op table and "N passed, N failed, N skipped".
// Exit codes: 0 when every failing or unsupported test is in the expected list, 1 otherwise
// (or on an error), 2 usage. See docs/conformance.md.
#include <iostream>
#include <string>
#include <vector>

#include "conformance/conformance.hpp"

namespace {

const char* kUsage =
    "usage: mo-conformance [--data DIR] [--expected FILE] [--fixes DIR] [--filter SUBSTR] [--jobs N] [--timeout S]\n"
    "  --data DIR       ONNX backend tests (default " MO_CONFORMANCE_DATA ")\n"
    "  --expected FILE  tests allowed to fail or be unsupported (default " MO_CONFORMANCE_EXPECTED ")\n"
    "  --fixes DIR      corrected test files replacing the tests' own (default " MO_CONFORMANCE_FIXES ")\n"
    "  --filter SUBSTR  only tests whose directory name contains SUBSTR\n"
    "  --jobs N         tests run at once, each in its own process (default 1)\n"
    "  --timeout S      seconds one test may take (default 120)\n";

int run(const std::vector<std::string>& args) {
    std::string data = MO_CONFORMANCE_DATA, expected_path = MO_CONFORMANCE_EXPECTED, filter;
    mo::conformance::RunConfig config;
    config.fixes_dir = MO_CONFORMANCE_FIXES;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            return 0;
        }
        bool known = a == "--data" || a == "--expected" || a == "--fixes" || a == "--filter" || a == "--jobs" ||
                     a == "--timeout";
        if (!known) {
            std::cerr << "[ ERROR ] unexpected argument '" << a << "'\n" << kUsage;
            return 2;
        }
        if (i + 1 >= args.size()) {
            std::cerr << "[ ERROR ] " << a << " needs a value\n" << kUsage;
            return 2;
        }
        const std::string& v = args[++i];
        try {
            if (a == "--data") data = v;
            else if (a == "--expected") expected_path = v;
            else if (a == "--fixes") config.fixes_dir = v;
            else if (a == "--filter") filter = v;
            else if (a == "--jobs") config.jobs = static_cast<unsigned>(std::stoul(v));
            else config.timeout_seconds = std::stod(v);
        } catch (const std::exception&) {
            std::cerr << "[ ERROR ] " << a << " takes a number\n" << kUsage;
            return 2;
        }
    }
    auto expected = mo::conformance::read_expected(expected_path);
    auto tests = mo::conformance::find_tests(data, filter);
    auto results = mo::conformance::run_tests(tests, config);
    std::cout << mo::conformance::summary(results);

    auto verdict = mo::conformance::judge(results, expected);
    if (!verdict.now_passing.empty()) {
        std::cout << "\nlisted in " << expected_path << " but passing now (remove them):\n";
        for (const auto& n : verdict.now_passing) std::cout << "  " << n << "\n";
    }
    if (!verdict.unexpected.empty()) {
        std::cout << "\nfailed or unsupported, not in " << expected_path << ":\n";
        for (const auto& n : verdict.unexpected) std::cout << "  " << n << "\n";
    }
    return verdict.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const std::exception& e) {
        std::cerr << "[ ERROR ] " << e.what() << "\n";
        return 1;
    }
}
