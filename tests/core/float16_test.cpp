#include "core/float16.hpp"

#include <gtest/gtest.h>

#include <cstring>
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

}  // namespace
}  // namespace mo
