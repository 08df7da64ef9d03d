// Op types are named by strings that no compiler checks. The registry checks the ones a
// transformation declares (op_types(), its patterns, named_op_types()) once every plugin is
// registered; the built-ins' sources are also scanned for op types they create or test by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "mo/plugin.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "tools/pipeline.hpp"
#include "transforms/pattern.hpp"
#include "transforms/registry.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

class Misspelt final : public PatternTransformation {
public:
    std::string id() const override { return "MisspeltFusion"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<Pattern> patterns() const override {
        Pattern p("mul");
        p.node("mul", {"Multiply"}).node("sig", {"Sigmoid", "HSigmiod"}).edge("sig", "mul", 0);
        return {p};
    }
    bool apply(const PatternMatch&, const TransformContext&) override { return false; }
};

class Looks final : public Transformation {
public:
    explicit Looks(std::vector<std::string> types) : types_(std::move(types)) {}
    std::string id() const override { return "LooksForTypes"; }
    Phase phase() const override { return Phase::Back; }
    std::vector<std::string> named_op_types() const override { return types_; }
    bool run(Graph&, const TransformContext&) override { return false; }

private:
    std::vector<std::string> types_;
};

TEST(OpTypeNames, EveryBuiltinTransformationNamesRegisteredOps) {
    OpRegistry ops;
    LoaderRegistry loaders;
    ExtractorRegistry extractors;
    TransformRegistry transforms;
    Registries r{ops, loaders, extractors, transforms};
    register_builtins(r);
    EXPECT_NO_THROW(transforms.check_op_types(ops));
    size_t declared = 0;
    for (Transformation* t : transforms.all()) declared += t->named_op_types().size();
    EXPECT_GT(declared, 50u) << "the op and pattern transformations declare their types";
}

TEST(OpTypeNames, AMisspeltTypeIsAnErrorNamingTheTransformationAndItsOrigin) {
    OpRegistry ops;
    LoaderRegistry loaders;
    ExtractorRegistry extractors;
    TransformRegistry transforms;
    Registries r{ops, loaders, extractors, transforms};
    register_builtins(r);
    transforms.set_origin("/plugins/libtypo.so");
    transforms.add(std::make_unique<Misspelt>());
    test::expect_error([&] { transforms.check_op_types(ops); },
                       {"transformation 'MisspeltFusion' looks for op type 'HSigmiod'", "could never match",
                        "/plugins/libtypo.so", "mo --list_ops"});

    TransformRegistry generic;
    generic.add(std::make_unique<Looks>(std::vector<std::string>{"Relu", "Relu6"}));
    test::expect_error([&] { generic.check_op_types(ops); }, {"'LooksForTypes' looks for op type 'Relu6'", "built-in"});
}

// The op types built-in extractors and transformations create or test by name in their code:
// c.op("X", ...), c.become("X"), add_op("X", ...), n.is("X"), graph.find_op... A type looked up
// with ops().find("X") first may be absent (a plugin can add it).
TEST(OpTypeNames, BuiltinSourcesNameOnlyRegisteredOps) {
    const OpRegistry& ops = test::builtin_ops();
    const std::regex named(R"re(\b(?:is|op|add|add_op|become)\(\s*"([A-Z][A-Za-z0-9]*)")re");
    const std::regex guarded(R"re(ops\(\)\.find\(\s*"([A-Z][A-Za-z0-9]*)")re");
    size_t checked = 0;
    std::vector<std::string> unknown;
    for (const char* folder : {"extractors", "transforms"})
        for (const auto& entry : fs::recursive_directory_iterator(fs::path(MO_SOURCE_DIR) / folder)) {
            const std::string ext = entry.path().extension().string();
            if (ext != ".cpp" && ext != ".hpp") continue;
            std::ifstream in(entry.path());
            std::stringstream text;
            text << in.rdbuf();
            const std::string source = text.str();
            std::set<std::string> optional;
            for (std::sregex_iterator it(source.begin(), source.end(), guarded), end; it != end; ++it)
                optional.insert((*it)[1]);
            for (std::sregex_iterator it(source.begin(), source.end(), named), end; it != end; ++it) {
                const std::string type = (*it)[1];
                ++checked;
                if (!ops.find(type) && !optional.count(type))
                    unknown.push_back(fs::relative(entry.path(), MO_SOURCE_DIR).string() + ": " + type);
            }
        }
    EXPECT_GT(checked, 500u);  // the scan finds them (973 at the time of writing)
    EXPECT_EQ(unknown, std::vector<std::string>{});
}

}  // namespace
}  // namespace mo
