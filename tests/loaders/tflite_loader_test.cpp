#include "loaders/tflite/tflite_loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "emit/ir_test_util.hpp"
#include "extractors/extract_context.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/tflite_model_builder.hpp"
#include "driver/convert.hpp"
#include "transforms/back/report_unsupported_ops.hpp"

namespace mo {
namespace {

using tflite::BuiltinOperator;

// x [1, 4, 4, 2] -> CONV_2D(stride 2, VALID, RELU6) -> y, plus a CUSTOM op when asked.
test::TfliteModelBuilder conv_model(bool with_custom = false) {
    test::TfliteModelBuilder m;
    int x = m.input("x", {1, 4, 4, 2});
    int w = m.constant("w", {3, 1, 1, 2}, std::vector<float>(6, 0.5f));
    int y = m.tensor("y", {1, 2, 2, 3});
    m.op(BuiltinOperator::CONV_2D, {x, w, -1}, {y}, [](flatbuffers::FlatBufferBuilder& fb) {
        auto o = tflite::CreateConv2DOptions(fb, tflite::Padding::VALID, 2, 2, tflite::ActivationFunctionType::RELU6);
        return std::make_pair(tflite::BuiltinOptions::Conv2DOptions, o.Union());
    });
    if (with_custom) {
        int z = m.tensor("z", {1, 2, 2, 3});
        m.custom_op("MyFancyOp", {y}, {z});
        m.output(z);
    } else {
        m.output(y);
    }
    return m;
}

TEST(TfliteLoader, ReadsTensorsOperatorsAndOptionsByName) {
    auto g = load_tflite(conv_model().save("conv.tflite"), ConversionOptions{}, test::builtin_ops());
    EXPECT_EQ(g->source_framework, "tflite");
    EXPECT_EQ(g->source_layout, "NHWC");
    ASSERT_EQ(g->parameters().size(), 1u);
    EXPECT_EQ(g->parameters()[0].out(0).shape(), PartialShape({1, 4, 4, 2}));
    Node conv = g->find_by_name("y");
    ASSERT_TRUE(conv);
    EXPECT_EQ(conv.framework().type, "CONV_2D");
    EXPECT_EQ(conv.framework().opset, 1);
    const auto& a = *conv.framework().attributes;
    EXPECT_EQ(std::get<int64_t>(*a.get("stride_h")), 2);
    EXPECT_EQ(std::get<int64_t>(*a.get("padding")), 1);  // VALID
    EXPECT_EQ(std::get<int64_t>(*a.get("fused_activation_function")), 3);  // RELU6
    EXPECT_FALSE(a.get("dilation_w_factor"));  // not stored: the schema default (1) applies
    EXPECT_FALSE(a.get("no_such_option"));
    EXPECT_EQ(conv.input_count(), 3u);
    EXPECT_FALSE(conv.in(2).connected());  // -1: the absent bias
    // The weights are a view of the mapped file, not a copy.
    const Tensor* w = conv.in(1).value();
    ASSERT_NE(w, nullptr);
    EXPECT_TRUE(w->buffer()->is_file_view());
}

TEST(TfliteLoader, CustomOpsReachTheExtractorLookupByTheirCode) {
    const std::string path = conv_model(true).save("custom.tflite");
    auto g = load_tflite(path, ConversionOptions{}, test::builtin_ops());
    Node custom = g->find_by_name("z");
    EXPECT_EQ(custom.framework().domain, "custom");
    EXPECT_EQ(custom.framework().type, "MyFancyOp");
    test::expect_error([&] { report_unsupported_ops(*g); }, {"tflite custom.MyFancyOp (opset 1): z"});
    // As a plugin would: an extractor for ("tflite", "custom", "MyFancyOp").
    ExtractorRegistry r;
    r.add({"tflite", "custom", "MyFancyOp", 1, INT64_MAX, [](ExtractContext& c) { c.become("Relu"); }});
    extract(*g, r);
    EXPECT_TRUE(g->find_by_name("z").is("Relu"));
}

// Converting `path` fails with every fragment in the message and leaves the output directory empty.
void expect_conversion_error(const std::string& path, const std::vector<std::string>& fragments) {
    test::ScratchDir out{"tflite_bad"};
    ConversionOptions options;
    options.input_model = path;
    options.output_dir = out.path().string();
    for (const std::string& fragment : fragments) test::expect_error([&] { convert(options); }, fragment);
    EXPECT_TRUE(out.entries().empty());
}

TEST(TfliteLoader, BadFilesAreClearErrors) {
    const auto good = conv_model().bytes();
    const auto dir = std::filesystem::temp_directory_path() / "mo_tflite_tests";
    auto write = [&](const std::string& name, const std::vector<uint8_t>& b) {
        const std::string p = (dir / name).string();
        std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        return p;
    };
    std::filesystem::create_directories(dir);
    // Cut short, keeping the identifier.
    expect_conversion_error(write("truncated.tflite", {good.begin(), good.begin() + static_cast<long>(good.size() / 2)}),
                            {"corrupt or truncated", "truncated.tflite"});
    // Bytes flipped inside the tables.
    auto corrupt = good;
    for (size_t i = 12; i < corrupt.size(); i += 7) corrupt[i] ^= 0x5a;
    expect_conversion_error(write("corrupt.tflite", corrupt), {"corrupt.tflite"});
    // Not a flatbuffer at all.
    expect_conversion_error(write("text.tflite", std::vector<uint8_t>(64, 'a')), {"TFL3 identifier"});
    // Valid flatbuffers whose indices point nowhere.
    auto bad_buffer = conv_model();
    bad_buffer.set_tensor_buffer(1, 99);
    expect_conversion_error(bad_buffer.save("bad_buffer.tflite"), {"buffer index 99 is outside"});
    test::TfliteModelBuilder bad_tensor;
    int x = bad_tensor.input("x", {1, 2});
    int y = bad_tensor.tensor("y", {1, 2});
    bad_tensor.op(BuiltinOperator::RELU, {42}, {y});
    bad_tensor.output(y);
    (void)x;
    expect_conversion_error(bad_tensor.save("bad_tensor.tflite"), {"tensor index 42 is outside", "operator 0"});
    // An operator without outputs (found by fuzz_tflite: a QUANTIZE whose output 0 did not exist
    // was an internal error).
    test::TfliteModelBuilder no_outputs;
    int in = no_outputs.input("x", {1, 2});
    int out = no_outputs.tensor("y", {1, 2});
    no_outputs.op(BuiltinOperator::RELU, {in}, {out});
    no_outputs.op(BuiltinOperator::RELU, {out}, {});
    no_outputs.output(out);
    expect_conversion_error(no_outputs.save("no_outputs.tflite"), {"operator 1", "the operator has no outputs"});
}

// f (float [3]) + q -> y, q int8 of `shape` and `signature` with three scales along `axis`: an
// input, or a constant when `constant`. Written with flatbuffers directly, as
// TfliteModelBuilder writes no shape_signature.
std::string signature_model(const std::string& file, std::vector<int32_t> shape, std::vector<int32_t> signature,
                            int32_t axis, bool constant) {
    flatbuffers::FlatBufferBuilder fb;
    const std::vector<uint8_t> data{1, 2, 3};
    std::vector<flatbuffers::Offset<tflite::Buffer>> buffers{tflite::CreateBuffer(fb),
                                                             tflite::CreateBuffer(fb, fb.CreateVector(data))};
    auto q = tflite::CreateQuantizationParameters(fb, 0, 0, fb.CreateVector(std::vector<float>{.1f, .2f, .3f}),
                                                  fb.CreateVector(std::vector<int64_t>{0, 0, 0}),
                                                  tflite::QuantizationDetails::NONE, 0, axis);
    const std::vector<int32_t> three{3}, f_and_q{0, 1}, y{2};
    std::vector<flatbuffers::Offset<tflite::Tensor>> tensors{
        tflite::CreateTensor(fb, fb.CreateVector(three), tflite::TensorType::FLOAT32, 0, fb.CreateString("f")),
        tflite::CreateTensor(fb, fb.CreateVector(shape), tflite::TensorType::INT8, constant ? 1 : 0,
                             fb.CreateString("q"), q, false, 0, fb.CreateVector(signature)),
        tflite::CreateTensor(fb, fb.CreateVector(three), tflite::TensorType::FLOAT32, 0, fb.CreateString("y"))};
    std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes{
        tflite::CreateOperatorCode(fb, static_cast<int8_t>(BuiltinOperator::ADD), 0, 1, BuiltinOperator::ADD)};
    std::vector<flatbuffers::Offset<tflite::Operator>> ops{
        tflite::CreateOperator(fb, 0, fb.CreateVector(f_and_q), fb.CreateVector(y))};
    const std::vector<int32_t> inputs = constant ? std::vector<int32_t>{0} : f_and_q;
    std::vector<flatbuffers::Offset<tflite::SubGraph>> subgraphs{tflite::CreateSubGraph(
        fb, fb.CreateVector(tensors), fb.CreateVector(inputs), fb.CreateVector(y), fb.CreateVector(ops))};
    tflite::FinishModelBuffer(fb, tflite::CreateModel(fb, 3, fb.CreateVector(codes), fb.CreateVector(subgraphs), 0,
                                                      fb.CreateVector(buffers)));
    const auto dir = std::filesystem::temp_directory_path() / "mo_tflite_tests";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / file).string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(fb.GetBufferPointer()), fb.GetSize());
    return path;
}

