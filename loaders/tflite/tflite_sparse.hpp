// TFLite sparse constants (Tensor.sparsity: traversal order, block map, per-dimension DENSE or
// SPARSE_CSR metadata, TensorFlow Lite's variant of the TACO format) densified at load: the
// stored values are scattered into a zero-filled tensor of the tensor's dense shape.
#pragma once

#include <span>
#include <string>

#include "core/tensor.hpp"

namespace tflite {
struct SparsityParameters;
}

namespace mo {

// Throws mo::Error naming `where` when the metadata and the values do not fit together.
Tensor densify_tflite(const tflite::SparsityParameters& sparsity, ElementType type, const Shape& dense_shape,
                      std::span<const std::byte> values, const std::string& where, int64_t max_bytes);

}  // namespace mo
