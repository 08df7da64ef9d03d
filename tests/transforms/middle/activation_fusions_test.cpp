#include "transforms/middle/gelu_fusion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <numbers>

#include "transforms/middle/hsigmoid_fusion.hpp"
#include "transforms/middle/hswish_fusion.hpp"
#include "transforms/middle/layer_norm_to_mvn.hpp"
#include "transforms/middle/mish_fusion.hpp"
#include "transforms/middle/soft_plus_fusion.hpp"
#include "transforms/middle/softmax_fusion.hpp"
#include "transforms/middle/swish_fusion.hpp"
#include "transforms/support/fusion_test_util.hpp"

namespace mo {
namespace {

using test::TestGraph;

OutPort scalar(TestGraph& t, float v, const std::string& name) { return t.constant<float>({v}, {}, name); }

// PyTorch's nn.GELU() at opset 13: Mul(Mul(x, Add(Erf(Div(x, 1.4142135)), 1)), 0.5).
void torch_gelu(TestGraph& t, float sqrt2 = 1.4142135f, bool second_use = false) {
    auto x = t.input(ElementType::f32, {2, 3, 4}, "x");
    auto div = t.op("Divide", {x, scalar(t, sqrt2, "sqrt2")}, {}, "div");
    auto erf = t.op("Erf", {div}, {}, "erf");
    auto add = t.op("Add", {erf, scalar(t, 1.f, "one")}, {}, "add");
    auto mul = t.op("Multiply", {x, add}, {}, "mul");
    auto out = t.op("Multiply", {mul, scalar(t, 0.5f, "half")}, {}, "gelu_out");
    out.names().push_back("y");
    t.output(out, "out");
    if (second_use) t.output(erf, "erf_out");
}

TEST(GeluFusion, TorchErfFormBecomesGelu) {
    TestGraph t;
    torch_gelu(t);
    GeluFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({2, 3, 4}, -4.f, 4.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);

    TestGraph e;
    auto ex = e.input(ElementType::f32, {2, 3, 4}, "x");
    auto gelu = e.op("Gelu", {ex}, {{"approximation_mode", std::string("ERF")}}, "gelu_out");
    gelu.names().push_back("y");
    e.output(gelu, "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
    auto fused = t->find_by_name("gelu_out").fused_names();
    std::sort(fused.begin(), fused.end());
    EXPECT_EQ(fused, (std::vector<std::string>{"add", "div", "erf", "gelu_out", "mul"}));
}

TEST(GeluFusion, OtherOrdersAndReciprocalForm) {
    // 0.5 * x first, then times (1 + erf(x * 0.7071)); constants on the left.
    TestGraph t;
    auto x = t.input(ElementType::f32, {8}, "x");
    auto inner = t.op("Multiply", {scalar(t, 0.70710678f, "rsqrt2"), x}, {}, "inner");
    auto add = t.op("Add", {scalar(t, 1.f, "one"), t.op("Erf", {inner}, {}, "erf")}, {}, "add");
    auto half = t.op("Multiply", {scalar(t, 0.5f, "half"), x}, {}, "half_x");
    t.output(t.op("Multiply", {add, half}, {}, "out"), "y");
    GeluFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({8}, -3.f, 3.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types, (std::map<std::string, int>{{"Gelu", 1}, {"Parameter", 1}, {"Result", 1}}));
}

TEST(GeluFusion, TanhFormAsPyTorchExportsIt) {
    // 0.5 * (x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * (x * (x * x))))))
    TestGraph t;
    auto x = t.input(ElementType::f32, {8}, "x");
    auto cube = t.op("Multiply", {x, t.op("Multiply", {x, x}, {}, "square")}, {}, "cube");
    auto sum = t.op("Add", {x, t.op("Multiply", {scalar(t, 0.044715f, "kappa"), cube}, {}, "kc")}, {}, "sum");
    auto inner = t.op("Multiply", {scalar(t, static_cast<float>(std::sqrt(2 / std::numbers::pi)), "beta"), sum}, {}, "inner");
    auto plus = t.op("Add", {scalar(t, 1.f, "one"), t.op("Tanh", {inner}, {}, "tanh")}, {}, "plus");
    auto mul = t.op("Multiply", {x, plus}, {}, "mul");
    t.output(t.op("Multiply", {scalar(t, 0.5f, "half"), mul}, {}, "out"), "y");
    GeluFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({8}, -3.f, 3.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types["Gelu"], 1);
    EXPECT_EQ(t->find_by_name("out").attr<std::string>("approximation_mode"), "TANH");
}

TEST(GeluFusion, NearMissesStayUnfused) {
    TestGraph wrong_constant;
    torch_gelu(wrong_constant, 1.5f);
    GeluFusion pass;
    EXPECT_FALSE(test::run_fusion(pass, wrong_constant, {{"x", test::ramp({2, 3, 4}, -4.f, 4.f)}}).changed);
    TestGraph shared_erf;  // erf is also a model output: it must survive
    torch_gelu(shared_erf, 1.4142135f, true);
    EXPECT_FALSE(test::run_fusion(pass, shared_erf, {{"x", test::ramp({2, 3, 4}, -4.f, 4.f)}}).changed);
}

// PyTorch's nn.Hardswish at opset 13: Mul(x, HardSigmoid(x; alpha 1/6, beta 0.5)).
TEST(HSwishFusion, HardSigmoidTimesInputBecomesHSwish) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 4, 2, 2}, "x");
    auto hs = t.op("HardSigmoid", {x, scalar(t, 1.f / 6, "alpha"), scalar(t, 0.5f, "beta")}, {}, "hsig");
    t.output(t.op("Multiply", {x, hs}, {}, "out"), "y");
    HSwishFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({1, 4, 2, 2}, -5.f, 5.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types, (std::map<std::string, int>{{"HSwish", 1}, {"Parameter", 1}, {"Result", 1}}));
}

