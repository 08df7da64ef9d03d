// The code that docs/extending.md and docs/patterns.md teach is code CI compiles: every ```cpp
// block of the pages stands verbatim in the example plugin (built in tree and out of tree).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "driver/convert.hpp"
#include "transforms/pattern.hpp"
#include "transforms/transforms.hpp"

namespace mo {
namespace {

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    EXPECT_TRUE(f) << path;
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<std::string> cpp_blocks(const std::string& markdown) {
    std::vector<std::string> blocks;
    const std::string open = "```cpp\n", close = "```\n";
    for (size_t at = markdown.find(open); at != std::string::npos; at = markdown.find(open, at)) {
        size_t begin = at + open.size();
        size_t end = markdown.find(close, begin);
        if (end == std::string::npos) break;
        blocks.push_back(markdown.substr(begin, end - begin));
        at = end;
    }
    return blocks;
}

TEST(Docs, ExtendingSnippetsAreCompiledCode) {
    const std::string root = MO_SOURCE_DIR;
    const std::string sources = read_file(root + "/plugins/example_ops/scaled_tanh.cpp") +
                                read_file(root + "/plugins/example_ops/transpose_conv_bias.cpp");
    for (const char* page : {"/docs/extending.md", "/docs/patterns.md"}) {
        std::vector<std::string> blocks = cpp_blocks(read_file(root + page));
        EXPECT_GE(blocks.size(), 2u) << page;
        for (const std::string& block : blocks) EXPECT_NE(sources.find(block), std::string::npos) << page << "\n" << block;
    }
}

// docs/ops.md's generated table is what `mo --list_ops` prints for the built-in ops.
// extending.md's list of the installed headers is the list cmake/public_headers.cmake installs.
TEST(Docs, TheDocumentedPluginApiIsWhatIsInstalled) {
    const std::string root = MO_SOURCE_DIR;
    const std::string cmake = read_file(root + "/cmake/public_headers.cmake");
    std::smatch list;
    ASSERT_TRUE(std::regex_search(cmake, list, std::regex(R"(set\(MO_PUBLIC_HEADERS([^)]*)\))")));
    std::set<std::string> installed{"mo/plugin.hpp"};
    std::istringstream names(list[1].str());
    for (std::string name; names >> name;) installed.insert("mo/" + name);

    const std::string page = read_file(root + "/docs/extending.md");
    const size_t begin = page.find("The installed headers are the API");
    ASSERT_NE(begin, std::string::npos);
    const std::string paragraph = page.substr(begin, page.find("\n\n", begin) - begin);
    std::set<std::string> documented;
    const std::regex header(R"(mo/[a-z0-9_/]+\.hpp)");
    for (auto it = std::sregex_iterator(paragraph.begin(), paragraph.end(), header); it != std::sregex_iterator(); ++it)
        documented.insert(it->str());
    EXPECT_EQ(documented, installed);
}

TEST(Docs, OpsTableIsWhatListOpsPrints) {
    const std::string page = read_file(std::string(MO_SOURCE_DIR) + "/docs/ops.md");
    const std::string begin = "<!-- begin mo --list_ops -->\n", end = "<!-- end mo --list_ops -->\n";
    const size_t from = page.find(begin), to = page.find(end);
    ASSERT_NE(from, std::string::npos);
    ASSERT_NE(to, std::string::npos);
    const std::string table = page.substr(from + begin.size(), to - from - begin.size());
    EXPECT_EQ(table, list_ops(ConversionOptions{})) << "run scripts/update_ops_doc.sh build/tools/mo";
}

// Every form of every built-in pattern fusion, in run order, as Pattern::describe() prints it.
std::string pattern_forms() {
    TransformRegistry r;
    register_builtin_transforms(r);
    std::ostringstream os;
    for (const Transformation* t : r.order()) {
        auto* fusion = dynamic_cast<const PatternTransformation*>(t);
        if (!fusion) continue;
        const std::vector<Pattern> forms = fusion->patterns();
        os << "## " << t->id() << "\n\n" << forms.size() << (forms.size() == 1 ? " form" : " forms") << ", tried in this order.\n";
        for (size_t i = 0; i < forms.size(); ++i) os << "\n" << i + 1 << ".\n```\n" << forms[i].describe() << "```\n";
        os << "\n";
    }
    return os.str();
}

// docs/pattern-forms.md's generated part is what pattern_forms() prints; with MO_UPDATE_DOCS set,
// the test writes it (scripts/update_pattern_forms_doc.sh).
TEST(Docs, PatternFormsAreWhatDescribePrints) {
    const std::string path = std::string(MO_SOURCE_DIR) + "/docs/pattern-forms.md";
    const std::string page = read_file(path);
    const std::string begin = "<!-- begin pattern forms -->\n", end = "<!-- end pattern forms -->\n";
    const size_t from = page.find(begin), to = page.find(end);
    ASSERT_NE(from, std::string::npos);
    ASSERT_NE(to, std::string::npos);
    const std::string generated = pattern_forms();
    if (std::getenv("MO_UPDATE_DOCS")) {
        std::ofstream(path) << page.substr(0, from + begin.size()) << generated << page.substr(to);
        return;
    }
    EXPECT_EQ(page.substr(from + begin.size(), to - from - begin.size()), generated)
        << "run scripts/update_pattern_forms_doc.sh";
}

}  // namespace
}  // namespace mo
