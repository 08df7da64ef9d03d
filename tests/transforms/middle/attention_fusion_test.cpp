// ScaledDotProductAttentionFusion on the attention forms exporters and mo's own
// GroupQueryAttention decomposition write, and RotateHalfForRoPEFusion on PyTorch's exported
// rotate_half: each rewrite is checked by structure and by evaluating the graph before and after.
#include "transforms/middle/attention_fusion.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "support/op_test_util.hpp"
#include "transforms/middle/rotate_half_form.hpp"
#include "transforms/support/fusion_test_util.hpp"

namespace mo {
namespace {

using test::TestGraph;

OutPort i64s(TestGraph& t, std::vector<int64_t> v, const std::string& name) {
    const int64_t n = static_cast<int64_t>(v.size());
    return t.constant<int64_t>(std::move(v), {n}, name);
}
OutPort scalar(TestGraph& t, float v, const std::string& name) { return t.constant<float>({v}, {}, name); }

OutPort softmax_times_v(TestGraph& t, OutPort masked, OutPort v, int64_t axis = 3) {
    auto probs = t.op("Softmax", {masked}, {{"axis", axis}}, "probs");
    return t.op("MatMul", {probs, v}, {{"transpose_a", false}, {"transpose_b", false}}, "context");
}

// A Llama-style eager attention as torch.onnx traces it: MatMul(q, kᵀ) / √E + mask -> softmax -> · v.
struct Eager {
    TestGraph t;
    std::map<std::string, Tensor> inputs{{"q", test::ramp({1, 2, 3, 4}, -1, 1)},
                                         {"k", test::ramp({1, 2, 5, 4}, 1, -1)},
                                         {"v", test::ramp({1, 2, 5, 4}, -2, 3)},
                                         {"mask", test::ramp({1, 1, 3, 5}, -3, 0)}};
    explicit Eager(bool scores_also_an_output = false, int64_t softmax_axis = 3) {
        auto q = t.input(ElementType::f32, {1, 2, 3, 4}, "q"), k = t.input(ElementType::f32, {1, 2, 5, 4}, "k");
        auto v = t.input(ElementType::f32, {1, 2, 5, 4}, "v"), mask = t.input(ElementType::f32, {1, 1, 3, 5}, "mask");
        auto kt = t.op("Transpose", {k, i64s(t, {0, 1, 3, 2}, "order")}, {}, "k_t");
        auto scores = t.op("MatMul", {q, kt}, {{"transpose_a", false}, {"transpose_b", false}}, "scores");
        auto scaled = t.op("Divide", {scores, scalar(t, 2.f, "sqrt_e")}, {}, "scaled");
        auto masked = t.op("Add", {scaled, mask}, {}, "masked");
        t.output(softmax_times_v(t, masked, v, softmax_axis), "out");
        if (scores_also_an_output) t.output(scores, "scores_out");
    }
};

TEST(ScaledDotProductAttentionFusion, EagerAttentionWithAdditiveMaskBecomesOneOp) {
    Eager e;
    ScaledDotProductAttentionFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, e.t, e.inputs);
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    EXPECT_EQ(r.types, (std::map<std::string, int>{{"Parameter", 4}, {"Result", 1}, {"ScaledDotProductAttention", 1}}));
    Node sdpa = e.t->find_by_name("context");
    ASSERT_TRUE(sdpa && sdpa.is("ScaledDotProductAttention"));
    EXPECT_FALSE(sdpa.attr<bool>("causal"));
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(sdpa.in(i).src().node().name(), std::vector<std::string>({"q", "k", "v", "mask"})[i]);
    EXPECT_EQ(sdpa.in(4).value()->to_f64(), std::vector<double>{0.5});  // 1 / 2
}

TEST(ScaledDotProductAttentionFusion, LeavesTheDecompositionWhenItIsNotExactlyAttention) {
    ScaledDotProductAttentionFusion pass;
    Eager shared(true);  // the scores are also a model output
    test::infer(shared.t.graph());
    EXPECT_FALSE(test::run_pass(pass, shared.t.graph()));
    Eager other_axis(false, 2);  // softmax over the queries
    test::infer(other_axis.t.graph());
    EXPECT_FALSE(test::run_pass(pass, other_axis.t.graph()));
    Eager eager;  // and the same graph fuses
    test::infer(eager.t.graph());
    EXPECT_TRUE(test::run_pass(pass, eager.t.graph()));
}

TEST(ScaledDotProductAttentionFusion, PyTorchsExportedSdpaWithTheScaleSplitBetweenQAndK) {
    // torch.onnx's scaled_dot_product_attention: MatMul(q·√s, kᵀ·√s) + mask, s = 1/√E.
    TestGraph t;
    auto q = t.input(ElementType::f32, {2, 3, 4}, "q"), k = t.input(ElementType::f32, {2, 5, 4}, "k");
    auto v = t.input(ElementType::f32, {2, 5, 4}, "v"), mask = t.input(ElementType::f32, {3, 5}, "mask");
    const float root = std::sqrt(0.5f);
    auto qs = t.op("Multiply", {q, scalar(t, root, "q_root")}, {}, "q_scaled");
    auto kt = t.op("Transpose", {k, i64s(t, {0, 2, 1}, "order")}, {}, "k_t");
    auto ks = t.op("Multiply", {kt, scalar(t, root, "k_root")}, {}, "k_scaled");
    auto scores = t.op("MatMul", {qs, ks}, {{"transpose_a", false}, {"transpose_b", false}}, "scores");
    t.output(softmax_times_v(t, t.op("Add", {scores, mask}, {}, "masked"), v, -1), "out");
    ScaledDotProductAttentionFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"q", test::ramp({2, 3, 4}, -1, 2)}, {"k", test::ramp({2, 5, 4}, 1, -1)},
                                                      {"v", test::ramp({2, 5, 4}, 0, 1)}, {"mask", test::ramp({3, 5}, -1, 0)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    Node sdpa = t->find_by_name("context");
    ASSERT_TRUE(sdpa.is("ScaledDotProductAttention"));
    EXPECT_NEAR(sdpa.in(4).value()->to_f64()[0], 0.5, 1e-7);
}

// PyTorch 1.13's nn.MultiheadAttention exported to ONNX: sequence-first keys [S, B·H, E] made Kᵀ
// by one Transpose [1, 2, 0]; baddbmm's Add(scores · 1, mask · 1) with a [B·H, 1, S] mask.
TEST(ScaledDotProductAttentionFusion, SequenceFirstKeysOfTorchMultiheadAttention) {
    TestGraph t;
    auto q = t.input(ElementType::f32, {2, 3, 4}, "q"), k = t.input(ElementType::f32, {5, 2, 4}, "k");
    auto v = t.input(ElementType::f32, {2, 5, 4}, "v"), mask = t.input(ElementType::f32, {2, 1, 5}, "mask");
    auto kt = t.op("Transpose", {k, i64s(t, {1, 2, 0}, "order")}, {}, "k_t");
    auto scores = t.op("MatMul", {q, kt}, {{"transpose_a", false}, {"transpose_b", false}}, "scores");
    auto alpha = t.op("Multiply", {scores, scalar(t, 1.f, "alpha")}, {}, "alpha_scores");
    auto beta = t.op("Multiply", {mask, scalar(t, 1.f, "beta")}, {}, "beta_mask");
    t.output(softmax_times_v(t, t.op("Add", {alpha, beta}, {}, "masked"), v, 2), "out");
    ScaledDotProductAttentionFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"q", test::ramp({2, 3, 4}, -1, 2)}, {"k", test::ramp({5, 2, 4}, 1, -1)},
                                                      {"v", test::ramp({2, 5, 4}, 0, 1)}, {"mask", test::ramp({2, 1, 5}, -4, 0)}});
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);
    Node sdpa = t->find_by_name("context");
    ASSERT_TRUE(sdpa.is("ScaledDotProductAttention"));
    Node key = sdpa.in(1).src().node();  // K = Transpose(k, [1, 0, 2])
    ASSERT_TRUE(key.is("Transpose"));
    EXPECT_EQ(key.in(1).value()->to_i64(), (std::vector<int64_t>{1, 0, 2}));
    EXPECT_EQ(key.in(0).src().node().name(), "k");
    EXPECT_EQ(sdpa.in(3).src().node().name(), "beta_mask");
}

