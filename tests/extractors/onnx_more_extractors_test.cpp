#include <gtest/gtest.h>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

TEST(OnnxExtractMore, PowConvertsTheExponentToTheBaseType) {
    OnnxModelBuilder m(13);
    m.input("x", {3});
    m.input("e", {3}, onnx::TensorProto::INT64);
    m.node("Pow", {"x", "e"}, {"y"}, {}, "pow");
    m.output("y");
    auto g = convert_onnx(m, "pow.onnx");
    Node p = output_node(*g);
    ASSERT_TRUE(p.is("Power"));
    Node conv = p.in(1).src().node();
    ASSERT_TRUE(conv.is("Convert"));
    EXPECT_EQ(conv.attr<ElementType>("destination_type"), ElementType::f32);
}

TEST(OnnxExtractMore, DropoutMaskIsAllTrue) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 2});
    m.node("Dropout", {"x"}, {"y", "mask"}, {}, "drop");
    m.output("y");
    m.output("mask", onnx::TensorProto::BOOL);
    auto g = convert_onnx(m, "dropout_mask.onnx");
    EXPECT_EQ(output_node(*g, 0), g->parameters()[0]);
    Node mask = output_node(*g, 1);
    ASSERT_TRUE(mask.is("Broadcast"));
    const Tensor* t = mask.in(0).value();
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->type(), ElementType::boolean);
    EXPECT_EQ(t->to_i64(), (Ints{1}));
    EXPECT_TRUE(mask.in(1).src().node().is("ShapeOf"));
}

// Training mode with a constant ratio of 0 drops nothing: the same identity; any other ratio is refused.
TEST(OnnxExtractMore, TrainingDropoutWithRatioZeroIsAnIdentity) {
    for (float ratio : {0.0f, 0.5f}) {
        OnnxModelBuilder m(13);
        m.input("x", {2, 2});
        m.initializer("ratio", std::vector<float>{ratio}, {});
        m.input("training", {}, onnx::TensorProto::BOOL);
        m.node("Dropout", {"x", "ratio", "training"}, {"y"}, {}, "drop");
        m.output("y");
        if (ratio == 0.0f) {
            auto g = convert_onnx(m, "dropout_training.onnx");
            EXPECT_EQ(output_node(*g, 0), g->parameters()[0]);
        } else {
            EXPECT_THROW(convert_onnx(m, "dropout_training_half.onnx"), Error);
        }
    }
}

TEST(OnnxExtractMore, LayerNormalizationIsMvnTimesScalePlusBias) {
    OnnxModelBuilder m(17);
    m.input("x", {2, 3, 4});
    m.initializer("scale", std::vector<float>(12, 2.f), {3, 4});
    m.initializer("bias", std::vector<float>(12, 1.f), {3, 4});
    m.node("LayerNormalization", {"x", "scale", "bias"}, {"y"}, {{"axis", -2}, {"epsilon", 1e-3f}}, "ln");
    m.output("y");
    auto g = convert_onnx(m, "layernorm.onnx");
    Node add = output_node(*g);
    ASSERT_TRUE(add.is("Add"));
    EXPECT_EQ(add.name(), "ln");
    Node mul = add.in(0).src().node();
    ASSERT_TRUE(mul.is("Multiply"));
    Node mvn = mul.in(0).src().node();
    ASSERT_TRUE(mvn.is("MVN"));
    EXPECT_EQ(const_ints(mvn, 1), (Ints{-2, -1}));
    EXPECT_NEAR(mvn.attr<double>("eps"), 1e-3, 1e-9);
    EXPECT_TRUE(mvn.attr<bool>("normalize_variance"));
    EXPECT_EQ(mvn.attr<std::string>("eps_mode"), "inside_sqrt");
}

