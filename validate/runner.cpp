#include "validate/runner.hpp"

#include <cctype>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "validate/npy.hpp"
#include "validate/random_inputs.hpp"

namespace mo {

namespace {

// Parameter index -> file, from positional and name=path entries.
std::vector<std::string> files_per_parameter(const Graph& graph, const std::vector<std::string>& entries) {
    const auto& params = graph.parameters();
    std::vector<std::string> files(params.size());
    size_t next_positional = 0;
    for (const std::string& entry : entries) {
        const size_t eq = entry.find('=');
        size_t index = 0;
        std::string path;
        if (eq == std::string::npos) {
            if (next_positional >= params.size())
                throw Error("more input files than model inputs (" + std::to_string(params.size()) + ")", entry,
                            "give one .npy file per model input, or name=file.npy");
            index = next_positional++;
            path = entry;
        } else {
            const std::string name = entry.substr(0, eq);
            path = entry.substr(eq + 1);
            index = params.size();
            for (size_t i = 0; i < params.size() && index == params.size(); ++i)
                if (params[i].answers_to(name)) index = i;
            if (index == params.size())
                throw Error("the model has no input named '" + name + "'", entry, "use one of the model's input names");
        }
        if (!files[index].empty())
            throw Error("input given twice", params[index].describe(), "give each model input one .npy file");
        files[index] = path;
    }
    return files;
}

std::string file_safe(const std::string& name) {
    std::string s = name;
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
    if (s.empty() || s == "." || s == "..") s = "output";
    return s;
}

}  // namespace

std::string state_file(const std::string& dir, const std::string& variable_id) {
    return (std::filesystem::path(dir) / (file_safe(variable_id) + ".npy")).string();
}

VariableState read_state_dir(const Graph& graph, const std::string& dir) {
    VariableState state;
    for (const Node& n : graph.nodes()) {
        if (!n.is("ReadValue")) continue;
        const std::string id = n.attr<std::string>("variable_id");
        const std::string path = state_file(dir, id);
        std::error_code ec;
        if (std::filesystem::exists(path, ec)) state[id] = read_npy(path);
    }
    return state;
}

std::vector<std::string> write_state_dir(const VariableState& state, const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw Error("cannot create the state folder: " + ec.message(), dir);
    std::vector<std::string> written;
    for (const auto& [id, value] : state) {
        written.push_back(state_file(dir, id));
        write_npy(written.back(), value);
    }
    return written;
}

RunResult run_model(const Graph& graph, const RunOptions& options) {
    RunResult r;
    const auto files = files_per_parameter(graph, options.input_files);
    const auto& params = graph.parameters();
    for (size_t i = 0; i < params.size(); ++i) {
        if (!files[i].empty()) {
            r.inputs.push_back(read_npy(files[i]));
            continue;
        }
        const PartialShape& shape = params[i].out(0).shape();
        if (!shape.is_static())
            throw Error("input shape [" + shape.to_string() + "] is not static and no .npy file was given",
                        params[i].describe(), "give its values with name=file.npy or a static shape");
        r.inputs.push_back(random_input(graph, i, options.seed));  // as random_inputs() would
    }
    if (options.state_dir.empty()) {
        r.outputs = evaluate(graph, r.inputs, &r.stats);
    } else {
        VariableState state = read_state_dir(graph, options.state_dir);
        r.outputs = evaluate(graph, r.inputs, state, &r.stats);
        r.state_files = write_state_dir(state, options.state_dir);
    }
    for (const Node& res : graph.results()) r.output_names.push_back(output_name(res, r.output_names.size()));

    if (!options.output_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(options.output_dir, ec);
        std::set<std::string> used;
        for (size_t i = 0; i < r.outputs.size(); ++i) {
            std::string stem = file_safe(r.output_names[i]);
            if (!used.insert(stem).second) stem += "_" + std::to_string(i);  // two outputs, one file name
            used.insert(stem);
            const std::string path = (std::filesystem::path(options.output_dir) / (stem + ".npy")).string();
            write_npy(path, r.outputs[i]);
            r.written_files.push_back(path);
        }
    }
    if (!options.reference_files.empty()) {
        if (options.reference_files.size() != r.outputs.size())
            throw Error("the model has " + std::to_string(r.outputs.size()) + " outputs but " +
                            std::to_string(options.reference_files.size()) + " reference files were given",
                        graph.source_path, "give one reference .npy file per model output, in output order");
        ValidationReport report;
        for (size_t i = 0; i < r.outputs.size(); ++i)
            report.outputs.push_back(
                compare(r.outputs[i], read_npy(options.reference_files[i]), options.tolerance, r.output_names[i]));
        r.report = std::move(report);
    }
    return r;
}

}  // namespace mo
