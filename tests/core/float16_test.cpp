#include "core/float16.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <vector>

namespace mo {
namespace {

TEST(Float16, KnownBitPatterns) {
    // Values from the IEEE 754 binary16 definition.
    EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
    EXPECT_EQ(f32_to_f16(-2.0f), 0xc000);
    EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);
    EXPECT_EQ(f32_to_f16(1e6f), 0x7c00);           // overflow -> inf
    EXPECT_EQ(f32_to_f16(5.9604645e-08f), 0x0001);  // smallest subnormal
    EXPECT_EQ(f32_to_f16(1.0f + 1.0f / 2048), 0x3c00);  // tie rounds to even
    EXPECT_FLOAT_EQ(f16_to_f32(0x3555), 0.333251953125f);
    EXPECT_FLOAT_EQ(f16_to_f32(0x0001), 5.9604645e-08f);
}

float from_bits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// bf16 keeps the top 16 bits of an f32; the rest rounds to nearest, ties to even (as OpenVINO's
// Convert, ONNX Runtime and ONNX >= 1.14 do).
TEST(Float16, Bf16RoundsToNearestEven) {
    EXPECT_EQ(f32_to_bf16(from_bits(0x3f807fff)), 0x3f80);  // below half: down
    EXPECT_EQ(f32_to_bf16(from_bits(0x3f808001)), 0x3f81);  // above half: up
    EXPECT_EQ(f32_to_bf16(from_bits(0x3f808000)), 0x3f80);  // tie, even kept
    EXPECT_EQ(f32_to_bf16(from_bits(0x3f818000)), 0x3f82);  // tie, odd rounds up to even
    EXPECT_EQ(f32_to_bf16(from_bits(0xbf818000)), 0xbf82);  // sign does not matter
    EXPECT_EQ(f32_to_bf16(from_bits(0x7f7fffff)), 0x7f80);  // largest f32 rounds to +inf
    EXPECT_EQ(f32_to_bf16(from_bits(0xff800000)), 0xff80);  // -inf stays
    uint16_t nan = f32_to_bf16(from_bits(0x7f800001));       // a NaN whose payload is all low bits
    EXPECT_EQ(nan & 0x7f80, 0x7f80);
    EXPECT_NE(nan & 0x007f, 0) << "must stay a NaN, not become inf";
    EXPECT_EQ(bf16_to_f32(0x3f82), from_bits(0x3f820000));
}

TEST(Float16, BulkConversionMatchesTheScalarOneBitForBit) {
    // The bulk path may use F16C instructions; it must round exactly like the scalar code,
    // including ties, subnormals, overflow, infinities and NaN.
    std::vector<float> values{0.f, -0.f, 1.f, 1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65504.f, 65520.f, 1e6f,
                              -1e-8f, 5.9604645e-08f, 2.9802322e-08f, 8.940697e-08f, INFINITY, -INFINITY};
    std::mt19937 rng(7);
    std::uniform_int_distribution<uint32_t> bits;
    while (values.size() < 4099) {
        uint32_t b = bits(rng);
        float f;
        std::memcpy(&f, &b, 4);
        if (f == f) values.push_back(f);  // NaN payloads may legitimately differ
    }
    std::vector<uint16_t> bulk(values.size());
    f32_to_f16(values.data(), bulk.data(), values.size());
    for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(bulk[i], f32_to_f16(values[i])) << values[i];
    std::vector<float> back(values.size());
    f16_to_f32(bulk.data(), back.data(), bulk.size());
    for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(back[i], f16_to_f32(bulk[i])) << i;
}

// Floats whose bits take every value of the top 19 bits (sign, exponent, upper mantissa) with
// low 13 bits just below, at and above a rounding tie and at the extremes: every exponent's
// rounding cases, subnormal results, the overflow boundary, infinities and NaN payloads.
std::vector<float> rounding_cases() {
    const uint32_t low_bits[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1800, 0x1fff, 0x0800};
    std::vector<float> values;
    values.reserve((size_t{1} << 19) * std::size(low_bits));
    for (uint32_t high = 0; high < (1u << 19); ++high)
        for (uint32_t low : low_bits) values.push_back(from_bits(high << 13 | low));
    return values;
}

// What f16 compression must keep in f32: a finite value of magnitude above 65504.
bool beyond_f16(float v) { return std::isfinite(v) && std::fabs(v) > 65504.0f; }

TEST(Float16, EveryKernelGivesTheScalarBitsIncludingNaNPayloads) {
    const std::vector<float> values = rounding_cases();
    std::vector<uint16_t> expected(values.size());
    for (size_t i = 0; i < values.size(); ++i) expected[i] = f32_to_f16(values[i]);
    const auto kernels = available_f16_kernels();
    ASSERT_EQ(kernels.front(), F16Kernel::Portable);
    for (F16Kernel k : kernels) {
        std::vector<uint16_t> got(values.size(), 0xdead);
        // Odd offsets and lengths leave the vector loops a tail to finish.
        const size_t first = 3, n = values.size() - 8;
        f32_to_f16_fits(k, values.data() + first, got.data() + first, n);
        for (size_t i = first; i < first + n; ++i)
            ASSERT_EQ(got[i], expected[i]) << f16_kernel_name(k) << ": bits 0x" << std::hex << [&] {
                uint32_t b;
                std::memcpy(&b, &values[i], 4);
                return b;
            }();
        EXPECT_EQ(got[first - 1], 0xdead) << "wrote before the output";
        EXPECT_EQ(got[first + n], 0xdead) << "wrote past the output";
    }
}

TEST(Float16, EveryKernelFindsAValueBeyondTheRangeWhereverItIs) {
    std::vector<float> values(1000);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 65.5f - 32000.f;  // within range
    values[17] = INFINITY, values[18] = -INFINITY, values[19] = NAN, values[20] = 65504.f, values[21] = -65504.f;
    std::vector<uint16_t> out(values.size());
    for (F16Kernel k : available_f16_kernels()) {
        EXPECT_TRUE(f32_to_f16_fits(k, values.data(), out.data(), values.size())) << f16_kernel_name(k);
        // Every lane of the vector loops and of the tail, with the smallest and largest values beyond.
        for (size_t at : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{31}, size_t{32}, size_t{500}, size_t{999}}) {
            for (float big : {65504.01f, -65505.f, 65520.f, 3.4e38f, -1e6f}) {
                std::vector<float> v = values;
                v[at] = big;
                ASSERT_TRUE(beyond_f16(big));
                EXPECT_FALSE(f32_to_f16_fits(k, v.data(), out.data(), v.size())) << f16_kernel_name(k) << " at " << at;
                EXPECT_EQ(out[at], f32_to_f16(big)) << "converted all the same";
            }
        }
    }
    EXPECT_EQ(f32_to_f16(65504.01f), 0x7bff);  // beyond the range although it rounds to 65504
    EXPECT_TRUE(f32_to_f16_fits(values.data(), out.data(), 0));
}

}  // namespace
}  // namespace mo