// mo's GroupQueryAttention decomposition: 4 query heads read 2 KV heads through Gather(kv,
// [0, 0, 1, 1], axis 1), the scores are masked with Select(seen, scores, lowest).
struct Grouped {
    TestGraph t;
    std::map<std::string, Tensor> inputs;
    explicit Grouped(float fill) {
        auto q = t.input(ElementType::f32, {1, 4, 3, 8}, "q"), k = t.input(ElementType::f32, {1, 2, 5, 8}, "k");
        auto v = t.input(ElementType::f32, {1, 2, 5, 8}, "v"), seen = t.input(ElementType::boolean, {1, 1, 3, 5}, "seen");
        auto groups = i64s(t, {0, 0, 1, 1}, "groups");
        auto kg = t.op("Gather", {k, groups, t.constant<int64_t>({1}, {}, "k_axis")}, {{"batch_dims", int64_t{0}}}, "k_groups");
        auto vg = t.op("Gather", {v, groups, t.constant<int64_t>({1}, {}, "v_axis")}, {{"batch_dims", int64_t{0}}}, "v_groups");
        auto scores = t.op("MatMul", {q, kg}, {{"transpose_a", false}, {"transpose_b", true}}, "scores");
        auto scaled = t.op("Multiply", {scores, scalar(t, 0.35f, "scale")}, {}, "scaled");
        auto masked = t.op("Select", {seen, scaled, scalar(t, fill, "hidden")}, {}, "masked");
        t.output(softmax_times_v(t, masked, vg), "out");
        t.output(t.op("ShapeOf", {kg}, {{"output_type", ElementType::i64}}, "key_length"), "lengths");  // a second use
        // Causal over 3 new tokens after 2 past ones; the last query sees nothing (a fully hidden
        // row: uniform weights in the decomposition, and in the fused graph too).
        std::vector<bool> mask;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 5; ++j) mask.push_back(i < 2 && j <= i + 2);
        inputs = {{"q", test::ramp({1, 4, 3, 8}, -1, 1)}, {"k", test::ramp({1, 2, 5, 8}, 2, -1)},
                  {"v", test::ramp({1, 2, 5, 8}, -1, 3)}, {"seen", test::boolean(mask, {1, 1, 3, 5})}};
    }
};

