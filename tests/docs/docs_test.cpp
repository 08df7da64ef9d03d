// The code that docs/extending.md teaches is code CI compiles: every ```cpp block of the page
// stands verbatim in a source file of plugins/ (built in tree and out of tree by the tests).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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
    const std::string sources = read_file(root + "/plugins/example_ops/scaled_tanh.cpp");
    std::vector<std::string> blocks = cpp_blocks(read_file(root + "/docs/extending.md"));
    EXPECT_GE(blocks.size(), 6u);
    for (const std::string& block : blocks) EXPECT_NE(sources.find(block), std::string::npos) << block;
}

}  // namespace
}  // namespace mo
