#include "transforms/back/compress_float_constants_to_f16.hpp"
#include "transforms/back/check_only_opset_ops.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>

#include "core/f16_weights.hpp"
#include "core/float16.hpp"
#include "core/mapped_file.hpp"
#include "emit/ir_test_util.hpp"
#include "emit/ir_writer.hpp"
#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

TEST(CompressFloatConstantsToF16, ConstantBecomesF16PlusDecompressionConvert) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {4}, "x");
    auto w = t.constant<float>({1.0f, 0.1f, -2.0f, 65504.0f}, {4}, "w");
    w.names().push_back("w_tensor");
    t.output(t.op("Add", {x, w}, {}, "y"), "out");
    test::infer(t.graph());
    CompressFloatConstantsToF16 pass;
    ConversionOptions opts;
    EXPECT_TRUE(pass.condition(t.graph(), TransformContext{opts}));
    EXPECT_TRUE(test::run_pass(pass, t.graph(), opts));

    Node compressed = t->find_by_name("w_compressed");
    ASSERT_TRUE(compressed);
    const Tensor& v = *compressed.out(0).value();
    ASSERT_EQ(v.type(), ElementType::f16);
    const uint16_t* bits = v.data<uint16_t>();
    EXPECT_EQ(bits[0], 0x3C00);  // 1.0
    EXPECT_EQ(bits[1], 0x2E66);  // 0.1 rounded to nearest even
    EXPECT_EQ(bits[2], 0xC000);  // -2.0
    EXPECT_EQ(bits[3], 0x7BFF);  // 65504, the largest finite f16

    Node convert = t->find_by_name("w");
    ASSERT_TRUE(convert);
    EXPECT_TRUE(convert.is("Convert"));
    EXPECT_EQ(convert.rt_info().at("decompression"), "0");
    EXPECT_EQ(convert.in(0).src().node(), compressed);
    EXPECT_EQ(convert.out(0).names(), std::vector<std::string>{"w_tensor"});
    EXPECT_EQ(convert.out(0).type(), ElementType::f32);
    EXPECT_EQ(convert.out(0).value(), nullptr);  // partial inference does not fold it back
    EXPECT_EQ(t->find_by_name("y").in(1).src().node(), convert);
    // Same values up to f16 rounding: 0.1 becomes 0.0999755859375.
    auto y = test::evaluate(t.graph(), {{"x", Tensor::from_vector<float>({0, 0, 0, 0}, {4})}}).at(0).to_f64();
    EXPECT_EQ(y, (std::vector<double>{1.0, 0.0999755859375, -2.0, 65504.0}));
}

TEST(CompressFloatConstantsToF16, ConstantsSharingBytesShareTheirF16Buffer) {
    // a and c hold one buffer; b holds equal values in a buffer of its own; d views the first
    // two floats of a's bytes. Only a and c may share an f16 buffer (the BIN then stores it once).
    TestGraph t;
    auto x = t.input(ElementType::f32, {4}, "x");
    const Tensor values = Tensor::from_vector<float>({1.0f, 2.0f, 3.0f, 4.0f}, {4});
    auto a = t.graph().add_constant("a", values).out(0);
    auto b = t.constant<float>({1.0f, 2.0f, 3.0f, 4.0f}, {4}, "b");
    auto c = t.graph().add_constant("c", values).out(0);
    auto d = t.graph().add_constant("d", Tensor(ElementType::f32, {2}, values.buffer())).out(0);
    auto sum = t.op("Add", {t.op("Add", {t.op("Add", {x, a}, {}, "xa"), b}, {}, "xab"), c}, {}, "xabc");
    t.output(sum, "out");
    t.output(t.op("Add", {t.input(ElementType::f32, {2}, "y"), d}, {}, "yd"), "out_d");
    test::infer(t.graph());
    ConversionOptions opts;
    CompressFloatConstantsToF16 pass;
    ASSERT_TRUE(test::run_pass(pass, t.graph(), opts));
    auto half = [&](const std::string& name) {
        Node n = t->find_by_name(name + "_compressed");
        EXPECT_TRUE(n) << name;
        return n ? n.out(0).value()->buffer().get() : nullptr;
    };
    EXPECT_EQ(half("a"), half("c"));
    EXPECT_NE(half("a"), half("b"));
    EXPECT_NE(half("a"), half("d"));
    EXPECT_NE(half("b"), half("d"));
    EXPECT_EQ(t->find_by_name("d_compressed").out(0).value()->size(), 2u);
}

