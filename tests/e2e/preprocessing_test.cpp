// --mean_values, --scale_values, --reverse_input_channels, --batch and frozen inputs, on an ONNX
// (NCHW) and a TFLite (NHWC) model: the IR fed the raw input gives what the source model gives
// for the input preprocessed here, by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/onnx_model_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/tflite_model_builder.hpp"
#include "driver/convert.hpp"
#include "core/evaluator.hpp"

namespace mo {
namespace {

std::unique_ptr<Graph> convert_to_ir(ConversionOptions o, test::ScratchDir& out) {
    o.output_dir = out.path().string();
    o.compress_to_fp16 = false;
    return read_ir(convert(o).xml_path, test::builtin_ops());
}

// relu((x[reversed channel] - mean) / scale), channel c of element i given by `channel_of`.
std::vector<float> expected(const std::vector<float>& x, size_t channels, bool nhwc) {
    const double mean[3] = {1, 2, 3}, scale[3] = {2, 4, 8};
    const size_t spatial = x.size() / channels;
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const size_t c = nhwc ? i % channels : i / spatial;
        const size_t src = nhwc ? i - c + (channels - 1 - c) : (channels - 1 - c) * spatial + i % spatial;
        y[i] = static_cast<float>(std::max(0.0, (x[src] - mean[c]) / scale[c]));
    }
    return y;
}

void check(const std::string& model, const Shape& shape, bool nhwc) {
    std::vector<float> x(static_cast<size_t>(shape_size(shape)));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 1.5f - 2.f;
    test::ScratchDir out{"preprocess"};
    ConversionOptions o;
    o.input_model = model;
    o.mean_values = {{"x", {1, 2, 3}}};
    o.scale_values = {{"", {2, 4, 8}}};
    o.reverse_input_channels = true;
    auto ir = convert_to_ir(o, out);
    const auto got = evaluate(*ir, {Tensor::from_vector<float>(x, shape)}).at(0).to_f64();
    const auto want = expected(x, 3, nhwc);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << model << " " << i;
}

TEST(InputPreprocessing, MeansScalesAndReversedChannelsOnNchwAndNhwcSources) {
    test::OnnxModelBuilder onnx(13);
    onnx.input("x", {1, 3, 2, 2});
    onnx.node("Relu", {"x"}, {"y"});
    onnx.output("y");
    check(onnx.save("preprocess.onnx"), {1, 3, 2, 2}, false);

    test::TfliteModelBuilder tfl;
    int x = tfl.input("x", {1, 2, 2, 3});
    int y = tfl.tensor("y", {1, 2, 2, 3});
    tfl.op(tflite::BuiltinOperator::RELU, {x}, {y});
    tfl.output(y);
    check(tfl.save("preprocess.tflite"), {1, 2, 2, 3}, true);
}

TEST(InputPreprocessing, FrozenInputAndBatch) {
    test::OnnxModelBuilder m(13);
    m.input("a", {"N", 2});
    m.input("b", {2});
    m.node("Add", {"a", "b"}, {"y"});
    m.output("y");
    const std::string path = m.save("freeze.onnx");
    test::ScratchDir out{"freeze"};
    ConversionOptions o;
    o.input_model = path;
    o.inputs = {InputSpec{"b", std::nullopt, std::vector<double>{10, 20}}};
    o.batch = 3;
    auto ir = convert_to_ir(o, out);
    ASSERT_EQ(ir->parameters().size(), 1u);
    EXPECT_EQ(ir->parameters()[0].out(0).shape(), (PartialShape{3, 2}));
    const auto got = evaluate(*ir, {Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2})}).at(0).to_f64();
    EXPECT_EQ(got, (std::vector<double>{11, 22, 13, 24, 15, 26}));
}

TEST(InputPreprocessing, StaticShapeFoldsShapeComputations) {
    test::OnnxModelBuilder m(13);
    m.input("x", {"N", 3});
    m.node("Shape", {"x"}, {"s"});
    m.node("Reshape", {"x", "s"}, {"y"});
    m.output("y");
    const std::string path = m.save("static_shape.onnx");
    auto shape_ofs = [&](ConversionOptions o) {
        test::ScratchDir out{"static_shape"};
        o.input_model = path;
        auto ir = convert_to_ir(o, out);
        int n = 0;
        for (const Node& node : ir->nodes()) n += node.is("ShapeOf");
        return n;
    };
    EXPECT_EQ(shape_ofs({}), 1);  // dynamic N: the shape is computed at run time
    ConversionOptions fixed;
    fixed.static_shape = true;
    fixed.inputs = {InputSpec{"x", PartialShape{2, 3}, std::nullopt}};
    EXPECT_EQ(shape_ofs(fixed), 0);
    ConversionOptions dynamic;
    dynamic.static_shape = true;
    test::ScratchDir out{"static_shape_bad"};
    dynamic.input_model = path;
    dynamic.output_dir = out.path().string();
    test::expect_error([&] { convert(dynamic); }, {"--static_shape: input 'x' has the dynamic shape", "--input x[...]"});
}

TEST(InputPreprocessing, BadOptionsAreClearErrors) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 3, 2, 2});
    m.node("Relu", {"x"}, {"y"});
    m.output("y");
    const std::string path = m.save("bad_preprocess.onnx");
    test::ScratchDir out{"bad_preprocess"};
    ConversionOptions o;
    o.input_model = path;
    o.output_dir = out.path().string();
    o.mean_values = {{"nope", {1, 2, 3}}};
    test::expect_error([&] { convert(o); }, {"--mean_values names input 'nope'", "the model's inputs are: x"});
    o.mean_values = {{"x", {1, 2}}};
    test::expect_error([&] { convert(o); }, {"has 2 values; the input has 3 channels (axis 1)"});
    o.mean_values = {};
    o.inputs = {InputSpec{"x", std::nullopt, std::vector<double>{1, 2}}};
    test::expect_error([&] { convert(o); }, {"frozen with 2 values for 12 elements"});
    EXPECT_TRUE(out.entries().empty());
}

