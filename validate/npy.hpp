// NumPy .npy files (format versions 1.0, 2.0 and 3.0) to and from tensors, for validation
// inputs and reference outputs. Only little-endian, C-order arrays of the numeric types numpy
// shares with OpenVINO: '<f2' '<f4' '<f8', '|i1' '<i2' '<i4' '<i8', '|u1' '<u2' '<u4' '<u8',
// '|b1'. Every size in a file is checked against the file's size: a malformed file is a
// mo::Error naming it, never a crash.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "core/tensor.hpp"

namespace mo {

// Reads a .npy file. Throws mo::Error naming `path` for unreadable or malformed files,
// big-endian or Fortran-order arrays and unsupported dtypes.
Tensor read_npy(const std::string& path);
// Parses the bytes of a .npy file; `where` names them in errors. The tensor copies the payload.
Tensor parse_npy(std::span<const std::byte> bytes, const std::string& where);

// The bytes of a .npy file holding `t` (version 1.0, or 2.0 when the header needs it).
// Throws mo::Error for element types numpy has no dtype for (bf16, i4, u4, u1, string).
std::string npy_bytes(const Tensor& t);
// Writes npy_bytes(t) to `path`; throws mo::Error naming it on I/O failure.
void write_npy(const std::string& path, const Tensor& t);

}  // namespace mo
