#include <gtest/gtest.h>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

TEST(OnnxExtract, UnsupportedOpsAreListedAllAtOnceWithNodeNames) {
    OnnxModelBuilder m(13);
    m.input("x", {4});
    m.node("Foo", {"x"}, {"a"}, {}, "foo_1");
    m.node("Relu", {"a"}, {"b"}, {}, "relu");
    m.node("Foo", {"b"}, {"c"}, {}, "foo_2");
    m.node("Bar", {"c"}, {"y"}, {}, "bar_1");
    m.output("y");
    std::string e = extract_error(m, "unsupported.onnx");
    EXPECT_NE(e.find("2 op type(s) are not supported"), std::string::npos) << e;
    EXPECT_NE(e.find("onnx Foo (opset 13): foo_1, foo_2"), std::string::npos) << e;
    EXPECT_NE(e.find("onnx Bar (opset 13): bar_1"), std::string::npos) << e;
    EXPECT_EQ(e.find("relu"), std::string::npos) << e;
}

TEST(OnnxExtract, ExtractorsAreChosenByOpsetRange) {
    ExtractorRegistry r;
    register_onnx_extractors(r);
    EXPECT_NE(r.find("onnx", "", "Clip", 6), r.find("onnx", "", "Clip", 11));
    EXPECT_EQ(r.find("onnx", "", "Erf", 7), nullptr);  // Erf appeared in opset 9
    EXPECT_NE(r.find("onnx", "", "Erf", 9), nullptr);
    EXPECT_EQ(r.find("onnx", "com.example", "Relu", 13), nullptr);
    EXPECT_EQ(r.find("tflite", "", "Relu", 13), nullptr);
    EXPECT_EQ(r.find("onnx", "", "Add", 6), nullptr);  // the legacy broadcast attribute is not handled
    EXPECT_NE(r.find("onnx", "", "Add", 7), nullptr);
}

TEST(OnnxExtract, ConvWithBiasIsConvolutionPlusReshapedBias) {
    OnnxModelBuilder m(11);
    m.input("x", {1, 2, 5, 5});
    m.initializer("w", std::vector<float>(3 * 2 * 3 * 3, 1.f), {3, 2, 3, 3});
    m.initializer("b", {1.f, 2.f, 3.f}, {3});
    m.node("Conv", {"x", "w", "b"}, {"y"},
           {{"kernel_shape", {3, 3}}, {"strides", {2, 1}}, {"pads", {1, 0, 2, 1}}, {"dilations", {1, 2}}}, "conv");
    m.output("y");
    auto g = convert_onnx(m, "conv_bias.onnx");
    Node add = output_node(*g);
    EXPECT_TRUE(add.is("Add"));
    EXPECT_EQ(add.name(), "conv");
    EXPECT_EQ(add.out(0).names(), std::vector<std::string>{"y"});
    Node conv = add.in(0).src().node();
    ASSERT_TRUE(conv.is("Convolution"));
    EXPECT_EQ(conv.attr<Ints>("strides"), (Ints{2, 1}));
    EXPECT_EQ(conv.attr<Ints>("pads_begin"), (Ints{1, 0}));
    EXPECT_EQ(conv.attr<Ints>("pads_end"), (Ints{2, 1}));
    EXPECT_EQ(conv.attr<Ints>("dilations"), (Ints{1, 2}));
    EXPECT_EQ(conv.attr<std::string>("auto_pad"), "explicit");
    EXPECT_EQ(conv.in(0).src(), g->parameters()[0].out(0));
    const Tensor* bias = add.in(1).value();
    ASSERT_NE(bias, nullptr);
    EXPECT_EQ(bias->shape(), (Shape{1, 3, 1, 1}));
    EXPECT_EQ(bias->to_f64(), (Doubles{1, 2, 3}));
}

