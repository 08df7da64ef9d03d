// What every fuzz target shares: a private scratch directory (the only place a target writes),
// and the whole conversion of a file in it. A mo::Error is the clean refusal mo promises for any
// bad input; every other exception, crash, leak, hang or sanitizer report reaches libFuzzer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>

#include "core/options.hpp"
#include "driver/pipeline.hpp"

namespace mo::fuzz {

// This process's scratch directory (mkdtemp under $TMPDIR or /tmp), removed at exit.
const std::filesystem::path& scratch();

// Writes `bytes` to scratch()/name (replacing it) and returns the path.
std::string put(const std::string& name, std::span<const uint8_t> bytes);

// Splits an input into two files' contents: a 4-byte little-endian length of the first part,
// the first part, then the rest (the second part). Short inputs give an empty first part.
std::pair<std::span<const uint8_t>, std::span<const uint8_t>> split(std::span<const uint8_t> data);

// The fuzzers' --max_constant_size. libFuzzer flags more than 2 GB of memory; at mo's default
// limit (2 GiB) one legitimately folded constant would reach that, so the fuzzers convert with
// 256 MiB: an out-of-memory report then means an allocation that escaped the limit.
inline constexpr int64_t kFuzzMaxConstantBytes = int64_t{256} << 20;

// mo's built-in registries (no plugins), made once.
const Pipeline& builtins();

// Converts `model` into scratch()/out with `options` (input_model and output_dir are set here,
// and --max_constant_size lowered to kFuzzMaxConstantBytes), reads the IR back and discards it.
// Returns false when mo refused the input with a mo::Error.
bool convert_quietly(const std::string& model, ConversionOptions options = {});

}  // namespace mo::fuzz
