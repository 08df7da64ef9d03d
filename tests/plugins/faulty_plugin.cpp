// Plugins that are wrong in one way each (chosen by the FAULT_* macro they are built with),
// for the error tests of plugin_test.cpp.
#include <mo/plugin.hpp>

#include <memory>

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

void register_faulty([[maybe_unused]] mo::Registries& r) {
#if defined(FAULT_THROWS)
    throw mo::Error("cannot register: the licence file is missing", {}, "install the licence file");
#elif defined(FAULT_CLASH_OP)
    r.ops.add(relu_again());
#elif defined(FAULT_CLASH_EXTRACTOR)
    r.extractors.add({"onnx", "", "Relu", 6, 6, [](mo::ExtractContext& c) { c.become("Relu"); }});
#elif defined(FAULT_CLASH_TRANSFORMATION)
    r.transforms.add(std::make_unique<InferenceAgain>());
#endif
}

}  // namespace

#if defined(FAULT_ABI)
extern "C" MO_PLUGIN_EXPORT MoPluginInfo MO_PLUGIN_ENTRY_POINT() {
    return MoPluginInfo{MO_PLUGIN_ABI_VERSION + 1000, "faulty", "1.0", &register_faulty};
}
#elif !defined(FAULT_NO_ENTRY)
MO_DEFINE_PLUGIN("faulty", "1.0", register_faulty)
#else
// No entry point: a shared library that is not a mo plugin.
extern "C" MO_PLUGIN_EXPORT int not_a_plugin() { return register_faulty == nullptr; }
#endif