// Found by an audit: per-channel scales checked against shape [1, 1, 1, 3] but applied along the
// rank-1 shape_signature were a std::length_error. The graph uses the signature, so it must
// agree with the shape.
TEST(TfliteLoader, AShapeSignatureDisagreeingWithTheShapeIsAnError) {
    expect_conversion_error(signature_model("sig_const.tflite", {1, 1, 1, 3}, {3}, 3, true),
                            {"tensor 'q'", "shape_signature [3] does not match shape [1, 1, 1, 3]"});
    expect_conversion_error(signature_model("sig_input.tflite", {1, 1, 3}, {3}, 2, false),
                            {"input 'q'", "shape_signature [3] does not match shape [1, 1, 3]"});
    expect_conversion_error(signature_model("sig_dim.tflite", {1, 3}, {1, 5}, 1, false),
                            {"shape_signature [1, 5] does not match shape [1, 3]"});
    // A dynamic dimension (-1) agrees with any.
    test::ScratchDir out{"tflite_signature"};
    ConversionOptions options;
    options.input_model = signature_model("sig_dynamic.tflite", {1, 3}, {-1, 3}, 1, false);
    options.output_dir = out.path().string();
    EXPECT_NO_THROW(convert(options));
}

// Found by a second audit; the files are fuzz regression inputs (made with flatc from edited JSON).
std::string regression(const std::string& name) {
    return std::string(MO_SOURCE_DIR) + "/fuzz/regressions/tflite/" + name;
}

