// The built-in transformation list: its size, its order, switching a pass off, and the whole
// pipeline on a small graph.
#include "transforms/transforms.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "support/op_test_util.hpp"
#include "transforms/back/make_stateful.hpp"
#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

std::vector<std::string> order_of(const TransformRegistry& r) {
    std::vector<std::string> ids;
    for (auto* t : r.order()) ids.push_back(t->id());
    return ids;
}

TEST(BuiltinTransforms, CountAndDeterministicOrder) {
    TransformRegistry r;
    register_builtin_transforms(r);
    EXPECT_EQ(r.size(), 6u + 38u);  // anchors + built-ins
    const std::vector<std::string> expected{
        "FrontStart", "InputPreprocessing", "OutputCut", "ReplaceSubgraphWithOp", "FrontFinish", "PartialInference",
        "StackedCopiesToInterpolate", "LayoutChange", "TorchvisionSSDPostprocessing", "MiddleStart", "ConstantsIntoBodies", "FoldConstantIf",
        "FuseBatchNormIntoConvolution", "BatchNormToBatchNormInference",
        "GeluFusion", "HSwishFusion", "HSigmoidFusion", "LayerNormToMVN", "PadFusion", "QuantizeDequantizeToFakeQuantize",
        "RotateHalfForRoPEFusion", "SoftPlusFusion", "MishFusion",
        "SoftmaxFusion", "ScaledDotProductAttentionFusion", "SwishFusion", "ConstantChainMerge", "ConvolutionMultiplyFusion", "UnrollLoop", "MiddleFinish",
        "ReportUnsupportedOps", "BackStart", "ClipToClamp", "FlattenToReshape", "GemmToMatMul", "NormalizeAxes",
        "ReplaceFoldedWithConstants", "MoveLayoutIntoCompressedWeights", "RemoveDeadNodes", "KeepPastForEmptyPresents", "MakeStateful", "CompressFloatConstantsToF16", "CheckOnlyOpsetOps",
        "BackFinish"};
    EXPECT_EQ(order_of(r), expected);
    TransformRegistry again;
    register_builtin_transforms(again);
    EXPECT_EQ(order_of(again), expected);
}

