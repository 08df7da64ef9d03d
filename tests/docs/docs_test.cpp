// The code that docs/extending.md and docs/patterns.md teach is code CI compiles: every ```cpp
// block of the pages stands verbatim in the example plugin (built in tree and out of tree).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tools/convert.hpp"

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
TEST(Docs, OpsTableIsWhatListOpsPrints) {
    const std::string page = read_file(std::string(MO_SOURCE_DIR) + "/docs/ops.md");
    const std::string begin = "<!-- begin mo --list_ops -->\n", end = "<!-- end mo --list_ops -->\n";
    const size_t from = page.find(begin), to = page.find(end);
    ASSERT_NE(from, std::string::npos);
    ASSERT_NE(to, std::string::npos);
    const std::string table = page.substr(from + begin.size(), to - from - begin.size());
    EXPECT_EQ(table, list_ops(ConversionOptions{})) << "run scripts/update_ops_doc.sh build/tools/mo";
}

}  // namespace
}  // namespace mo