TEST(CompressFloatConstantsToF16, SkipsOutOfRangeSensitiveAndNonF32AndWhenDisabled) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2}, "x");
    t.output(t.op("Add", {x, t.constant<float>({1.0f, 70000.0f}, {2}, "big")}, {}, "y1"), "o1");
    t.output(t.op("Add", {x, t.constant<float>({1.0f, INFINITY}, {2}, "inf")}, {}, "y2"), "o2");
    t.output(t.op("TestSensitive", {x, t.constant<float>({0.5f, 0.25f}, {2}, "scales")}, {}, "y3"), "o3");
    t.output(t.op("Add", {t.input(ElementType::f64, {2}, "d"), t.constant<double>({1.0, 2.0}, {2}, "f64")}, {}, "y4"), "o4");
    auto kept = t.op("Divide", {x, t.constant<float>({0.1f, 0.3f}, {2}, "quant_scale")}, {}, "y5");
    kept.node().rt_info()[kDisableFp16Compression] = "0";
    t.output(kept, "o5");
    test::infer(t.graph());
    CompressFloatConstantsToF16 pass;
    ConversionOptions opts;
    EXPECT_TRUE(test::run_pass(pass, t.graph(), opts));  // only "inf" is compressed: infinities fit f16
    EXPECT_TRUE(t->find_by_name("inf").is("Convert"));
    EXPECT_EQ(t->find_by_name("inf_compressed").out(0).value()->data<uint16_t>()[1], 0x7C00);
    EXPECT_TRUE(t->find_by_name("big").is("Constant"));
    EXPECT_TRUE(t->find_by_name("scales").is("Constant"));
    EXPECT_TRUE(t->find_by_name("f64").is("Constant"));
    EXPECT_TRUE(t->find_by_name("quant_scale").is("Constant"));  // its consumer stays f32
    EXPECT_EQ(t->find_by_name("quant_scale").out(0).type(), ElementType::f32);

    opts.compress_to_fp16 = false;
    EXPECT_FALSE(pass.condition(t.graph(), TransformContext{opts}));
}

TEST(CheckOnlyOpsetOps, InternalOpIsAnErrorNamingTheNode) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2, 3}, "x");
    t.output(t.op("Flatten", {x}, {}, "my_flatten"), "out");
    CheckOnlyOpsetOps pass;
    ConversionOptions opts;
    try {
        pass.run(t.graph(), TransformContext{opts});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not supported"), std::string::npos);
        EXPECT_NE(e.where().find("my_flatten"), std::string::npos);
        EXPECT_NE(e.where().find("Flatten"), std::string::npos);
    }
    TestGraph ok;
    ok.output(ok.op("Relu", {ok.input(ElementType::f32, {2}, "x")}, {}, "r"), "out");
    EXPECT_FALSE(pass.run(ok.graph(), TransformContext{opts}));
}

// Weights in the model file: the f16 values are computed from the file (read, not mapped in)
// only when asked, and the pass itself holds none of them.
TEST(CompressFloatConstantsToF16, WeightsInTheModelFileAreConvertedOnDemand) {
    test::ScratchDir dir("f16_file");
    std::vector<float> values(300000);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1000) * 0.5f - 250.0f;
    values[12345] = 0.1f;
    const std::string path = dir.file("w.raw");
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
    auto file = MappedFile::open(path);
    auto view = std::make_shared<ViewBuffer>(file, file->data(), values.size() * 4);

    TestGraph t;
    auto x = t.input(ElementType::f32, {static_cast<int64_t>(values.size())}, "x");
    auto w = t.graph().add_constant("w", Tensor(ElementType::f32, {static_cast<int64_t>(values.size())}, view));
    t.output(t.op("Add", {x, w.out(0)}, {}, "y"), "out");
    test::infer(t.graph());
    CompressFloatConstantsToF16 pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph(), ConversionOptions{}));
    const Tensor& half = *t->find_by_name("w_compressed").out(0).value();
    const auto* derived = dynamic_cast<const DerivedBuffer*>(half.buffer().get());
    ASSERT_NE(derived, nullptr);
    EXPECT_FALSE(derived->materialized());
    const uint16_t* bits = half.data<uint16_t>();
    EXPECT_EQ(bits[12345], 0x2E66);  // 0.1
    for (size_t i = 0; i < values.size(); i += 997) EXPECT_EQ(f16_to_f32(bits[i]), values[i]) << i;  // exact in f16
}