TEST(ScaledDotProductAttentionFusion, GroupQueryAttentionFormWithGroupsBroadcastAsOptimumIntelWritesThem) {
    Grouped g(std::numeric_limits<float>::lowest());
    ScaledDotProductAttentionFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, g.t, g.inputs);
    EXPECT_TRUE(r.changed);
    EXPECT_LE(r.max_abs_diff, 1e-6);  // the hidden row stays uniform too
    EXPECT_EQ(r.types, (std::map<std::string, int>{{"Broadcast", 2}, {"Parameter", 4}, {"Reshape", 2}, {"Result", 2},
                                                  {"ScaledDotProductAttention", 1}, {"Select", 1}, {"ShapeOf", 1},
                                                  {"Unsqueeze", 2}}));
    Node sdpa = g.t->find_by_name("context");
    ASSERT_TRUE(sdpa.is("ScaledDotProductAttention"));
    // K: Reshape(Broadcast(Unsqueeze(k, 2), [1, 1, 2, 1, 1]), [0, 4, -1, 8]) — also for the ShapeOf.
    Node reshape = sdpa.in(1).src().node();
    ASSERT_TRUE(reshape.is("Reshape"));
    EXPECT_EQ(reshape.in(1).value()->to_i64(), (std::vector<int64_t>{0, 4, -1, 8}));
    Node broadcast = reshape.in(0).src().node();
    ASSERT_TRUE(broadcast.is("Broadcast"));
    EXPECT_EQ(broadcast.attr<std::string>("mode"), "bidirectional");
    EXPECT_EQ(broadcast.in(1).value()->to_i64(), (std::vector<int64_t>{1, 1, 2, 1, 1}));
    Node unsqueeze = broadcast.in(0).src().node();
    ASSERT_TRUE(unsqueeze.is("Unsqueeze"));
    EXPECT_EQ(unsqueeze.in(0).src().node().name(), "k");
    EXPECT_EQ(unsqueeze.in(1).value()->to_i64(), std::vector<int64_t>{2});
    EXPECT_EQ(g.t->find_by_name("key_length").in(0).src().node(), reshape);
    // The mask: the additive Select(seen, 0, lowest).
    Node mask = sdpa.in(3).src().node();
    ASSERT_TRUE(mask.is("Select"));
    EXPECT_EQ(mask.in(1).value()->to_f64(), std::vector<double>{0.0});
    EXPECT_EQ(mask.in(2).value()->to_f64(), std::vector<double>{std::numeric_limits<float>::lowest()});
}

