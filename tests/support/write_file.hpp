// Writes test fixtures so that tests running in parallel never see a half-written file: the
// bytes go to a unique temporary name that is then renamed over `path`. A test that has the
// old file mapped keeps reading the old bytes (truncating a mapped file would kill it).
#pragma once

#include <string>
#include <string_view>

namespace mo::test {

// Throws std::runtime_error when the file cannot be written.
void write_file_atomically(const std::string& path, std::string_view bytes);

// The whole file's bytes ("" when it cannot be read).
std::string read_file_bytes(const std::string& path);

}  // namespace mo::test