TEST(OnnxExtract, GroupConvReshapesWeightsAndMapsAutoPad) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 4, 5, 5});
    m.initializer("w", std::vector<float>(6 * 2 * 1 * 1, 0.5f), {6, 2, 1, 1});
    m.node("Conv", {"x", "w"}, {"y"}, {{"group", 2}, {"auto_pad", "SAME_UPPER"}, {"pads", {1, 1, 1, 1}}}, "gconv");
    m.output("y");
    auto g = convert_onnx(m, "group_conv.onnx");
    Node conv = output_node(*g);
    ASSERT_TRUE(conv.is("GroupConvolution"));
    EXPECT_EQ(conv.name(), "gconv");
    EXPECT_EQ(conv.attr<std::string>("auto_pad"), "same_upper");
    EXPECT_EQ(conv.attr<Ints>("pads_begin"), (Ints{0, 0}));  // auto_pad overrides pads
    EXPECT_EQ(conv.attr<Ints>("strides"), (Ints{1, 1}));
    const Tensor* w = conv.in(1).value();
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->shape(), (Shape{2, 3, 2, 1, 1}));
}

TEST(OnnxExtract, ConvTransposeGetsOutputPaddingAndGroupedWeights) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 4, 3, 3});
    m.initializer("w", std::vector<float>(4 * 3 * 2 * 2, 1.f), {4, 3, 2, 2});  // [C_in, C_out/G, k, k]
    m.node("ConvTranspose", {"x", "w"}, {"y"}, {{"group", 2}, {"strides", {2, 2}}, {"output_padding", {1, 0}}});
    m.output("y");
    auto g = convert_onnx(m, "deconv.onnx");
    Node n = output_node(*g);
    ASSERT_TRUE(n.is("GroupConvolutionBackpropData"));
    EXPECT_EQ(n.attr<Ints>("output_padding"), (Ints{1, 0}));
    EXPECT_EQ(n.attr<Ints>("strides"), (Ints{2, 2}));
    ASSERT_NE(n.in(1).value(), nullptr);
    EXPECT_EQ(n.in(1).value()->shape(), (Shape{2, 2, 3, 2, 2}));
}

TEST(OnnxExtract, MaxPoolDefaultsPerOpsetAndCeilMode) {
    OnnxModelBuilder m8(8);
    m8.input("x", {1, 1, 6, 6});
    m8.node("MaxPool", {"x"}, {"y"}, {{"kernel_shape", {2, 2}}}, "pool");
    m8.output("y");
    auto g = convert_onnx(m8, "maxpool8.onnx");
    Node p = output_node(*g);
    ASSERT_TRUE(p.is("MaxPool"));
    EXPECT_EQ(p.name(), "pool");
    EXPECT_EQ(p.attr<Ints>("kernel"), (Ints{2, 2}));
    EXPECT_EQ(p.attr<Ints>("strides"), (Ints{1, 1}));
    EXPECT_EQ(p.attr<Ints>("dilations"), (Ints{1, 1}));
    EXPECT_EQ(p.attr<Ints>("pads_begin"), (Ints{0, 0}));
    EXPECT_EQ(p.attr<Ints>("pads_end"), (Ints{0, 0}));
    EXPECT_EQ(p.attr<std::string>("rounding_type"), "floor");
    EXPECT_EQ(p.attr<std::string>("auto_pad"), "explicit");

    OnnxModelBuilder m10(10);
    m10.input("x", {1, 1, 6, 6});
    m10.node("MaxPool", {"x"}, {"y"},
             {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"ceil_mode", 1}, {"dilations", {2, 1}}, {"pads", {0, 1, 1, 0}}});
    m10.output("y");
    g = convert_onnx(m10, "maxpool10.onnx");
    p = output_node(*g);
    EXPECT_EQ(p.attr<std::string>("rounding_type"), "ceil");
    EXPECT_EQ(p.attr<Ints>("dilations"), (Ints{2, 1}));
    EXPECT_EQ(p.attr<Ints>("pads_begin"), (Ints{0, 1}));
    EXPECT_EQ(p.attr<Ints>("pads_end"), (Ints{1, 0}));
}

