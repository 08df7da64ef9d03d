// ScatterND with reduction add / mul (lowered to ScatterElementsUpdate-12 on the flattened data)
// and Compress (NonZero + Gather), evaluated with the ops' eval against values worked by hand
// from the ONNX operator definitions.
#include <gtest/gtest.h>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

// Duplicate index tuples accumulate: row 1 gets + [10, 20, 30] and + [100, 200, 300], row 0 + 1.
TEST(OnnxScatterNDReduction, AddAccumulatesDuplicateRows) {
    OnnxModelBuilder m(16);
    m.input("data", {2, 3});
    m.initializer_i64("indices", {1, 0, 1}, {3, 1});
    m.initializer("updates", {10, 20, 30, 1, 1, 1, 100, 200, 300}, {3, 3});
    m.node("ScatterND", {"data", "indices", "updates"}, {"y"}, {{"reduction", "add"}});
    m.output("y");
    auto g = convert_onnx(m, "scatternd_add.onnx");
    auto out = evaluate(*g, {{"data", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 3}));
    expect_near(out.at(0).to_f64(), {2, 3, 4, 114, 225, 336}, 0);
}

// Element tuples (k = rank): [0, 2] twice multiplies 3 by 2 and 3; [-1, 0] is [1, 0]: 4 * 10.
TEST(OnnxScatterNDReduction, MulOnElementsWithNegativeIndex) {
    OnnxModelBuilder m(16);
    m.input("data", {2, 3});
    m.initializer_i64("indices", {0, 2, 0, 2, -1, 0}, {3, 2});
    m.initializer("updates", {2, 3, 10}, {3});
    m.node("ScatterND", {"data", "indices", "updates"}, {"y"}, {{"reduction", "mul"}});
    m.output("y");
    auto g = convert_onnx(m, "scatternd_mul.onnx");
    auto out = evaluate(*g, {{"data", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})}});
    expect_near(out.at(0).to_f64(), {1, 2, 18, 40, 5, 6}, 0);
}

// Without a reduction ScatterND stays one ScatterNDUpdate (opset4), readable by older runtimes.
TEST(OnnxScatterNDReduction, NoneStaysScatterNDUpdate) {
    OnnxModelBuilder m(16);
    m.input("data", {2, 3});
    m.initializer_i64("indices", {1}, {1, 1});
    m.initializer("updates", {7, 8, 9}, {1, 3});
    m.node("ScatterND", {"data", "indices", "updates"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "scatternd_none.onnx");
    EXPECT_TRUE(output_node(*g).is("ScatterNDUpdate"));
    auto out = evaluate(*g, {{"data", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})}});
    expect_near(out.at(0).to_f64(), {1, 2, 3, 7, 8, 9}, 0);
}

TEST(OnnxScatterNDReduction, RefusesMaxAndUnknownDataShape) {
    OnnxModelBuilder max(18);
    max.input("data", {2});
    max.initializer_i64("indices", {1}, {1, 1});
    max.initializer("updates", {7}, {1});
    max.node("ScatterND", {"data", "indices", "updates"}, {"y"}, {{"reduction", "max"}});
    max.output("y");
    EXPECT_NE(extract_error(max, "scatternd_max.onnx").find("not supported"), std::string::npos);

    OnnxModelBuilder dyn(16);
    dyn.input("data", {"N"});
    dyn.initializer_i64("indices", {1}, {1, 1});
    dyn.initializer("updates", {7}, {1});
    dyn.node("ScatterND", {"data", "indices", "updates"}, {"y"}, {{"reduction", "add"}});
    dyn.output("y");
    EXPECT_NE(extract_error(dyn, "scatternd_dyn.onnx").find("not supported"), std::string::npos);
}

OnnxModelBuilder compress_model(const std::vector<int64_t>& cond_dims, const std::vector<OnnxAttr>& attrs) {
    OnnxModelBuilder m(11);
    m.input("x", {3, 2});
    m.input("condition", {cond_dims[0]}, onnx::TensorProto::BOOL);
    m.node("Compress", {"x", "condition"}, {"y"}, attrs);
    m.output("y");
    return m;
}

Tensor bools(const std::vector<uint8_t>& v) {
    Tensor t = Tensor::allocate(ElementType::boolean, {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) t.mutable_data<uint8_t>()[i] = v[i];
    return t;
}

// A condition longer than the axis: its extra entries are ignored (ONNX Runtime), even true ones.
TEST(OnnxCompress, LongerConditionIsCutToTheAxis) {
    auto g = convert_onnx(compress_model({5}, {{"axis", 0}}), "compress_long.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2})},
                             {"condition", bools({0, 1, 1, 1, 1})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 2}));
    expect_near(out.at(0).to_f64(), {3, 4, 5, 6}, 0);
}

// A shorter condition without an axis selects from the flattened input; the rest is dropped.
TEST(OnnxCompress, ShorterConditionOnFlattenedInput) {
    auto g = convert_onnx(compress_model({3}, {}), "compress_short.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2})},
                             {"condition", bools({1, 0, 1})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{2}));
    expect_near(out.at(0).to_f64(), {1, 3}, 0);
}

// Nothing selected along axis 1 (given as -1): an empty [3, 0].
TEST(OnnxCompress, NothingSelected) {
    auto g = convert_onnx(compress_model({2}, {{"axis", -1}}), "compress_none.onnx");
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2})},
                             {"condition", bools({0, 0})}});
    EXPECT_EQ(out.at(0).shape(), (Shape{3, 0}));
}

}  // namespace
}  // namespace mo
