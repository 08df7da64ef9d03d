// 64-bit mixing for in-memory keys and digests (deduplication, "has this changed" checks).
// Values are never stored in files, so they may change between versions of mo.
#pragma once

#include <cstdint>

namespace mo {

// splitmix64's finaliser: every input bit affects every output bit.
inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Folds `v` into the running hash `h` (order matters).
inline uint64_t hash_combine(uint64_t h, uint64_t v) { return mix64((h ^ v) + 0x9E3779B97F4A7C15ull); }

}  // namespace mo
