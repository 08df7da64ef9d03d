// QuantizeLinear -> DequantizeLinear pairs on activations become one FakeQuantize, and the IR
// computes the ONNX definition, (clamp(round_half_even(x / s) + zp, lo, hi) - zp) * s, worked
// here in double for inputs away from rounding ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "emit/ir_test_util.hpp"
#include "extractors/onnx_test_support.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "driver/convert.hpp"
#include "core/evaluator.hpp"

namespace mo {
namespace {

struct QdqCase {
    const char* name;
    bool is_signed;
    std::vector<float> scale;
    std::vector<int> zero_point;  // empty: none
};

double reference(double x, double s, double zp, bool is_signed) {
    const double lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
    const double q = std::clamp(std::nearbyint(x / s) + zp, lo, hi);
    return (q - zp) * s;
}

TEST(FakeQuantize, QuantizeDequantizePairsBecomeOneFakeQuantize) {
    const std::vector<QdqCase> cases{{"u8_asymmetric", false, {0.1f}, {128}},
                                     {"i8_symmetric", true, {0.05f}, {0}},
                                     {"u8_no_zero_point", false, {0.25f}, {}},
                                     {"i8_per_channel", true, {0.1f, 0.3f}, {-3, 5}}};
    for (const QdqCase& k : cases) {
        test::OnnxModelBuilder m(13);
        m.input("x", {1, 2, 3});
        const std::vector<int64_t> dims = k.scale.size() == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{2};
        m.initializer("scale", k.scale, dims);
        std::vector<std::string> q_in{"x", "scale"}, dq_in{"q", "scale"};
        if (!k.zero_point.empty()) {
            std::vector<int8_t> i8(k.zero_point.begin(), k.zero_point.end());
            std::vector<uint8_t> u8(k.zero_point.begin(), k.zero_point.end());
            m.initializer(k.is_signed ? test::i8s("zp", i8, dims) : test::u8s("zp", u8, dims));
            q_in.push_back("zp");
            dq_in.push_back("zp");
        }
        m.node("QuantizeLinear", q_in, {"q"}, {{"axis", int64_t{1}}});
        m.node("DequantizeLinear", dq_in, {"dq"}, {{"axis", int64_t{1}}});
        m.node("Relu", {"dq"}, {"y"});
        m.output("y");
        test::ScratchDir out{"fake_quantize"};
        ConversionOptions o;
        o.input_model = m.save(std::string(k.name) + ".onnx");
        o.output_dir = out.path().string();
        auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
        int fq = 0, rounds = 0;
        for (const Node& n : ir->nodes()) {
            fq += n.is("FakeQuantize");
            rounds += n.is("Round");
            if (n.is("FakeQuantize")) EXPECT_EQ(n.attr<int64_t>("levels"), 256) << k.name;
        }
        EXPECT_EQ(fq, 1) << k.name;
        EXPECT_EQ(rounds, 0) << k.name;
        // Values across and beyond the range, none on a tie.
        const std::vector<float> x{-30.13f, -7.321f, -0.011f, 0.337f, 3.141f, 29.07f};
        const auto y = evaluate(*ir, {Tensor::from_vector<float>(x, {1, 2, 3})}).at(0).to_f64();
        ASSERT_EQ(y.size(), x.size());
        for (size_t i = 0; i < x.size(); ++i) {
            const size_t c = k.scale.size() == 1 ? 0 : i / 3;
            const double zp = k.zero_point.empty() ? 0 : k.zero_point[c];
            EXPECT_NEAR(y[i], std::max(0.0, reference(x[i], k.scale[c], zp, k.is_signed)), 1e-5) << k.name << " " << i;
        }
    }
}

TEST(FakeQuantize, AQuantizedTensorReadTwiceGivesTwoFakeQuantizes) {
    // As PyTorch exports a residual: q = Q(x); a = DQ(q); b = DQ(q); y = a + b = 2 * dq(q(x)).
    test::OnnxModelBuilder m(13);
    m.input("x", {4});
    m.initializer("scale", {0.1f}, {});
    m.initializer(test::u8s("zp", {100}, {}));
    m.node("QuantizeLinear", {"x", "scale", "zp"}, {"q"});
    m.node("Cast", {"q"}, {"q_cast"}, {{"to", int64_t{onnx::TensorProto::UINT8}}});  // PyTorch's no-op Cast
    m.node("DequantizeLinear", {"q_cast", "scale", "zp"}, {"a"});
    m.node("DequantizeLinear", {"q_cast", "scale", "zp"}, {"b"});
    m.node("Add", {"a", "b"}, {"y"});
    m.output("y");
    test::ScratchDir out{"fake_quantize_twice"};
    ConversionOptions o;
    o.input_model = m.save("qdq_twice.onnx");
    o.output_dir = out.path().string();
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    int fq = 0, rounds = 0;
    for (const Node& n : ir->nodes()) fq += n.is("FakeQuantize"), rounds += n.is("Round");
    EXPECT_EQ(fq, 2);
    EXPECT_EQ(rounds, 0);
    const std::vector<float> x{-12.34f, 0.123f, 5.55f, 30.01f};
    const auto y = evaluate(*ir, {Tensor::from_vector<float>(x, {4})}).at(0).to_f64();
    for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], 2 * reference(x[i], 0.1, 100, false), 1e-5) << i;
}

}  // namespace
}  // namespace mo
