// An example mo plugin. It adds
//  * the op ScaledTanh, y = alpha * tanh(beta * x), with shape inference and evaluation, written
//    to the IR as an extension op of version "example_opset" (not an OpenVINO opset op: the
//    runtime needs a matching extension to run it);
//  * the extractor of the custom ONNX op com.example.ScaledTanh (attributes alpha, beta), of a
//    Caffe layer of type ScaledTanh (scaled_tanh_param { alpha beta }, a fork's parameters) and of
//    a TFLite CUSTOM op ScaledTanh (a flexbuffer map {alpha, beta}); the op is layout-transparent,
//    so the NHWC -> NCHW layout change of TFLite models goes through it;
//  * the transformation ExampleScaledTanhToTanh: ScaledTanh with alpha = beta = 1 is Tanh;
//  * the pattern transformation ExampleScaledTanhFusion: alpha * tanh(beta * x) -> ScaledTanh;
//  * the extractor of MediaPipe's TFLite CUSTOM op Convolution2DTransposeBias, which reads its
//    padding and strides from the op's custom options (transpose_conv_bias.cpp).
#include <mo/plugin.hpp>

#include <cmath>
#include <memory>
#include <optional>

namespace {

void infer_scaled_tanh(mo::InferContext& c) {
    mo::ElementType t = c.in_type(0);
    if (t != mo::ElementType::f32 && t != mo::ElementType::dynamic)
        c.fail("takes an f32 input, not " + std::string(mo::ir_name(t)), "convert the input to f32 first");
    c.set_output(0, t, c.in_shape(0));
}

std::vector<mo::Tensor> evaluate_scaled_tanh(const mo::Node& node, const std::vector<mo::Tensor>& inputs) {
    const mo::Tensor& x = inputs[0];
    if (x.type() != mo::ElementType::f32)
        throw mo::Error("ScaledTanh evaluates f32 tensors only", node.describe());
    const double alpha = node.attr<double>("alpha"), beta = node.attr<double>("beta");
    mo::Tensor y = mo::Tensor::allocate(mo::ElementType::f32, x.shape());
    const float* in = x.data<float>();
    float* out = y.mutable_data<float>();
    for (size_t i = 0; i < x.size(); ++i) out[i] = static_cast<float>(alpha * std::tanh(beta * in[i]));
    return {y};
}

mo::OpSchema scaled_tanh_schema() {
    mo::OpSchema s;
    s.type = "ScaledTanh";           // the name in code and in extractors
    s.ir_type = "ScaledTanh";        // <layer type="ScaledTanh" ...>
    s.ir_version = "example_opset";  // <layer ... version="example_opset">
    s.min_inputs = s.max_inputs = 1;
    s.num_outputs = 1;
    s.attrs = {{"alpha", mo::AttrKind::Float, 1.0}, {"beta", mo::AttrKind::Float, 1.0}};
    s.infer = infer_scaled_tanh;
    s.eval = evaluate_scaled_tanh;
    s.layout = mo::LayoutRole::Transparent;  // element by element: NHWC -> NCHW moves through it
    return s;
}

void extract_scaled_tanh(mo::ExtractContext& c) {
    c.become("ScaledTanh", {{"alpha", c.f("alpha", 1.0)}, {"beta", c.f("beta", 1.0)}});
}

// A Caffe layer's parameters are read by path; fields mo's caffe.proto lacks come from the prototxt.
void extract_caffe_scaled_tanh(mo::ExtractContext& c) {
    c.become("ScaledTanh", {{"alpha", c.f("scaled_tanh_param.alpha", 1.0)}, {"beta", c.f("scaled_tanh_param.beta", 1.0)}});
}

// Replaces ScaledTanh(x) with alpha = beta = 1 by the opset's Tanh(x).
class ScaledTanhToTanh final : public mo::OpTransformation {
public:
    std::string id() const override { return "ExampleScaledTanhToTanh"; }
    mo::Phase phase() const override { return mo::Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"PartialInference"}; }
    std::vector<std::string> op_types() const override { return {"ScaledTanh"}; }
    bool matches(mo::Node n) const override { return n.attr<double>("alpha") == 1.0 && n.attr<double>("beta") == 1.0; }
    bool apply(mo::Node n, const mo::TransformContext&) override {
        mo::Graph& g = n.graph();
        mo::Node tanh = g.add_op("Tanh", n.name() + "/tanh", {n.in(0).src()});
        g.replace(n, tanh);  // tanh takes over the consumers, the tensor names and the node name
        return true;
    }
};

