// The registries plugins and built-ins share: keys are unique, origins are recorded, loaders
// are chosen by --framework, extension or content, and the built-ins register through them.
#include <gtest/gtest.h>

#include <fstream>

#include "emit/ir_test_util.hpp"
#include "extractors/caffe/caffe_extractors.hpp"
#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"
#include "extractors/tf/tf_extractors.hpp"
#include "extractors/tflite/tflite_extractors.hpp"
#include "ops/ops.hpp"
#include "support/op_test_util.hpp"
#include "tools/pipeline.hpp"
#include "transforms/transforms.hpp"

namespace mo {
namespace {

Extractor extractor(std::string domain, std::string type, int64_t since, int64_t until) {
    return {"onnx", std::move(domain), std::move(type), since, until, [](ExtractContext&) {}};
}

TEST(ExtractorRegistry, OverlappingOpsetRangesOfOneKeyAreRejected) {
    ExtractorRegistry r;
    r.add(extractor("", "Foo", 1, 10));
    r.add(extractor("", "Foo", 11, INT64_MAX));          // adjacent: fine
    r.add(extractor("com.example", "Foo", 1, INT64_MAX));  // another domain: fine
    r.set_origin("/plugins/libclash.so");
    test::expect_error([&] { r.add(extractor("", "Foo", 10, 12)); },
                       {"extractor of onnx op 'Foo' (opsets 10..12) is registered twice",
                        "built-in already registered opsets 1..10", "/plugins/libclash.so"});
    EXPECT_EQ(r.size(), 3u);
    EXPECT_EQ(r.find("onnx", "", "Foo", 10)->since_version, 1);
    EXPECT_EQ(r.find("onnx", "", "Foo", 11)->since_version, 11);
    EXPECT_EQ(r.find("onnx", "com.example", "Foo", 3)->origin, "built-in");
    EXPECT_EQ(r.find("tflite", "", "Foo", 3), nullptr);
}

Loader loader(std::string framework, std::vector<std::string> extensions, std::string magic = {}) {
    Loader l;
    l.framework = std::move(framework);
    l.extensions = std::move(extensions);
    if (!magic.empty())
        l.recognizes = [magic](const std::string& path) {
            std::ifstream f(path);
            std::string head(magic.size(), '\0');
            f.read(head.data(), static_cast<std::streamsize>(head.size()));
            return head == magic;
        };
    l.load = [](const std::string&, const ConversionOptions&, const OpRegistry&) -> std::unique_ptr<Graph> {
        return nullptr;
    };
    l.description = "test";
    return l;
}

TEST(LoaderRegistry, ChoosesByFrameworkThenExtensionThenContent) {
    test::ScratchDir dir("loaders");
    LoaderRegistry r;
    r.add(loader("alpha", {".alpha"}));
    r.add(loader("beta", {".beta"}, "BETA"));
    std::ofstream(dir.file("model.bin")) << "BETA model";
    std::ofstream(dir.file("other.bin")) << "unknown";
    EXPECT_EQ(r.choose(dir.file("m.ALPHA"), "").framework, "alpha");
    EXPECT_EQ(r.choose(dir.file("m.alpha"), "beta").framework, "beta");
    EXPECT_EQ(r.choose(dir.file("model.bin"), "").framework, "beta");
    test::expect_error([&] { r.choose(dir.file("other.bin"), ""); },
                       {"cannot tell the framework", "alpha (test), beta (test)", "--framework"});
    test::expect_error([&] { r.choose(dir.file("m.alpha"), "gamma"); }, {"unsupported framework 'gamma'"});
}

TEST(LoaderRegistry, FrameworkNamesAndExtensionsAreUnique) {
    LoaderRegistry r;
    r.add(loader("alpha", {".a"}));
    r.set_origin("/plugins/libx.so");
    test::expect_error([&] { r.add(loader("alpha", {".b"})); }, {"framework 'alpha' is registered twice", "built-in"});
    test::expect_error([&] { r.add(loader("gamma", {".a"})); }, {"'.a'", "already claimed by framework 'alpha'"});
    EXPECT_EQ(r.loaders().size(), 1u);
}

TEST(Registries, BuiltinsRegisterThroughThePluginRegistries) {
    OpRegistry ops, direct_ops;
    LoaderRegistry loaders;
    ExtractorRegistry extractors, direct_extractors;
    TransformRegistry transforms, direct_transforms;
    Registries r{ops, loaders, extractors, transforms};
    register_builtins(r);
    // The same as each folder's registration function, and nothing else.
    register_builtin_ops(direct_ops);
    register_onnx_extractors(direct_extractors);
    const size_t onnx_extractors = direct_extractors.size();
    register_tflite_extractors(direct_extractors);
    const size_t tflite_extractors = direct_extractors.size() - onnx_extractors;
    register_tf_extractors(direct_extractors);
    const size_t tf_extractors = direct_extractors.size() - onnx_extractors - tflite_extractors;
    register_caffe_extractors(direct_extractors);
    register_builtin_transforms(direct_transforms);
    EXPECT_EQ(ops.types(), direct_ops.types());
    EXPECT_EQ(extractors.size(), direct_extractors.size());
    EXPECT_EQ(extractors.size("onnx"), onnx_extractors);
    EXPECT_EQ(extractors.size("tflite"), tflite_extractors);
    EXPECT_EQ(extractors.size("tf"), tf_extractors);
    EXPECT_EQ(extractors.size("caffe"), direct_extractors.size() - onnx_extractors - tflite_extractors - tf_extractors);
    EXPECT_EQ(transforms.size(), direct_transforms.size());
    ASSERT_EQ(loaders.loaders().size(), 5u);
    EXPECT_EQ(loaders.loaders()[0].framework, "onnx");
    EXPECT_EQ(loaders.loaders()[1].framework, "tflite");
    EXPECT_EQ(loaders.loaders()[2].framework, "tf");
    EXPECT_EQ(loaders.loaders()[3].framework, "caffe");
    EXPECT_EQ(loaders.loaders()[4].framework, "ir");
    for (const std::string& type : ops.types()) EXPECT_EQ(ops.origin(type), "built-in") << type;
    for (const Transformation* t : transforms.order()) EXPECT_EQ(transforms.origin(*t), "built-in") << t->id();
}

}  // namespace
}  // namespace mo
