// The core of `mo-run` and `--validate`: bind inputs (.npy files or seeded random data),
// evaluate, optionally write the outputs as .npy files and compare them with reference .npy
// files. The commands only parse flags into RunOptions and print RunResult.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/evaluator.hpp"
#include "core/graph.hpp"
#include "core/tool_api.hpp"
#include "validate/validate.hpp"

namespace mo {

struct RunOptions {
    // "path.npy" entries bind to the parameters in order; "name=path.npy" entries bind to the
    // parameter whose node name or tensor name is `name`. Parameters left unbound get seeded
    // random data (random_inputs.hpp).
    std::vector<std::string> input_files;
    uint64_t seed = 0;
    // When set, each output is written to <output_dir>/<output name>.npy (characters other than
    // letters, digits, '.', '-' and '_' become '_').
    std::string output_dir;
    // When set, one .npy per output, in the model's output order: compared with `tolerance`.
    std::vector<std::string> reference_files;
    Tolerance tolerance;
    // When set, a stateful model's variables are read from <state_dir>/<variable id>.npy before
    // the call (a variable without a file starts from its initial value) and all written there
    // after it (read_state_dir / write_state_dir).
    std::string state_dir;
};

struct RunResult {
    std::vector<Tensor> inputs;             // as bound, in parameter order
    std::vector<Tensor> outputs;            // in results() order
    std::vector<std::string> output_names;  // the Results' tensor names (or node names)
    std::vector<std::string> written_files; // when output_dir was set
    std::vector<std::string> state_files;   // when state_dir was set: the variables written
    std::optional<ValidationReport> report; // when reference_files were given
    EvaluationStats stats;
};

// Throws mo::Error for unknown parameter names, a parameter bound twice, more positional
// files than parameters, unreadable .npy files, or a reference count that differs from the
// output count.
MO_TOOL_API RunResult run_model(const Graph& graph, const RunOptions& options);

// The .npy file of a variable in a state folder: <dir>/<variable id>.npy, characters other than
// letters, digits, '.', '-' and '_' replaced by '_'.
MO_TOOL_API std::string state_file(const std::string& dir, const std::string& variable_id);
// The values of `graph`'s variables (its ReadValues) that have a file in `dir`; none when the
// folder does not exist. Throws mo::Error for an unreadable file.
MO_TOOL_API VariableState read_state_dir(const Graph& graph, const std::string& dir);
// Writes every variable of `state` to `dir` (created when missing); returns the files written.
MO_TOOL_API std::vector<std::string> write_state_dir(const VariableState& state, const std::string& dir);

}  // namespace mo