TEST(OnnxExtract, AveragePoolExcludePadIsTheInverseOfCountIncludePad) {
    for (int include : {0, 1}) {
        OnnxModelBuilder m(11);
        m.input("x", {1, 1, 4, 4});
        m.node("AveragePool", {"x"}, {"y"}, {{"kernel_shape", {2, 2}}, {"count_include_pad", include}});
        m.output("y");
        auto g = convert_onnx(m, "avgpool.onnx");
        Node p = output_node(*g);
        ASSERT_TRUE(p.is("AvgPool"));
        EXPECT_EQ(p.attr<bool>("exclude-pad"), include == 0);
    }
}

TEST(OnnxExtract, GlobalAveragePoolIsReduceMeanOverSpatialAxes) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 3, 4, 5});
    m.node("GlobalAveragePool", {"x"}, {"y"}, {}, "gap");
    m.output("y");
    auto g = convert_onnx(m, "gap.onnx");
    Node r = output_node(*g);
    ASSERT_TRUE(r.is("ReduceMean"));
    EXPECT_EQ(r.name(), "gap");
    EXPECT_TRUE(r.attr<bool>("keep_dims"));
    EXPECT_EQ(const_ints(r, 1), (Ints{2, 3}));
}

TEST(OnnxExtract, GemmKeepsItsAttributes) {
    OnnxModelBuilder m(13);
    m.input("a", {3, 2});
    m.input("b", {4, 2});
    m.node("Gemm", {"a", "b"}, {"y"}, {{"alpha", 0.5f}, {"transB", 1}});
    m.output("y");
    auto g = convert_onnx(m, "gemm.onnx");
    Node n = output_node(*g);
    ASSERT_TRUE(n.is("Gemm"));
    EXPECT_DOUBLE_EQ(n.attr<double>("alpha"), 0.5);
    EXPECT_DOUBLE_EQ(n.attr<double>("beta"), 1.0);
    EXPECT_FALSE(n.attr<bool>("transA"));
    EXPECT_TRUE(n.attr<bool>("transB"));
    EXPECT_EQ(n.input_count(), 2u);
}

TEST(OnnxExtract, SliceOpset1AttributesBecomeInputs) {
    OnnxModelBuilder m(9);
    m.input("x", {4, 6});
    m.node("Slice", {"x"}, {"y"}, {{"starts", {1}}, {"ends", {3}}, {"axes", {1}}});
    m.output("y");
    auto g = convert_onnx(m, "slice1.onnx");
    Node s = output_node(*g);
    ASSERT_TRUE(s.is("Slice"));
    EXPECT_EQ(const_ints(s, 1), (Ints{1}));
    EXPECT_EQ(const_ints(s, 2), (Ints{3}));
    EXPECT_EQ(const_ints(s, 3), (Ints{1}));
    EXPECT_EQ(const_ints(s, 4), (Ints{1}));
}

