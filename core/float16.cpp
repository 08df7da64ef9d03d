#include "core/float16.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace mo {

uint16_t f32_to_f16(float v) {
    uint32_t x;
    std::memcpy(&x, &v, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t man = x & 0x7fffffu;
    if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));  // inf / nan
    int32_t e = static_cast<int32_t>(exp) - 127 + 15;
    if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (e <= 0) {                                                  // subnormal half or zero
        if (e < -10) return static_cast<uint16_t>(sign);
        man |= 0x800000u;
        uint32_t shift = static_cast<uint32_t>(14 - e);
        uint32_t half = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u))) ++half;
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into exponent: correct
    return static_cast<uint16_t>(half);
}

float f16_to_f32(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t x;
    if (exp == 0) {
        if (man == 0) {
            x = sign;
        } else {  // subnormal: normalise
            int e = -1;
            do {
                ++e;
                man <<= 1;
            } while (!(man & 0x400u));
            x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 0x1f) {
        x = sign | 0x7f800000u | (man << 13);
    } else {
        x = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

uint16_t f32_to_bf16(float v) {
    uint32_t x;
    std::memcpy(&x, &v, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
    uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + rounding) >> 16);
}

float bf16_to_f32(uint16_t h) {
    uint32_t x = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

#if defined(__x86_64__)
// The F16C instructions convert 8 values at once with the same round-to-nearest-even result
// as the scalar code; used when the CPU has them (checked once at run time).
__attribute__((target("avx,f16c"))) static void f32_to_f16_f16c(const float* src, uint16_t* dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(src + i);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}
__attribute__((target("avx,f16c"))) static void f16_to_f32_f16c(const uint16_t* src, float* dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    for (; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}
// CPUID leaf 1: F16C (ecx bit 29) and AVX (bit 28), with the OS saving the YMM registers (OSXSAVE,
// bit 27, and XCR0 bits 1-2). Read directly: clang 14's __builtin_cpu_supports has no "f16c".
static bool has_f16c() {
    static const bool yes = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
        const bool f16c = ecx & (1u << 29), avx = ecx & (1u << 28), osxsave = ecx & (1u << 27);
        if (!(f16c && avx && osxsave)) return false;
        unsigned xcr0_low = 0, xcr0_high = 0;
        __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
        return (xcr0_low & 0x6) == 0x6;
    }();
    return yes;
}
#endif

void f32_to_f16(const float* src, uint16_t* dst, size_t n) {
#if defined(__x86_64__)
    if (has_f16c()) return f32_to_f16_f16c(src, dst, n);
#endif
    for (size_t i = 0; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}
void f16_to_f32(const uint16_t* src, float* dst, size_t n) {
#if defined(__x86_64__)
    if (has_f16c()) return f16_to_f32_f16c(src, dst, n);
#endif
    for (size_t i = 0; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}

}  // namespace mo
