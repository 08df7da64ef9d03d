// ONNX sequences whose elements are known at conversion, as the internal placeholders
// SequenceMake / SequenceInsert (ops/internal.cpp) that sequence consumers resolve.
#pragma once

#include <optional>
#include <vector>

#include "core/graph.hpp"

namespace mo {

// Sequences longer than this are refused (each element is a tensor of its own).
inline constexpr int64_t kMaxSequenceElements = 65536;

// The elements of the sequence `port` stands for, or nothing when mo cannot follow it (a
// Parameter, an unknown position, an op that is not a sequence placeholder).
std::optional<std::vector<OutPort>> sequence_elements(const OutPort& port);

// Its length, as sequence_elements' size but without building the list when the placeholder
// recorded it.
std::optional<int64_t> known_sequence_length(const OutPort& port);

}  // namespace mo
