// Plugins that are wrong in one way each (chosen by the FAULT_* macro they are built with),
// for the error tests of plugin_test.cpp.
#include <mo/plugin.hpp>

#include <memory>
#include <stdexcept>

#if defined(NEEDS_DEPENDENCY)
int mo_test_absent_dependency();
static const int kUsesDependency = mo_test_absent_dependency();
#endif

namespace {

[[maybe_unused]] mo::OpSchema relu_again() {
    mo::OpSchema s;
    s.type = "Relu";
    s.ir_type = "ReLU";
    s.ir_version = "opset1";
    s.min_inputs = s.max_inputs = 1;
    return s;
}

class InferenceAgain final : public mo::Transformation {
public:
    std::string id() const override { return "PartialInference"; }
    mo::Phase phase() const override { return mo::Phase::Middle; }
    bool run(mo::Graph&, const mo::TransformContext&) override { return false; }
};

// A fusion whose pattern misspells Sigmoid: it could never match.
class TypoFusion final : public mo::PatternTransformation {
public:
    std::string id() const override { return "TypoFusion"; }
    mo::Phase phase() const override { return mo::Phase::Middle; }
    std::vector<mo::Pattern> patterns() const override {
        mo::Pattern p("sig");
        p.node("sig", {"Sigmiod"});
        return {p};
    }
    bool apply(const mo::PatternMatch&, const mo::TransformContext&) override { return false; }
};

class ThrowingTransformation final : public mo::Transformation {
public:
    std::string id() const override { return "FaultyThrowingTransformation"; }
    mo::Phase phase() const override { return mo::Phase::Back; }
    bool run(mo::Graph&, const mo::TransformContext&) override { throw std::runtime_error("the lookup table ran out"); }
};

// com.faulty.Boom: y = x, f32 [any]; each fault breaks one of its parts.
[[maybe_unused]] mo::OpSchema boom() {
    mo::OpSchema s;
    s.type = "Boom";
    s.ir_type = "Boom";
    s.ir_version = "faulty_opset";
    s.min_inputs = s.max_inputs = 1;
    s.infer = [](mo::InferContext& c) {
#if defined(FAULT_INFER_THROWS)
        throw std::out_of_range("vector::at");
#endif
        c.set_output(0, c.in_type(0), c.in_shape(0));
    };
    s.eval = [](const mo::Node&, const std::vector<mo::Tensor>& inputs) {
#if defined(FAULT_EVAL_WRONG_SHAPE)
        return std::vector<mo::Tensor>{mo::Tensor::allocate(inputs[0].type(), {inputs[0].shape()[0] + 1})};
#endif
        return std::vector<mo::Tensor>{inputs[0]};
    };
    return s;
}

void register_faulty([[maybe_unused]] mo::Registries& r) {
#if defined(FAULT_THROWS)
    throw mo::Error("cannot register: the licence file is missing", {}, "install the licence file");
#elif defined(FAULT_CLASH_OP)
    r.ops.add(relu_again());
#elif defined(FAULT_CLASH_EXTRACTOR)
    r.extractors.add({"onnx", "", "Relu", 6, 6, [](mo::ExtractContext& c) { c.become("Relu"); }});
#elif defined(FAULT_CLASH_TRANSFORMATION)
    r.transforms.add(std::make_unique<InferenceAgain>());
#elif defined(FAULT_TYPO_PATTERN)
    r.transforms.add(std::make_unique<TypoFusion>());
#elif defined(FAULT_TRANSFORMATION_THROWS)
    r.transforms.add(std::make_unique<ThrowingTransformation>());
#elif defined(FAULT_EXTRACTOR_THROWS) || defined(FAULT_INFER_THROWS) || defined(FAULT_EVAL_WRONG_SHAPE)
    r.ops.add(boom());
    r.extractors.add({"onnx", "com.faulty", "Boom", 1, INT64_MAX, [](mo::ExtractContext& c) {
#if defined(FAULT_EXTRACTOR_THROWS)
                          throw std::runtime_error("bad optional access");
#endif
                          c.become("Boom");
                      }});
#endif
}

}  // namespace

#if defined(FAULT_ABI)
// What a plugin built against the previous release's headers reports.
extern "C" MO_PLUGIN_EXPORT MoPluginInfo MO_PLUGIN_ENTRY_POINT() {
    return MoPluginInfo{MO_PLUGIN_ABI_VERSION - 1, "faulty", "1.0", &register_faulty};
}
#elif !defined(FAULT_NO_ENTRY)
MO_DEFINE_PLUGIN("faulty", "1.0", register_faulty)
#else
// No entry point: a shared library that is not a mo plugin.
extern "C" MO_PLUGIN_EXPORT int not_a_plugin() { return register_faulty == nullptr; }
#endif
