// The core of `mo-run` and `--validate`: bind inputs (.npy files or seeded random data),
// evaluate, optionally write the outputs as .npy files and compare them with reference .npy
// files. The commands only parse flags into RunOptions and print RunResult.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/api.hpp"
#include "core/graph.hpp"
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
};

struct RunResult {
    std::vector<Tensor> inputs;             // as bound, in parameter order
    std::vector<Tensor> outputs;            // in results() order
    std::vector<std::string> output_names;  // the Results' tensor names (or node names)
    std::vector<std::string> written_files; // when output_dir was set
    std::optional<ValidationReport> report; // when reference_files were given
    EvaluationStats stats;
};

// Throws mo::Error for unknown parameter names, a parameter bound twice, more positional
// files than parameters, unreadable .npy files, or a reference count that differs from the
// output count.
MO_API RunResult run_model(const Graph& graph, const RunOptions& options);

}  // namespace mo
