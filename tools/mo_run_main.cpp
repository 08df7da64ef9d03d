// `mo-run MODEL.xml [--inputs a.npy,b=b.npy] [--out DIR] [--reference o0.npy,...] [--seed N]
// [--state DIR] [--generate N] [--extensions PATHS]`:
// reads an IR (loaders/ir), evaluates it with mo's op semantics, writes the outputs as .npy
// files and, with --reference, compares them. --state keeps a stateful model's variables in .npy
// files between runs; --generate decodes N tokens greedily from the prompt given as --inputs.
// Exit codes: 0 ok, 1 error or mismatch, 2 usage.
#include <cstdio>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "loaders/ir/ir_reader.hpp"
#include "tools/pipeline.hpp"
#include "validate/generate.hpp"
#include "validate/runner.hpp"

namespace {

const char* kUsage =
    "usage: mo-run MODEL.xml [--inputs FILES] [--out DIR] [--reference FILES] [--seed N] [--state DIR]\n"
    "              [--generate N] [--extensions PATHS]\n"
    "  --inputs FILES     comma-separated .npy inputs, by position or name=file (default: seeded random)\n"
    "  --out DIR          write each output as DIR/<output name>.npy\n"
    "  --reference FILES  comma-separated reference outputs to compare with (exit 1 beyond tolerance)\n"
    "  --seed N           seed of the random inputs (default 0)\n"
    "  --state DIR        a stateful model's variables: read from DIR/<variable id>.npy when there,\n"
    "                     written there after the run\n"
    "  --generate N       greedy decoding of N tokens by a stateful LLM (mo --transform MakeStateful):\n"
    "                     --inputs gives the prompt's input_ids [batch, length]; attention_mask,\n"
    "                     position_ids and beam_idx are made here. Prints 'tokens: t1 t2 ...' per\n"
    "                     batch entry, then the time per token\n"
    "  --extensions PATHS plugin libraries or directories whose ops the IR uses (also MO_PLUGIN_PATH)\n";

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string::npos) comma = s.size();
        if (comma > start) parts.push_back(s.substr(start, comma - start));
        start = comma + 1;
    }
    return parts;
}

// Greedy decoding: one "tokens:" line per batch entry, then the time per token.
int generate_and_print(const mo::Graph& graph, const mo::RunOptions& options, int64_t tokens) {
    std::string prompt_file = options.input_files[0];
    if (const size_t eq = prompt_file.find('='); eq != std::string::npos) {
        if (prompt_file.substr(0, eq) != "input_ids") {
            std::cerr << "[ ERROR ] --generate reads only input_ids from --inputs, not " << prompt_file.substr(0, eq) << "\n";
            return 2;
        }
        prompt_file = prompt_file.substr(eq + 1);
    }
    const mo::GenerateResult r = mo::run_generate(graph, {prompt_file, tokens, options.state_dir});
    for (const auto& row : r.tokens) {
        std::cout << "tokens:";
        for (int64_t t : row) std::cout << ' ' << t;
        std::cout << "\n";
    }
    char line[160];
    if (r.call_seconds.size() > 1) {
        const double decode = std::accumulate(r.call_seconds.begin() + 1, r.call_seconds.end(), 0.0) /
                              static_cast<double>(r.call_seconds.size() - 1);
        std::snprintf(line, sizeof line, "time per token: %.2f ms (mean of %zu decoding steps; the prompt took %.2f ms)\n",
                      decode * 1e3, r.call_seconds.size() - 1, r.call_seconds[0] * 1e3);
    } else {
        std::snprintf(line, sizeof line, "time per token: %.2f ms (the prompt's call)\n", r.call_seconds[0] * 1e3);
    }
    std::cout << line;
    return 0;
}

int run(const std::vector<std::string>& args) {
    std::string model;
    std::optional<int64_t> generate;
    mo::RunOptions options;
    mo::ConversionOptions plugins;  // only its extensions are used
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            return 0;
        }
        bool takes_value = a == "--inputs" || a == "--out" || a == "--reference" || a == "--seed" || a == "--extensions" ||
                           a == "--state" || a == "--generate";
        if (takes_value && i + 1 >= args.size()) {
            std::cerr << "[ ERROR ] " << a << " needs a value\n" << kUsage;
            return 2;
        }
        if (a == "--inputs") options.input_files = split(args[++i]);
        else if (a == "--out") options.output_dir = args[++i];
        else if (a == "--reference") options.reference_files = split(args[++i]);
        else if (a == "--seed") options.seed = std::stoull(args[++i]);
        else if (a == "--extensions") plugins.extensions = split(args[++i]);
        else if (a == "--state") options.state_dir = args[++i];
        else if (a == "--generate") generate = std::stoll(args[++i]);
        else if (a.rfind("--", 0) == 0 || !model.empty()) {
            std::cerr << "[ ERROR ] unexpected argument '" << a << "'\n" << kUsage;
            return 2;
        } else model = a;
    }
    if (model.empty()) {
        std::cerr << kUsage;
        return 2;
    }
    if (generate && (*generate < 1 || options.input_files.size() != 1 || !options.output_dir.empty() ||
                     !options.reference_files.empty())) {
        std::cerr << "[ ERROR ] --generate N takes N >= 1 and one --inputs file (the prompt), without --out and --reference\n"
                  << kUsage;
        return 2;
    }
    mo::Pipeline pipeline(plugins);
    auto graph = mo::read_ir(model, pipeline.ops);
    if (generate) return generate_and_print(*graph, options, *generate);
    mo::RunResult r = mo::run_model(*graph, options);
    for (size_t i = 0; i < r.outputs.size(); ++i) {
        std::cout << "[ OUTPUT ] " << r.output_names[i] << ": " << mo::ir_name(r.outputs[i].type()) << " ["
                  << mo::PartialShape(r.outputs[i].shape()).to_string() << "]";
        if (i < r.written_files.size()) std::cout << " -> " << r.written_files[i];
        std::cout << "\n";
    }
    if (!options.state_dir.empty())
        std::cout << "[ STATE ] " << r.state_files.size() << " variables written to " << options.state_dir << "\n";
    if (!r.report) return 0;
    std::cout << r.report->text();
    return r.report->ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const std::invalid_argument&) {
        std::cerr << "[ ERROR ] --seed and --generate take a number\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "[ ERROR ] " << e.what() << "\n";
        return 1;
    }
}