TEST(OnnxExtract, SliceOpset10InputsGetDefaultSteps) {
    OnnxModelBuilder m(13);
    m.input("x", {4, 6});
    m.initializer_i64("starts", {0, 1}, {2});
    m.initializer_i64("ends", {2, 5}, {2});
    m.node("Slice", {"x", "starts", "ends"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "slice10.onnx");
    Node s = output_node(*g);
    ASSERT_TRUE(s.is("Slice"));
    EXPECT_EQ(s.input_count(), 4u);  // no axes: Slice defaults them to 0..n-1
    EXPECT_EQ(const_ints(s, 1), (Ints{0, 1}));
    EXPECT_EQ(const_ints(s, 2), (Ints{2, 5}));
    EXPECT_EQ(const_ints(s, 3), (Ints{1, 1}));
}

TEST(OnnxExtract, SoftmaxBeforeOpset13FlattensUnlessAxisIsLast) {
    OnnxModelBuilder m(11);
    m.input("x", {2, 3, 4});
    m.node("Softmax", {"x"}, {"y"}, {}, "sm");  // axis defaults to 1
    m.output("y");
    auto g = convert_onnx(m, "softmax11.onnx");
    Node reshape = output_node(*g);
    ASSERT_TRUE(reshape.is("Reshape"));
    EXPECT_EQ(reshape.name(), "sm");
    Node sm = reshape.in(0).src().node();
    ASSERT_TRUE(sm.is("Softmax"));
    EXPECT_EQ(sm.attr<int64_t>("axis"), 1);
    Node flat = sm.in(0).src().node();
    ASSERT_TRUE(flat.is("Flatten"));
    EXPECT_EQ(flat.attr<int64_t>("axis"), 1);
    EXPECT_TRUE(reshape.in(1).src().node().is("ShapeOf"));

    OnnxModelBuilder last(11);
    last.input("x", {2, 3, 4});
    last.node("Softmax", {"x"}, {"y"}, {{"axis", 2}});
    last.output("y");
    g = convert_onnx(last, "softmax11_last.onnx");
    Node direct = output_node(*g);
    ASSERT_TRUE(direct.is("Softmax"));
    EXPECT_EQ(direct.in(0).src(), g->parameters()[0].out(0));

    OnnxModelBuilder m13(13);
    m13.input("x", {2, 3, 4});
    m13.node("Softmax", {"x"}, {"y"});
    m13.output("y");
    g = convert_onnx(m13, "softmax13.onnx");
    Node s13 = output_node(*g);
    ASSERT_TRUE(s13.is("Softmax"));
    EXPECT_EQ(s13.attr<int64_t>("axis"), -1);
}

TEST(OnnxExtract, IdentityAsGraphOutputKeepsTheResultAndName) {
    OnnxModelBuilder m(13);
    m.input("x", {4});
    m.node("Relu", {"x"}, {"r"}, {}, "relu");
    m.node("Identity", {"r"}, {"y"});
    m.node("Dropout", {"y"}, {"z"});
    m.output("y");
    m.output("z");
    auto g = convert_onnx(m, "identity.onnx");
    ASSERT_EQ(g->results().size(), 2u);
    Node relu = output_node(*g, 0);
    EXPECT_TRUE(relu.is("Relu"));
    EXPECT_EQ(output_node(*g, 1), relu);
    EXPECT_EQ(relu.out(0).names(), (std::vector<std::string>{"r", "y", "z"}));
    EXPECT_EQ(g->node_count(), 4u);  // x, relu, 2 results
}

TEST(OnnxExtract, LeakyReluIsPReluWithAScalarSlope) {
    OnnxModelBuilder m(13);
    m.input("x", {4});
    m.node("LeakyRelu", {"x"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "leaky.onnx");
    Node n = output_node(*g);
    ASSERT_TRUE(n.is("PRelu"));
    const Tensor* slope = n.in(1).value();
    ASSERT_NE(slope, nullptr);
    EXPECT_EQ(slope->type(), ElementType::f32);
    EXPECT_EQ(slope->shape(), Shape{});
    EXPECT_NEAR(slope->to_f64()[0], 0.01, 1e-7);
}

TEST(OnnxExtract, ClipBeforeOpset11IsClampAfterIsInternalClip) {
    OnnxModelBuilder m6(7);
    m6.input("x", {4});
    m6.node("Clip", {"x"}, {"y"}, {{"min", 0.f}, {"max", 6.f}});
    m6.output("y");
    auto g = convert_onnx(m6, "clip6.onnx");
    Node n = output_node(*g);
    ASSERT_TRUE(n.is("Clamp"));
    EXPECT_DOUBLE_EQ(n.attr<double>("min"), 0.0);
    EXPECT_DOUBLE_EQ(n.attr<double>("max"), 6.0);

    OnnxModelBuilder m11(11);
    m11.input("x", {4});
    m11.initializer("hi", {6.f}, {});
    m11.node("Clip", {"x", "", "hi"}, {"y"});
    m11.output("y");
    g = convert_onnx(m11, "clip11.onnx");
    n = output_node(*g);
    ASSERT_TRUE(n.is("Clip"));
    EXPECT_EQ(n.input_count(), 3u);
    EXPECT_FALSE(n.in(1).connected());
    EXPECT_EQ(const_values(n, 2), (Doubles{6}));
}

TEST(OnnxExtract, ShapeOpsGetTheirInputsAsConstants) {
    OnnxModelBuilder m(11);
    m.input("x", {2, 3, 4});
    m.initializer_i64("shape", {0, -1}, {2});
    m.node("Reshape", {"x", "shape"}, {"r"}, {}, "reshape");
    m.node("Transpose", {"r"}, {"t"}, {}, "transpose");  // no perm: reversed axes
    m.node("Split", {"t"}, {"s1", "s2"}, {{"axis", 0}, {"split", {4, 8}}}, "split");
    m.node("Unsqueeze", {"s1"}, {"u"}, {{"axes", {0}}}, "unsqueeze");
    m.node("Gather", {"u", "shape"}, {"gathered"}, {{"axis", 1}}, "gather");
    m.node("Cast", {"gathered"}, {"y"}, {{"to", int64_t{onnx::TensorProto::FLOAT16}}}, "cast");
    m.output("y", onnx::TensorProto::FLOAT16);
    m.output("s2");
    auto g = convert_onnx(m, "shape_ops.onnx");
    Node reshape = g->find_by_name("reshape");
    ASSERT_TRUE(reshape.is("Reshape"));
    EXPECT_TRUE(reshape.attr<bool>("special_zero"));
    Node transpose = g->find_by_name("transpose");
    ASSERT_TRUE(transpose.is("Transpose"));
    EXPECT_EQ(const_ints(transpose, 1), (Ints{1, 0}));  // rank 2 is known from Reshape's inference
    Node split = g->find_by_name("split");
    ASSERT_TRUE(split.is("VariadicSplit"));
    EXPECT_EQ(const_ints(split, 1), (Ints{0}));
    EXPECT_EQ(const_ints(split, 2), (Ints{4, 8}));
    EXPECT_EQ(output_node(*g, 1), split);
    EXPECT_EQ(g->results()[1].in(0).src().index(), 1u);
    Node unsqueeze = g->find_by_name("unsqueeze");
    EXPECT_EQ(const_ints(unsqueeze, 1), (Ints{0}));
    Node gather = g->find_by_name("gather");
    ASSERT_TRUE(gather.is("Gather"));
    EXPECT_EQ(const_ints(gather, 2), (Ints{1}));
    Node cast = output_node(*g);
    ASSERT_TRUE(cast.is("Convert"));
    EXPECT_EQ(cast.attr<ElementType>("destination_type"), ElementType::f16);
}

TEST(OnnxExtract, ReshapeAllowZeroDisablesSpecialZero) {
    OnnxModelBuilder m(14);
    m.input("x", {2, 3});
    m.initializer_i64("shape", {3, 2}, {2});
    m.node("Reshape", {"x", "shape"}, {"y"}, {{"allowzero", 1}});
    m.output("y");
    auto g = convert_onnx(m, "allowzero.onnx");
    EXPECT_FALSE(output_node(*g).attr<bool>("special_zero"));
}

TEST(OnnxExtract, SplitOpset13TakesSplitAsInputAndEqualSplitUsesSplit) {
    OnnxModelBuilder m(13);
    m.input("x", {6});
    m.node("Split", {"x"}, {"a", "b", "c"}, {}, "split");
    m.output("a");
    m.output("c");
    auto g = convert_onnx(m, "split13.onnx");
    Node s = output_node(*g);
    ASSERT_TRUE(s.is("Split"));
    EXPECT_EQ(s.attr<int64_t>("num_splits"), 3);
    EXPECT_EQ(s.output_count(), 3u);
    EXPECT_EQ(g->results()[1].in(0).src().index(), 2u);
}

TEST(OnnxExtract, ConstantNodesBecomeConstants) {
    OnnxModelBuilder m(13);
    m.node("Constant", {}, {"c"}, {{"value", onnx_tensor("", {1.f, 2.f}, {2})}}, "const");
    m.node("Constant", {}, {"d"}, {{"value_ints", {4, 5, 6}}});
    m.output("c");
    m.output("d", onnx::TensorProto::INT64);
    auto g = convert_onnx(m, "constant.onnx");
    Node c = output_node(*g, 0), d = output_node(*g, 1);
    ASSERT_TRUE(c.is("Constant"));
    EXPECT_EQ(c.name(), "const");
    EXPECT_EQ(c.out(0).value()->to_f64(), (Doubles{1, 2}));
    EXPECT_EQ(c.out(0).names(), std::vector<std::string>{"c"});
    EXPECT_EQ(d.out(0).value()->to_i64(), (Ints{4, 5, 6}));
    EXPECT_EQ(d.out(0).value()->type(), ElementType::i64);
}

TEST(OnnxExtract, ReductionAxesFromAttributeOrInput) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 3, 4});
    m.initializer_i64("axes", {1}, {1});
    m.node("ReduceMean", {"x"}, {"a"}, {{"axes", {-1}}, {"keepdims", 0}}, "mean");
    m.node("ReduceSum", {"x", "axes"}, {"b"}, {}, "sum");
    m.node("ReduceMax", {"x"}, {"c"}, {}, "max");
    m.output("a");
    m.output("b");
    m.output("c");
    auto g = convert_onnx(m, "reduce.onnx");
    Node mean = output_node(*g, 0), sum = output_node(*g, 1), max = output_node(*g, 2);
    ASSERT_TRUE(mean.is("ReduceMean"));
    EXPECT_FALSE(mean.attr<bool>("keep_dims"));
    EXPECT_EQ(const_ints(mean, 1), (Ints{-1}));
    ASSERT_TRUE(sum.is("ReduceSum"));
    EXPECT_TRUE(sum.attr<bool>("keep_dims"));
    EXPECT_EQ(const_ints(sum, 1), (Ints{1}));
    ASSERT_TRUE(max.is("ReduceMax"));
    EXPECT_EQ(const_ints(max, 1), (Ints{0, 1, 2}));  // no axes: all of them
}

