// Element-wise op schemas: registration, shape/type inference (numpy and none broadcasting,
// partial shapes) and evaluation against hand-computed values and OpenVINO spec examples.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <limits>
#include <set>

#include "core/graph.hpp"
#include "ops/ops.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::f32;
using test::i32;
using test::boolean;
using test::GraphBuilder;
using test::expect_error;
using ET = ElementType;

using test::run_op;
using test::infer;


using test::values;

void expect_near(const Tensor& t, const std::vector<float>& expected, float tol = 1e-5f) {
    ASSERT_EQ(t.type(), ET::f32);
    auto got = values<float>(t);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], tol) << "element " << i;
}

// Infers a binary op over two parameters.
Node binary_node(GraphBuilder& b, const std::string& type, ET ta, PartialShape a, ET tb, PartialShape bs,
                 const AttrMap& attrs = {}) {
    auto x = b.input(ta, std::move(a));
    auto y = b.input(tb, std::move(bs));
    return b.node(type, {x, y}, attrs, "node_under_test");
}

// ---- Registration -----------------------------------------------------------------------------

TEST(EltwiseOps, RegistersEveryOpOnce) {
    OpRegistry r;
    register_eltwise_ops(r);
    const std::set<std::string> expected = {
        "Abs", "Acos", "Acosh", "Add", "Asin", "Asinh", "Atan", "Atanh", "BitwiseLeftShift", "BitwiseRightShift",
        "Ceiling", "Clamp", "Convert", "Cos",
        "Cosh", "Divide", "Elu", "Equal", "Erf", "Exp", "FakeQuantize", "Floor", "FloorMod", "Gelu", "Greater", "GreaterEqual",
        "HSigmoid", "HSwish", "HardSigmoid", "Less", "LessEqual", "Log", "LogicalAnd", "LogicalNot", "LogicalOr",
        "LogicalXor", "Maximum", "Minimum", "Mish", "Mod", "Multiply", "Negative", "NotEqual", "Power", "PRelu",
        "Relu", "Round", "Select", "Selu", "Sigmoid", "Sign", "Sin", "Sinh", "SoftPlus", "Sqrt",
        "SquaredDifference", "Subtract", "Swish", "Tan", "Tanh"};
    EXPECT_EQ(r.size(), 60u);
    auto types = r.types();
    EXPECT_EQ(std::set<std::string>(types.begin(), types.end()), expected);
}

// levels 3 over [0, 2] -> [0, 4]: below / at the low end gives 0, above the high end 4, inside
// round((x - 0) / 2 * 2) / 2 * 4 with ties to even: 0.5 -> 0, 1 -> 2, 1.5 -> 4 (2 is even).
TEST(EltwiseOps, FakeQuantizeClampsRoundsHalfToEvenAndMaps) {
    auto out = test::run_op("FakeQuantize",
                            {test::f32({-1, 0, 0.5f, 1, 1.5f, 3}), test::f32({0}), test::f32({2}), test::f32({0}),
                             test::f32({4})},
                            {{"levels", int64_t{3}}});
    EXPECT_EQ(test::values<float>(out[0]), (std::vector<float>{0, 0, 0, 2, 4, 4}));
}

TEST(EltwiseOps, IrSpellingsAndVersions) {
    const auto& ops = test::builtin_ops();
    EXPECT_EQ(ops.get("Relu").ir_type, "ReLU");
    EXPECT_EQ(ops.get("PRelu").ir_type, "PReLU");
    EXPECT_EQ(ops.get("Add").ir_type, "Add");
    EXPECT_EQ(ops.get("Gelu").ir_version, "opset7");
    EXPECT_EQ(ops.get("Round").ir_version, "opset5");
    EXPECT_EQ(ops.get("HSigmoid").ir_version, "opset5");
    EXPECT_EQ(ops.get("Swish").ir_version, "opset4");
    EXPECT_EQ(ops.get("Acosh").ir_version, "opset4");
    EXPECT_EQ(ops.get("Divide").ir_version, "opset1");
    EXPECT_EQ(ops.get("Divide").find_attr("m_pythondiv")->default_value, AttrValue(true));
    EXPECT_EQ(ops.get("Gelu").find_attr("approximation_mode")->default_value, AttrValue(std::string("ERF")));
    EXPECT_EQ(ops.get("Multiply").find_attr("auto_broadcast")->default_value, AttrValue(std::string("numpy")));
    EXPECT_TRUE(ops.get("Convert").find_attr("destination_type")->required());
}

