// Hostile sizes: constant folding never materializes a tensor above --max_constant_size (the op
// stays in the IR instead), and a shape whose element count overflows 64 bits is a clear error.
#include <gtest/gtest.h>

#include "emit/ir_test_util.hpp"
#include "extractors/onnx_test_support.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/op_test_util.hpp"
#include "tools/cli.hpp"
#include "tools/convert.hpp"

namespace mo {
namespace {

// y = x + ConstantOfShape(shape): with a constant shape, the fill folds unless it is too large.
std::string fill_model(const std::vector<int64_t>& shape) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1});
    m.initializer(test::int_tensor("shape", onnx::TensorProto::INT64, shape, {static_cast<int64_t>(shape.size())}));
    m.node("ConstantOfShape", {"shape"}, {"fill"});
    m.node("Add", {"x", "fill"}, {"y"});
    m.output("y");
    return m.save("fill.onnx");
}

size_t count(const Graph& g, const char* type) {
    size_t n = 0;
    for (const Node& node : g.nodes()) n += node.is(type);
    return n;
}

ConversionResult convert_with_limit(const std::string& model, test::ScratchDir& out, int64_t limit) {
    ConversionOptions o;
    o.input_model = model;
    o.output_dir = out.path().string();
    o.max_constant_bytes = limit;
    return convert(o);
}

TEST(ResourceLimits, FoldingStopsAtMaxConstantSize) {
    const std::string model = fill_model({1000});  // 4,000 bytes of f32 zeros
    test::ScratchDir folded{"limits_folded"}, kept{"limits_kept"};
    const ConversionResult small = convert_with_limit(model, folded, int64_t{2} << 30);
    const ConversionResult limited = convert_with_limit(model, kept, 3999);
    auto a = read_ir(small.xml_path, test::builtin_ops());
    auto b = read_ir(limited.xml_path, test::builtin_ops());
    EXPECT_EQ(count(*a, "Broadcast"), 0u);  // folded into a Constant
    EXPECT_GE(small.bin_bytes, 2000u);      // the zeros stored (f16)
    EXPECT_EQ(count(*b, "Broadcast"), 1u);  // ConstantOfShape kept as an op
    EXPECT_LT(limited.bin_bytes, 100u);
}

// 2^40 elements (4 TiB of f32) convert in a moment into an IR that computes them at run time.
TEST(ResourceLimits, ATerabyteFillIsNeverMaterialized) {
    test::ScratchDir out{"limits_terabyte"};
    const ConversionResult r = convert_with_limit(fill_model({int64_t{1} << 20, int64_t{1} << 20}), out, int64_t{2} << 30);
    auto ir = read_ir(r.xml_path, test::builtin_ops());
    EXPECT_EQ(count(*ir, "Broadcast"), 1u);
    EXPECT_LT(r.bin_bytes, 100u);
}

TEST(ResourceLimits, AShapeWhoseElementCountOverflowsIsAnError) {
    test::ScratchDir out{"limits_overflow"};
    const std::string model = fill_model({int64_t{1} << 40, int64_t{1} << 40});
    test::expect_error([&] { convert_with_limit(model, out, int64_t{2} << 30); }, "more elements than 64 bits count");
}

TEST(ResourceLimits, MaxConstantSizeFlag) {
    EXPECT_EQ(parse_command_line({"--input_model", "m.onnx", "--max_constant_size", "512M"}).options.max_constant_bytes,
              int64_t{512} << 20);
    EXPECT_EQ(parse_command_line({"--input_model", "m.onnx", "--max_constant_size=4096"}).options.max_constant_bytes, 4096);
    EXPECT_EQ(parse_command_line({"--input_model", "m.onnx"}).options.max_constant_bytes, int64_t{2} << 30);
    for (const char* bad : {"", "0", "12T", "-5", "1.5G", "99999999999999G"})
        EXPECT_THROW(parse_command_line({"--input_model", "m.onnx", "--max_constant_size", bad}), UsageError) << bad;
    EXPECT_THROW(parse_command_line({"--input_model", "m.onnx", "--batch", "1e300"}), UsageError);
}

}  // namespace
}  // namespace mo