// Opset 18 moved every reduction's axes into an input (ReduceSum's since 13); they were read from
// the absent attribute, and ReduceMax-18 of [[1, 2], [3, 4]] over axis 1 gave 4 instead of [2, 4].
TEST(OnnxExtract, Opset18ReductionsTakeTheirAxesFromTheInput) {
    OnnxModelBuilder m(18);
    m.initializer("x", {1, 2, 3, 4}, {2, 2});
    m.initializer_i64("axes", {1}, {1});
    m.node("ReduceMax", {"x", "axes"}, {"y"}, {{"keepdims", 0}});
    m.output("y");
    auto g = convert_onnx(m, "reduce18.onnx");
    expect_near(evaluate(*g, {}).at(0).to_f64(), {2, 4});
}

// Resize-18's antialias, axes and keep_aspect_ratio_policy were ignored: refused unless default.
TEST(OnnxExtract, Resize18AdditionsAreRefusedUnlessDefault) {
    for (const OnnxAttr& attr : {OnnxAttr("keep_aspect_ratio_policy", "not_larger"), OnnxAttr("antialias", 1),
                                 OnnxAttr("axes", {2, 3})}) {
        OnnxModelBuilder m(18);
        m.input("x", {1, 1, 2, 4});
        m.initializer_i64("sizes", {1, 1, 4, 4}, {4});
        m.node("Resize", {"x", "", "", "sizes"}, {"y"}, {attr});
        m.output("y");
        EXPECT_NE(extract_error(m, "resize18.onnx").find("not supported"), std::string::npos) << attr.name;
    }
}

