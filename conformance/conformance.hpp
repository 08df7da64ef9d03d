// The ONNX backend-test conformance runner behind `mo-conformance`: each test directory
// (model.onnx + test_data_set_*/{input,output}_*.pb) is converted to IR, read back, evaluated
// with mo's op semantics and compared with the reference outputs. See docs/conformance.md.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace mo::conformance {

enum class Status { passed, failed, unsupported };
const char* status_name(Status s);

struct TestResult {
    std::string name;                   // the test directory's name, e.g. "test_relu"
    std::string dir;
    std::vector<std::string> op_types;  // ops the table counts this test under
    Status status = Status::failed;
    std::string message;                // first error line (failed) or the reason (unsupported)
    bool corrected_data = false;        // some of its files came from RunConfig::fixes_dir
};

struct RunConfig {
    // Float outputs: an element mismatches when |a-e| > atol AND |a-e|/|e| > rtol.
    double atol = 1e-4;
    double rtol = 1e-3;
    unsigned jobs = 1;
    double timeout_seconds = 120;        // per test; a test running longer fails
    size_t max_weight_elements = 50'000'000;  // larger models are skipped (unsupported)
    // Corrected test data: <fixes_dir>/<test>/<data set>/<file>.pb replaces the test's own file
    // (conformance/testdata_fixes: ONNX 1.12 data that later ONNX releases corrected).
    std::string fixes_dir;
};

// Test directories under `root`: `root` itself when it holds model.onnx, else its children
// holding model.onnx, else its grandchildren (e.g. data/node/test_relu). Sorted by path;
// only names containing `filter` (when not empty).
std::vector<std::string> find_tests(const std::string& root, const std::string& filter = {});

// Runs one test in this process. Never throws: every error becomes the test's failure.
TestResult run_test(const std::string& dir, const RunConfig& config = {});

// Runs each test in a forked child (up to config.jobs at once), so a crash or a hang is that
// test's failure, never the runner's. Results are in the order of `dirs`.
std::vector<TestResult> run_tests(const std::vector<std::string>& dirs, const RunConfig& config = {});

// The expected list: one test name per line; `# comment` after it is the reason; blank lines
// and lines starting with '#' are ignored. Returns name -> reason. Throws mo::Error when the
// file cannot be read.
std::map<std::string, std::string> read_expected(const std::string& path);

struct Verdict {
    std::vector<std::string> unexpected;   // failed or unsupported, not in the list
    std::vector<std::string> now_passing;  // in the list but passed: the list can shrink
    int exit_code() const { return unexpected.empty() ? 0 : 1; }
};
Verdict judge(const std::vector<TestResult>& results, const std::map<std::string, std::string>& expected);

// The per-op table, a line per failed test, then exactly "N passed, N failed, N skipped".
std::string summary(const std::vector<TestResult>& results);
// The total line alone.
std::string total_line(const std::vector<TestResult>& results);

}  // namespace mo::conformance