TEST(ScaledDotProductAttentionFusion, SelectWithAFillOtherThanLowestOrMinusInfinityStays) {
    Grouped g(-10000.f);  // scores + -10000 is not Select's -10000
    ScaledDotProductAttentionFusion pass;
    test::infer(g.t.graph());
    EXPECT_FALSE(test::run_pass(pass, g.t.graph()));
    Grouped inf(-std::numeric_limits<float>::infinity());
    test::infer(inf.t.graph());
    EXPECT_TRUE(test::run_pass(pass, inf.t.graph()));
}

// PyTorch's rotate_half exported to ONNX: Concat(Neg(x[..., 4:]), x[..., :4]) along axis -1.
TEST(RotateHalfForRoPEFusion, ExportedRotateHalfTakesTheFormOpenVINOsRoPEFusionMatches) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {1, 2, 3, 8}, "x");
    auto slice = [&](int64_t start, int64_t stop, const std::string& name) {
        return t.op("Slice", {x, i64s(t, {start}, name + "/start"), i64s(t, {stop}, name + "/stop"), i64s(t, {1}, name + "/step"),
                              i64s(t, {-1}, name + "/axes")},
                    {}, name);
    };
    auto x1 = slice(0, 4, "x1");
    auto x2 = slice(4, std::numeric_limits<int64_t>::max(), "x2");
    auto rotated = t.op("Concat", {t.op("Negative", {x2}, {}, "neg"), x1}, {{"axis", int64_t{-1}}}, "rotate_half");
    t.output(rotated, "out");
    RotateHalfForRoPEFusion pass;
    test::FusionOutcome r = test::run_fusion(pass, t, {{"x", test::ramp({1, 2, 3, 8}, -2, 2)}});
    EXPECT_TRUE(r.changed);
    EXPECT_EQ(r.max_abs_diff, 0.0);
    Node concat = t->find_by_name("rotate_half");
    EXPECT_EQ(concat.attr<int64_t>("axis"), -1);
    Node negated = concat.in(0).src().node();
    ASSERT_TRUE(negated.is("Multiply"));
    EXPECT_EQ(negated.in(1).value()->to_f64(), std::vector<double>{-1.0});
    auto expect_slice = [](Node s, int64_t start, int64_t stop) {
        ASSERT_TRUE(s.is("Slice"));
        EXPECT_EQ(s.in(1).value()->to_i64(), std::vector<int64_t>{start});
        EXPECT_EQ(s.in(2).value()->to_i64(), std::vector<int64_t>{stop});
        EXPECT_EQ(s.in(3).value()->to_i64(), std::vector<int64_t>{1});
        EXPECT_EQ(s.in(4).value()->to_i64(), std::vector<int64_t>{3});
    };
    expect_slice(negated.in(0).src().node(), 4, std::numeric_limits<int32_t>::max());
    expect_slice(concat.in(1).src().node(), 0, 4);
    EXPECT_FALSE(test::run_pass(pass, t.graph()));  // already in the form
}

TEST(RotateHalfForRoPEFusion, OtherSlicesAreNotRotateHalf) {
    for (int64_t half : {3, 4}) {
        TestGraph t;
        auto x = t.input(ElementType::f32, {1, 2, 3, 8}, "x");
        auto slice = [&](int64_t start, int64_t stop, const std::string& name) {
            return t.op("Slice", {x, i64s(t, {start}, name + "/start"), i64s(t, {stop}, name + "/stop"),
                                  i64s(t, {1}, name + "/step"), i64s(t, {3}, name + "/axes")},
                        {}, name);
        };
        // [-x[3:], x[:3]] of an 8-wide head is not the halves; [-x[4:], x[:4]] is
        t.output(t.op("Concat", {t.op("Negative", {slice(half, 8, "x2")}, {}, "neg"), slice(0, half, "x1")},
                      {{"axis", int64_t{3}}}, "c"),
                 "out");
        test::infer(t.graph());
        RotateHalfForRoPEFusion pass;
        EXPECT_EQ(test::run_pass(pass, t.graph()), half == 4) << half;
    }
}

}  // namespace
}  // namespace mo
