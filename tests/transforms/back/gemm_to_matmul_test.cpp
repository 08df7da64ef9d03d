#include "transforms/back/gemm_to_matmul.hpp"

#include <gtest/gtest.h>

#include <tuple>

#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

AttrMap gemm_attrs(double alpha, double beta, bool ta, bool tb) {
    return {{"alpha", AttrValue(alpha)}, {"beta", AttrValue(beta)}, {"transA", AttrValue(ta)}, {"transB", AttrValue(tb)}};
}

TEST(GemmToMatMul, FoldsAlphaAndBetaIntoConstants) {
    TestGraph t;
    auto a = t.input(ElementType::f32, {2, 3}, "a");
    auto g = t.op("Gemm", {a, t.constant<float>({1, 2, 3, 4, 5, 6}, {2, 3}, "b"), t.constant<float>({10, 20}, {2}, "c")},
                  gemm_attrs(2, 0.5, false, true), "g");
    g.names().push_back("y");
    t.output(g, "out");
    test::infer(t.graph());
    GemmToMatMul pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));
    t->remove_dead_nodes();

    TestGraph e;
    auto ea = e.input(ElementType::f32, {2, 3}, "a");
    auto mm = e.op("MatMul", {ea, e.constant<float>({2, 4, 6, 8, 10, 12}, {2, 3}, "g/B_scaled")},
                   {{"transpose_a", AttrValue(false)}, {"transpose_b", AttrValue(true)}}, "g/MatMul");
    auto add = e.op("Add", {mm, e.constant<float>({5, 10}, {2}, "g/C_scaled")}, {}, "g");
    add.names().push_back("y");
    e.output(add, "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
}

TEST(GemmToMatMul, MultipliesWhenInputsAreNotConstant) {
    TestGraph t;
    auto a = t.input(ElementType::f32, {3, 2}, "a");
    auto b = t.input(ElementType::f32, {3, 2}, "b");
    auto c = t.input(ElementType::f32, {2, 2}, "c");
    t.output(t.op("Gemm", {a, b, c}, gemm_attrs(2, 3, true, false), "g"), "out");
    test::infer(t.graph());
    std::map<std::string, Tensor> in{{"a", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2})},
                                     {"b", Tensor::from_vector<float>({1, 0, 0, 1, 1, 1}, {3, 2})},
                                     {"c", Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})}};
    // A^T B = [[1,3,5],[2,4,6]] [[1,0],[0,1],[1,1]] = [[6,8],[8,10]]; 2 * that + 3 * C.
    const std::vector<double> expected{15, 22, 25, 32};
    EXPECT_EQ(test::evaluate(t.graph(), in).at(0).to_f64(), expected);

    GemmToMatMul pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));
    TestGraph e;
    auto ea = e.input(ElementType::f32, {3, 2}, "a");
    auto eb = e.input(ElementType::f32, {3, 2}, "b");
    auto ec = e.input(ElementType::f32, {2, 2}, "c");
    auto mm = e.op("MatMul", {ea, eb}, {{"transpose_a", AttrValue(true)}, {"transpose_b", AttrValue(false)}}, "g/MatMul");
    auto scaled = e.op("Multiply", {mm, e.constant<float>({2}, {}, "g/alpha_value")}, {}, "g/alpha");
    auto beta_c = e.op("Multiply", {ec, e.constant<float>({3}, {}, "g/beta_value")}, {}, "g/beta");
    e.output(e.op("Add", {scaled, beta_c}, {}, "g"), "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
    EXPECT_EQ(test::evaluate(t.graph(), in).at(0).to_f64(), expected);
}

TEST(GemmToMatMul, PlainGemmIsJustMatMulAndZeroBetaDropsC) {
    TestGraph t;
    auto a = t.input(ElementType::f32, {2, 2}, "a");
    auto b = t.input(ElementType::f32, {2, 2}, "b");
    auto c = t.input(ElementType::f32, {2}, "c");
    t.output(t.op("Gemm", {a, b}, {}, "g1"), "out1");
    t.output(t.op("Gemm", {a, b, c}, gemm_attrs(1, 0, false, false), "g2"), "out2");
    test::infer(t.graph());
    GemmToMatMul pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));

    TestGraph e;
    auto ea = e.input(ElementType::f32, {2, 2}, "a");
    auto eb = e.input(ElementType::f32, {2, 2}, "b");
    e.input(ElementType::f32, {2}, "c");
    AttrMap no_transpose{{"transpose_a", AttrValue(false)}, {"transpose_b", AttrValue(false)}};
    e.output(e.op("MatMul", {ea, eb}, no_transpose, "g1"), "out1");
    e.output(e.op("MatMul", {ea, eb}, no_transpose, "g2"), "out2");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
}

TEST(GemmToMatMul, IntegralGemmTakesOnlyWholeAlphaAndBeta) {
    // alpha 0.5 as an i32 would be 0: every output 0. Refused, naming the node.
    for (auto [alpha, beta, what] : {std::tuple{0.5, 1.0, "alpha"}, std::tuple{1.0, -2.5, "beta"},
                                     std::tuple{1e20, 1.0, "alpha"}}) {
        SCOPED_TRACE(what);
        TestGraph t;
        auto a = t.input(ElementType::i32, {2, 2}, "a");
        auto b = t.input(ElementType::i32, {2, 2}, "b");
        auto c = t.input(ElementType::i32, {2, 2}, "c");
        t.output(t.op("Gemm", {a, b, c}, gemm_attrs(alpha, beta, false, false), "g"), "out");
        test::infer(t.graph());
        GemmToMatMul pass;
        try {
            test::run_pass(pass, t.graph());
            ADD_FAILURE() << "no error";
        } catch (const Error& e) {
            EXPECT_NE(e.what_part().find(std::string("integer Gemm (i32) with a fractional or out-of-range ") + what),
                      std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("'g'"), std::string::npos) << e.what();
        }
    }
    // Whole numbers are exact: alpha 2 and beta -3 as i32 constants; beta unused without C.
    TestGraph t;
    auto a = t.input(ElementType::i32, {2, 2}, "a");
    auto b = t.input(ElementType::i32, {2, 2}, "b");
    auto c = t.input(ElementType::i32, {2, 2}, "c");
    t.output(t.op("Gemm", {a, b, c}, gemm_attrs(2, -3, false, false), "g"), "out");
    t.output(t.op("Gemm", {a, b}, gemm_attrs(2, 0.5, false, false), "g2"), "out2");
    test::infer(t.graph());
    std::map<std::string, Tensor> in{{"a", Tensor::from_vector<int32_t>({1, 2, 3, 4}, {2, 2})},
                                     {"b", Tensor::from_vector<int32_t>({1, 0, 0, 1}, {2, 2})},
                                     {"c", Tensor::from_vector<int32_t>({1, 1, 1, 1}, {2, 2})}};
    GemmToMatMul pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));
    auto out = test::evaluate(t.graph(), in);
    EXPECT_EQ(out.at(0).to_f64(), (std::vector<double>{-1, 1, 3, 5}));
    EXPECT_EQ(out.at(1).to_f64(), (std::vector<double>{2, 4, 6, 8}));
}

}  // namespace
}  // namespace mo