// alpha * tanh(x * beta), constants on either side of each Multiply.
mo::Pattern scaled_tanh_pattern() {
    mo::Pattern p("out");
    p.node("x")
        .node("beta", {}, {mo::is_constant()})
        .node("scaled", {"Multiply"}, {mo::consumers(1)})
        .node("tanh", {"Tanh"}, {mo::consumers(1)})
        .node("alpha", {}, {mo::is_constant()})
        .node("out", {"Multiply"})
        .commutative("scaled")
        .commutative("out")
        .edge("x", "scaled", 0)
        .edge("beta", "scaled", 1)
        .edge("scaled", "tanh", 0)
        .edge("tanh", "out", 0)
        .edge("alpha", "out", 1);
    return p;
}

// A scalar f32 constant's value, if the node is one.
std::optional<double> scalar_value(const mo::Node& n) {
    const mo::Tensor* t = n.out(0).value();
    if (!t || t->size() != 1 || t->type() != mo::ElementType::f32) return std::nullopt;
    return t->data<float>()[0];
}

// Replaces alpha * tanh(beta * x) by ScaledTanh(x; alpha, beta).
class ScaledTanhFusion final : public mo::PatternTransformation {
public:
    std::string id() const override { return "ExampleScaledTanhFusion"; }
    mo::Phase phase() const override { return mo::Phase::Middle; }
    std::vector<std::string> run_after() const override { return {"PartialInference"}; }
    std::vector<std::string> run_before() const override { return {"ExampleScaledTanhToTanh"}; }
    bool force_clean_up() const override { return true; }  // removes the absorbed nodes
    std::vector<mo::Pattern> patterns() const override { return {scaled_tanh_pattern()}; }
    bool apply(const mo::PatternMatch& m, const mo::TransformContext&) override {
        std::optional<double> alpha = scalar_value(m["alpha"]), beta = scalar_value(m["beta"]);
        mo::Node x = m["x"];
        if (!alpha || !beta || x.out(0).type() != mo::ElementType::f32) return false;  // not ours
        mo::Graph& g = x.graph();
        mo::Node fused = g.add_op("ScaledTanh", m["out"].name() + "/fused", {x.out(0)},
                                  {{"alpha", *alpha}, {"beta", *beta}});
        g.replace(m["out"], fused);
        return true;
    }
};

}  // namespace

void register_transpose_conv_bias(mo::Registries& r);  // transpose_conv_bias.cpp

namespace {

void register_example_ops(mo::Registries& r) {
    r.ops.add(scaled_tanh_schema());
    r.extractors.add({"onnx", "com.example", "ScaledTanh", mo::since(1), extract_scaled_tanh});
    r.extractors.add({"caffe", "", "ScaledTanh", mo::all_versions, extract_caffe_scaled_tanh});
    // A TFLite CUSTOM op "ScaledTanh" whose options are a flexbuffer map {alpha, beta}: its keys
    // are attributes, read as the ONNX op's are.
    r.extractors.add({"tflite", "custom", "ScaledTanh", mo::all_versions, extract_scaled_tanh});
    r.transforms.add(std::make_unique<ScaledTanhToTanh>());
    r.transforms.add(std::make_unique<ScaledTanhFusion>());
    register_transpose_conv_bias(r);
}

}  // namespace

MO_DEFINE_PLUGIN("example_ops", "1.0", register_example_ops)