// Every schema agrees with shared/ir/opsets.json (transcribed from the OpenVINO specs): opset
// version, IR spelling, attribute names in order, input counts.
TEST(EltwiseOps, MatchOpsetsJson) {
    auto json = test::load_opsets_json();
    if (!json) GTEST_SKIP() << "shared/ir/opsets.json not found";
    OpRegistry r;
    register_eltwise_ops(r);
    test::expect_schemas_match_opsets_json(r, *json);
}

// ---- Shape and type inference --------------------------------------------------------------------

TEST(EltwiseInfer, NumpyBroadcastOfStaticShapes) {
    GraphBuilder b;
    Node n = binary_node(b, "Add", ET::f32, {2, 1, 4}, ET::f32, {3, 1});
    infer(n);
    EXPECT_EQ(n.out(0).shape(), PartialShape({2, 3, 4}));
    EXPECT_EQ(n.out(0).type(), ET::f32);
}

TEST(EltwiseInfer, NumpyBroadcastWithDynamicDimsAndIntervals) {
    GraphBuilder b;
    Node n = binary_node(b, "Multiply", ET::f32, {Dimension::dynamic(), 1, Dimension(2, 8)}, ET::f32,
                         {4, Dimension(4, 10)});
    infer(n);
    // ? vs 1 -> ?, 1 vs 4 -> 4, [2,8] vs [4,10] -> both > 1 so equal at run time: [4,8]
    EXPECT_EQ(n.out(0).shape(), PartialShape({Dimension::dynamic(), 4, Dimension(4, 8)}));

    GraphBuilder b2;
    Node d = binary_node(b2, "Subtract", ET::i32, PartialShape::dynamic_rank(), ET::i32, {3});
    infer(d);
    EXPECT_FALSE(d.out(0).shape().rank_is_static());
    EXPECT_EQ(d.out(0).type(), ET::i32);
}

TEST(EltwiseInfer, NumpyIncompatibleShapesNameTheNode) {
    GraphBuilder b;
    Node n = binary_node(b, "Add", ET::f32, {2, 3}, ET::f32, {4});
    expect_error([&] { infer(n); }, "node_under_test");
}

TEST(EltwiseInfer, AutoBroadcastNoneRequiresEqualShapes) {
    GraphBuilder b;
    Node n = binary_node(b, "Add", ET::f32, {2, 3}, ET::f32, {3}, {{"auto_broadcast", std::string("none")}});
    expect_error([&] { infer(n); }, "'none'");

    GraphBuilder b2;
    Node m = binary_node(b2, "Add", ET::f32, {Dimension::dynamic(), 3}, ET::f32, {2, Dimension::dynamic()},
                         {{"auto_broadcast", std::string("none")}});
    infer(m);
    EXPECT_EQ(m.out(0).shape(), PartialShape({2, 3}));

    GraphBuilder b3;
    Node p = binary_node(b3, "Add", ET::f32, {2}, ET::f32, {2}, {{"auto_broadcast", std::string("pdpd")}});
    expect_error([&] { infer(p); }, "pdpd");
}

TEST(EltwiseInfer, ElementTypesMustMatchAndFitTheOp) {
    GraphBuilder b;
    Node n = binary_node(b, "Add", ET::f32, {2}, ET::i32, {2});
    expect_error([&] { infer(n); }, "different element types");

    GraphBuilder b2;
    Node logic = binary_node(b2, "LogicalAnd", ET::f32, {2}, ET::f32, {2});
    expect_error([&] { infer(logic); }, "boolean");

    GraphBuilder b3;
    Node arith = binary_node(b3, "Add", ET::boolean, {2}, ET::boolean, {2});
    expect_error([&] { infer(arith); }, "numeric");

    GraphBuilder b4;
    Node act = b4.node("HSwish", {b4.input(ET::i32, {2})});
    expect_error([&] { infer(act); }, "floating-point");
}

