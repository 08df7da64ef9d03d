// `mo-run MODEL.xml [--inputs a.npy,b=b.npy] [--out DIR] [--reference o0.npy,...] [--seed N]
// [--extensions PATHS]`:
// reads an IR (loaders/ir), evaluates it with mo's op semantics, writes the outputs as .npy
// files and, with --reference, compares them. Exit codes: 0 ok, 1 error or mismatch, 2 usage.
#include <iostream>
#include <string>
#include <vector>

#include "loaders/ir/ir_reader.hpp"
#include "tools/pipeline.hpp"
#include "validate/runner.hpp"

namespace {

const char* kUsage =
    "usage: mo-run MODEL.xml [--inputs FILES] [--out DIR] [--reference FILES] [--seed N] [--extensions PATHS]\n"
    "  --inputs FILES     comma-separated .npy inputs, by position or name=file (default: seeded random)\n"
    "  --out DIR          write each output as DIR/<output name>.npy\n"
    "  --reference FILES  comma-separated reference outputs to compare with (exit 1 beyond tolerance)\n"
    "  --seed N           seed of the random inputs (default 0)\n"
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

int run(const std::vector<std::string>& args) {
    std::string model;
    mo::RunOptions options;
    mo::ConversionOptions plugins;  // only its extensions are used
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            return 0;
        }
        bool takes_value = a == "--inputs" || a == "--out" || a == "--reference" || a == "--seed" || a == "--extensions";
        if (takes_value && i + 1 >= args.size()) {
            std::cerr << "[ ERROR ] " << a << " needs a value\n" << kUsage;
            return 2;
        }
        if (a == "--inputs") options.input_files = split(args[++i]);
        else if (a == "--out") options.output_dir = args[++i];
        else if (a == "--reference") options.reference_files = split(args[++i]);
        else if (a == "--seed") options.seed = std::stoull(args[++i]);
        else if (a == "--extensions") plugins.extensions = split(args[++i]);
        else if (a.rfind("--", 0) == 0 || !model.empty()) {
            std::cerr << "[ ERROR ] unexpected argument '" << a << "'\n" << kUsage;
            return 2;
        } else model = a;
    }
    if (model.empty()) {
        std::cerr << kUsage;
        return 2;
    }
    mo::Pipeline pipeline(plugins);
    auto graph = mo::read_ir(model, pipeline.ops);
    mo::RunResult r = mo::run_model(*graph, options);
    for (size_t i = 0; i < r.outputs.size(); ++i) {
        std::cout << "[ OUTPUT ] " << r.output_names[i] << ": " << mo::ir_name(r.outputs[i].type()) << " ["
                  << mo::PartialShape(r.outputs[i].shape()).to_string() << "]";
        if (i < r.written_files.size()) std::cout << " -> " << r.written_files[i];
        std::cout << "\n";
    }
    if (!r.report) return 0;
    std::cout << r.report->text();
    return r.report->ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const std::invalid_argument&) {
        std::cerr << "[ ERROR ] --seed takes a number\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "[ ERROR ] " << e.what() << "\n";
        return 1;
    }
}
