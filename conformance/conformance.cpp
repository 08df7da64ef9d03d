#include "conformance/conformance.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <array>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/log.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "loaders/onnx/onnx_tensor.hpp"
#include "ops/ops.hpp"
#include "driver/convert.hpp"
#include "validate/compare.hpp"
#include "core/evaluator.hpp"

namespace mo::conformance {

namespace fs = std::filesystem;

const char* status_name(Status s) {
    switch (s) {
    case Status::passed: return "passed";
    case Status::failed: return "failed";
    case Status::unsupported: return "unsupported";
    }
    return "?";
}

namespace {

// The report shows one line per test: the error without its hint, its lines joined (an
// unsupported-ops error lists the ops on the following lines), cut at 300 characters.
std::string first_line(const std::string& text) {
    std::string body = text.substr(0, text.find("\n  hint:"));
    std::string line;
    bool space = false;
    for (char ch : body) {
        bool blank = ch == '\n' || ch == '\t' || ch == '\r' || ch == ' ';
        if (blank) {
            space = !line.empty();
            continue;
        }
        if (space) line += ' ';
        space = false;
        line += ch;
    }
    if (line.size() > 300) line = line.substr(0, 297) + "...";
    return line;
}

bool says_unsupported(const std::string& text) {
    return text.find("not supported") != std::string::npos || text.find("unsupported") != std::string::npos;
}

onnx::ModelProto read_model(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    onnx::ModelProto model;
    if (!in || !model.ParseFromIstream(&in)) throw Error("cannot parse the ONNX model", path);
    return model;
}

onnx::TensorProto read_tensor_proto(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    onnx::TensorProto t;
    if (!in || !t.ParseFromIstream(&in)) throw Error("cannot parse the TensorProto", path.string());
    return t;
}

// input_0.pb, input_1.pb, ... in numeric order (input_10 after input_9).
std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
    std::vector<std::pair<long, fs::path>> found;
    for (const auto& e : fs::directory_iterator(dir)) {
        std::string name = e.path().filename().string();
        if (name.rfind(prefix, 0) != 0 || e.path().extension() != ".pb") continue;
        std::string number = name.substr(prefix.size(), name.size() - prefix.size() - 3);
        if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) continue;
        found.emplace_back(std::stol(number), e.path());
    }
    std::sort(found.begin(), found.end());
    std::vector<fs::path> paths;
    for (auto& f : found) paths.push_back(f.second);
    return paths;
}