TEST(EltwiseInfer, ComparisonsAndLogicGiveBoolean) {
    GraphBuilder b;
    Node n = binary_node(b, "Less", ET::i64, {4, 1}, ET::i64, {3});
    infer(n);
    EXPECT_EQ(n.out(0).type(), ET::boolean);
    EXPECT_EQ(n.out(0).shape(), PartialShape({4, 3}));

    GraphBuilder b2;
    Node x = binary_node(b2, "LogicalXor", ET::boolean, {2}, ET::dynamic, {2});
    infer(x);
    EXPECT_EQ(x.out(0).type(), ET::boolean);
}

TEST(EltwiseInfer, SelectBroadcastsAllThreeInputs) {
    GraphBuilder b;
    Node n = b.node("Select", {b.input(ET::boolean, {2, 1}), b.input(ET::f32, {1, 3}), b.input(ET::f32, {3})});
    infer(n);
    EXPECT_EQ(n.out(0).shape(), PartialShape({2, 3}));
    EXPECT_EQ(n.out(0).type(), ET::f32);

    GraphBuilder b2;
    Node bad = b2.node("Select", {b2.input(ET::f32, {3}), b2.input(ET::f32, {3}), b2.input(ET::f32, {3})});
    expect_error([&] { infer(bad); }, "boolean");
}

TEST(EltwiseInfer, UnaryKeepsShapeConvertChangesType) {
    GraphBuilder b;
    PartialShape s{1, Dimension(2, 5), Dimension::dynamic()};
    Node relu = b.node("Relu", {b.input(ET::f16, s)});
    infer(relu);
    EXPECT_EQ(relu.out(0).shape(), s);
    EXPECT_EQ(relu.out(0).type(), ET::f16);

    Node cvt = b.node("Convert", {b.input(ET::f32, s)}, {{"destination_type", ET::i64}});
    infer(cvt);
    EXPECT_EQ(cvt.out(0).type(), ET::i64);
    EXPECT_EQ(cvt.out(0).shape(), s);
}

TEST(EltwiseInfer, PReluSlopeIsPerChannelOrBroadcast) {
    GraphBuilder b;
    Node ok = b.node("PRelu", {b.input(ET::f32, {1, 3, 4, 4}), b.input(ET::f32, {3})});
    infer(ok);
    EXPECT_EQ(ok.out(0).shape(), PartialShape({1, 3, 4, 4}));

    Node bad = b.node("PRelu", {b.input(ET::f32, {1, 3, 4, 4}), b.input(ET::f32, {5})});
    expect_error([&] { infer(bad); }, "slope");
}

TEST(EltwiseInfer, ScalarParameterInputsAreChecked) {
    GraphBuilder b;
    Node n = b.node("HardSigmoid", {b.input(ET::f32, {4}), b.input(ET::f32, {2}), b.input(ET::f32, {})});
    expect_error([&] { infer(n); }, "single value");

    Node clamp = b.node("Clamp", {b.input(ET::f32, {4})}, {{"min", 3.0}, {"max", 1.0}});
    expect_error([&] { infer(clamp); }, "min is greater than max");
}

TEST(EltwiseInfer, EnumAttributesAreChecked) {
    GraphBuilder b;
    Node gelu = b.node("Gelu", {b.input(ET::f32, {2})}, {{"approximation_mode", std::string("fast")}});
    expect_error([&] { infer(gelu); }, "approximation_mode 'fast'");
    Node round = b.node("Round", {b.input(ET::f32, {2})}, {{"mode", std::string("half_up")}});
    expect_error([&] { infer(round); }, "half_up");
}

// ---- Evaluation: binary ---------------------------------------------------------------------------

TEST(EltwiseEval, AddBroadcastsF32AndI32) {
    auto out = run_op("Add", {f32({1, 2, 3, 4, 5, 6}, {2, 3}), f32({10, 20, 30})});
    EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
    expect_near(out[0], {11, 22, 33, 14, 25, 36});

    auto ints = run_op("Add", {i32({1, 2}, {2, 1}), i32({10, 20, 30}, {3})});
    EXPECT_EQ(values<int32_t>(ints[0]), (std::vector<int32_t>{11, 21, 31, 12, 22, 32}));
}

