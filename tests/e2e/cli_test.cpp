#include "driver/cli.hpp"

#include <gtest/gtest.h>

#include "support/op_test_util.hpp"

namespace mo {
namespace {

CliRequest parse(std::vector<std::string> args) { return parse_command_line(args); }

TEST(MoCommandLine, BothFlagFormsAndDefaults) {
    auto r = parse({"--input_model", "m.onnx", "--output_dir=out", "--model_name", "net"});
    EXPECT_EQ(r.action, CliRequest::Action::Convert);
    EXPECT_EQ(r.options.input_model, "m.onnx");
    EXPECT_EQ(r.options.output_dir, "out");
    EXPECT_EQ(r.options.model_name, "net");
    EXPECT_TRUE(r.options.compress_to_fp16);
    EXPECT_EQ(r.log_level, LogLevel::Warning);
    // Recorded for <conversion_parameters>, sorted by flag name; where the IR goes is not part of it.
    EXPECT_EQ(r.options.cli_parameters, (std::vector<std::pair<std::string, std::string>>{
                                            {"input_model", "m.onnx"}, {"model_name", "net"}}));
}

TEST(MoCommandLine, CompressToFp16Forms) {
    EXPECT_TRUE(parse({"--input_model", "m", "--compress_to_fp16"}).options.compress_to_fp16);
    EXPECT_FALSE(parse({"--input_model", "m", "--compress_to_fp16=False"}).options.compress_to_fp16);
    EXPECT_FALSE(parse({"--compress_to_fp16", "false", "--input_model", "m"}).options.compress_to_fp16);
    auto r = parse({"--compress_to_fp16", "--input_model", "m"});  // the next flag is not its value
    EXPECT_TRUE(r.options.compress_to_fp16);
    EXPECT_EQ(r.options.input_model, "m");
    EXPECT_THROW(parse({"--input_model", "m", "--compress_to_fp16=maybe"}), UsageError);
}

TEST(MoCommandLine, InputShapesByPosition) {
    auto r = parse({"--input_model", "m", "--input_shape", "[1,3,224,224],[1,?,1..10]"});
    ASSERT_EQ(r.options.inputs.size(), 2u);
    EXPECT_EQ(r.options.inputs[0].name, "");
    EXPECT_EQ(*r.options.inputs[0].shape, (PartialShape{1, 3, 224, 224}));
    EXPECT_EQ(*r.options.inputs[1].shape, (PartialShape{1, Dimension(), Dimension(1, 10)}));
    auto single = parse({"--input_model", "m", "--input_shape=(2,3)"});
    ASSERT_EQ(single.options.inputs.size(), 1u);
    EXPECT_EQ(*single.options.inputs[0].shape, (PartialShape{2, 3}));
}

TEST(MoCommandLine, InputNamesWithShapes) {
    auto r = parse({"--input_model", "m", "--input", "a[1,3,?,?],b"});
    ASSERT_EQ(r.options.inputs.size(), 2u);
    EXPECT_EQ(r.options.inputs[0].name, "a");
    EXPECT_EQ(*r.options.inputs[0].shape, (PartialShape{1, 3, Dimension(), Dimension()}));
    EXPECT_EQ(r.options.inputs[1].name, "b");
    EXPECT_FALSE(r.options.inputs[1].shape);
    // --input names + --input_shape shapes, matched by position.
    auto m = parse({"--input_model", "m", "--input", "a,b", "--input_shape", "[1],[2,2]"});
    EXPECT_EQ(*m.options.inputs[1].shape, (PartialShape{2, 2}));
    EXPECT_THROW(parse({"--input_model", "m", "--input", "a,b", "--input_shape", "[1]"}), UsageError);
    EXPECT_THROW(parse({"--input_model", "m", "--input", "a[1]", "--input_shape", "[1]"}), UsageError);
    EXPECT_THROW(parse({"--input_model", "m", "--input", "a[1,x]"}), UsageError);
    EXPECT_THROW(parse({"--input_model", "m", "--input", "a[1,2"}), UsageError);
}

TEST(MoCommandLine, OutputsAndLogLevel) {
    auto r = parse({"--input_model", "m", "--output", "t1, t2", "--log_level", "debug"});
    EXPECT_EQ(r.options.outputs, (std::vector<std::string>{"t1", "t2"}));
    EXPECT_EQ(r.log_level, LogLevel::Debug);
    EXPECT_THROW(parse({"--input_model", "m", "--log_level", "LOUD"}), UsageError);
}

TEST(MoCommandLine, UsageErrors) {
    EXPECT_THROW(parse({}), UsageError);                                     // no --input_model
    EXPECT_THROW(parse({"--input_model"}), UsageError);                      // missing value
    EXPECT_THROW(parse({"--input_model", "m", "--bogus", "1"}), UsageError);  // unknown flag
    EXPECT_THROW(parse({"--input_model", "m", "stray"}), UsageError);
    EXPECT_THROW(parse({"--input_model", "m", "--input_model", "n"}), UsageError);
    EXPECT_THROW(parse({"--input_model", "m", "--help=yes"}), UsageError);
}

TEST(MoCommandLine, HelpAndVersionNeedNoModel) {
    EXPECT_EQ(parse({"--help"}).action, CliRequest::Action::Help);
    EXPECT_EQ(parse({"-h"}).action, CliRequest::Action::Help);
    EXPECT_EQ(parse({"--version"}).action, CliRequest::Action::Version);
    std::string usage = usage_text();
    for (const char* flag : {"--input_model", "--output_dir", "--input_shape", "--input ", "--output ",
                             "--compress_to_fp16", "--transformations_config", "--extensions", "--log_level"})
        EXPECT_NE(usage.find(flag), std::string::npos) << flag;
}

TEST(MoCommandLine, ConfigAndExtensionFlags) {
    auto r = parse({"--input_model", "m", "--transformations_config", "c.json", "--extensions", "a.so,b.so"});
    EXPECT_EQ(r.options.transformations_config, "c.json");
    EXPECT_EQ(r.options.extensions, (std::vector<std::string>{"a.so", "b.so"}));
}

}  // namespace
}  // namespace mo