// x + w -> Relu -> y with w large enough (600,000 f32, 2.4 MB) for the IR writer to check its
// range while it writes it; w's tensor name and provenance must survive either way.
struct LargeWeight {
    static constexpr size_t kSize = 600000;
    std::vector<float> values = std::vector<float>(kSize);
    TestGraph t;
    explicit LargeWeight(std::optional<size_t> beyond_at) {
        for (size_t i = 0; i < kSize; ++i) values[i] = static_cast<float>(static_cast<int>(i % 4093) - 2046) / 8.0f;
        if (beyond_at) values[*beyond_at] = 1e5f;
        auto x = t.input(ElementType::f32, {static_cast<int64_t>(kSize)}, "x");
        auto w = t.constant<float>(values, {static_cast<int64_t>(kSize)}, "w");
        w.names().push_back("w_tensor");
        w.node().fused_names().push_back("exporter/w");
        t.output(t.op("Relu", {t.op("Add", {x, w}, {}, "sum")}, {}, "y"), "out");
        test::infer(t.graph());
    }
    void compress() {
        CompressFloatConstantsToF16 pass;
        EXPECT_TRUE(test::run_pass(pass, t.graph(), ConversionOptions{}));
    }
};

TEST(CompressFloatConstantsToF16, LargeWeightsAreLeftForTheIrWriterToCheck) {
    LargeWeight m(std::nullopt);
    m.compress();
    const Tensor& half = *m.t->find_by_name("w_compressed").out(0).value();
    const auto* weights = dynamic_cast<const F16Weights*>(half.buffer().get());
    ASSERT_NE(weights, nullptr);
    EXPECT_FALSE(weights->known_to_fit()) << "the pass read the weights";
    EXPECT_FALSE(weights->materialized());

    test::ScratchDir dir("f16_large");
    EmitOptions o{dir.file("m.xml"), dir.file("m.bin"), "m", {}};
    EXPECT_EQ(write_ir(m.t.graph(), o).bin_bytes, 2 * LargeWeight::kSize);
    EXPECT_TRUE(weights->known_to_fit()) << "checked while written";
    const std::string bin = test::read_bytes(o.bin_path);
    ASSERT_EQ(bin.size(), 2 * LargeWeight::kSize);
    for (size_t i = 0; i < LargeWeight::kSize; ++i) {
        uint16_t bits;
        std::memcpy(&bits, bin.data() + 2 * i, 2);
        ASSERT_EQ(f16_to_f32(bits), m.values[i]) << i;  // every value is exact in f16
    }
    const std::string xml = test::read_bytes(o.xml_path);
    EXPECT_NE(xml.find("name=\"w_compressed\" type=\"Const\""), std::string::npos);
    EXPECT_NE(xml.find("name=\"w\" type=\"Convert\""), std::string::npos);
}

// A value beyond the f16 range anywhere in a large weight: the IR is the one written without
// compression, byte for byte (the pair of layers becomes the f32 Constant again).
TEST(CompressFloatConstantsToF16, LargeWeightsBeyondTheRangeAreWrittenAsWithoutCompression) {
    for (size_t at : {size_t{0}, LargeWeight::kSize / 2, LargeWeight::kSize - 1}) {
        test::ScratchDir dir("f16_beyond");
        LargeWeight plain(at), compressed(at);
        compressed.compress();
        EmitOptions a{dir.file("a.xml"), dir.file("a.bin"), "m", {}}, b{dir.file("b.xml"), dir.file("b.bin"), "m", {}};
        write_ir(plain.t.graph(), a);
        EXPECT_EQ(write_ir(compressed.t.graph(), b).bin_bytes, 4 * LargeWeight::kSize);
        EXPECT_EQ(test::read_bytes(b.xml_path), test::read_bytes(a.xml_path)) << at;
        EXPECT_EQ(test::read_bytes(b.bin_path), test::read_bytes(a.bin_path)) << at;
        EXPECT_NE(test::read_bytes(b.xml_path).find("exporter/w,w"), std::string::npos) << "provenance kept";
    }
}

TEST(CompressFloatConstantsToF16, KeepF32WhereF16DoesNotFitRestoresTheConstantForOtherReaders) {
    LargeWeight beyond(LargeWeight::kSize - 1), fitting(std::nullopt);
    beyond.compress();
    fitting.compress();
    EXPECT_EQ(keep_f32_where_f16_does_not_fit(beyond.t.graph()), 1u);
    EXPECT_EQ(keep_f32_where_f16_does_not_fit(fitting.t.graph()), 0u);
    Node w = beyond.t->find_by_name("w");
    ASSERT_TRUE(w.is("Constant"));
    EXPECT_FALSE(beyond.t->find_by_name("w_compressed"));
    EXPECT_EQ(w.out(0).names(), std::vector<std::string>{"w_tensor"});
    EXPECT_EQ(w.fused_names(), std::vector<std::string>{"exporter/w"});
    EXPECT_EQ(beyond.t->find_by_name("sum").in(1).src().node(), w);
    EXPECT_EQ(w.out(0).value()->data<float>()[LargeWeight::kSize - 1], 1e5f);
    EXPECT_TRUE(fitting.t->find_by_name("w").is("Convert"));
}

}  // namespace
}  // namespace mo
