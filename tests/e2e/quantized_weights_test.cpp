// DequantizeLinear of constant 8-bit weights reaches the IR as u8 / i8 constants followed by a
// decompression Convert, Subtract (zero point) and Multiply (scale), and computes what the ONNX
// definition gives: (w - zp) * scale, here worked by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "emit/ir_test_util.hpp"
#include "extractors/onnx_test_support.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "tools/convert.hpp"
#include "core/evaluator.hpp"
#include "support/op_test_util.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

TEST(QuantizedWeights, DequantizedConstantsStayEightBitInTheIr) {
    // W (u8 [2, 3], zp 10, scale 0.5): (w - 10) * 0.5 = [[-5, 0, 5], [1, 2, 3]]
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 3});
    m.initializer(test::u8s("w", {0, 10, 20, 12, 14, 16}, {2, 3}));
    m.initializer("scale", {0.5f}, {});
    m.initializer(test::u8s("zp", {10}, {}));
    m.node("DequantizeLinear", {"w", "scale", "zp"}, {"w_f"});
    m.node("Gemm", {"x", "w_f"}, {"y"}, {{"transB", int64_t{1}}});
    m.output("y");
    for (bool fp16 : {false, true}) {
        test::ScratchDir out{"quantized_weights"};
        ConversionOptions o;
        o.input_model = m.save("dq_weights.onnx");
        o.output_dir = out.path().string();
        o.compress_to_fp16 = fp16;
        ConversionResult r = convert(o);
        auto ir = read_ir(r.xml_path, test::builtin_ops());
        bool u8_weights = false, decompression = false;
        for (const Node& n : ir->nodes()) {
            if (n.is("Constant") && n.out(0).type() == ElementType::u8 && n.out(0).shape() == PartialShape{2, 3})
                u8_weights = true;
            if (n.is("Convert") && n.rt_info().count("decompression") && n.in(0).type() == ElementType::u8)
                decompression = true;
        }
        EXPECT_TRUE(u8_weights) << "fp16=" << fp16;
        EXPECT_TRUE(decompression) << "fp16=" << fp16;
        // x = [1, 2, 3]: y = [-5 + 0 + 15, 1 + 4 + 9] = [10, 14].
        auto y = evaluate(*ir, {Tensor::from_vector<float>({1, 2, 3}, {1, 3})}).at(0).to_f64();
        EXPECT_EQ(y, (std::vector<double>{10, 14})) << "fp16=" << fp16;
    }
}

TEST(QuantizedWeights, IntegerMatMulKeepsItsWeightsEightBit) {
    // MatMulInteger(x, W - b_zp): W = [[1, 2], [3, 4]], zp 1 -> [[0, 1], [2, 3]];
    // x = [5, 6]: y = [5 * 0 + 6 * 2, 5 * 1 + 6 * 3] = [12, 23], exact in int32.
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 2}, onnx::TensorProto::UINT8);
    m.initializer(test::u8s("w", {1, 2, 3, 4}, {2, 2}));
    m.initializer(test::u8s("w_zp", {1}, {}));
    m.initializer(test::u8s("x_zp", {0}, {}));
    m.node("MatMulInteger", {"x", "w", "x_zp", "w_zp"}, {"y"});
    m.output("y", onnx::TensorProto::INT32);
    test::ScratchDir out{"quantized_matmul"};
    ConversionOptions o;
    o.input_model = m.save("matmul_integer.onnx");
    o.output_dir = out.path().string();
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    bool u8_weights = false;
    for (const Node& n : ir->nodes())
        u8_weights |= n.is("Constant") && n.out(0).type() == ElementType::u8 && n.out(0).shape() == PartialShape{2, 2};
    EXPECT_TRUE(u8_weights);
    auto y = evaluate(*ir, {Tensor::from_vector<uint8_t>({5, 6}, {1, 2})}).at(0);
    EXPECT_EQ(y.type(), ElementType::i32);
    EXPECT_EQ(y.to_i64(), (std::vector<int64_t>{12, 23}));
}

