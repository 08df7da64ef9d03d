// Fuzz target: the .npy reader (validation inputs and reference outputs).
#include "core/error.hpp"
#include "fuzz/fuzz_support.hpp"
#include "validate/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        mo::parse_npy(std::as_bytes(std::span<const uint8_t>(data, size)), "fuzz.npy");
    } catch (const mo::Error&) {
    }
    return 0;
}
