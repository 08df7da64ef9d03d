// Arithmetic (numpy broadcasting, with fused activations) and activations.
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

void binary(ExtractContext& c, const char* type) {
    // TFLite's integer DIV truncates, as C++ does; OpenVINO's Divide floors unless told not to.
    const AttrMap attrs = std::string(type) == "Divide" ? AttrMap{{"m_pythondiv", false}} : AttrMap{};
    OutPort y = c.op(type, "op", {c.input(0), c.input(1)}, attrs);
    c.set_output(0, tflite_activation(c, y, "activation"));
}

void unary(ExtractContext& c, const char* type, const AttrMap& attrs = {}) { c.become(type, attrs); }

// 1 / sqrt(x)
void rsqrt(ExtractContext& c) {
    OutPort root = c.op("Sqrt", "sqrt", {c.input(0)});
    c.set_output(0, c.op("Divide", "", {c.scalar_like("one", 1.0, c.input(0)), root}));
}

// x >= 0 ? x : alpha * x. An absent alpha is the schema's default, 0 (flatbuffers stores no
// field equal to its default, so a model with alpha 0 has none).
void leaky_relu(ExtractContext& c) {
    c.set_output(0, c.op("PRelu", "", {c.input(0), c.scalar_like("alpha", c.f("alpha", 0.0), c.input(0))}));
}

// TFLite broadcasts alpha numpy-style (from the last axis); OpenVINO's PRelu reads a 1-D slope
// that matches dimension 1 as per channel there. Alpha of lower rank gets leading 1s.
void prelu(ExtractContext& c) {
    OutPort alpha = c.input(1);
    const int64_t rank = ExtractContext::rank_of(c.input(0)), alpha_rank = ExtractContext::rank_of(alpha);
    if (rank < 0 || alpha_rank < 0) c.unsupported("PRELU of an input or alpha of unknown rank");
    if (alpha_rank < rank) {
        std::vector<int64_t> axes(static_cast<size_t>(rank - alpha_rank));
        for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
        alpha = c.op("Unsqueeze", "alpha", {alpha, c.i64s("alpha/axes", axes)});
    }
    c.set_output(0, c.op("PRelu", "", {c.input(0), alpha}));
}

}  // namespace

void register_tflite_elementwise(ExtractorRegistry& r) {
    const std::pair<const char*, const char*> binaries[] = {
        {"ADD", "Add"},         {"SUB", "Subtract"}, {"MUL", "Multiply"}, {"DIV", "Divide"},
        {"MAXIMUM", "Maximum"}, {"MINIMUM", "Minimum"}, {"SQUARED_DIFFERENCE", "SquaredDifference"},
        {"POW", "Power"},       {"FLOOR_MOD", "FloorMod"}};
    for (const auto& [name, type] : binaries)
        r.add({"tflite", "", name, all_versions, [type = type](ExtractContext& c) { binary(c, type); }});
    const std::pair<const char*, const char*> unaries[] = {
        {"RELU", "Relu"},   {"LOGISTIC", "Sigmoid"}, {"TANH", "Tanh"}, {"HARD_SWISH", "HSwish"}, {"EXP", "Exp"},
        {"SQRT", "Sqrt"},   {"LOG", "Log"},          {"ABS", "Abs"},   {"NEG", "Negative"},       {"FLOOR", "Floor"},
        {"CEIL", "Ceiling"}, {"SIN", "Sin"},         {"COS", "Cos"},   {"ELU", "Elu"}};
    for (const auto& [name, type] : unaries) {
        if (std::string(type) == "Elu")
            r.add({"tflite", "", name, all_versions, [](ExtractContext& c) { unary(c, "Elu", {{"alpha", 1.0}}); }});
        else
            r.add({"tflite", "", name, all_versions, [type = type](ExtractContext& c) { unary(c, type); }});
    }
    r.add({"tflite", "", "RELU6", all_versions,
           [](ExtractContext& c) { unary(c, "Clamp", {{"min", 0.0}, {"max", 6.0}}); }});
    r.add({"tflite", "", "RELU_N1_TO_1", all_versions,
           [](ExtractContext& c) { unary(c, "Clamp", {{"min", -1.0}, {"max", 1.0}}); }});
    r.add({"tflite", "", "RSQRT", all_versions, rsqrt});
    r.add({"tflite", "", "LEAKY_RELU", all_versions, leaky_relu});
    r.add({"tflite", "", "PRELU", all_versions, prelu});
}

}  // namespace mo