// A constant of 2^59 + 1 f32 elements over a 4-byte buffer: count x 32 bits wrapped to a few
// bytes, the buffer passed the size check, and compressing the constant read past it (SIGBUS).
TEST(TfliteLoader, AConstantWhoseByteSizeOverflowsIsAnError) {
    expect_conversion_error(regression("constant_whose_byte_size_overflows.tflite"),
                            {"tensor 'w' in", "576460752303423489 elements of f32 have more bytes than 64 bits count"});
}

// builtin_options_type 127, one past the last: the options table was looked up past its end
// and a null function called (SIGSEGV). An unknown options type is no options; ADD converts.
TEST(TfliteLoader, AnOptionsTypePastTheLastIsNoOptions) {
    test::ScratchDir out{"tflite_options_type"};
    ConversionOptions options;
    options.input_model = regression("builtin_options_type_past_the_last.tflite");
    options.output_dir = out.path().string();
    EXPECT_NO_THROW(convert(options));
}

// A 6-channel depthwise filter with depth_multiplier 4 over an input of unknown channels became
// one group of 6 (6 / 4 = 1): the model is inconsistent.
TEST(TfliteLoader, ADepthMultiplierThatDoesNotDivideTheFilterIsAnError) {
    expect_conversion_error(regression("depthwise_multiplier_not_dividing_the_filter.tflite"),
                            {"depth_multiplier 4 does not divide the filter's 6 channels"});
}

// Enums out of range were read as one of their values: padding 7 as VALID, MIRROR_PAD mode 77
// as SYMMETRIC; fused activation 9 was called SIGN_BIT.
TEST(TfliteLoader, OptionEnumsOutOfRangeAreErrors) {
    expect_conversion_error(regression("conv_padding_7.tflite"), {"padding 7 is neither SAME (0) nor VALID (1)"});
    expect_conversion_error(regression("mirror_pad_mode_77.tflite"), {"mode 77 is neither REFLECT (0) nor SYMMETRIC (1)"});
    expect_conversion_error(regression("fused_activation_9.tflite"),
                            {"fused_activation_function 9 is not a TFLite activation (0 to 5)"});
}

}  // namespace
}  // namespace mo