// x -> Conv -> BN -> Flatten -> Gemm -> Clip -> out; weights exactly representable in f16.
void build_pipeline_graph(TestGraph& t) {
    auto x = t.input(ElementType::f32, {1, 1, 2, 2}, "x");
    auto conv = t.op("Convolution", {x, t.constant<float>({1, -1}, {2, 1, 1, 1}, "w")}, test::conv2d_attrs(), "conv");
    auto bn = t.op("BatchNormalization",
                   {conv, t.constant<float>({4, 3}, {2}, "scale"), t.constant<float>({0.5f, -1}, {2}, "beta"),
                    t.constant<float>({1, 2}, {2}, "mean"), t.constant<float>({3, 0}, {2}, "var")},
                   {{"epsilon", AttrValue(1.0)}}, "bn");
    auto flat = t.op("Flatten", {bn}, {}, "flatten");
    std::vector<float> b(8 * 3);
    for (size_t i = 0; i < b.size(); ++i) b[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
    auto gemm = t.op("Gemm", {flat, t.constant<float>(b, {8, 3}, "B"), t.constant<float>({1, 2, 3}, {3}, "C")},
                     {{"alpha", AttrValue(0.5)}}, "gemm");
    auto clip = t.op("Clip", {gemm, t.constant<float>({-4}, {}, "lo"), t.constant<float>({4}, {}, "hi")}, {}, "clip");
    clip.names().push_back("y");
    t.output(clip, "out");
}

TEST(BuiltinTransforms, PipelineLowersEverythingAndKeepsNumbers) {
    TestGraph t;
    build_pipeline_graph(t);
    std::map<std::string, Tensor> in{{"x", Tensor::from_vector<float>({1, -2, 0.5f, 3}, {1, 1, 2, 2})}};
    auto before = test::evaluate(t.graph(), in).at(0).to_f64();

    TransformRegistry r;
    register_builtin_transforms(r);
    r.set_overrides({}, {});
    ConversionOptions opts;
    r.run_all(t.graph(), TransformContext{opts});

    std::map<std::string, int> types;
    for (Node n : t->nodes()) ++types[n.type()];
    EXPECT_EQ(types, (std::map<std::string, int>{{"Add", 2}, {"Clamp", 1}, {"Constant", 5}, {"Convert", 4},
                                                  {"Convolution", 1}, {"MatMul", 1}, {"Parameter", 1},
                                                  {"Reshape", 1}, {"Result", 1}}))
        << test::dump(t.graph());
    Node clamp = t->find_by_name("clip");
    ASSERT_TRUE(clamp);
    EXPECT_TRUE(clamp.is("Clamp"));
    EXPECT_EQ(clamp.out(0).names(), std::vector<std::string>{"y"});
    EXPECT_EQ(clamp.out(0).shape(), (PartialShape{1, 3}));
    auto after = test::evaluate(t.graph(), in).at(0).to_f64();
    ASSERT_EQ(after.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(after[i], before[i], 1e-6) << i;
}

TEST(BuiltinTransforms, DisabledLoweringLeavesAnInternalOpAndTheCheckNamesIt) {
    TestGraph t;
    build_pipeline_graph(t);
    TransformRegistry r;
    register_builtin_transforms(r);
    setenv("MO_DISABLED_TRANSFORMS", "GemmToMatMul", 1);
    r.apply_environment();
    unsetenv("MO_DISABLED_TRANSFORMS");
    EXPECT_FALSE(r.is_enabled(*r.find("GemmToMatMul")));
    ConversionOptions opts;
    try {
        r.run_all(t.graph(), TransformContext{opts});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(e.where().find("CheckOnlyOpsetOps"), std::string::npos);
        EXPECT_NE(e.where().find("'gemm' (Gemm)"), std::string::npos);
    }
    EXPECT_TRUE(t->find_by_name("gemm").is("Gemm"));
    EXPECT_TRUE(t->find_by_name("flatten").is("Reshape"));  // the others still ran
}

// Two caches and x concatenated into present.0.key, whose sum is y: both cache inputs pair with
// present.0.key by the naming convention.
void build_two_caches_one_present(TestGraph& t) {
    auto past_kv = t.input(ElementType::f32, PartialShape{1, Dimension::dynamic()}, "past_key_values.0.key");
    auto past = t.input(ElementType::f32, PartialShape{1, Dimension::dynamic()}, "past.0.key");
    auto x = t.input(ElementType::f32, {1, 1}, "x");
    auto present = t.op("Concat", {past_kv, past, x}, {{"axis", AttrValue(int64_t{1})}}, "cat");
    present.names().push_back("present.0.key");
    auto y = t.op("ReduceSum", {present, t.constant<int64_t>({1}, {1}, "axes")}, {{"keep_dims", AttrValue(true)}}, "rs");
    y.names().push_back("y");
    t.output(present, "present.0.key/sink_port_0");
    t.output(y, "y/sink_port_0");
    test::infer(t.graph());
}

TEST(MakeStateful, PairsSharingAnInputOrAnOutputAreRefusedBeforeAnythingChanges) {
    ConversionOptions options;
    options.make_stateful = true;
    auto expect_refused = [&](std::initializer_list<const char*> words) {
        TestGraph t;
        build_two_caches_one_present(t);
        const std::string before = test::dump(t.graph());
        MakeStateful pass;
        test::expect_error([&] { test::run_pass(pass, t.graph(), options); }, words);
        EXPECT_EQ(test::dump(t.graph()), before);
    };
    // By the convention: past_key_values.0.key and past.0.key both pair with present.0.key.
    expect_refused({"the pairs 'past_key_values.0.key':'present.0.key' and 'past.0.key':'present.0.key'",
                    "both use the output 'present.0.key'", "name each in one pair only"});
    options.stateful_pairs = {{"past_key_values.0.key", "present.0.key"}, {"x", "present.0.key"}};
    expect_refused({"the pairs 'past_key_values.0.key':'present.0.key' and 'x':'present.0.key'",
                    "both use the output 'present.0.key'"});
    options.stateful_pairs = {{"x", "y"}, {"x", "present.0.key"}};
    expect_refused({"the pairs 'x':'y' and 'x':'present.0.key'", "both use the input 'x'"});
    // A model that has its own beam_idx.
    options.stateful_pairs = {{"past_key_values.0.key", "present.0.key"}};
    {
        TestGraph t;
        build_two_caches_one_present(t);
        t.input(ElementType::i32, PartialShape{1}, "beam_idx");
        test::infer(t.graph());
        const std::string before = test::dump(t.graph());
        MakeStateful pass;
        test::expect_error([&] { test::run_pass(pass, t.graph(), options); }, {"already has an input named 'beam_idx'"});
        EXPECT_EQ(test::dump(t.graph()), before);
    }

    // Distinct pairs still become variables.
    options.stateful_pairs = {{"past_key_values.0.key", "present.0.key"}};
    TestGraph t;
    build_two_caches_one_present(t);
    MakeStateful pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph(), options));
    EXPECT_EQ(t->parameters().size(), 3u);  // past.0.key, x, beam_idx
    EXPECT_EQ(t->parameters().back().name(), "beam_idx");
    EXPECT_EQ(t->sinks().size(), 1u);
}

}  // namespace
}  // namespace mo
