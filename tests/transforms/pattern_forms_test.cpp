// Every generated form of the built-in pattern fusions, as Pattern::describe() prints them: the
// number of forms each fusion generates (counted by hand from the forms its header and
// docs/transformations.md list), and the two forms of SwishFusion written out by hand.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "transforms/middle/swish_fusion.hpp"
#include "transforms/transforms.hpp"

namespace mo {
namespace {

TEST(PatternForms, EachFusionGeneratesTheFormsItDocuments) {
    const std::map<std::string, size_t> expected{
        {"GeluFusion", 3 * 2 + 2},         // erf: 3 places of the 0.5 x (/ or * 1/sqrt 2); tanh: x^3 two ways
        {"HSwishFusion", 1 + 4 * 2 * 2},   // HardSigmoid; 4 relu6 forms x (/6 or *1/6) x (inside or outside)
        {"HSigmoidFusion", 1 + 4 * 2},     // HardSigmoid; 4 relu6 forms x (/6 or *1/6)
        {"SwishFusion", 2},                // x * sigmoid(x), x * sigmoid(x * beta)
        {"SoftPlusFusion", 1},
        {"MishFusion", 1},
        {"LayerNormToMVN", 2},             // square as Power or d * d
        {"SoftmaxFusion", 1},
        {"ScaledDotProductAttentionFusion", 3 * 3 * 2 * 2},  // mask x scale x K^T x prescaled
        {"ConstantChainMerge", 2},         // Add, Multiply
        {"ConvolutionMultiplyFusion", 2},  // with and without bias
        {"PadFusion", 1},
        {"QuantizeDequantizeToFakeQuantize", 4},  // with or without each zero point
    };
    TransformRegistry r;
    register_builtin_transforms(r);
    std::map<std::string, size_t> found;
    for (const Transformation* t : r.all())
        if (auto* p = dynamic_cast<const PatternTransformation*>(t)) found[t->id()] = p->patterns().size();
    EXPECT_EQ(found, expected);
}

TEST(PatternForms, SwishFormsAsWorkedByHand) {
    const std::vector<Pattern> forms = SwishFusion().patterns();
    ASSERT_EQ(forms.size(), 2u);
    EXPECT_EQ(forms[0].describe(),
              "x = *  [any output]\n"
              "sigmoid = Sigmoid(x)  [1 condition]\n"
              "out = Multiply(x, sigmoid)  [root, commutative]\n");
    EXPECT_EQ(forms[1].describe(),
              "x = *  [any output]\n"
              "beta = *  [1 condition]\n"
              "scaled = Multiply(x, beta)  [commutative, 1 condition]\n"
              "sigmoid = Sigmoid(scaled)  [1 condition]\n"
              "out = Multiply(x, sigmoid)  [root, commutative]\n");
}

}  // namespace
}  // namespace mo
