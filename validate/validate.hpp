// Validation of a conversion: evaluate the candidate (the converted graph, or the IR read back)
// and compare its outputs with a reference (the source graph as extracted, or reference
// tensors computed by the source framework). --validate and mo-run are thin wrappers.
#pragma once

#include <string>
#include <vector>

#include "core/evaluator.hpp"
#include "core/graph.hpp"
#include "core/tool_api.hpp"
#include "validate/compare.hpp"

namespace mo {

struct MO_TOOL_API ValidationReport {
    std::vector<Comparison> outputs;  // one per Result, in graph.results() order
    bool ok() const;
    // One line per output (format_comparison), newline-separated.
    std::string text() const;
};

// The name output `index` goes by: the first tensor name feeding the Result, else the Result
// node's name, else "output <index>".
std::string output_name(const Node& result, size_t index);

// Evaluates `candidate` on `inputs` and compares its outputs, in order, with `expected`.
// Output names come from the candidate's Results' tensor names. Throws mo::Error when the
// output counts differ.
ValidationReport validate(const Graph& candidate, const std::vector<Tensor>& inputs,
                          const std::vector<Tensor>& expected, const Tolerance& tol = {});

// Evaluates both graphs on the same inputs and compares their outputs in results() order.
ValidationReport validate(const Graph& reference, const Graph& candidate, const std::vector<Tensor>& inputs,
                          const Tolerance& tol = {});

}  // namespace mo