std::string lower_alnum(const std::string& s) {
    std::string out;
    for (char ch : s)
        if (std::isalnum(static_cast<unsigned char>(ch))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
}

// Node tests count under one main op: the op the test is named after (test_add_bcast -> Add),
// else the first node's op. Other tests count under every op type they use.
std::vector<std::string> op_types_of(const onnx::ModelProto& model, const fs::path& dir) {
    std::vector<std::string> ops;
    for (const auto& n : model.graph().node())
        if (std::find(ops.begin(), ops.end(), n.op_type()) == ops.end()) ops.push_back(n.op_type());
    if (dir.parent_path().filename() != "node" || ops.empty()) return ops;
    std::string test = lower_alnum(dir.filename().string().substr(std::min<size_t>(5, dir.filename().string().size())));
    std::string best;
    for (const auto& op : ops) {
        std::string key = lower_alnum(op);
        if (test.rfind(key, 0) == 0 && key.size() > lower_alnum(best).size()) best = op;
    }
    return {best.empty() ? ops.front() : best};
}

size_t weight_elements(const onnx::ModelProto& model) {
    size_t total = 0;
    for (const auto& t : model.graph().initializer()) {
        size_t n = 1;
        for (auto d : t.dims()) n *= static_cast<size_t>(std::max<int64_t>(d, 0));
        total += n;
    }
    return total;
}

// ONNX's test generator has no numpy bfloat16: bf16 data is stored as UINT16 bit patterns.
Tensor decode_bf16(const Tensor& t, ElementType wanted) {
    if (wanted != ElementType::bf16 || t.type() != ElementType::u16) return t;
    return Tensor(ElementType::bf16, t.shape(), t.buffer());
}

// Names that identify a port: its tensor names and, for a Parameter, the node name.
bool port_named(const OutPort& port, const std::string& name) {
    if (name.empty()) return false;
    const auto& names = port.names();
    return std::find(names.begin(), names.end(), name) != names.end() || port.node().name() == name;
}

// Binds the test's inputs to the IR parameters: by the TensorProto's name (or the ONNX graph
// input it stands for, in order), falling back to position when nothing matches.
std::vector<Tensor> bind_inputs(const Graph& ir, const std::vector<onnx::TensorProto>& protos,
                                const std::vector<std::string>& graph_inputs, const fs::path& set_dir) {
    const auto& params = ir.parameters();
    std::vector<Tensor> bound(params.size());
    std::vector<bool> is_bound(params.size(), false);
    for (size_t k = 0; k < protos.size(); ++k) {
        std::string where = (set_dir / ("input_" + std::to_string(k) + ".pb")).string();
        std::string name = protos[k].name();
        if (name.empty() && k < graph_inputs.size()) name = graph_inputs[k];
        size_t j = params.size();
        for (size_t p = 0; p < params.size(); ++p)
            if (port_named(params[p].out(0), name)) j = p;
        if (j == params.size()) {
            // An input the conversion removed (unused) binds nowhere; an unnamed one by position.
            if (!name.empty() && protos.size() != params.size()) continue;
            if (k >= params.size()) throw Error("more test inputs than IR parameters", where);
            j = k;
        }
        if (is_bound[j]) throw Error("IR parameter '" + params[j].name() + "' bound twice", where);
        bound[j] = decode_bf16(onnx_tensor_value(protos[k], where), params[j].out(0).type());
        is_bound[j] = true;
    }
    for (size_t p = 0; p < params.size(); ++p)
        if (!is_bound[p]) throw Error("IR parameter '" + params[p].name() + "' has no test input", set_dir.string());
    return bound;
}

// Which IR result gives ONNX output k: the Result fed by the tensor of that name, else result k.
size_t result_for(const Graph& ir, const std::string& name, size_t k) {
    const auto& results = ir.results();
    for (size_t r = 0; r < results.size(); ++r) {
        auto src = results[r].in(0).source();
        if (src && port_named(*src, name)) return r;
        if (!name.empty() && results[r].name() == name) return r;
    }
    return k;
}

// The corrected copy of a test's data file when RunConfig::fixes_dir has one, else the file.
fs::path data_file(const fs::path& file, const RunConfig& config) {
    if (config.fixes_dir.empty()) return file;
    fs::path set = file.parent_path();
    fs::path fixed = fs::path(config.fixes_dir) / set.parent_path().filename() / set.filename() / file.filename();
    std::error_code ec;
    return fs::is_regular_file(fixed, ec) ? fixed : file;
}

bool has_fixes(const std::string& test, const RunConfig& config) {
    std::error_code ec;
    return !config.fixes_dir.empty() && fs::is_directory(fs::path(config.fixes_dir) / test, ec);
}

void check_data_set(const Graph& ir, const fs::path& set_dir, const std::vector<std::string>& graph_inputs,
                    const std::vector<std::string>& graph_outputs, const RunConfig& config) {
    std::vector<onnx::TensorProto> input_protos;
    for (const auto& p : numbered_files(set_dir, "input_")) input_protos.push_back(read_tensor_proto(data_file(p, config)));
    std::vector<Tensor> inputs = bind_inputs(ir, input_protos, graph_inputs, set_dir);
    std::vector<Tensor> outputs = evaluate(ir, inputs);

    auto output_files = numbered_files(set_dir, "output_");
    for (size_t k = 0; k < output_files.size(); ++k) {
        onnx::TensorProto proto = read_tensor_proto(data_file(output_files[k], config));
        std::string name = proto.name().empty() && k < graph_outputs.size() ? graph_outputs[k] : proto.name();
        size_t r = result_for(ir, name, k);
        std::string where = set_dir.filename().string() + "/" + output_files[k].filename().string();
        if (r >= outputs.size())
            throw Error("the IR has " + std::to_string(outputs.size()) + " outputs; no output for '" + name + "'", where);
        Tensor expected = decode_bf16(onnx_tensor_value(proto, where), outputs[r].type());
        Comparison c = compare(outputs[r], expected, Tolerance{config.atol, config.rtol}, name);
        if (!c.ok) throw Error(format_comparison(c), where);
    }
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "mo-conformance-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw Error("cannot create a temporary directory", tmpl);
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// The steps that need no conversion: op types and the size guard.
TestResult inspect(const std::string& dir, const RunConfig& config, onnx::ModelProto* model_out) {
    TestResult r;
    r.dir = dir;
    r.name = fs::path(dir).filename().string();
    try {
        onnx::ModelProto model = read_model((fs::path(dir) / "model.onnx").string());
        r.op_types = op_types_of(model, fs::path(dir));
        size_t weights = weight_elements(model);
        if (weights > config.max_weight_elements) {
            r.status = Status::unsupported;
            r.message = "model too large for the conformance run (" + std::to_string(weights) + " weight elements)";
        }
        if (model_out) *model_out = std::move(model);
    } catch (const std::exception& e) {
        r.status = Status::failed;
        r.message = first_line(e.what());
    }
    return r;
}

void run_checks(TestResult& r, const onnx::ModelProto& model, const RunConfig& config) {
    TempDir tmp;
    ConversionOptions options;
    options.input_model = (fs::path(r.dir) / "model.onnx").string();
    options.output_dir = tmp.path.string();
    options.model_name = "model";
    options.compress_to_fp16 = false;
    ConversionResult converted;
    try {
        converted = convert(options);
    } catch (const Error& e) {
        r.status = says_unsupported(e.what()) ? Status::unsupported : Status::failed;
        r.message = first_line(e.what());
        return;
    }

    std::set<std::string> initializers;
    for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
    std::vector<std::string> graph_inputs, graph_outputs;
    for (const auto& in : model.graph().input())
        if (!initializers.count(in.name())) graph_inputs.push_back(in.name());
    for (const auto& out : model.graph().output()) graph_outputs.push_back(out.name());

    OpRegistry ops;
    register_builtin_ops(ops);
    auto ir = read_ir(converted.xml_path, ops);
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(r.dir))
        if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) throw Error("no test_data_set_* directory", r.dir);
    for (const auto& set : sets) check_data_set(*ir, set, graph_inputs, graph_outputs, config);
    r.status = Status::passed;
}

}  // namespace

