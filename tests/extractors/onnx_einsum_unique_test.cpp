// ONNX Einsum and Unique: the equation written for OpenVINO (numpy's implicit output made
// explicit), refused equations, and Unique's axis and optional outputs, evaluated against values
// worked by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include "extractors/onnx_test_support.hpp"

namespace mo {
namespace {

using namespace test;

// An Einsum model over float inputs of the given shapes.
std::unique_ptr<Graph> einsum_model(const std::string& equation, const std::vector<std::vector<OnnxDim>>& shapes) {
    OnnxModelBuilder m(12);
    std::vector<std::string> names;
    for (size_t i = 0; i < shapes.size(); ++i) {
        names.push_back("x" + std::to_string(i));
        m.input(names.back(), shapes[i]);
    }
    m.node("Einsum", names, {"y"}, {{"equation", equation}});
    m.output("y");
    return convert_onnx(m, "einsum.onnx");
}

std::string equation_of(const Graph& g) {
    Node n = output_node(g);
    EXPECT_TRUE(n.is("Einsum")) << n.describe();
    return n.attr<std::string>("equation");
}

// numpy's implicit output: labels occurring once in the whole equation, sorted (capitals
// first), after "..." when there is one.
TEST(OnnxEinsum, ImplicitEquationsBecomeExplicit) {
    EXPECT_EQ(equation_of(*einsum_model("ij,jk", {{2, 3}, {3, 4}})), "ij,jk->ik");
    EXPECT_EQ(equation_of(*einsum_model("ba", {{2, 3}})), "ba->ab");
    EXPECT_EQ(equation_of(*einsum_model("bA,Ca", {{2, 3}, {4, 5}})), "bA,Ca->ACab");
    EXPECT_EQ(equation_of(*einsum_model("...ij , ...jk", {{5, 2, 3}, {5, 3, 4}})), "...ij,...jk->...ik");
    EXPECT_EQ(equation_of(*einsum_model(" bij, bjk -> bik", {{5, 2, 3}, {5, 3, 4}})), "bij,bjk->bik");
}

// "ii" is a trace for ONNX (i occurs twice); OpenVINO's implicit rule would keep "ii".
TEST(OnnxEinsum, ImplicitRepeatedLabelIsATrace) {
    auto g = einsum_model("ii", {{3, 3}});
    EXPECT_EQ(equation_of(*g), "ii->");
    auto out = evaluate(*g, {{"x0", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3})}});
    EXPECT_EQ(out.at(0).shape(), Shape{});
    EXPECT_EQ(out.at(0).to_f64(), (std::vector<double>{15}));
}

TEST(OnnxEinsum, RefusesWhatCannotBeConvertedExactly) {
    auto expect_error = [](const std::string& eq, const std::vector<std::vector<OnnxDim>>& shapes,
                           const std::string& fragment) {
        try {
            einsum_model(eq, shapes);
            ADD_FAILURE() << eq << ": no error";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    // numpy sums the "..." dims; OpenVINO needs them in the output
    expect_error("...i->i", {{2, 3}}, "without '...' in its output");
    expect_error("i2->i", {{2, 3}}, "invalid subscript");
    expect_error("i,i", {{2}}, "2 input subscripts for 1 inputs");
    expect_error("i->ii", {{2}}, "repeats a label");
    expect_error("i->j", {{2}}, "no input subscript");
}

TEST(OnnxUnique, AxisAttributeBecomesAnInput) {
    OnnxModelBuilder m(11);
    m.input("x", {2, 4});
    m.node("Unique", {"x"}, {"y", "indices", "inverse", "counts"}, {{"axis", -1}, {"sorted", 0}});
    for (const char* name : {"y"}) m.output(name);
    for (const char* name : {"indices", "inverse", "counts"}) m.output(name, onnx::TensorProto::INT64);
    auto g = convert_onnx(m, "unique_axis.onnx");
    Node u = output_node(*g);
    ASSERT_TRUE(u.is("Unique"));
    EXPECT_EQ(const_ints(u, 1), (Ints{-1}));
    EXPECT_FALSE(u.attr<bool>("sorted"));
    // columns (1,3), (0,2), (1,3), (0,1) in first-occurrence order
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({1, 0, 1, 0, 3, 2, 3, 1}, {2, 4})}});
    EXPECT_EQ(out.at(0).to_f64(), (Doubles{1, 0, 0, 3, 2, 1}));
    EXPECT_EQ(out.at(1).to_i64(), (Ints{0, 1, 3}));
    EXPECT_EQ(out.at(2).to_i64(), (Ints{0, 1, 0, 2}));
    EXPECT_EQ(out.at(3).to_i64(), (Ints{2, 1, 1}));
    EXPECT_EQ(out.at(1).type(), ElementType::i64);
}

// Only Y requested; no axis: the flattened input, sorted by default.
TEST(OnnxUnique, OnlyTheValuesOutput) {
    OnnxModelBuilder m(11);
    m.input("x", {2, 2});
    m.node("Unique", {"x"}, {"y"});
    m.output("y");
    auto g = convert_onnx(m, "unique_y.onnx");
    Node u = output_node(*g);
    ASSERT_TRUE(u.is("Unique"));
    EXPECT_EQ(u.input_count(), 1u);
    auto out = evaluate(*g, {{"x", Tensor::from_vector<float>({3, 1, 3, 2}, {2, 2})}});
    EXPECT_EQ(out.at(0).to_f64(), (Doubles{1, 2, 3}));
}

}  // namespace
}  // namespace mo
