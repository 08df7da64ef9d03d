// The same model and flags give byte-identical IRs: every model of the test set is converted by
// the `mo` binary twice, into two different output directories, the second time with glibc
// filling every allocation with a pattern (MALLOC_PERTURB_), so that reading uninitialized
// memory or depending on addresses would show as a difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "emit/ir_test_util.hpp"
#include "support/run_command.hpp"
#include "support/write_file.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& p) { return test::read_file_bytes(p.string()); }

std::vector<fs::path> test_models() {
    std::vector<fs::path> models{fs::path(MO_SOURCE_DIR) / "samples/tiny_cnn.prototxt"};
    for (const auto& e : fs::recursive_directory_iterator(fs::path(MO_SOURCE_DIR) / "tests/e2e/data")) {
        const std::string ext = e.path().extension().string();
        if (e.path().filename() == "model.onnx" || ext == ".tflite") models.push_back(e.path());
    }
    std::sort(models.begin(), models.end());
    return models;
}

TEST(Repeatability, EveryTestModelConvertsToTheSameBytesTwice) {
    const auto models = test_models();
    ASSERT_GE(models.size(), 60u);
    size_t compared = 0;
    for (const fs::path& model : models) {
        test::ScratchDir dir("repeat");
        const std::string first = dir.file("a"), second = dir.file("deeper/other/b");
        const std::string args = "--input_model " + model.string() + " --model_name m --output_dir ";
        const auto a = test::run_command(MO_BINARY, args + first);
        const auto b = test::run_command("env", "MALLOC_PERTURB_=165 " + std::string(MO_BINARY) + " " + args + second);
        ASSERT_EQ(a.exit_code, b.exit_code) << model << "\n" << a.output << "\n" << b.output;
        if (a.exit_code != 0) continue;  // a fixture that is refused must be refused both times
        for (const char* file : {"/m.xml", "/m.bin"})
            EXPECT_TRUE(read_bytes(first + file) == read_bytes(second + file)) << model << file << " differs";
        ++compared;
    }
    EXPECT_GE(compared, 60u);
}

}  // namespace
}  // namespace mo