TestResult run_test(const std::string& dir, const RunConfig& config) {
    onnx::ModelProto model;
    TestResult r = inspect(dir, config, &model);
    r.corrected_data = has_fixes(r.name, config);
    if (!r.message.empty()) return r;
    try {
        run_checks(r, model, config);
    } catch (const std::exception& e) {
        r.status = Status::failed;
        r.message = first_line(e.what());
    } catch (...) {
        r.status = Status::failed;
        r.message = "unknown exception";
    }
    return r;
}

std::vector<std::string> find_tests(const std::string& root, const std::string& filter) {
    std::vector<std::string> tests;
    auto has_model = [](const fs::path& p) { return fs::is_regular_file(p / "model.onnx"); };
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw Error("not a directory", root, "pass --data DIR with ONNX backend tests");
    if (has_model(root)) {
        tests.push_back(root);
    } else {
        for (const auto& e : fs::directory_iterator(root)) {
            if (!e.is_directory()) continue;
            if (has_model(e.path())) {
                tests.push_back(e.path().string());
                continue;
            }
            for (const auto& g : fs::directory_iterator(e.path()))
                if (g.is_directory() && has_model(g.path())) tests.push_back(g.path().string());
        }
    }
    std::sort(tests.begin(), tests.end());
    if (!filter.empty())
        std::erase_if(tests, [&](const std::string& t) {
            return fs::path(t).filename().string().find(filter) == std::string::npos;
        });
    return tests;
}

namespace {

// The child's answer on the pipe: "<status digit><message>".
struct Child {
    pid_t pid = -1;
    int fd = -1;
    size_t index = 0;
    std::chrono::steady_clock::time_point deadline;
    std::string received;
};

void write_all(int fd, const std::string& s) {
    size_t done = 0;
    while (done < s.size()) {
        ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n <= 0) return;
        done += static_cast<size_t>(n);
    }
}

void drain(Child& c) {
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(c.fd, buf, sizeof buf);
        if (n <= 0) return;
        c.received.append(buf, static_cast<size_t>(n));
    }
}

}  // namespace

