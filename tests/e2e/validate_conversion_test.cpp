// `mo --validate`: the IR read back from disk is evaluated and compared with the source graph
// as extracted, or with reference outputs; a broken IR is caught.
#include "driver/validate_conversion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <pugixml.hpp>

#include "emit/ir_test_util.hpp"
#include "support/onnx_model_builder.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

using test::OnnxModelBuilder;
using test::ScratchDir;

// y = Relu(Gemm(x, W, b)) on x [1, 3]: small enough to compute by hand.
std::string gemm_relu_model(OnnxModelBuilder& m) {
    m.input("x", {1, 3});
    m.initializer("W", std::vector<float>{1.f, -1.f, 0.5f, 2.f, 0.f, -3.f}, {3, 2});
    m.initializer("b", std::vector<float>{0.25f, -0.5f}, {2});
    m.node("Gemm", {"x", "W", "b"}, {"g"}, {}, "gemm");
    m.node("Relu", {"g"}, {"y"}, {}, "relu");
    m.output("y");
    return m.save("gemm_relu.onnx");
}

struct Fixture {
    ScratchDir dir{"validate"};
    ConversionOptions options;
    ConversionResult result;
    explicit Fixture(bool fp16) {
        OnnxModelBuilder m(13);
        options.input_model = gemm_relu_model(m);
        options.output_dir = dir.path().string();
        options.compress_to_fp16 = fp16;
        result = convert(options);
    }
    std::string write_npy(const std::string& name, const Tensor& t) {
        std::string path = (dir.path() / name).string();
        mo::write_npy(path, t);
        return path;
    }
};

TEST(ValidateConversion, ConvertedIrMatchesTheExtractedSourceGraph) {
    for (bool fp16 : {false, true}) {
        Fixture f(fp16);
        ConversionValidation v = validate_conversion(f.options, f.result, ValidationRequest{true, {}, {}});
        EXPECT_TRUE(v.ok) << v.report;
        EXPECT_NE(v.report.find("source graph as extracted"), std::string::npos);
    }
}

TEST(ValidateConversion, ComparesWithReferenceOutputsComputedByHand) {
    Fixture f(false);
    // x = [1, 2, 3]: x*W = [1 + 1 + 0, -1 + 4 - 9] = [2, -6]; + b = [2.25, -6.5]; Relu = [2.25, 0].
    std::string x = f.write_npy("x.npy", Tensor::from_vector<float>({1.f, 2.f, 3.f}, {1, 3}));
    std::string good = f.write_npy("good.npy", Tensor::from_vector<float>({2.25f, 0.f}, {1, 2}));
    std::string bad = f.write_npy("bad.npy", Tensor::from_vector<float>({2.5f, 0.f}, {1, 2}));
    EXPECT_TRUE(validate_conversion(f.options, f.result, ValidationRequest{true, {x}, {good}}).ok);
    ConversionValidation v = validate_conversion(f.options, f.result, ValidationRequest{true, {x}, {bad}});
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.report.find("FAIL"), std::string::npos) << v.report;
}

TEST(ValidateConversion, AnEditedWeightByteInTheBinFailsValidation) {
    Fixture f(false);
    std::string x = f.write_npy("x.npy", Tensor::from_vector<float>({1.f, 2.f, 3.f}, {1, 3}));
    ASSERT_TRUE(validate_conversion(f.options, f.result, ValidationRequest{true, {x}, {}}).ok);
    // Flip the top byte of the first weight (1.0f = 00 00 80 3f -> 00 00 80 bf = -1.0f).
    std::string bin = test::read_bytes(f.result.bin_path);
    size_t pos = bin.find(std::string("\x00\x00\x80\x3f", 4));
    ASSERT_NE(pos, std::string::npos);
    bin[pos + 3] = static_cast<char>(0xbf);
    std::ofstream(f.result.bin_path, std::ios::binary | std::ios::trunc).write(bin.data(), static_cast<std::streamsize>(bin.size()));
    ConversionValidation v = validate_conversion(f.options, f.result, ValidationRequest{true, {x}, {}});
    EXPECT_FALSE(v.ok) << v.report;
}

TEST(ValidateConversion, SwappedEdgesAreCaughtByTheReaderOrByValidation) {
    // y = x - c with x, c both [1, 3]: swapping the two edges into Subtract keeps every dim
    // consistent (the reader accepts it), but the values change sign, so validation fails.
    ScratchDir dir("swap");
    OnnxModelBuilder m(13);
    m.input("x", {1, 3});
    m.initializer("c", std::vector<float>{0.5f, 1.f, 2.f}, {1, 3});
    m.node("Sub", {"x", "c"}, {"y"}, {}, "sub");
    m.output("y");
    ConversionOptions o;
    o.input_model = m.save("sub.onnx");
    o.output_dir = dir.path().string();
    o.compress_to_fp16 = false;
    ConversionResult r = convert(o);
    ASSERT_TRUE(validate_conversion(o, r, ValidationRequest{true, {}, {}}).ok);

    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file(r.xml_path.c_str()));
    std::vector<pugi::xml_node> into_sub;
    for (auto e : doc.child("net").child("edges").children("edge")) {
        std::string to = e.attribute("to-layer").value();
        for (auto l : doc.child("net").child("layers").children("layer"))
            if (std::string(l.attribute("id").value()) == to && std::string(l.attribute("type").value()) == "Subtract")
                into_sub.push_back(e);
    }
    ASSERT_EQ(into_sub.size(), 2u);
    std::string p0 = into_sub[0].attribute("to-port").value(), p1 = into_sub[1].attribute("to-port").value();
    into_sub[0].attribute("to-port").set_value(p1.c_str());
    into_sub[1].attribute("to-port").set_value(p0.c_str());
    ASSERT_TRUE(doc.save_file(r.xml_path.c_str(), "\t"));

    bool caught = false;
    try {
        caught = !validate_conversion(o, r, ValidationRequest{true, {}, {}}).ok;
    } catch (const Error&) {
        caught = true;  // rejected by the reader
    }
    EXPECT_TRUE(caught);
}

TEST(ValidateConversion, ToleranceDependsOnCompression) {
    ConversionOptions o;
    o.compress_to_fp16 = false;
    EXPECT_LT(validation_tolerance(o).rtol, 1e-3);
    o.compress_to_fp16 = true;
    EXPECT_GE(validation_tolerance(o).rtol, 1e-2);
}

}  // namespace
}  // namespace mo
