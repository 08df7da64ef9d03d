// Packed u1/u4/i4: the layouts of OpenVINO's element iterator tests
// (src/core/tests/element_iterator_test.cpp), odd element counts, round trips, and the
// Tensor accessors and conversions built on them.
#include "core/low_bit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using ET = ElementType;
using test::bytes_of;
using test::packed;

template <typename T>
std::vector<int> ints(const Tensor& t) {
    std::vector<int> v;
    for (size_t i = 0; i < t.size(); ++i) v.push_back(t.data<T>()[i]);
    return v;
}

const std::vector<uint8_t> kNibbleBytes = {0x12, 0x3a, 0xcf, 0xe4, 0x79, 0xbd, 0x08, 0x56};

TEST(LowBit, ByteSizeRoundsUpToWholeBytes) {
    EXPECT_EQ(byte_size(ET::u1, 0), 0u);
    EXPECT_EQ(byte_size(ET::u1, 8), 1u);
    EXPECT_EQ(byte_size(ET::u1, 9), 2u);
    EXPECT_EQ(byte_size(ET::u4, 3), 2u);
    EXPECT_EQ(byte_size(ET::i4, 16), 8u);
    EXPECT_EQ(Tensor::allocate(ET::i4, {3, 3}).byte_size(), 5u);
}

TEST(LowBit, U1ElementZeroIsTheMostSignificantBit) {
    Tensor u = unpack_low_bit(packed(ET::u1, {0x21, 0xA3}, 16));
    EXPECT_EQ(u.type(), ET::u8);
    EXPECT_EQ(ints<uint8_t>(u), (std::vector<int>{0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1}));
}

TEST(LowBit, U4ElementZeroIsTheLowNibble) {
    Tensor u = unpack_low_bit(packed(ET::u4, kNibbleBytes, 16));
    EXPECT_EQ(u.type(), ET::u8);
    EXPECT_EQ(ints<uint8_t>(u), (std::vector<int>{2, 1, 10, 3, 15, 12, 4, 14, 9, 7, 13, 11, 8, 0, 6, 5}));
}

TEST(LowBit, I4IsATwosComplementNibble) {
    Tensor u = unpack_low_bit(packed(ET::i4, kNibbleBytes, 16));
    EXPECT_EQ(u.type(), ET::i8);
    EXPECT_EQ(ints<int8_t>(u), (std::vector<int>{2, 1, -6, 3, -1, -4, 4, -2, -7, 7, -3, -5, -8, 0, 6, 5}));
}

TEST(LowBit, PacksU4LowNibbleFirst) {
    Tensor v = Tensor::from_vector<uint8_t>({1, 2, 3, 10, 12, 15, 14, 4, 7, 9, 11, 13, 8, 0, 5, 6}, {16});
    Tensor p = pack_low_bit(v, ET::u4);
    EXPECT_EQ(p.type(), ET::u4);
    EXPECT_EQ(bytes_of(p), (std::vector<uint8_t>{0x21, 0xa3, 0xfc, 0x4e, 0x97, 0xdb, 0x08, 0x65}));
}

TEST(LowBit, PackInvertsUnpack) {
    for (ET t : {ET::u4, ET::i4}) {
        Tensor p = pack_low_bit(unpack_low_bit(packed(t, kNibbleBytes, 16)), t);
        EXPECT_EQ(bytes_of(p), kNibbleBytes) << ir_name(t);
    }
    EXPECT_EQ(bytes_of(pack_low_bit(unpack_low_bit(packed(ET::u1, {0x21, 0xA3}, 16)), ET::u1)),
              (std::vector<uint8_t>{0x21, 0xA3}));
}

TEST(LowBit, OddCountsLeaveTrailingBitsZero) {
    Tensor u1 = pack_low_bit(Tensor::from_vector<uint8_t>({0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1}, {11}), ET::u1);
    EXPECT_EQ(bytes_of(u1), (std::vector<uint8_t>{0x21, 0xA0}));
    Tensor u4 = pack_low_bit(Tensor::from_vector<uint8_t>({1, 2, 3}, {3}), ET::u4);
    EXPECT_EQ(bytes_of(u4), (std::vector<uint8_t>{0x21, 0x03}));
    Tensor i4 = pack_low_bit(Tensor::from_vector<int8_t>({-1, 7, -8}, {3}), ET::i4);
    EXPECT_EQ(bytes_of(i4), (std::vector<uint8_t>{0x7F, 0x08}));
}