std::vector<TestResult> run_tests(const std::vector<std::string>& dirs, const RunConfig& config) {
    std::vector<TestResult> results(dirs.size());
    std::vector<Child> running;
    size_t next = 0;
    const unsigned jobs = std::max(1u, config.jobs);
    while (next < dirs.size() || !running.empty()) {
        while (next < dirs.size() && running.size() < jobs) {
            size_t i = next++;
            results[i] = inspect(dirs[i], config, nullptr);
            if (!results[i].message.empty()) continue;  // decided without converting
            int fds[2];
            if (::pipe(fds) != 0) throw Error("pipe() failed", dirs[i]);
            std::fflush(nullptr);
            pid_t pid = ::fork();
            if (pid < 0) throw Error("fork() failed", dirs[i]);
            if (pid == 0) {
                ::close(fds[0]);
                // Conversion warnings would drown the report; the verdict carries the error.
                int devnull = ::open("/dev/null", O_WRONLY);
                if (devnull >= 0) {
                    ::dup2(devnull, 1);
                    ::dup2(devnull, 2);
                }
                TestResult r = run_test(dirs[i], config);
                write_all(fds[1], std::to_string(static_cast<int>(r.status)) + r.message);
                ::_exit(0);
            }
            ::close(fds[1]);
            ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
            auto timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                std::chrono::duration<double>(config.timeout_seconds));
            running.push_back(Child{pid, fds[0], i, std::chrono::steady_clock::now() + timeout, {}});
        }
        if (running.empty()) continue;
        std::vector<pollfd> polls;
        for (const auto& c : running) polls.push_back(pollfd{c.fd, POLLIN, 0});
        ::poll(polls.data(), polls.size(), 50);
        for (size_t k = 0; k < running.size();) {
            Child& c = running[k];
            drain(c);
            int wstatus = 0;
            pid_t done = ::waitpid(c.pid, &wstatus, WNOHANG);
            bool timed_out = done == 0 && std::chrono::steady_clock::now() > c.deadline;
            if (done == 0 && !timed_out) {
                ++k;
                continue;
            }
            TestResult& r = results[c.index];
            if (timed_out) {
                ::kill(c.pid, SIGKILL);
                ::waitpid(c.pid, &wstatus, 0);
                r.status = Status::failed;
                r.message = "timed out after " + std::to_string(static_cast<int>(config.timeout_seconds)) + " s";
            } else {
                drain(c);
                if (!c.received.empty() && c.received[0] >= '0' && c.received[0] <= '2') {
                    r.status = static_cast<Status>(c.received[0] - '0');
                    r.message = c.received.substr(1);
                } else {
                    r.status = Status::failed;
                    r.message = WIFSIGNALED(wstatus) ? "crashed with signal " + std::to_string(WTERMSIG(wstatus))
                                                     : "the test process ended without a verdict";
                }
            }
            ::close(c.fd);
            running.erase(running.begin() + static_cast<long>(k));
        }
    }
    for (auto& r : results) r.corrected_data = has_fixes(r.name, config);
    return results;
}

std::map<std::string, std::string> read_expected(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read the expected list", path, "pass --expected FILE");
    std::map<std::string, std::string> expected;
    std::string line;
    auto trim = [](std::string s) {
        size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    while (std::getline(in, line)) {
        size_t hash = line.find('#');
        std::string name = trim(line.substr(0, hash));
        if (name.empty()) continue;
        expected[name] = hash == std::string::npos ? std::string() : trim(line.substr(hash + 1));
    }
    return expected;
}

Verdict judge(const std::vector<TestResult>& results, const std::map<std::string, std::string>& expected) {
    Verdict v;
    for (const auto& r : results) {
        bool listed = expected.count(r.name) > 0;
        if (r.status != Status::passed && !listed) v.unexpected.push_back(r.name);
        if (r.status == Status::passed && listed) v.now_passing.push_back(r.name);
    }
    return v;
}

std::string total_line(const std::vector<TestResult>& results) {
    size_t counts[3] = {0, 0, 0};
    for (const auto& r : results) ++counts[static_cast<int>(r.status)];
    return std::to_string(counts[0]) + " passed, " + std::to_string(counts[1]) + " failed, " +
           std::to_string(counts[2]) + " skipped";
}

std::string summary(const std::vector<TestResult>& results) {
    std::map<std::string, std::array<size_t, 3>> per_op;
    for (const auto& r : results)
        for (const auto& op : r.op_types.empty() ? std::vector<std::string>{"(none)"} : r.op_types)
            ++per_op[op][static_cast<int>(r.status)];
    std::ostringstream os;
    size_t width = 10;
    for (const auto& [op, counts] : per_op) width = std::max(width, op.size());
    auto pad = [](const std::string& s, size_t w) { return s + std::string(w > s.size() ? w - s.size() : 0, ' '); };
    os << pad("op type", width) << "  passed  failed  unsupported\n";
    for (const auto& [op, c] : per_op) {
        std::string p = std::to_string(c[0]), f = std::to_string(c[1]), u = std::to_string(c[2]);
        os << pad(op, width) << "  " << std::string(6 - std::min<size_t>(6, p.size()), ' ') << p << "  "
           << std::string(6 - std::min<size_t>(6, f.size()), ' ') << f << "  "
           << std::string(11 - std::min<size_t>(11, u.size()), ' ') << u << "\n";
    }
    bool any_failed = false;
    for (const auto& r : results) {
        if (r.status != Status::failed) continue;
        if (!any_failed) os << "\nfailed:\n";
        any_failed = true;
        os << "  " << r.name << ": " << r.message << "\n";
    }
    bool any_corrected = false;
    for (const auto& r : results) {
        if (!r.corrected_data) continue;
        if (!any_corrected) os << "\nran with corrected test data (see conformance/testdata_fixes/make_fixes.py):\n";
        any_corrected = true;
        os << "  " << r.name << ": " << status_name(r.status) << "\n";
    }
    os << "\n" << total_line(results) << "\n";
    return os.str();
}

}  // namespace mo::conformance