TEST(OnnxExtract, ResizeChoosesSizesOrScales) {
    OnnxModelBuilder m(13);
    m.input("x", {1, 1, 2, 2});
    m.initializer_i64("sizes", {1, 1, 4, 6}, {4});
    m.initializer("scales", {1.f, 1.f, 2.f, 2.f}, {4});
    m.node("Resize", {"x", "", "", "sizes"}, {"a"}, {{"mode", "linear"}}, "by_sizes");
    m.node("Resize", {"x", "", "scales"}, {"b"},
           {{"mode", "nearest"}, {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}, "by_scales");
    m.output("a");
    m.output("b");
    auto g = convert_onnx(m, "resize.onnx");
    Node a = output_node(*g, 0), b = output_node(*g, 1);
    ASSERT_TRUE(a.is("Interpolate"));
    EXPECT_EQ(a.attr<std::string>("mode"), "linear_onnx");
    EXPECT_EQ(a.attr<std::string>("shape_calculation_mode"), "sizes");
    EXPECT_EQ(a.attr<std::string>("coordinate_transformation_mode"), "half_pixel");
    EXPECT_EQ(const_ints(a, 1), (Ints{1, 1, 4, 6}));
    EXPECT_EQ(b.attr<std::string>("mode"), "nearest");
    EXPECT_EQ(b.attr<std::string>("shape_calculation_mode"), "scales");
    EXPECT_EQ(b.attr<std::string>("coordinate_transformation_mode"), "asymmetric");
    EXPECT_EQ(b.attr<std::string>("nearest_mode"), "floor");
    EXPECT_EQ(const_values(b, 1), (Doubles{1, 1, 2, 2}));
}

// ONNX's align_corners divides by the unrounded output length L * scale, OpenVINO's by the
// rounded one: 4 * 0.6 = 2.4 would give different values, 4 * 0.5 = 2 and 2 * 2 = 4 do not.
TEST(OnnxExtract, ResizeAlignCornersConvertsOnlyWholeOutputLengths) {
    auto resize = [](std::vector<float> scales, std::vector<OnnxDim> dims) {
        OnnxModelBuilder m(13);
        m.input("x", dims);
        m.initializer("scales", scales, {4});
        m.node("Resize", {"x", "", "scales"}, {"y"},
               {{"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}}, "resize");
        m.output("y");
        return extract_error(m, "resize_align_corners.onnx");
    };
    EXPECT_EQ(resize({1, 1, 0.5f, 2}, {1, 1, 4, 4}), "no error");
    EXPECT_EQ(resize({1, 1, 2, 3}, {1, 1, "H", "W"}), "no error");  // whole scales: whole lengths
    std::string fractional = resize({1, 1, 0.6f, 0.6f}, {1, 1, 2, 4});
    EXPECT_NE(fractional.find("align_corners"), std::string::npos) << fractional;
    EXPECT_NE(fractional.find("not a whole number"), std::string::npos) << fractional;
    EXPECT_NE(fractional.find("resize"), std::string::npos) << fractional;  // the node
    std::string unknown = resize({1, 1, 0.5f, 0.5f}, {1, 1, "H", "W"});
    EXPECT_NE(unknown.find("not known at conversion time"), std::string::npos) << unknown;
}

TEST(OnnxExtract, PadSplitsPadsIntoBeginAndEnd) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 3});
    m.initializer_i64("pads", {0, 1, 2, 3}, {4});
    m.initializer("value", {1.5f}, {});
    m.node("Pad", {"x", "pads", "value"}, {"y"}, {{"mode", "constant"}});
    m.output("y");
    auto g = convert_onnx(m, "pad.onnx");
    Node p = output_node(*g);
    ASSERT_TRUE(p.is("Pad"));
    EXPECT_EQ(p.attr<std::string>("pad_mode"), "constant");
    EXPECT_EQ(const_ints(p, 1), (Ints{0, 1}));
    EXPECT_EQ(const_ints(p, 2), (Ints{2, 3}));
    EXPECT_EQ(const_values(p, 3), (Doubles{1.5}));
}

TEST(OnnxExtract, BinaryAndVariadicOpsMapToCanonicalNames) {
    OnnxModelBuilder m(13);
    m.input("a", {3});
    m.input("b", {3});
    m.node("Sub", {"a", "b"}, {"s"});
    m.node("GreaterOrEqual", {"a", "b"}, {"ge"});
    m.node("Sum", {"a", "b", "s"}, {"sum"}, {}, "sum");
    m.output("sum");
    m.output("ge", onnx::TensorProto::BOOL);
    auto g = convert_onnx(m, "binary.onnx");
    Node sum = output_node(*g, 0);
    ASSERT_TRUE(sum.is("Add"));
    EXPECT_EQ(sum.name(), "sum");
    EXPECT_TRUE(sum.in(0).src().node().is("Add"));
    EXPECT_TRUE(sum.in(1).src().node().is("Subtract"));
    EXPECT_TRUE(output_node(*g, 1).is("GreaterEqual"));
}

}  // namespace
}  // namespace mo