TEST(HSwishFusion, Relu6FormsBecomeHSwish) {
    // x * Clip(x + 3, 0, 6) / 6 (ONNX Clip before the back phase) and x * (Min(Relu(x + 3), 6) * 1/6).
    for (int form = 0; form < 2; ++form) {
        SCOPED_TRACE(form);
        TestGraph t;
        auto x = t.input(ElementType::f32, {16}, "x");
        auto plus3 = t.op("Add", {x, scalar(t, 3.f, "three")}, {}, "plus3");
        OutPort relu6 = form == 0
            ? t.op("Clip", {plus3, scalar(t, 0.f, "zero"), scalar(t, 6.f, "six")}, {}, "relu6")
            : t.op("Minimum", {t.op("Relu", {plus3}, {}, "relu"), scalar(t, 6.f, "six")}, {}, "relu6");
        OutPort out = form == 0 ? t.op("Divide", {t.op("Multiply", {x, relu6}, {}, "mul"), scalar(t, 6.f, "d6")}, {}, "out")
                                : t.op("Multiply", {x, t.op("Multiply", {relu6, scalar(t, 1.f / 6, "m6")}, {}, "sixth")}, {}, "out");
        t.output(out, "y");
        HSwishFusion pass;
        test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({16}, -5.f, 5.f)}});
        EXPECT_TRUE(r.changed);
        EXPECT_LE(r.max_abs_diff, 1e-6);
        EXPECT_EQ(r.types, (std::map<std::string, int>{{"HSwish", 1}, {"Parameter", 1}, {"Result", 1}}));
    }
}

TEST(HSwishFusion, NearMissesStayUnfused) {
    // The Hardsigmoid of another tensor (a squeeze-excitation gate) is not HSwish; nor is beta 0.4.
    TestGraph gate;
    auto x = gate.input(ElementType::f32, {1, 4, 2, 2}, "x");
    auto s = gate.input(ElementType::f32, {1, 4, 1, 1}, "s");
    auto hs = gate.op("HardSigmoid", {s, scalar(gate, 1.f / 6, "alpha"), scalar(gate, 0.5f, "beta")}, {}, "hsig");
    gate.output(gate.op("Multiply", {x, hs}, {}, "out"), "y");
    HSwishFusion pass;
    EXPECT_FALSE(test::run_fusion(pass, gate, {{"x", test::ramp({1, 4, 2, 2}, -5.f, 5.f)},
                                               {"s", test::ramp({1, 4, 1, 1}, -5.f, 5.f)}}).changed);
    TestGraph beta;
    auto bx = beta.input(ElementType::f32, {4}, "x");
    auto bhs = beta.op("HardSigmoid", {bx, scalar(beta, 1.f / 6, "alpha"), scalar(beta, 0.4f, "beta")}, {}, "hsig");
    beta.output(beta.op("Multiply", {bx, bhs}, {}, "out"), "y");
    EXPECT_FALSE(test::run_fusion(pass, beta, {{"x", test::ramp({4}, -5.f, 5.f)}}).changed);
}

