#include "core/float16.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/log.hpp"

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

namespace {

// |v| > 65504 and finite <=> 0x477fe000 < bits(|v|) < 0x7f800000: a value f16 compression must
// leave in f32 (infinities and NaN are kept exactly by f16).
bool beyond_f16(uint32_t bits) {
    const uint32_t a = bits & 0x7fffffffu;
    return a > 0x477fe000u && a < 0x7f800000u;
}

bool f32_to_f16_fits_portable(const float* src, uint16_t* dst, size_t n) {
    uint32_t beyond = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, src + i, 4);
        beyond |= static_cast<uint32_t>(beyond_f16(bits));
        dst[i] = f32_to_f16(src[i]);
    }
    return beyond == 0;
}

#if defined(__x86_64__)
// F16C converts 8 values per instruction with the scalar code's round-to-nearest-even result;
// the range check compares magnitudes as floats (ordered: NaN is not beyond the range).
__attribute__((target("avx,f16c"))) bool f32_to_f16_fits_f16c(const float* src, uint16_t* dst, size_t n) {
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 largest = _mm256_set1_ps(65504.0f), inf = _mm256_set1_ps(INFINITY);
    __m256 beyond = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 a = _mm256_loadu_ps(src + i), b = _mm256_loadu_ps(src + i + 8);
        const __m256 abs_a = _mm256_and_ps(a, abs_mask), abs_b = _mm256_and_ps(b, abs_mask);
        beyond = _mm256_or_ps(beyond, _mm256_and_ps(_mm256_cmp_ps(abs_a, largest, _CMP_GT_OQ),
                                                    _mm256_cmp_ps(abs_a, inf, _CMP_LT_OQ)));
        beyond = _mm256_or_ps(beyond, _mm256_and_ps(_mm256_cmp_ps(abs_b, largest, _CMP_GT_OQ),
                                                    _mm256_cmp_ps(abs_b, inf, _CMP_LT_OQ)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(a, _MM_FROUND_TO_NEAREST_INT));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 8), _mm256_cvtps_ph(b, _MM_FROUND_TO_NEAREST_INT));
    }
    const bool fits = _mm256_movemask_ps(beyond) == 0;
    return f32_to_f16_fits_portable(src + i, dst + i, n - i) && fits;
}

// AVX-512F converts 16 values per instruction (VCVTPS2PH zmm): the same result as F16C.
__attribute__((target("avx512f"))) bool f32_to_f16_fits_avx512(const float* src, uint16_t* dst, size_t n) {
    const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
    const __m512i largest = _mm512_set1_epi32(0x477fe000), inf = _mm512_set1_epi32(0x7f800000);
    __mmask16 beyond = 0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 a = _mm512_loadu_ps(src + i), b = _mm512_loadu_ps(src + i + 16);
        const __m512i abs_a = _mm512_and_si512(_mm512_castps_si512(a), abs_mask);
        const __m512i abs_b = _mm512_and_si512(_mm512_castps_si512(b), abs_mask);
        beyond |= _mm512_mask_cmplt_epi32_mask(_mm512_cmpgt_epi32_mask(abs_a, largest), abs_a, inf);
        beyond |= _mm512_mask_cmplt_epi32_mask(_mm512_cmpgt_epi32_mask(abs_b, largest), abs_b, inf);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_maskz_cvtps_ph(0xffff, a, _MM_FROUND_TO_NEAREST_INT));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 16), _mm512_maskz_cvtps_ph(0xffff, b, _MM_FROUND_TO_NEAREST_INT));
    }
    return f32_to_f16_fits_portable(src + i, dst + i, n - i) && beyond == 0;
}

__attribute__((target("avx,f16c"))) void f16_to_f32_f16c(const uint16_t* src, float* dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    for (; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}

// Whether the OS saves the register state named by XCR0 `bits` (checked after CPUID's OSXSAVE).
bool os_saves(unsigned bits) {
    unsigned xcr0_low = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    return (xcr0_low & bits) == bits;
}

// CPUID leaf 1: F16C (ecx bit 29) and AVX (bit 28), with OSXSAVE (bit 27) and the YMM state
// saved (XCR0 bits 1-2). Read directly: clang 14's __builtin_cpu_supports has no "f16c".
bool has_f16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    const bool f16c = ecx & (1u << 29), avx = ecx & (1u << 28), osxsave = ecx & (1u << 27);
    return f16c && avx && osxsave && os_saves(0x6);
}

// CPUID leaf 7: AVX-512F (ebx bit 16), with the opmask and ZMM state saved (XCR0 bits 5-7).
bool has_avx512f() {
    if (!has_f16c()) return false;  // also checks OSXSAVE
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
    return (ebx & (1u << 16)) && os_saves(0xe6);
}
#endif

F16Kernel pick_kernel() {
    const std::vector<F16Kernel> available = available_f16_kernels();
    if (const char* wanted = std::getenv("MO_F16_KERNEL")) {
        for (F16Kernel k : available)
            if (std::strcmp(wanted, f16_kernel_name(k)) == 0) return k;
        MO_LOG(Warning, "MO_F16_KERNEL=", wanted, " is not one this CPU has; using ", f16_kernel_name(available.back()));
    }
    return available.back();
}

}  // namespace

const char* f16_kernel_name(F16Kernel kernel) {
    switch (kernel) {
        case F16Kernel::Portable: return "portable";
        case F16Kernel::F16C: return "f16c";
        case F16Kernel::Avx512: return "avx512";
    }
    return "?";
}

std::vector<F16Kernel> available_f16_kernels() {
    std::vector<F16Kernel> kernels{F16Kernel::Portable};
#if defined(__x86_64__)
    if (has_f16c()) kernels.push_back(F16Kernel::F16C);
    if (has_avx512f()) kernels.push_back(F16Kernel::Avx512);
#endif
    return kernels;
}

F16Kernel chosen_f16_kernel() {
    static const F16Kernel kernel = pick_kernel();
    return kernel;
}

bool f32_to_f16_fits(F16Kernel kernel, const float* src, uint16_t* dst, size_t n) {
    switch (kernel) {
#if defined(__x86_64__)
        case F16Kernel::F16C: return f32_to_f16_fits_f16c(src, dst, n);
        case F16Kernel::Avx512: return f32_to_f16_fits_avx512(src, dst, n);
#endif
        default: return f32_to_f16_fits_portable(src, dst, n);
    }
}

bool f32_to_f16_fits(const float* src, uint16_t* dst, size_t n) { return f32_to_f16_fits(chosen_f16_kernel(), src, dst, n); }

void f32_to_f16(const float* src, uint16_t* dst, size_t n) { f32_to_f16_fits(src, dst, n); }

void f16_to_f32(const uint16_t* src, float* dst, size_t n) {
#if defined(__x86_64__)
    static const bool f16c = has_f16c();
    if (f16c) return f16_to_f32_f16c(src, dst, n);
#endif
    for (size_t i = 0; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}

}  // namespace mo
