// Throughput of the f32 -> f16 conversion kernels (with the range check, as the IR writer calls
// them) against memcpy of the same f32 bytes, on buffers larger than the caches: the conversion
// reads as many bytes as memcpy and writes half, so at memory speed it takes at most memcpy's
// time (ratio <= 1). Printed as ratios of one run, best of `rounds` each. Not run by CI:
//   ./build/bench/mo-f16-kernels [MiB of f32] [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/float16.hpp"

namespace {

template <typename Fn>
double best_seconds(int rounds, Fn fn) {
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    const size_t n = mib * (size_t{1} << 20) / sizeof(float);
    // Weights as a trained model has them: small values of both signs, some needing rounding.
    std::vector<float> src(n);
    uint32_t state = 12345;
    for (float& v : src) {
        state = state * 1664525u + 1013904223u;
        v = (static_cast<float>(state >> 8) / 16777216.f - 0.5f) * 0.2f;
    }
    std::vector<float> copy(n);
    std::vector<uint16_t> half(n);
    std::memset(copy.data(), 1, n * sizeof(float));  // pages touched before timing
    std::memset(half.data(), 1, n * sizeof(uint16_t));

    const double memcpy_s = best_seconds(rounds, [&] { std::memcpy(copy.data(), src.data(), n * sizeof(float)); });
    std::printf("f32 -> f16 of %zu MiB of f32 (best of %d): memcpy of the f32 bytes %.1f ms, %.2f GB/s read\n", mib, rounds,
                memcpy_s * 1e3, n * sizeof(float) / memcpy_s / 1e9);
    std::printf("%-9s %9s %11s %12s\n", "kernel", "ms", "Mfloat/s", "t/memcpy");
    const mo::F16Kernel chosen = mo::chosen_f16_kernel();
    for (mo::F16Kernel k : mo::available_f16_kernels()) {
        bool fits = true;
        const double s = best_seconds(rounds, [&] { fits &= mo::f32_to_f16_fits(k, src.data(), half.data(), n); });
        if (!fits) std::fprintf(stderr, "unexpected: a value beyond the f16 range\n");
        std::printf("%-9s %9.1f %11.0f %12.2f%s\n", mo::f16_kernel_name(k), s * 1e3, n / s / 1e6, s / memcpy_s,
                    k == chosen ? "  (chosen)" : "");
    }
    return 0;
}