TEST(EltwiseEval, SubtractMultiplySquaredDifferenceMaxMin) {
    expect_near(run_op("Subtract", {f32({5, 7}), f32({2}, {})})[0], {3, 5});
    expect_near(run_op("Multiply", {f32({1.5f, -2}), f32({4, 3})})[0], {6, -6});
    expect_near(run_op("SquaredDifference", {f32({1, 5}), f32({4, 5})})[0], {9, 0});
    auto u8a = Tensor::from_vector<uint8_t>({1, 200, 7}, {3}), u8b = Tensor::from_vector<uint8_t>({3, 100, 7}, {3});
    EXPECT_EQ(values<uint8_t>(run_op("Maximum", {u8a, u8b})[0]), (std::vector<uint8_t>{3, 200, 7}));
    EXPECT_EQ(values<uint8_t>(run_op("Minimum", {u8a, u8b})[0]), (std::vector<uint8_t>{1, 100, 7}));
}

TEST(EltwiseEval, IntegerArithmeticWrapsModulo2N) {
    const int32_t max = std::numeric_limits<int32_t>::max(), min = std::numeric_limits<int32_t>::min();
    EXPECT_EQ(values<int32_t>(run_op("Add", {i32({max}), i32({1})})[0]), (std::vector<int32_t>{min}));
    EXPECT_EQ(values<int32_t>(run_op("Negative", {i32({min})})[0]), (std::vector<int32_t>{min}));
    // (2^16 - 1)^2 = 2^32 - 2^17 + 1 = 1 (mod 2^16)
    auto u16 = Tensor::from_vector<uint16_t>({65535}, {1});
    EXPECT_EQ(values<uint16_t>(run_op("Multiply", {u16, u16})[0]), (std::vector<uint16_t>{1}));
    auto u8a = Tensor::from_vector<uint8_t>({250}, {1}), u8b = Tensor::from_vector<uint8_t>({10}, {1});
    EXPECT_EQ(values<uint8_t>(run_op("Add", {u8a, u8b})[0]), (std::vector<uint8_t>{4}));
}

TEST(EltwiseEval, DivideFloorsIntegersUnlessPythondivIsOff) {
    auto a = i32({-7, 7, -7, 7}), b = i32({2, 2, -2, -2});
    EXPECT_EQ(values<int32_t>(run_op("Divide", {a, b})[0]), (std::vector<int32_t>{-4, 3, 3, -4}));
    EXPECT_EQ(values<int32_t>(run_op("Divide", {a, b}, {{"m_pythondiv", false}})[0]),
              (std::vector<int32_t>{-3, 3, 3, -3}));
    expect_near(run_op("Divide", {f32({7, -7}), f32({2})})[0], {3.5f, -3.5f});
    expect_error([&] { run_op("Divide", {i32({1}), i32({0})}); }, "division by zero");
}

TEST(EltwiseEval, ModKeepsDividendSignFloorModDivisorSign) {
    auto a = i32({-7, 7, -7, 7}), b = i32({3, 3, -3, -3});
    EXPECT_EQ(values<int32_t>(run_op("FloorMod", {a, b})[0]), (std::vector<int32_t>{2, 1, -1, -2}));
    EXPECT_EQ(values<int32_t>(run_op("Mod", {a, b})[0]), (std::vector<int32_t>{-1, 1, -1, 1}));
    expect_near(run_op("FloorMod", {f32({5.5f, -5.5f}), f32({-2, 2})})[0], {-0.5f, 0.5f});
    expect_near(run_op("Mod", {f32({5.5f, -5.5f}), f32({-2, 2})})[0], {1.5f, -1.5f});
}

TEST(EltwiseEval, PowerIntegersAreExact) {
    EXPECT_EQ(values<int32_t>(run_op("Power", {i32({2, 3, -2}), i32({10, 2, 3})})[0]),
              (std::vector<int32_t>{1024, 9, -8}));
    auto big = run_op("Power", {Tensor::from_vector<int64_t>({3}, {1}), Tensor::from_vector<int64_t>({39}, {1})});
    EXPECT_EQ(values<int64_t>(big[0]), (std::vector<int64_t>{4052555153018976267LL}));  // 3^39
    expect_near(run_op("Power", {f32({4, 2}), f32({0.5f, -1})})[0], {2, 0.5f});
}

