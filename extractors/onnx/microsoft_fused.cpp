// ONNX Runtime's fusions of an op and its activation (domain com.microsoft), which ONNX Runtime
// writes into models saved after its graph optimizations: FusedConv (Conv [+ Z] + activation)
// and FusedGemm (Gemm + activation). Semantics: ONNX Runtime's docs/ContribOperators.md; the
// activation is applied to the op's result as the ONNX op of that name computes it.
#include "extractors/onnx/conv_common.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

constexpr const char* kDomain = "com.microsoft";

// `activation` of `x` with its parameters (LeakyRelu: alpha; Clip: min, max; HardSigmoid:
// alpha, beta), as the framework node's result; an unknown name is refused.
OutPort activation(ExtractContext& c, const OutPort& x, const std::string& kind, const std::vector<double>& params) {
    auto param = [&](size_t i, const char* name) {
        if (i >= params.size()) c.fail("activation " + kind + " needs its " + name + " parameter");
        return params[i];
    };
    if (kind == "Relu" || kind == "Tanh" || kind == "Sigmoid") return c.op(kind, "", {x});
    if (kind == "LeakyRelu") return c.op("PRelu", "", {x, c.scalar_like("alpha", param(0, "alpha"), x)});
    if (kind == "Clip") return c.op("Clamp", "", {x}, {{"min", param(0, "min")}, {"max", param(1, "max")}});
    if (kind == "HardSigmoid")
        return c.op("HardSigmoid", "",
                    {x, c.scalar_like("alpha", param(0, "alpha"), x), c.scalar_like("beta", param(1, "beta"), x)});
    c.unsupported(std::string("activation '").append(kind).append("'"));  // (a + chain trips GCC 12's -Wrestrict)
}

// FusedConv(X, W, B?, Z?; Conv's attributes, activation, activation_params): activation(Conv + Z).
void fused_conv(ExtractContext& c) {
    const std::string kind = c.s("activation", "");
    if (kind.empty()) c.fail("has no activation attribute");
    OutPort y = onnx_convolution(c, false, "conv");
    if (c.has_input(3)) y = c.op("Add", "sum", {y, c.input(3)});
    c.set_output(0, activation(c, y, kind, c.floats("activation_params")));
}

// FusedGemm(A, B, C?; Gemm's attributes, activation, activation_alpha, activation_beta).
void fused_gemm(ExtractContext& c) {
    const std::string kind = c.s("activation", "");
    if (kind.empty()) c.fail("has no activation attribute");
    if (kind == "Clip") c.unsupported("activation Clip (its bounds are not attributes of FusedGemm)");
    std::vector<OutPort> inputs{c.input(0), c.input(1)};
    if (c.has_input(2)) inputs.push_back(c.input(2));
    OutPort y = c.op("Gemm", "gemm", inputs,
                     {{"alpha", c.f("alpha", 1.0)},
                      {"beta", c.f("beta", 1.0)},
                      {"transA", c.i("transA", 0) != 0},
                      {"transB", c.i("transB", 0) != 0}});
    std::vector<double> params;
    if (c.has("activation_alpha")) params.push_back(c.f("activation_alpha", 0.0));
    if (c.has("activation_beta")) params.push_back(c.f("activation_beta", 0.0));
    if (kind == "LeakyRelu" && params.empty()) params.push_back(0.01);  // LeakyRelu's default alpha
    if (kind == "HardSigmoid" && params.size() < 2)
        params = {c.f("activation_alpha", 0.2), c.f("activation_beta", 0.5)};
    c.set_output(0, activation(c, y, kind, params));
}

}  // namespace

void register_onnx_microsoft_fused(ExtractorRegistry& r) {
    r.add({"onnx", kDomain, "FusedConv", since(1), fused_conv});
    r.add({"onnx", kDomain, "FusedGemm", since(1), fused_gemm});
}

}  // namespace mo
