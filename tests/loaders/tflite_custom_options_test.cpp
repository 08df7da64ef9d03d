// A TFLite CUSTOM operator's options as attributes (loaders/tflite/tflite_custom_options.hpp):
// the raw bytes always, a flexbuffer map's keys by kind, and bytes that are no flexbuffer (or a
// corrupt one) read as raw bytes only, never past their end.
#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "loaders/tflite/tflite_custom_options.hpp"

namespace mo {
namespace {

std::vector<uint8_t> all_kinds() {
    flexbuffers::Builder fbb;
    fbb.Map([&] {
        fbb.Bool("flag", true);
        fbb.Int("count", -7);
        fbb.UInt("big", 40000000000ULL);
        fbb.Float("ratio", 0.25f);
        fbb.Double("precise", 1e-12);
        fbb.String("mode", "bilinear");
        fbb.Null("unset");
        fbb.Vector("sizes", [&] { fbb.Int(3); fbb.Int(5); });
        fbb.TypedVector("scales", [&] { fbb.Float(0.5f); fbb.Float(2.0f); });
        fbb.Vector("mixed_numbers", [&] { fbb.Int(1); fbb.Float(1.5f); });
        fbb.Vector("names", [&] { fbb.String("a"); fbb.String("bc"); });
        const uint8_t blob[3] = {9, 8, 7};
        fbb.Blob("payload", blob, 3);
        fbb.Map("nested", [&] { fbb.Int("x", 1); });
        fbb.Vector("mixed_kinds", [&] { fbb.Int(1); fbb.String("x"); });
    });
    fbb.Finish();
    return fbb.GetBuffer();
}

TEST(TfliteCustomOptions, FlexbufferKeysReadByKind) {
    const std::vector<uint8_t> bytes = all_kinds();
    const auto a = tflite_custom_attributes(bytes);
    EXPECT_EQ(std::get<int64_t>(*a->get("flag")), 1);
    EXPECT_EQ(std::get<int64_t>(*a->get("count")), -7);
    EXPECT_EQ(std::get<int64_t>(*a->get("big")), 40000000000LL);
    EXPECT_EQ(std::get<double>(*a->get("ratio")), 0.25);
    EXPECT_EQ(std::get<double>(*a->get("precise")), 1e-12);
    EXPECT_EQ(std::get<std::string>(*a->get("mode")), "bilinear");
    EXPECT_FALSE(a->get("unset"));
    EXPECT_FALSE(a->get("absent"));
    EXPECT_EQ(std::get<std::vector<int64_t>>(*a->get("sizes")), (std::vector<int64_t>{3, 5}));
    EXPECT_EQ(std::get<std::vector<double>>(*a->get("scales")), (std::vector<double>{0.5, 2.0}));
    EXPECT_EQ(std::get<std::vector<double>>(*a->get("mixed_numbers")), (std::vector<double>{1.0, 1.5}));
    EXPECT_EQ(std::get<std::vector<std::string>>(*a->get("names")), (std::vector<std::string>{"a", "bc"}));
    EXPECT_EQ(std::get<Tensor>(*a->get("payload")).to_i64(), (std::vector<int64_t>{9, 8, 7}));
    EXPECT_THROW(a->get("nested"), Error);
    EXPECT_THROW(a->get("mixed_kinds"), Error);
    // The raw bytes, whatever they hold.
    const Tensor raw = std::get<Tensor>(*a->get("custom_options"));
    EXPECT_EQ(raw.type(), ElementType::u8);
    ASSERT_EQ(raw.size(), bytes.size());
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), raw.data<uint8_t>()));
}

TEST(TfliteCustomOptions, BytesThatAreNoFlexbufferMapGiveRawBytesOnly) {
    // MediaPipe's TfLiteTransposeConvParams: padding SAME (1), strides 2, 2.
    const std::vector<uint8_t> params{1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
    const auto a = tflite_custom_attributes(params);
    EXPECT_FALSE(a->get("padding"));
    EXPECT_EQ(std::get<Tensor>(*a->get("custom_options")).size(), 12u);
    // A flexbuffer that is not a map (a single int).
    flexbuffers::Builder fbb;
    fbb.Int(5);
    fbb.Finish();
    EXPECT_FALSE(tflite_custom_attributes(fbb.GetBuffer())->get("x"));
    // No options at all.
    EXPECT_FALSE(tflite_custom_attributes({})->get("custom_options"));
}

TEST(TfliteCustomOptions, CorruptFlexbuffersAreNotRead) {
    // Every truncation and every single-byte change of a valid map: the verifier rejects what
    // would be read out of bounds; whatever it accepts reads without a crash.
    const std::vector<uint8_t> bytes = all_kinds();
    for (size_t n = 0; n < bytes.size(); ++n) {
        const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
        const auto a = tflite_custom_attributes(cut);
        for (const char* key : {"count", "sizes", "mode", "payload", "names"}) try {
                a->get(key);
            } catch (const Error&) {
            }
    }
    for (size_t i = 0; i < bytes.size(); ++i)
        for (const uint8_t v : {uint8_t{0}, uint8_t{0xff}, uint8_t{0x7f}}) {
            std::vector<uint8_t> changed = bytes;
            changed[i] = v;
            const auto a = tflite_custom_attributes(changed);
            for (const char* key : {"count", "sizes", "mode", "payload", "names", "big"}) try {
                    a->get(key);
                } catch (const Error&) {
                }
        }
}

}  // namespace
}  // namespace mo