TEST(EltwiseEval, ComparisonsGiveBooleans) {
    auto a = f32({1, 2, 3}), b = f32({2});
    EXPECT_EQ(values<uint8_t>(run_op("Less", {a, b})[0]), (std::vector<uint8_t>{1, 0, 0}));
    EXPECT_EQ(values<uint8_t>(run_op("LessEqual", {a, b})[0]), (std::vector<uint8_t>{1, 1, 0}));
    EXPECT_EQ(values<uint8_t>(run_op("Greater", {a, b})[0]), (std::vector<uint8_t>{0, 0, 1}));
    EXPECT_EQ(values<uint8_t>(run_op("GreaterEqual", {a, b})[0]), (std::vector<uint8_t>{0, 1, 1}));
    EXPECT_EQ(values<uint8_t>(run_op("Equal", {i32({4, 5}), i32({5, 5})})[0]), (std::vector<uint8_t>{0, 1}));
    EXPECT_EQ(values<uint8_t>(run_op("NotEqual", {i32({4, 5}), i32({5, 5})})[0]), (std::vector<uint8_t>{1, 0}));
}

TEST(EltwiseEval, LogicalOps) {
    auto a = boolean({true, true, false, false}), b = boolean({true, false, true, false});
    EXPECT_EQ(values<uint8_t>(run_op("LogicalAnd", {a, b})[0]), (std::vector<uint8_t>{1, 0, 0, 0}));
    EXPECT_EQ(values<uint8_t>(run_op("LogicalOr", {a, b})[0]), (std::vector<uint8_t>{1, 1, 1, 0}));
    EXPECT_EQ(values<uint8_t>(run_op("LogicalXor", {a, b})[0]), (std::vector<uint8_t>{0, 1, 1, 0}));
    EXPECT_EQ(values<uint8_t>(run_op("LogicalNot", {a})[0]), (std::vector<uint8_t>{0, 0, 1, 1}));
}

TEST(EltwiseEval, SelectPicksPerElementWithBroadcast) {
    auto out = run_op("Select", {boolean({true, false}, {2, 1}), f32({1, 2, 3}), f32({10}, {})});
    EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
    expect_near(out[0], {1, 2, 3, 10, 10, 10});
    auto ints = run_op("Select", {boolean({false, true, false}), i32({1, 2, 3}), i32({-1, -2, -3})});
    EXPECT_EQ(values<int32_t>(ints[0]), (std::vector<int32_t>{-1, 2, -3}));
}

TEST(EltwiseEval, F16ThroughF32KeepsF16) {
    auto a = f32({1.5f, 2.25f}).convert(ET::f16), b = f32({0.25f}, {}).convert(ET::f16);
    auto out = run_op("Add", {a, b});
    ASSERT_EQ(out[0].type(), ET::f16);
    expect_near(out[0].convert(ET::f32), {1.75f, 2.5f}, 0);
    auto relu = run_op("Relu", {f32({-1.5f, 3}).convert(ET::f16)});
    ASSERT_EQ(relu[0].type(), ET::f16);
    expect_near(relu[0].convert(ET::f32), {0, 3}, 0);
    auto less = run_op("Less", {a, b});
    EXPECT_EQ(values<uint8_t>(less[0]), (std::vector<uint8_t>{0, 0}));
}

TEST(EltwiseEval, AutoBroadcastNoneWorksOnEqualShapes) {
    AttrMap none{{"auto_broadcast", std::string("none")}};
    expect_near(run_op("Maximum", {f32({1, 5}, {1, 2}), f32({3, 2}, {1, 2})}, none)[0], {3, 5});
    auto sel = run_op("Select", {boolean({true, false}), i32({1, 2}), i32({3, 4})}, none);
    EXPECT_EQ(values<int32_t>(sel[0]), (std::vector<int32_t>{1, 4}));
}

TEST(EltwiseEval, SelectAndPowerOnF16) {
    auto sel = run_op("Select", {boolean({true, false}), f32({0.5f, 1}).convert(ET::f16), f32({-2}).convert(ET::f16)});
    ASSERT_EQ(sel[0].type(), ET::f16);
    expect_near(sel[0].convert(ET::f32), {0.5f, -2}, 0);
    auto pow = run_op("Power", {f32({3, 2}).convert(ET::f16), f32({2}).convert(ET::f16)});
    ASSERT_EQ(pow[0].type(), ET::f16);
    expect_near(pow[0].convert(ET::f32), {9, 4}, 0);
}

// ---- Evaluation: unary --------------------------------------------------------------------------------