// A hostile axis (found by fuzz_onnx: -996432412673 made the extractor list a trillion axes).
TEST(OnnxExtractMore, LayerNormalizationAxisBeyondTheRank) {
    OnnxModelBuilder known(17);
    known.input("x", {3, 4});
    known.node("LayerNormalization", {"x"}, {"y"}, {{"axis", int64_t{-996432412673}}}, "ln");
    known.output("y");
    EXPECT_NE(extract_error(known, "ln_axis.onnx").find("axis -996432412673 is outside the input's rank 2"),
              std::string::npos);
    // Without a known rank the axes are Range(axis, 0): nothing as long as the axis is built.
    OnnxModelBuilder unknown(17);
    unknown.input_any_rank("x");
    unknown.node("LayerNormalization", {"x"}, {"y"}, {{"axis", int64_t{-996432412673}}}, "ln");
    unknown.output("y");
    auto g = convert_onnx(unknown, "ln_axis_any_rank.onnx");
    Node mvn = output_node(*g);
    ASSERT_TRUE(mvn.is("MVN"));
    EXPECT_TRUE(mvn.in(1).src().node().is("Range"));
}

// A 2-D kernel over a rank-3 input (found by fuzz_onnx: storage_order=1 then indexed dim 3 of the
// input, and std::out_of_range escaped as an internal error).
TEST(OnnxExtractMore, MaxPoolKernelRankMustMatchTheInput) {
    OnnxModelBuilder m(12);
    m.input("x", {1, 5, 5});
    m.node("MaxPool", {"x"}, {"y", "i"}, {{"kernel_shape", {2, 2}}, {"storage_order", 1}});
    m.output("y");
    m.output("i", onnx::TensorProto::INT64);
    EXPECT_NE(extract_error(m, "max_pool_rank.onnx").find("the input has rank 3 but kernel_shape has 2 dims"),
              std::string::npos);
}

TEST(OnnxExtractMore, InstanceNormalizationReshapesScaleAndBiasPerChannel) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 2, 3, 3});
    m.initializer("s", {1.f, 2.f}, {2});
    m.initializer("b", {3.f, 4.f}, {2});
    m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}, {{"epsilon", 0.5f}});
    m.output("y");
    auto g = convert_onnx(m, "instnorm.onnx");
    Node add = output_node(*g);
    ASSERT_TRUE(add.is("Add"));
    Node bias_shape = add.in(1).src().node();
    ASSERT_TRUE(bias_shape.is("Reshape"));
    EXPECT_EQ(const_ints(bias_shape, 1), (Ints{1, -1, 1, 1}));
    Node mvn = add.in(0).src().node().in(0).src().node();
    ASSERT_TRUE(mvn.is("MVN"));
    EXPECT_EQ(const_ints(mvn, 1), (Ints{2, 3}));
    EXPECT_DOUBLE_EQ(mvn.attr<double>("eps"), 0.5);
}

TEST(OnnxExtractMore, ConstantOfShapeAndExpandAreBroadcasts) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 3});
    m.initializer_i64("shape", {2, 3}, {2});
    m.node("ConstantOfShape", {"shape"}, {"c"}, {{"value", onnx_tensor_i64("", {7}, {1})}}, "cos");
    m.node("Expand", {"x", "shape"}, {"e"}, {}, "expand");
    m.output("c", onnx::TensorProto::INT64);
    m.output("e");
    auto g = convert_onnx(m, "broadcasts.onnx");
    Node c = output_node(*g, 0), e = output_node(*g, 1);
    ASSERT_TRUE(c.is("Broadcast"));
    EXPECT_EQ(c.attr<std::string>("mode"), "numpy");
    ASSERT_NE(c.in(0).value(), nullptr);
    EXPECT_EQ(c.in(0).value()->shape(), Shape{});
    EXPECT_EQ(c.in(0).value()->to_i64(), (Ints{7}));
    EXPECT_EQ(const_ints(c, 1), (Ints{2, 3}));
    ASSERT_TRUE(e.is("Broadcast"));
    EXPECT_EQ(e.attr<std::string>("mode"), "bidirectional");
}

