// The same model and flags give byte-identical IRs: every model of the test set is converted by
// the `mo` binary twice, into two different output directories, the second time with glibc
// filling every allocation with a pattern (MALLOC_PERTURB_), so that reading uninitialized
// memory or depending on addresses would show as a difference. Weights of more than 64 MiB are
// checked for f16 on two threads when two CPUs are usable: converted again on one CPU, they give
// the same bytes.
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "emit/ir_test_util.hpp"
#include "support/onnx_model_builder.hpp"
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

// y_k = x + w_k for four 20 MiB weights in external data; w2 holds a value beyond f16's range, so
// f16 compression keeps it f32 and compresses the others.
std::string large_weights_model(const fs::path& dir) {
    constexpr int64_t kElements = int64_t{5} << 20;
    test::OnnxModelBuilder m(13);
    m.input("x", {kElements});
    for (int k = 0; k < 4; ++k) {
        const std::string name = "w" + std::to_string(k);
        std::vector<float> values(static_cast<size_t>(kElements));
        for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>((i * 7919 + k) % 1000) * 0.01f - 5.f;
        if (k == 2) values[12345] = 1e6f;
        std::ofstream(dir / (name + ".bin"), std::ios::binary)
            .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
        m.initializer(test::onnx_external_tensor(name, name + ".bin", {kElements}));
        m.node("Add", {"x", name}, {"y" + std::to_string(k)});
        m.output("y" + std::to_string(k));
    }
    return m.save((dir / "large.onnx").string());
}

TEST(Repeatability, TheSameBytesOnOneCpuAsOnAll) {
    cpu_set_t set;
    ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    std::cout << "[ cpus ] " << CPU_COUNT(&set) << " usable here (two threads check f16 when more than one)\n";
    test::ScratchDir dir("repeat_cpus");
    const std::string model = large_weights_model(dir.path());
    const std::string args = "--input_model " + model + " --model_name m --output_dir ";
    const auto all = test::run_command(MO_BINARY, args + dir.file("all"));
    const auto one = test::run_command("taskset", "-c 0 " + std::string(MO_BINARY) + " " + args + dir.file("one"));
    ASSERT_EQ(all.exit_code, 0) << all.output;
    ASSERT_EQ(one.exit_code, 0) << one.output;
    for (const char* file : {"/m.xml", "/m.bin"})
        EXPECT_TRUE(read_bytes(dir.file("all") + file) == read_bytes(dir.file("one") + file)) << file << " differs";
    // Three weights compressed to f16, one kept f32: 3 * 10 MiB + 20 MiB (and a few bytes).
    EXPECT_NEAR(static_cast<double>(fs::file_size(dir.file("all") + "/m.bin")), 50.0 * (1 << 20), 1024.0);
}

}  // namespace
}  // namespace mo