// Found by an audit of the flags, run end to end.
TEST(InputPreprocessing, EntriesGivenTwiceAndLayoutsOfAnotherRankAreErrors) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 3, 2, 2});
    m.node("Relu", {"x"}, {"y"});
    m.output("y");
    const std::string path = m.save("twice.onnx");
    test::ScratchDir out{"twice"};
    auto refused = [&](ConversionOptions o, std::initializer_list<const char*> fragments) {
        o.input_model = path;
        o.output_dir = out.path().string();
        test::expect_error([&] { convert(o); }, fragments);
        EXPECT_TRUE(out.entries().empty());
    };
    ConversionOptions means;  // the positional entry was silently replaced by the named one
    means.mean_values = {{"", {1, 2, 3}}, {"x", {4, 5, 6}}};
    refused(means, {"--mean_values gives input 'x' twice", "give each input once"});
    ConversionOptions shapes;
    shapes.inputs = {InputSpec{"x", PartialShape{1, 3, 2, 2}, std::nullopt}, InputSpec{"x", PartialShape{2, 3, 2, 2}, std::nullopt}};
    refused(shapes, {"--input gives input 'x' twice"});
    ConversionOptions layout;  // was accepted: the rank was checked only with a target layout
    layout.layouts = {InputLayout{"x", "nc", ""}};
    layout.mean_values = {{"x", {1, 2, 3}}};
    refused(layout, {"input 'x' has 4 axes but layout 'nc' has 2", "one letter per axis"});
    ConversionOptions zero;  // the IR divided by zero
    zero.scale_values = {{"x", {1, 0, 2}}};
    refused(zero, {"scale_values for input 'x' holds 0", "finite, non-zero"});
    ConversionOptions nan;
    nan.mean_values = {{"x", {std::nan("")}}};
    refused(nan, {"mean_values for input 'x' holds nan"});
}

// Refused before: a [1] mask and [1, 3] token ids next to an image ("needs a known rank",
// "means and scales need a float input" although none were given).
TEST(InputPreprocessing, ReversedChannelsLeaveInputsThatAreNotImages) {
    test::OnnxModelBuilder m(13);
    m.input("image", {1, 3, 1, 1});
    m.input("mask", {1});
    m.input("ids", {1, 3}, onnx::TensorProto::INT64);
    m.node("Relu", {"image"}, {"y"});
    m.node("Neg", {"mask"}, {"z"});
    m.node("Identity", {"ids"}, {"w"});
    m.output("y").output("z").output("w", onnx::TensorProto::INT64);
    test::ScratchDir out{"reverse_images_only"};
    ConversionOptions o;
    o.input_model = m.save("reverse_images_only.onnx");
    o.reverse_input_channels = true;
    auto ir = convert_to_ir(o, out);
    auto got = evaluate(*ir, {Tensor::from_vector<float>({1, 2, 3}, {1, 3, 1, 1}), Tensor::from_vector<float>({5}, {1}),
                              Tensor::from_vector<int64_t>({7, 8, 9}, {1, 3})});
    EXPECT_EQ(got.at(0).to_f64(), (std::vector<double>{3, 2, 1}));
    EXPECT_EQ(got.at(1).to_f64(), (std::vector<double>{-5}));
    EXPECT_EQ(got.at(2).to_f64(), (std::vector<double>{7, 8, 9}));
}

// A scale of 1e-8 was compressed to an f16 0: the IR divided by zero (inf, NaN).
TEST(InputPreprocessing, MeansAndScalesStayExactWithF16Compression) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 3, 1, 1});
    m.node("Identity", {"x"}, {"y"});
    m.output("y");
    test::ScratchDir out{"tiny_scale"};
    ConversionOptions o;
    o.input_model = m.save("tiny_scale.onnx");
    o.output_dir = out.path().string();
    o.scale_values = {{"x", {1e-8}}};
    o.compress_to_fp16 = true;
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    const auto got = evaluate(*ir, {Tensor::from_vector<float>({1, 2, 3}, {1, 3, 1, 1})}).at(0).to_f64();
    const std::vector<double> want{1e8, 2e8, 3e8};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.at(i), want[i], want[i] * 1e-6) << i;
}

TEST(InputPreprocessing, AFrozenInputIsHeldToMaxConstantSize) {
    test::OnnxModelBuilder m(13);
    m.input("x", {"N"});
    m.node("Neg", {"x"}, {"y"});
    m.output("y");
    test::ScratchDir out{"frozen_huge"};
    ConversionOptions o;
    o.input_model = m.save("frozen_huge.onnx");
    o.output_dir = out.path().string();
    o.max_constant_bytes = 1024;
    o.inputs = {InputSpec{"x", PartialShape{257}, std::vector<double>{1}}};
    test::expect_error([&] { convert(o); }, {"input 'x' is frozen to 257 elements of f32", "more than --max_constant_size"});
    o.inputs = {InputSpec{"x", PartialShape{256}, std::vector<double>{1.5}}};
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    EXPECT_TRUE(ir->parameters().empty());
    EXPECT_EQ(evaluate(*ir, {}).at(0).to_f64(), std::vector<double>(256, -1.5));
}

}  // namespace
}  // namespace mo