TEST(LowBit, UnpackIgnoresTrailingBits) {
    // Bits past the last element are not data, whatever a file holds there.
    EXPECT_EQ(ints<uint8_t>(unpack_low_bit(packed(ET::u4, {0x21, 0xF3}, 3))), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(ints<int8_t>(unpack_low_bit(packed(ET::i4, {0x7F, 0x98}, 3))), (std::vector<int>{-1, 7, -8}));
    EXPECT_EQ(ints<uint8_t>(unpack_low_bit(packed(ET::u1, {0xFF, 0xBF}, 10))),
              (std::vector<int>{1, 1, 1, 1, 1, 1, 1, 1, 1, 0}));
}

TEST(LowBit, EmptyTensors) {
    EXPECT_EQ(unpack_low_bit(packed(ET::u4, {}, 0)).size(), 0u);
    EXPECT_EQ(pack_low_bit(Tensor::from_vector<int8_t>({}, {0}), ET::i4).byte_size(), 0u);
}

TEST(LowBit, PackRejectsAMismatchedSource) {
    EXPECT_THROW(pack_low_bit(Tensor::from_vector<uint8_t>({1}, {1}), ET::i4), Error);
    EXPECT_THROW(pack_low_bit(Tensor::from_vector<int8_t>({1}, {1}), ET::u4), Error);
    EXPECT_THROW(pack_low_bit(Tensor::from_vector<uint8_t>({1}, {1}), ET::u8), Error);
}

TEST(LowBit, ValueRules) {
    EXPECT_EQ(low_bit_from_int(ET::u4, 17), 1);
    EXPECT_EQ(low_bit_from_int(ET::u4, -1), 15);
    EXPECT_EQ(low_bit_from_int(ET::i4, 8), -8);
    EXPECT_EQ(low_bit_from_int(ET::i4, -9), 7);  // -9 = ...11110111
    EXPECT_EQ(low_bit_from_int(ET::u1, 2), 1);
    EXPECT_EQ(low_bit_from_int(ET::u1, 0), 0);
    EXPECT_EQ(low_bit_from_float(ET::u4, 15.9), 15);
    EXPECT_EQ(low_bit_from_float(ET::u4, -0.5), 0);
    EXPECT_EQ(low_bit_from_float(ET::i4, -7.9), -7);
    EXPECT_EQ(low_bit_from_float(ET::i4, -1e30), -8);
    EXPECT_EQ(low_bit_from_float(ET::i4, std::nan("")), 0);
    EXPECT_EQ(low_bit_from_float(ET::u1, 0.25), 1);
    EXPECT_EQ(low_bit_from_float(ET::u1, -0.0), 0);
}

TEST(LowBit, TensorReadsPackedValues) {
    Tensor i4 = packed(ET::i4, {0xcf, 0x08}, 3);  // -1, -4, 8 -> -8
    EXPECT_EQ(i4.to_i64(), (std::vector<int64_t>{-1, -4, -8}));
    EXPECT_EQ(i4.to_f64(), (std::vector<double>{-1, -4, -8}));
    EXPECT_EQ(packed(ET::u4, {0xcf}, 2).to_i64(), (std::vector<int64_t>{15, 12}));
    EXPECT_EQ(packed(ET::u1, {0xA0}, 3).to_f64(), (std::vector<double>{1, 0, 1}));
}

TEST(LowBit, TensorConvertsFromPacked) {
    Tensor i4 = packed(ET::i4, {0xcf, 0x07}, 3);  // -1, -4, 7
    Tensor f = i4.convert(ET::f32);
    EXPECT_EQ(std::vector<float>(f.data<float>(), f.data<float>() + 3), (std::vector<float>{-1, -4, 7}));
    EXPECT_EQ(ints<uint8_t>(i4.convert(ET::u8)), (std::vector<int>{255, 252, 7}));  // wraps modulo 256
    EXPECT_EQ(ints<uint8_t>(packed(ET::u1, {0x40}, 2).convert(ET::boolean)), (std::vector<int>{0, 1}));
}

TEST(LowBit, TensorConvertsToPacked) {
    Tensor wrap = Tensor::from_vector<int32_t>({-1, 16, 17}, {3}).convert(ET::u4);  // 15, 0, 1
    EXPECT_EQ(wrap.type(), ET::u4);
    EXPECT_EQ(bytes_of(wrap), (std::vector<uint8_t>{0x0F, 0x01}));
    Tensor sat = Tensor::from_vector<float>({9.7f, -9.5f, -2.7f, std::nanf("")}, {4}).convert(ET::i4);  // 7,-8,-2,0
    EXPECT_EQ(bytes_of(sat), (std::vector<uint8_t>{0x87, 0x0E}));
    Tensor bits = Tensor::from_vector<int64_t>({3, 0, -5}, {3}).convert(ET::u1);  // 1, 0, 1
    EXPECT_EQ(bytes_of(bits), (std::vector<uint8_t>{0xA0}));
    // u4 15 read as i4 is -1: the nibble is kept, as for any same-width integer conversion.
    EXPECT_EQ(bytes_of(packed(ET::u4, {0xF8}, 2).convert(ET::i4)), (std::vector<uint8_t>{0xF8}));
    EXPECT_EQ(packed(ET::u4, {0xF8}, 2).convert(ET::i4).to_i64(), (std::vector<int64_t>{-8, -1}));
}

}  // namespace
}  // namespace mo