namespace mo {
namespace {

TEST(MoCommandLine, PreprocessingFlags) {
    CliRequest r = parse({"--input_model", "m.onnx", "--input", "data[1,3,2,2],mask->[1 0 1]", "--mean_values",
                          "data[123,117,104],[1]", "--scale_values", "[58.4,57.1,57.4]", "--reverse_input_channels",
                          "--batch", "4"});
    const ConversionOptions& o = r.options;
    ASSERT_EQ(o.inputs.size(), 2u);
    EXPECT_FALSE(o.inputs[0].value);
    EXPECT_EQ(o.inputs[1].name, "mask");
    EXPECT_EQ(o.inputs[1].value, (std::vector<double>{1, 0, 1}));
    ASSERT_EQ(o.mean_values.size(), 2u);
    EXPECT_EQ(o.mean_values[0].name, "data");
    EXPECT_EQ(o.mean_values[0].values, (std::vector<double>{123, 117, 104}));
    EXPECT_EQ(o.mean_values[1].name, "");
    EXPECT_EQ(o.scale_values[0].values, (std::vector<double>{58.4, 57.1, 57.4}));
    EXPECT_TRUE(o.reverse_input_channels);
    EXPECT_EQ(o.batch, 4);
    EXPECT_THROW(parse({"--input_model", "m.onnx", "--batch", "0"}), UsageError);
    EXPECT_THROW(parse({"--input_model", "m.onnx", "--mean_values", "data[1,x]"}), UsageError);
    EXPECT_THROW(parse({"--input_model", "m.onnx", "--input", "a->[1 2"}), UsageError);
    CliRequest l = parse({"--input_model", "m.tflite", "--layout", "x(nhwc->nchw),nchw", "--source_layout", "y(nhwc)"});
    ASSERT_EQ(l.options.layouts.size(), 3u);
    EXPECT_EQ(l.options.layouts[0].name, "x");
    EXPECT_EQ(l.options.layouts[0].source, "nhwc");
    EXPECT_EQ(l.options.layouts[0].target, "nchw");
    EXPECT_EQ(l.options.layouts[1].name, "");
    EXPECT_EQ(l.options.layouts[1].target, "nchw");
    EXPECT_EQ(l.options.layouts[2].source, "nhwc");
    EXPECT_THROW(parse({"--input_model", "m", "--layout", "nhwcc"}), UsageError);
    // Found by an audit: an empty shape list became a scalar, and integers beyond 2^53 another
    // integer (frozen values are doubles).
    EXPECT_THROW(parse({"--input_model", "m", "--input_shape", ""}), UsageError);
    test::expect_error([&] { parse({"--input_model", "m", "--input", "x->[1 9007199254740993]"}); },
                       {"'9007199254740993' is an integer of 2^53 or more"});
    EXPECT_EQ(parse({"--input_model", "m", "--input", "x->[-9007199254740991]"}).options.inputs[0].value,
              (std::vector<double>{-9007199254740991.0}));
    EXPECT_THROW(parse({"--input_model", "m", "--layout", "x(n1)"}), UsageError);
}

}  // namespace
}  // namespace mo
