// ONNX sequences whose elements are known at conversion, as the internal placeholders
// SequenceMake / SequenceInsert (ops/internal.cpp) that sequence consumers resolve.
#pragma once

#include <optional>
#include <vector>

#include "core/graph.hpp"

namespace mo {

// The elements of the sequence `port` stands for, or nothing when mo cannot follow it (a
// Parameter, an unknown position, an op that is not a sequence placeholder).
std::optional<std::vector<OutPort>> sequence_elements(const OutPort& port);

}  // namespace mo
