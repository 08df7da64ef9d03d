// A Loop's body copied once per iteration into the graph that owns the Loop: what UnrollLoop
// does with small constant loops and what the ONNX Loop extractor does with loops that carry
// sequences.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "core/tool_api.hpp"

namespace mo {

// Whether `t` is a one-element tensor whose value is known to be true (non-zero).
MO_TOOL_API bool known_true(const Tensor* t);

// The iteration number a current-iteration body Parameter receives in iteration i: of the
// Parameter's element type, shaped [1] when it is 1D, else a scalar.
MO_TOOL_API Tensor iteration_number(const Node& parameter, int64_t i);

// Copies `body` into `outer` `iterations` times (nodes named `prefix`iteration_<i>/...): its
// Parameters read `inputs` (the Loop's input values, by port map index) or the previous copy's
// Results along the back edges, the current iteration is a constant. Returns one port per Loop
// output: the last copy's Result, or a Concat of every copy's Result along the output's axis
// (reversed for stride -1). Needs iterations >= 1 and a body without sliced inputs.
MO_TOOL_API std::vector<OutPort> unroll_loop_body(const Body& body, Graph& outer, const std::vector<OutPort>& inputs,
                                             size_t output_count, int64_t iterations, const std::string& prefix);

}  // namespace mo
