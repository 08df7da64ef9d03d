// Evaluates a graph on concrete inputs with each op schema's eval (OpenVINO semantics): the
// engine behind --validate and mo-run. Memory stays bounded by the widest cut of the graph,
// not its size: a tensor is freed as soon as its last consumer has run.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/graph.hpp"

namespace mo {

struct EvaluationStats {
    size_t nodes_evaluated = 0;
    // Most intermediate tensors held at once (outputs waiting for a consumer that has not run).
    size_t peak_live_tensors = 0;
};

// Binds inputs[i] to graph.parameters()[i] (the element type must match and the shape must fit
// the Parameter's partial shape), evaluates every node a Result depends on in topological order,
// and returns the tensors feeding graph.results(), in that order. Constants give their value; an
// absent optional input is an empty Tensor. Throws mo::Error naming the parameter or node for a
// wrong input, a node without eval, or an eval that fails.
std::vector<Tensor> evaluate(const Graph& graph, const std::vector<Tensor>& inputs, EvaluationStats* stats = nullptr);

// The values of a stateful model's variables by variable_id, kept between calls to run the model
// step by step (an LLM decoding token after token). A variable not in it reads its ReadValue's
// initial value (zeros of its shape when it has none).
using VariableState = std::map<std::string, Tensor>;

// evaluate() with variables: ReadValue reads `state`, and the values the Assigns (graph.sinks())
// give their variables are stored into it when the call ends.
std::vector<Tensor> evaluate(const Graph& graph, const std::vector<Tensor>& inputs, VariableState& state,
                             EvaluationStats* stats = nullptr);

}  // namespace mo