// An If branch reading 8-bit weights and a zero point of the outer graph (ONNX Runtime's
// quantize_dynamic with EnableSubgraph writes merged decoders so): the weights stay 8-bit in the
// IR's bodies, and each branch computes its MatMulInteger. W1 = [[1, 2], [3, 4]], W2 = [[0, 1],
// [1, 0]] (i8, zp 0), x = [5, 6] (u8, zp 2 of the outer graph): [3, 4] W1 = [15, 22],
// [3, 4] W2 = [4, 3].
TEST(QuantizedWeights, IfBranchesKeepTheOuterGraphsWeightsEightBit) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 2}, onnx::TensorProto::UINT8);
    m.input("cond", {1}, onnx::TensorProto::BOOL);
    m.initializer(test::i8s("w1", {1, 2, 3, 4}, {2, 2}));
    m.initializer(test::i8s("w2", {0, 1, 1, 0}, {2, 2}));
    m.initializer(test::i8s("w_zp", {0}, {}));
    m.initializer(test::u8s("x_zp_init", {2}, {}));
    m.node("Identity", {"x_zp_init"}, {"x_zp"});  // a computed outer value, as DynamicQuantizeLinear's
    onnx::NodeProto& n = m.node("If", {"cond"}, {"y"});
    auto branch = [](const std::string& name, const std::string& w) {
        onnx::GraphProto g;
        g.set_name(name);
        onnx::NodeProto* mm = g.add_node();
        mm->set_op_type("MatMulInteger");
        for (const char* in : {"x", "", "x_zp", "w_zp"}) mm->add_input(in);
        mm->set_input(1, w);
        mm->add_output(name + "_y");
        onnx::ValueInfoProto* out = g.add_output();
        out->set_name(name + "_y");
        out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT32);
        return g;
    };
    for (const auto& [attr, w] : {std::pair<const char*, const char*>{"then_branch", "w1"}, {"else_branch", "w2"}}) {
        onnx::AttributeProto* a = n.add_attribute();
        a->set_name(attr);
        a->set_type(onnx::AttributeProto::GRAPH);
        *a->mutable_g() = branch(attr, w);
    }
    m.output("y", onnx::TensorProto::INT32);
    test::ScratchDir out{"quantized_if"};
    ConversionOptions o;
    o.input_model = m.save("if_matmul_integer.onnx");
    o.output_dir = out.path().string();
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    size_t i8_weights = 0;
    for (const Node& node : ir->nodes())
        for (const Body& b : node.bodies()) i8_weights += test::compressed_constants(*b.graph, {ElementType::i8}).size();
    EXPECT_EQ(i8_weights, 2u);
    for (const auto& [cond, want] : {std::pair<bool, std::vector<int64_t>>{true, {15, 22}}, {false, {4, 3}}}) {
        auto y = evaluate(*ir, {Tensor::from_vector<uint8_t>({5, 6}, {1, 2}), test::boolean({cond}, {1})}).at(0);
        EXPECT_EQ(y.to_i64(), want) << cond;
    }
}

// 4-bit weights of opset 21 (INT4 / UINT4 initializers, packed two a byte) behind DequantizeLinear
// -> MatMul, blocked along K or per output channel (scripts/make_int4_qdq_models.py), against
// ONNX Runtime's outputs (the graph as written: its default DequantizeLinear + MatMul fusion
// computes differently). With default flags the weights stay u4 / i4 behind a decompression
// Convert; blocked weights are viewed as [K / block, block, N], the stored bytes unchanged.
class Int4Weights : public ::testing::TestWithParam<std::string> {};

TEST_P(Int4Weights, StayFourBitAndGiveOnnxRuntimesOutputs) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/qdq_int4" / GetParam();
    for (bool fp16 : {false, true}) {
        test::ScratchDir out{"int4_weights"};
        ConversionOptions o;
        o.input_model = (dir / "model.onnx").string();
        o.output_dir = out.path().string();
        o.compress_to_fp16 = fp16;
        const ConversionResult r = convert(o);
        auto ir = read_ir(r.xml_path, test::builtin_ops());
        size_t four_bit_values = 0;
        for (const Node& n : test::compressed_constants(*ir, {ElementType::u4, ElementType::i4}))
            four_bit_values += static_cast<size_t>(shape_size(n.out(0).shape().to_shape()));
        EXPECT_GE(four_bit_values, 256u) << "fp16=" << fp16;  // every weight (the smallest model has 32 x 8)
        const Tensor want = read_npy((dir / "output_0.npy").string());
        const Tensor got = evaluate(*ir, {read_npy((dir / "input_0.npy").string())}).at(0);
        test::expect_close(got, want, 1e-5, 1e-5, GetParam() + (fp16 ? " (f16)" : ""));
    }
}

INSTANTIATE_TEST_SUITE_P(Opset21, Int4Weights,
                         ::testing::Values("int4_blocked", "uint4_blocked_no_zero_point", "uint4_per_channel"));

}  // namespace
}  // namespace mo
