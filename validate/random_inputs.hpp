// Seeded random input data for validation: the same seed gives the same bytes on every
// machine (a portable generator, not std:: distributions, whose output varies by library).
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.hpp"

namespace mo {

// Floats (f16, bf16, f32, f64) uniform in [-1, 1); integers uniform in [0, 10); booleans 0 or 1
// with equal odds. Throws mo::Error for other element types (i4, u4, u1, string).
Tensor random_tensor(ElementType type, const Shape& shape, uint64_t seed);

// One tensor per graph.parameters() entry, from the Parameter's element type and shape (which
// must be static: the error names the parameter); parameter i uses a seed derived from (seed, i).
std::vector<Tensor> random_inputs(const Graph& graph, uint64_t seed);
// random_inputs(graph, seed)[index] alone.
Tensor random_input(const Graph& graph, size_t index, uint64_t seed);

}  // namespace mo