TEST(HSigmoidFusion, HardSigmoidAndRelu6FormBecomeHSigmoid) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 4, 1, 1}, "x");
    auto hs = t.op("HardSigmoid", {x, scalar(t, 1.f / 6, "alpha"), scalar(t, 0.5f, "beta")}, {}, "hsig");
    auto plus3 = t.op("Add", {scalar(t, 3.f, "three"), x}, {}, "plus3");
    auto clamp = t.op("Clamp", {plus3}, {{"min", AttrValue(0.0)}, {"max", AttrValue(6.0)}}, "relu6");
    auto div = t.op("Divide", {clamp, scalar(t, 6.f, "six")}, {}, "div");
    t.output(t.op("Add", {hs, div}, {}, "sum"), "y");
    HSigmoidFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({1, 4, 1, 1}, -5.f, 5.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types, (std::map<std::string, int>{{"Add", 1}, {"HSigmoid", 2}, {"Parameter", 1}, {"Result", 1}}));
}

TEST(SwishFusion, InputTimesItsSigmoidBecomesSwish) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 8}, "x");
    t.output(t.op("Multiply", {t.op("Sigmoid", {x}, {}, "sig"), x}, {}, "silu"), "y");
    SwishFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({1, 8}, -6.f, 6.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    TestGraph e;
    auto ex = e.input(ElementType::f32, {1, 8}, "x");
    e.output(e.op("Swish", {ex}, {}, "silu"), "y");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
}

TEST(SwishFusion, WithBetaAndNearMisses) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {8}, "x");
    auto bx = t.op("Multiply", {x, scalar(t, 1.702f, "beta")}, {}, "bx");
    t.output(t.op("Multiply", {x, t.op("Sigmoid", {bx}, {}, "sig")}, {}, "out"), "y");
    SwishFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({8}, -6.f, 6.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types["Swish"], 1);

    // A gate: x * sigmoid(s), as in EfficientNet's squeeze-excitation, stays.
    TestGraph gate;
    auto gx = gate.input(ElementType::f32, {1, 4, 2, 2}, "x");
    auto gs = gate.input(ElementType::f32, {1, 4, 1, 1}, "s");
    gate.output(gate.op("Multiply", {gx, gate.op("Sigmoid", {gs}, {}, "sig")}, {}, "out"), "y");
    EXPECT_FALSE(test::run_fusion(pass, gate, {{"x", test::ramp({1, 4, 2, 2}, -5.f, 5.f)},
                                               {"s", test::ramp({1, 4, 1, 1}, -5.f, 5.f)}}).changed);
}

