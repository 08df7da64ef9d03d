// .npy reading and writing: round trips, files built byte by byte from the format
// specification, and malformed files (each a mo::Error naming the file, never a crash).
#include "validate/npy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "core/float16.hpp"
#include "support/onnx_model_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::values;

std::span<const std::byte> as_bytes(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

// A .npy file as the format specification lays it out: magic, version, little-endian header
// length (2 bytes in 1.0, 4 in 2.0/3.0), the dict padded with spaces and ending in '\n' so that
// the payload starts at a multiple of 64, then the payload.
std::string npy_file(int major, const std::string& dict, const std::string& payload) {
    const size_t prelude = major == 1 ? 10 : 12;
    const size_t total = (prelude + dict.size() + 1 + 63) / 64 * 64;
    const size_t header_len = total - prelude;
    std::string s = "\x93NUMPY";
    s += static_cast<char>(major);
    s += '\0';
    for (size_t i = 0; i < prelude - 8; ++i) s += static_cast<char>((header_len >> (8 * i)) & 0xFF);
    s += dict + std::string(header_len - dict.size() - 1, ' ') + "\n";
    return s + payload;
}

template <typename T>
std::string payload_of(const std::vector<T>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

TEST(Npy, WritesTheLayoutOfTheSpecification) {
    Tensor t = Tensor::from_vector<float>({0, 1, 2, 3, 4, 5}, {2, 3});
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    const std::string expected = npy_file(1, dict, payload_of<float>({0, 1, 2, 3, 4, 5}));
    ASSERT_EQ(expected.size(), 128u + 24u);  // 10 + 118 header bytes, 6 floats
    EXPECT_EQ(npy_bytes(t), expected);
    // Rank 1 is written "(3,)", a scalar "()", as Python spells tuples.
    EXPECT_NE(npy_bytes(Tensor::from_vector<int64_t>({1, 2, 3}, {3})).find("'shape': (3,), }"), std::string::npos);
    EXPECT_NE(npy_bytes(Tensor::scalar<int16_t>(7)).find("'descr': '<i2', 'fortran_order': False, 'shape': (), }"),
              std::string::npos);
}

TEST(Npy, ReadsHandBuiltFilesOfEveryVersion) {
    for (int major : {1, 2, 3}) {
        SCOPED_TRACE(major);
        Tensor t = parse_npy(as_bytes(npy_file(major, "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 1), }",
                                               payload_of<int32_t>({7, -8, 9}))),
                             "mem.npy");
        EXPECT_EQ(t.type(), ElementType::i32);
        EXPECT_EQ(t.shape(), (Shape{3, 1}));
        EXPECT_EQ(values<int32_t>(t), (std::vector<int32_t>{7, -8, 9}));
    }
    // Keys in any order, double quotes, no trailing comma, '|' byte order for one-byte types.
    Tensor b = parse_npy(as_bytes(npy_file(1, "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"|b1\"}",
                                           std::string("\x01\x00", 2))),
                         "mem.npy");
    EXPECT_EQ(b.type(), ElementType::boolean);
    EXPECT_EQ(values<uint8_t>(b), (std::vector<uint8_t>{1, 0}));
    // An empty array has no payload.
    Tensor e = parse_npy(as_bytes(npy_file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", "")), "m");
    EXPECT_EQ(e.shape(), (Shape{0, 4}));
    EXPECT_EQ(e.size(), 0u);
}

TEST(Npy, RoundTripsEveryNumpyType) {
    const std::vector<Tensor> tensors = {
        Tensor::from_vector<float>({1.5f, -2, 0, 3.25f}, {2, 2}),
        Tensor::from_vector<double>({1e300, -1e-300}, {2}),
        Tensor(ElementType::f16, {2, 1}, Tensor::from_vector<uint16_t>({f32_to_f16(0.5f), f32_to_f16(-2.f)}, {2}).buffer()),
        Tensor::from_vector<int8_t>({-128, 127}, {2}),
        Tensor::from_vector<int16_t>({-300, 300}, {1, 2}),
        Tensor::from_vector<int32_t>({-70000}, {1, 1, 1}),
        Tensor::from_vector<int64_t>({INT64_MIN, INT64_MAX, 0}, {3}),
        Tensor::from_vector<uint8_t>({0, 255}, {2}),
        Tensor::from_vector<uint16_t>({65535}, {1}),
        Tensor::from_vector<uint32_t>({4000000000u}, {}),
        Tensor::from_vector<uint64_t>({UINT64_MAX}, {1}),
        Tensor::from_vector<bool>({true, false, true}, {3}),
        Tensor::allocate(ElementType::f32, {2, 0, 3}),
    };
    const auto dir = std::filesystem::path(test::onnx_temp_path("npy_round_trip"));
    std::filesystem::create_directories(dir);
    for (size_t i = 0; i < tensors.size(); ++i) {
        SCOPED_TRACE(i);
        const std::string path = (dir / ("t" + std::to_string(i) + ".npy")).string();
        write_npy(path, tensors[i]);
        EXPECT_EQ(std::filesystem::file_size(path) % 64, tensors[i].byte_size() % 64);  // payload 64-aligned
        Tensor back = read_npy(path);
        EXPECT_TRUE(back.same_as(tensors[i]));
    }
}

TEST(Npy, F16FileHoldsHalfBits) {
    // 0.5 = 0x3800, -2 = 0xC000 in IEEE half precision.
    Tensor t = parse_npy(as_bytes(npy_file(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }",
                                           std::string("\x00\x38\x00\xC0", 4))),
                         "m");
    EXPECT_EQ(t.type(), ElementType::f16);
    EXPECT_EQ(t.to_f64(), (std::vector<double>{0.5, -2.0}));
}

TEST(Npy, WideHeadersUseVersion2) {
    Shape many(30000, 1);  // "1, " x 30000 does not fit a 2-byte header length
    Tensor t = Tensor::from_vector<float>({42}, many);
    const std::string bytes = npy_bytes(t);
    EXPECT_EQ(bytes[6], '\x02');
    Tensor back = parse_npy(as_bytes(bytes), "wide.npy");
    EXPECT_TRUE(back.same_as(t));
}

void expect_malformed(const std::string& bytes, const std::string& what_part) {
    try {
        parse_npy(as_bytes(bytes), "bad.npy");
        FAIL() << "expected an error containing '" << what_part << "'";
    } catch (const Error& e) {
        EXPECT_EQ(e.where(), "bad.npy");
        EXPECT_NE(std::string(e.what()).find(what_part), std::string::npos) << e.what();
    }
}

TEST(Npy, MalformedFilesAreErrorsNamingTheFile) {
    const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    const std::string two_floats = payload_of<float>({1, 2});
    const std::string good = npy_file(1, f4, two_floats);
    ASSERT_NO_THROW(parse_npy(as_bytes(good), "good.npy"));

    expect_malformed("", "magic");
    expect_malformed("NUMPY\x01\x00", "magic");
    expect_malformed(std::string("\x93NUMPY\x01\x00\x20", 9), "magic");  // shorter than the prelude
    expect_malformed(std::string("\x93NUMPY\x02\x00\x00\x00", 10), "header length");
    std::string v4 = good;
    v4[6] = '\x04';
    expect_malformed(v4, "version 4");
    std::string long_header = good;
    long_header[8] = '\xFF', long_header[9] = '\xFF';
    expect_malformed(long_header, "exceeds the file size");
    for (size_t cut : {good.size() - 1, good.size() - 4, size_t(64)})
        expect_malformed(good.substr(0, cut), cut == 64 ? "exceeds the file size" : "payload");
    expect_malformed(good + "x", "payload");  // trailing bytes
    expect_malformed(npy_file(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", two_floats), "Fortran");
    expect_malformed(npy_file(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", two_floats), "big-endian");
    expect_malformed(npy_file(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", two_floats), "dtype");
    expect_malformed(npy_file(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", two_floats),
                     "expected a string");
    expect_malformed(npy_file(1, "{'descr': '<f4', 'shape': (2,), }", two_floats), "lacks");
    expect_malformed(npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", two_floats), "dimension");
    expect_malformed(npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, }", two_floats), "expected");
    expect_malformed(npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", two_floats),
                     "unknown header key");
    // Dimensions whose product overflows 64 bits.
    expect_malformed(npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }",
                              two_floats),
                     "larger than the file");
    expect_malformed(npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                              two_floats),
                     "too large");
    expect_malformed(npy_file(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", std::string("\x01\x02", 2)),
                     "neither 0 nor 1");
}

TEST(Npy, FileErrorsNameThePath) {
    try {
        read_npy("/nonexistent/dir/x.npy");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.where(), "/nonexistent/dir/x.npy");
    }
    EXPECT_THROW(write_npy("/nonexistent/dir/x.npy", Tensor::scalar(1.f)), Error);
    // No numpy dtype for bf16.
    EXPECT_THROW(npy_bytes(Tensor::allocate(ElementType::bf16, {1})), Error);
}

TEST(Npy, ADeviceIsRefusedBeforeItIsRead) {
    // /dev/zero has no end: reading it would take all memory.
    test::expect_error([] { read_npy("/dev/zero"); }, {"cannot read the .npy file: it is not a regular file", "/dev/zero"});
    test::expect_error([] { read_npy("/dev"); }, {"not a regular file", "/dev"});
}

}  // namespace
}  // namespace mo