TEST(EltwiseEval, SimpleUnaryOnF32AndI32) {
    auto x = f32({-2.5f, 0, 3.25f});
    expect_near(run_op("Abs", {x})[0], {2.5f, 0, 3.25f});
    expect_near(run_op("Negative", {x})[0], {2.5f, 0, -3.25f});
    expect_near(run_op("Sign", {x})[0], {-1, 0, 1});
    expect_near(run_op("Ceiling", {x})[0], {-2, 0, 4});
    expect_near(run_op("Floor", {x})[0], {-3, 0, 3});
    expect_near(run_op("Relu", {x})[0], {0, 0, 3.25f});
    auto n = i32({-5, 0, 7});
    EXPECT_EQ(values<int32_t>(run_op("Abs", {n})[0]), (std::vector<int32_t>{5, 0, 7}));
    EXPECT_EQ(values<int32_t>(run_op("Negative", {n})[0]), (std::vector<int32_t>{5, 0, -7}));
    EXPECT_EQ(values<int32_t>(run_op("Sign", {n})[0]), (std::vector<int32_t>{-1, 0, 1}));
    EXPECT_EQ(values<int32_t>(run_op("Relu", {n})[0]), (std::vector<int32_t>{0, 0, 7}));
}

TEST(EltwiseEval, MathFunctionsAtKnownPoints) {
    const float pi = std::numbers::pi_v<float>;
    expect_near(run_op("Exp", {f32({0, 1})})[0], {1, std::numbers::e_v<float>});
    expect_near(run_op("Log", {f32({1, std::numbers::e_v<float>})})[0], {0, 1});
    expect_near(run_op("Sqrt", {f32({4, 2.25f})})[0], {2, 1.5f});
    expect_near(run_op("Sin", {f32({0, pi / 2})})[0], {0, 1});
    expect_near(run_op("Cos", {f32({0, pi})})[0], {1, -1});
    expect_near(run_op("Tan", {f32({0, pi / 4})})[0], {0, 1});
    expect_near(run_op("Asin", {f32({0, 1})})[0], {0, pi / 2});
    expect_near(run_op("Acos", {f32({1, 0})})[0], {0, pi / 2});
    expect_near(run_op("Atan", {f32({0, 1})})[0], {0, pi / 4});
    expect_near(run_op("Sinh", {f32({0, 1})})[0], {0, 1.1752012f});
    expect_near(run_op("Cosh", {f32({0, 1})})[0], {1, 1.5430806f});
    expect_near(run_op("Tanh", {f32({0})})[0], {0});
    expect_near(run_op("Asinh", {f32({0, 1})})[0], {0, 0.8813736f});
    expect_near(run_op("Acosh", {f32({1, 2})})[0], {0, 1.3169579f});
    expect_near(run_op("Atanh", {f32({0, 0.5f})})[0], {0, 0.5493061f});
    expect_near(run_op("Erf", {f32({0, 1})})[0], {0, 0.8427008f});
    expect_near(run_op("Sigmoid", {f32({0, 1})})[0], {0.5f, 0.7310586f});
}

TEST(EltwiseEval, IntegerInputsOfRealFunctionsRound) {
    // sqrt(8) = 2.83 rounds to 3 (OpenVINO's integral Sqrt rounds)
    EXPECT_EQ(values<int32_t>(run_op("Sqrt", {i32({4, 8, 9})})[0]), (std::vector<int32_t>{2, 3, 3}));
    EXPECT_EQ(values<int32_t>(run_op("Exp", {i32({0, 1, 2})})[0]), (std::vector<int32_t>{1, 3, 7}));
}

TEST(EltwiseEval, Activations) {
    expect_near(run_op("Elu", {f32({-1, 2})}, {{"alpha", 1.0}})[0], {-0.6321206f, 2});
    expect_near(run_op("Gelu", {f32({1, -1})})[0], {0.8413447f, -0.1586553f});
    expect_near(run_op("Gelu", {f32({1})}, {{"approximation_mode", std::string("TANH")}})[0], {0.8411920f});
    expect_near(run_op("HSigmoid", {f32({-4, 0, 1, 4})})[0], {0, 0.5f, 4.f / 6, 1});
    expect_near(run_op("HSwish", {f32({-4, -1, 1, 4})})[0], {0, -2.f / 6, 4.f / 6, 4});
    expect_near(run_op("Mish", {f32({1, -1})})[0], {0.8650984f, -0.3034015f});
    expect_near(run_op("SoftPlus", {f32({0, 100, -100})})[0], {0.6931472f, 100, 0});
    expect_near(run_op("Swish", {f32({1})})[0], {0.7310586f});
    expect_near(run_op("Swish", {f32({1}), f32({2}, {})})[0], {0.8807971f});
    expect_near(run_op("HardSigmoid", {f32({1, 3, -3}), f32({0.2f}, {}), f32({0.5f}, {})})[0], {0.7f, 1, 0});
    expect_near(run_op("Selu", {f32({-1, 2}), f32({1.6732632f}, {1}), f32({1.0507010f}, {1})})[0],
                {-1.1113307f, 2.1014020f});
}