TEST(MishFusion, SoftPlusThenMish) {
    // x * tanh(log(exp(x) + 1)): SoftPlusFusion first, then MishFusion.
    TestGraph t;
    auto x = t.input(ElementType::f32, {8}, "x");
    auto sp = t.op("Log", {t.op("Add", {t.op("Exp", {x}, {}, "exp"), scalar(t, 1.f, "one")}, {}, "plus")}, {}, "sp");
    t.output(t.op("Multiply", {x, t.op("Tanh", {sp}, {}, "tanh")}, {}, "mish"), "y");
    SoftPlusFusion softplus;
    test::FusionOutcome r = test::run_fusion(softplus, t, {{"x", test::ramp({8}, -6.f, 6.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types["SoftPlus"], 1);
    MishFusion mish;
    r = test::run_fusion(mish, t, {{"x", test::ramp({8}, -6.f, 6.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types, (std::map<std::string, int>{{"Mish", 1}, {"Parameter", 1}, {"Result", 1}}));

    TestGraph near;  // log(exp(x) + 2) is not SoftPlus
    auto nx = near.input(ElementType::f32, {8}, "x");
    near.output(near.op("Log", {near.op("Add", {near.op("Exp", {nx}, {}, "exp"), scalar(near, 2.f, "two")}, {}, "plus")}, {}, "sp"), "y");
    EXPECT_FALSE(test::run_fusion(softplus, near, {{"x", test::ramp({8}, -6.f, 6.f)}}).changed);
}

// A constant that matches the formula's value but broadcasts the result to a larger shape
// (the rank up, or along a new axis) is not the formula's scalar: the fused op would give the
// input's shape. Each case is fused with the constant as [1] and not with `shape`.
TEST(ActivationFusions, ConstantsThatBroadcastTheOutputStayUnfused) {
    struct Case {
        const char* what;
        Shape x;
        std::function<void(TestGraph&, OutPort, const Shape&)> build;  // the constant's shape
        std::function<std::unique_ptr<Transformation>()> pass;
        Shape shape;
    };
    auto c = [](TestGraph& t, float v, const Shape& s, const std::string& name) {
        return t.constant<float>(std::vector<float>(static_cast<size_t>(shape_size(s)), v), s, name);
    };
    const std::vector<Case> cases{
        {"SoftPlus log(exp(x) + ones[2, 3])", {3},
         [&](TestGraph& t, OutPort x, const Shape& s) {
             t.output(t.op("Log", {t.op("Add", {t.op("Exp", {x}, {}, "exp"), c(t, 1.f, s, "one")}, {}, "plus")}, {}, "sp"), "y");
         },
         [] { return std::make_unique<SoftPlusFusion>(); }, {2, 3}},
        {"Gelu with 0.5 of shape [3, 1, 1]", {8},
         [&](TestGraph& t, OutPort x, const Shape& s) {
             auto erf = t.op("Erf", {t.op("Divide", {x, scalar(t, 1.4142135f, "sqrt2")}, {}, "div")}, {}, "erf");
             auto mul = t.op("Multiply", {x, t.op("Add", {erf, scalar(t, 1.f, "one")}, {}, "add")}, {}, "mul");
             t.output(t.op("Multiply", {mul, c(t, 0.5f, s, "half")}, {}, "gelu"), "y");
         },
         [] { return std::make_unique<GeluFusion>(); }, {3, 1, 1}},
        {"HSigmoid Clip(x + 3 [5, 1, 1], 0, 6) / 6", {4},
         [&](TestGraph& t, OutPort x, const Shape& s) {
             auto plus3 = t.op("Add", {x, c(t, 3.f, s, "three")}, {}, "plus3");
             auto relu6 = t.op("Clip", {plus3, scalar(t, 0.f, "zero"), scalar(t, 6.f, "six")}, {}, "relu6");
             t.output(t.op("Divide", {relu6, scalar(t, 6.f, "d6")}, {}, "hsig"), "y");
         },
         [] { return std::make_unique<HSigmoidFusion>(); }, {5, 1, 1}},
        {"HSwish x * Clip(x + 3, 0, 6) / 6 [2, 1]", {4},
         [&](TestGraph& t, OutPort x, const Shape& s) {
             auto plus3 = t.op("Add", {x, scalar(t, 3.f, "three")}, {}, "plus3");
             auto relu6 = t.op("Clip", {plus3, scalar(t, 0.f, "zero"), scalar(t, 6.f, "six")}, {}, "relu6");
             t.output(t.op("Divide", {t.op("Multiply", {x, relu6}, {}, "mul"), c(t, 6.f, s, "d6")}, {}, "hswish"), "y");
         },
         [] { return std::make_unique<HSwishFusion>(); }, {2, 1}},
        {"Swish with beta of shape [1, 1, 1]", {8},
         [&](TestGraph& t, OutPort x, const Shape& s) {
             auto bx = t.op("Multiply", {x, c(t, 1.702f, s, "beta")}, {}, "bx");
             t.output(t.op("Multiply", {x, t.op("Sigmoid", {bx}, {}, "sig")}, {}, "swish"), "y");
         },
         [] { return std::make_unique<SwishFusion>(); }, {1, 1, 1}},
    };
    for (const Case& k : cases) {
        for (bool broadcasting : {false, true}) {
            SCOPED_TRACE(std::string(k.what) + (broadcasting ? "" : ", constant of shape [1]"));
            TestGraph t;
            k.build(t, t.input(ElementType::f32, k.x, "x"), broadcasting ? k.shape : Shape{1});
            test::infer(t.graph());
            const std::string before = test::dump(t.graph());
            auto pass = k.pass();
            test::FusionOutcome r = test::run_fusion(*pass, t, {{"x", test::ramp(k.x, -4.f, 4.f)}});
            EXPECT_LE(r.max_abs_diff, 1e-5);
            EXPECT_EQ(r.changed, !broadcasting);
            if (broadcasting) EXPECT_EQ(test::dump(t.graph()), before);
        }
    }
}

// PyTorch's nn.LayerNorm(4) at opset 13, without gamma/beta.
void torch_layer_norm(TestGraph& t, std::vector<int64_t> second_axes = {-1}, float exponent = 2.f, Shape eps_shape = {}) {
    auto x = t.input(ElementType::f32, {2, 3, 4}, "x");
    auto mean = t.op("ReduceMean", {x, t.constant<int64_t>({-1}, {1}, "axes1")}, {{"keep_dims", AttrValue(true)}}, "mean");
    auto centered = t.op("Subtract", {x, mean}, {}, "sub");
    auto square = t.op("Power", {centered, scalar(t, exponent, "two")}, {}, "pow");
    auto var = t.op("ReduceMean", {square, t.constant<int64_t>(second_axes, {static_cast<int64_t>(second_axes.size())}, "axes2")},
                    {{"keep_dims", AttrValue(true)}}, "var");
    auto std_dev = t.op("Sqrt", {t.op("Add", {var, t.constant<float>({1e-5f}, eps_shape, "eps")}, {}, "add_eps")}, {}, "sqrt");
    t.output(t.op("Divide", {centered, std_dev}, {}, "ln"), "y");
}

TEST(LayerNormToMVN, TorchLayerNormBecomesMvn) {
    TestGraph t;
    torch_layer_norm(t);
    LayerNormToMVN pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({2, 3, 4}, -3.f, 5.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-5);
    TestGraph e;
    auto ex = e.input(ElementType::f32, {2, 3, 4}, "x");
    e.output(e.op("MVN", {ex, e.constant<int64_t>({2}, {1}, "ln/axes")},
                  {{"eps", AttrValue(static_cast<double>(1e-5f))}, {"normalize_variance", AttrValue(true)},
                   {"eps_mode", AttrValue(std::string("inside_sqrt"))}}, "ln"), "y");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
}

TEST(LayerNormToMVN, NearMissesStayUnfused) {
    LayerNormToMVN pass;
    TestGraph other_axes;  // the variance over another axis than the mean
    torch_layer_norm(other_axes, {1});
    EXPECT_FALSE(test::run_fusion(pass, other_axes, {{"x", test::ramp({2, 3, 4}, -3.f, 5.f)}}).changed);
    TestGraph cube;  // Pow 3 is no variance
    torch_layer_norm(cube, {-1}, 3.f);
    EXPECT_FALSE(test::run_fusion(pass, cube, {{"x", test::ramp({2, 3, 4}, -3.f, 5.f)}}).changed);
    TestGraph eps_rank;  // an eps of shape [1, 1, 1, 1] makes the output rank 4: MVN's is 3
    torch_layer_norm(eps_rank, {-1}, 2.f, {1, 1, 1, 1});
    EXPECT_FALSE(test::run_fusion(pass, eps_rank, {{"x", test::ramp({2, 3, 4}, -3.f, 5.f)}}).changed);
    TestGraph eps_1;  // [1] is as good as a scalar
    torch_layer_norm(eps_1, {-1}, 2.f, {1});
    EXPECT_TRUE(test::run_fusion(pass, eps_1, {{"x", test::ramp({2, 3, 4}, -3.f, 5.f)}}).changed);
}

TEST(SoftmaxFusion, DecomposedSoftmaxBecomesSoftmax) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2, 5}, "x");
    auto max = t.op("ReduceMax", {x, t.constant<int64_t>({1}, {1}, "a1")}, {{"keep_dims", AttrValue(true)}}, "max");
    auto exp = t.op("Exp", {t.op("Subtract", {x, max}, {}, "sub")}, {}, "exp");
    auto sum = t.op("ReduceSum", {exp, t.constant<int64_t>({-1}, {1}, "a2")}, {{"keep_dims", AttrValue(true)}}, "sum");
    t.output(t.op("Divide", {exp, sum}, {}, "softmax"), "y");
    SoftmaxFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({2, 5}, -3.f, 5.f)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types, (std::map<std::string, int>{{"Parameter", 1}, {"Result", 1}, {"Softmax", 1}}));
    EXPECT_EQ(t->find_by_name("softmax").attr<int64_t>("axis"), 1);
}

}  // namespace
}  // namespace mo
