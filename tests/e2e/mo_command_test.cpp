// Runs the built `mo` binary as a user would: exit codes, messages, files left behind.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "emit/ir_test_util.hpp"
#include "support/run_command.hpp"

namespace mo {
namespace {

using MoRun = test::CommandResult;
using test::run_command;

MoRun run_mo(const std::string& args) { return run_command(MO_BINARY, args); }

const std::string kSample = std::string(MO_SOURCE_DIR) + "/samples/tiny_cnn.prototxt";

TEST(MoCommand, ConvertsTheSampleAndPrintsTheSummary) {
    test::ScratchDir dir("cli");
    MoRun r = run_mo("--input_model " + kSample + " --output_dir=" + dir.file("out") + " --model_name net");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("[ SUCCESS ] XML file: " + dir.file("out/net.xml")), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[ SUCCESS ] BIN file: " + dir.file("out/net.bin")), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[ SUCCESS ] Memory consumed:"), std::string::npos) << r.output;
    EXPECT_TRUE(std::filesystem::exists(dir.file("out/net.xml")));
    EXPECT_TRUE(std::filesystem::exists(dir.file("out/net.bin")));
}

TEST(MoCommand, InfoLogEndsWithTheTimeAndMemoryOfEachPhase) {
    test::ScratchDir dir("cli_phases");
    MoRun r = run_mo("--input_model " + kSample + " --output_dir=" + dir.file("out") + " --log_level INFO");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const size_t table = r.output.find("time and memory by phase:");
    ASSERT_NE(table, std::string::npos) << r.output;
    size_t at = table;
    for (const char* phase : {"load", "extract", "transformations", "write IR", "release", "total"}) {
        at = r.output.find(std::string("\n  ") + phase + " ", at);
        EXPECT_NE(at, std::string::npos) << phase << " missing or out of order:\n" << r.output;
    }
    // Without INFO there is no table, and a run this short shows no progress line either.
    MoRun quiet = run_mo("--input_model " + kSample + " --output_dir=" + dir.file("out2"));
    EXPECT_EQ(quiet.output.find("by phase"), std::string::npos) << quiet.output;
    EXPECT_EQ(quiet.output.find("[ mo ]"), std::string::npos) << quiet.output;
}

TEST(MoCommand, BadCommandLineExitsWithTwo) {
    MoRun r = run_mo("--input_model " + kSample + " --no_such_flag");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("[ ERROR ]"), std::string::npos);
    EXPECT_NE(r.output.find("no_such_flag"), std::string::npos);
    EXPECT_EQ(run_mo("").exit_code, 2);
}

TEST(MoCommand, ConversionErrorExitsWithOneAndLeavesNothing) {
    test::ScratchDir dir("cli");
    MoRun r = run_mo("--input_model " + dir.file("missing.onnx") + " --output_dir " + dir.file("out"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("[ ERROR ]"), std::string::npos);
    EXPECT_NE(r.output.find("missing.onnx"), std::string::npos);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
    MoRun no_config = run_mo("--input_model " + kSample + " --output_dir " + dir.file("out") +
                             " --transformations_config " + dir.file("x.json"));
    EXPECT_EQ(no_config.exit_code, 1) << no_config.output;
    EXPECT_NE(no_config.output.find("cannot read the transformations config"), std::string::npos) << no_config.output;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

TEST(MoCommand, HelpAndVersion) {
    MoRun help = run_mo("--help");
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.output.find("--input_model"), std::string::npos);
    MoRun version = run_mo("--version");
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_EQ(version.output.rfind("mo ", 0), 0u) << version.output;
}

TEST(MoCommand, ValidateAndMoRunEvaluateTheWrittenIr) {
    test::ScratchDir dir("cli");
    MoRun converted = run_mo("--input_model " + kSample + " --output_dir " + dir.file("out") +
                             " --compress_to_fp16=False --validate");
    EXPECT_EQ(converted.exit_code, 0) << converted.output;
    EXPECT_NE(converted.output.find("source graph as extracted"), std::string::npos) << converted.output;
    EXPECT_NE(converted.output.find("[ VALIDATE ] passed"), std::string::npos) << converted.output;

    // mo-run writes the outputs; fed back as references they match exactly, and a reference
    // from another seed's inputs does not.
    MoRun first = run_command(MO_RUN_BINARY, dir.file("out/tiny_cnn.xml") + " --seed 1 --out " + dir.file("seed1"));
    ASSERT_EQ(first.exit_code, 0) << first.output;
    std::vector<std::string> written;
    for (const auto& e : std::filesystem::directory_iterator(dir.file("seed1"))) written.push_back(e.path().string());
    ASSERT_EQ(written.size(), 1u);
    const std::string& reference = written[0];
    EXPECT_EQ(run_command(MO_RUN_BINARY, dir.file("out/tiny_cnn.xml") + " --seed 1 --reference " + reference).exit_code, 0);
    MoRun other = run_command(MO_RUN_BINARY, dir.file("out/tiny_cnn.xml") + " --seed 2 --reference " + reference);
    EXPECT_EQ(other.exit_code, 1) << other.output;
    EXPECT_NE(other.output.find("FAIL"), std::string::npos) << other.output;
}

}  // namespace
}  // namespace mo