TEST(EltwiseEval, PReluPerChannelAndBroadcast) {
    // data [1, 2, 1, 2]: channel 0 = {-1, 2}, channel 1 = {-3, 4}
    auto per_channel = run_op("PRelu", {f32({-1, 2, -3, 4}, {1, 2, 1, 2}), f32({0.1f, 0.5f})});
    expect_near(per_channel[0], {-0.1f, 2, -1.5f, 4});
    auto scalar = run_op("PRelu", {f32({-2, 3}), f32({0.25f}, {1})});
    expect_near(scalar[0], {-0.5f, 3});
    auto ints = run_op("PRelu", {i32({-4, 4}), i32({3}, {1})});
    EXPECT_EQ(values<int32_t>(ints[0]), (std::vector<int32_t>{-12, 4}));
}

TEST(EltwiseEval, ClampRoundsBoundsInwardForIntegers) {
    expect_near(run_op("Clamp", {f32({0, 1, 3})}, {{"min", 0.5}, {"max", 2.0}})[0], {0.5f, 1, 2});
    // ceil(-1.5) = -1, floor(2.5) = 2
    EXPECT_EQ(values<int32_t>(run_op("Clamp", {i32({-5, 0, 5})}, {{"min", -1.5}, {"max", 2.5}})[0]),
              (std::vector<int32_t>{-1, 0, 2}));
}

TEST(EltwiseEval, RoundModesMatchTheSpecExample) {
    auto x = f32({-4.5f, -1.9f, -1.5f, 0.5f, 0.9f, 1.5f, 2.3f, 2.5f});
    expect_near(run_op("Round", {x})[0], {-4, -2, -2, 0, 1, 2, 2, 2}, 0);
    expect_near(run_op("Round", {x}, {{"mode", std::string("half_away_from_zero")}})[0], {-5, -2, -2, 1, 1, 2, 2, 3}, 0);
}

TEST(EltwiseEval, ConvertTruncatesWrapsAndTestsNonZero) {
    auto to_i32 = run_op("Convert", {f32({-1.7f, 2.9f, 300, -3})}, {{"destination_type", ET::i32}});
    EXPECT_EQ(values<int32_t>(to_i32[0]), (std::vector<int32_t>{-1, 2, 300, -3}));
    // spec: int32 -1 -> uint32 max
    auto to_u32 = run_op("Convert", {i32({-1, 7})}, {{"destination_type", ET::u32}});
    EXPECT_EQ(values<uint32_t>(to_u32[0]), (std::vector<uint32_t>{4294967295u, 7}));
    auto to_bool = run_op("Convert", {f32({0, 0.5f, -2})}, {{"destination_type", ET::boolean}});
    EXPECT_EQ(values<uint8_t>(to_bool[0]), (std::vector<uint8_t>{0, 1, 1}));
    auto to_f16 = run_op("Convert", {i32({3, -2})}, {{"destination_type", ET::f16}});
    ASSERT_EQ(to_f16[0].type(), ET::f16);
    expect_near(to_f16[0].convert(ET::f32), {3, -2}, 0);
    auto from_f16 = run_op("Convert", {f32({2.75f, -0.5f}).convert(ET::f16)}, {{"destination_type", ET::i64}});
    EXPECT_EQ(values<int64_t>(from_f16[0]), (std::vector<int64_t>{2, 0}));
    auto same = run_op("Convert", {i32({5})}, {{"destination_type", ET::i32}});
    EXPECT_EQ(values<int32_t>(same[0]), (std::vector<int32_t>{5}));
}

}  // namespace
}  // namespace mo