TEST(OnnxExtractMore, TopKAndArgMax) {
    OnnxModelBuilder m(11);
    m.input("x", {2, 5});
    m.initializer_i64("k", {3}, {1});
    m.node("TopK", {"x", "k"}, {"v", "i"}, {{"largest", 0}, {"axis", 1}}, "topk");
    m.node("ArgMax", {"x"}, {"am"}, {{"axis", 1}, {"keepdims", 0}}, "argmax");
    m.output("v");
    m.output("i", onnx::TensorProto::INT64);
    m.output("am", onnx::TensorProto::INT64);
    auto g = convert_onnx(m, "topk.onnx");
    Node t = output_node(*g, 0);
    ASSERT_TRUE(t.is("TopK"));
    EXPECT_EQ(output_node(*g, 1), t);
    EXPECT_EQ(g->results()[1].in(0).src().index(), 1u);
    EXPECT_EQ(t.attr<std::string>("mode"), "min");
    EXPECT_EQ(t.attr<std::string>("sort"), "value");
    EXPECT_EQ(t.attr<int64_t>("axis"), 1);
    Node am = output_node(*g, 2);
    ASSERT_TRUE(am.is("Squeeze"));
    EXPECT_EQ(const_ints(am, 1), (Ints{1}));
    Node am_topk = am.in(0).src().node();
    ASSERT_TRUE(am_topk.is("TopK"));
    EXPECT_EQ(am.in(0).src().index(), 1u);
    EXPECT_EQ(am_topk.attr<std::string>("mode"), "max");
    EXPECT_TRUE(am_topk.attr<bool>("stable"));
    EXPECT_EQ(const_ints(am_topk, 1), (Ints{1}));
}

TEST(OnnxExtractMore, UpsampleOpset7UsesItsScalesAttribute) {
    OnnxModelBuilder m(7);
    m.input("x", {1, 1, 2, 2});
    m.node("Upsample", {"x"}, {"y"}, {{"scales", std::vector<float>{1.f, 1.f, 2.f, 3.f}}});
    m.output("y");
    auto g = convert_onnx(m, "upsample7.onnx");
    Node n = output_node(*g);
    ASSERT_TRUE(n.is("Interpolate"));
    EXPECT_EQ(n.attr<std::string>("mode"), "nearest");
    EXPECT_EQ(n.attr<std::string>("coordinate_transformation_mode"), "asymmetric");
    EXPECT_EQ(n.attr<std::string>("nearest_mode"), "floor");
    EXPECT_EQ(const_values(n, 1), (Doubles{1, 1, 2, 3}));
}

TEST(OnnxExtractMore, PadOpset2AttributesAndReflectMode) {
    OnnxModelBuilder m(7);
    m.input("x", {3, 3});
    m.node("Pad", {"x"}, {"y"}, {{"pads", {1, 0, 0, 2}}, {"mode", "reflect"}});
    m.output("y");
    auto g = convert_onnx(m, "pad2.onnx");
    Node p = output_node(*g);
    ASSERT_TRUE(p.is("Pad"));
    EXPECT_EQ(p.attr<std::string>("pad_mode"), "reflect");
    EXPECT_EQ(const_ints(p, 1), (Ints{1, 0}));
    EXPECT_EQ(const_ints(p, 2), (Ints{0, 2}));
    EXPECT_EQ(p.input_count(), 3u);  // no pad value outside constant mode
}

TEST(OnnxExtractMore, ConstantNodeValuesReachTheirConsumers) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 6});
    m.node("Constant", {}, {"axes"}, {{"value", onnx_tensor_i64("", {0}, {1})}});
    m.node("Unsqueeze", {"x", "axes"}, {"y"}, {}, "unsqueeze");
    m.output("y");
    auto g = convert_onnx(m, "const_axes.onnx");
    Node u = output_node(*g);
    ASSERT_TRUE(u.is("Unsqueeze"));
    EXPECT_EQ(const_ints(u, 1), (Ints{0}));
    EXPECT_EQ(u.out(0).shape(), (PartialShape{1, 2, 6}));  // inferred during extraction
}

TEST(OnnxExtractMore, BadAttributeTypeIsAnErrorNamingTheNode) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 1, 4, 4});
    m.node("MaxPool", {"x"}, {"y"}, {{"kernel_shape", "2x2"}}, "pool");
    m.output("y");
    try {
        convert_onnx(m, "bad_attr.onnx");
        FAIL() << "no error";
    } catch (const Error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("'pool'"), std::string::npos) << what;
        EXPECT_NE(what.find("kernel_shape"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace mo
