// The bad-input table of docs/errors.md, row by row: each bad input is given to the real `mo`
// binary, which must print the documented message, exit with the documented code, leave no
// file behind, and leave an existing IR of the same name as it was.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

#include "emit/ir_test_util.hpp"
#include "extractors/onnx_test_support.hpp"
#include "support/run_command.hpp"
#include "support/write_file.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& p) { return test::read_file_bytes(p.string()); }

void write_bytes(const fs::path& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << bytes;
}

// y = x + w, w [4] from `w` (an initializer), as a binary model at `path`.
std::string add_model(const fs::path& path, onnx::TensorProto w) {
    test::OnnxModelBuilder m(13);
    m.input("x", {4});
    m.initializer(std::move(w));
    m.node("Add", {"x", "w"}, {"y"});
    m.output("y");
    return m.save(path.string());
}

// Files in `dir` other than the earlier IR m.xml / m.bin.
size_t files_besides_the_ir(const fs::path& dir) {
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir))
        files += e.path().filename() != "m.xml" && e.path().filename() != "m.bin";
    return files;
}

const std::string kValid = std::string(MO_SOURCE_DIR) + "/tests/e2e/data/contrib/Gelu/model.onnx";

// The two files packed in a fuzz seed (fuzz/fuzz_support.hpp: a 4-byte little-endian length,
// the first file, the second): model.json and its shard, or an IR's .xml and .bin.
std::pair<std::string, std::string> seed_files(const std::string& seed) {
    const std::string bytes = read_bytes(std::string(MO_SOURCE_DIR) + "/fuzz/seeds/" + seed);
    const uint32_t n = uint32_t(uint8_t(bytes[0])) | uint32_t(uint8_t(bytes[1])) << 8 |
                       uint32_t(uint8_t(bytes[2])) << 16 | uint32_t(uint8_t(bytes[3])) << 24;
    return {bytes.substr(4, n), bytes.substr(4 + n)};
}

struct BadInput {
    std::string row;  // the row of docs/errors.md
    // Writes the bad input into `dir` and returns mo's arguments (before --output_dir).
    std::function<std::string(const fs::path& dir)> make;
    int exit_code;
    std::vector<std::string> message;  // fragments of what mo prints
    bool mo_run = false;               // the input is an IR given to mo-run (outputs: --out)
};

std::ostream& operator<<(std::ostream& os, const BadInput& b) { return os << b.row; }

std::vector<BadInput> bad_inputs() {
    return {
        {"truncated file",
         [](const fs::path& d) {
             const std::string bytes = read_bytes(kValid);
             write_bytes(d / "m.onnx", bytes.substr(0, bytes.size() / 2));
             return "--input_model " + (d / "m.onnx").string();
         },
         1,
         {"m.onnx", "the ONNX file is truncated or corrupt"}},
        {"garbage bytes",
         [](const fs::path& d) {
             std::string bytes(4096, '\0');
             for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
             write_bytes(d / "m.onnx", bytes);
             return "--input_model " + (d / "m.onnx").string();
         },
         1,
         {"m.onnx", "the ONNX file is truncated or corrupt"}},
        {"a protobuf length that lies",
         [](const fs::path& d) {
             write_bytes(d / "m.onnx", std::string("\x08\x08\x3a\xff\xff\xff\x07graph", 11));
             return "--input_model " + (d / "m.onnx").string();
         },
         1,
         {"m.onnx", "a field runs past the end of its message"}},
        {"a TFLite flatbuffer cut short",
         [](const fs::path& d) {
             const std::string bytes =
                 read_bytes(std::string(MO_SOURCE_DIR) + "/tests/e2e/data/tflite_int8/int8_cnn/model.tflite");
             write_bytes(d / "m.tflite", bytes.substr(0, bytes.size() / 3));
             return "--input_model " + (d / "m.tflite").string();
         },
         1,
         {"m.tflite", "corrupt or truncated"}},
        {"a TensorFlow GraphDef cut short",
         [](const fs::path& d) {
             const std::string bytes = read_bytes(std::string(MO_SOURCE_DIR) + "/fuzz/seeds/tf/small.pb");
             write_bytes(d / "m.pb", bytes.substr(0, 300));
             return "--input_model " + (d / "m.pb").string();
         },
         1,
         {"m.pb", "the GraphDef file is truncated or corrupt"}},
        {"a Caffe .caffemodel cut short",
         [](const fs::path& d) {
             const std::string bytes = read_bytes(std::string(MO_SOURCE_DIR) + "/tests/e2e/data/caffe/conv/model.caffemodel");
             write_bytes(d / "m.caffemodel", bytes.substr(0, bytes.size() / 2));
             return "--input_model " + (d / "m.caffemodel").string();
         },
         1,
         {"m.caffemodel", "the Caffe NetParameter file is truncated or corrupt"}},
        {"a Caffe prototxt that is not text format",
         [](const fs::path& d) {
             write_bytes(d / "deploy.prototxt", "layer { name: \"conv\" type: Convolution {");
             return "--input_proto " + (d / "deploy.prototxt").string();
         },
         1,
         {"deploy.prototxt", "not a valid Caffe prototxt: line 1"}},
        {"a Caffe blob with fewer values than its shape",
         [](const fs::path& d) {
             write_bytes(d / "deploy.prototxt", "input: \"x\" input_shape { dim: 2 }\n"
                                                "layer { name: \"p\" type: \"PReLU\" bottom: \"x\" top: \"y\" }\n");
             // NetParameter.layer(100) { name(1) "p", blobs(7) { data(5) packed [1 float], shape(7) { dim(1) [2] } } }
             const std::string blob = std::string("\x2a\x04\x00\x00\x80\x3f\x3a\x03\x0a\x01\x02", 11);
             const std::string layer = std::string("\x0a\x01p\x3a", 4) + static_cast<char>(blob.size()) + blob;
             write_bytes(d / "m.caffemodel", std::string("\xa2\x06", 2) + static_cast<char>(layer.size()) + layer);
             return "--input_model " + (d / "m.caffemodel").string() + " --input_proto " + (d / "deploy.prototxt").string();
         },
         1,
         {"blob 0 of layer 'p'", "the blob holds 1 values, its shape needs 2"}},
        {"a missing TF.js weight shard",
         [](const fs::path& d) {
             write_bytes(d / "model.json", seed_files("tfjs/small").first);
             return "--input_model " + (d / "model.json").string();
         },
         1,
         {"model.json", "weight shard 'weights.bin' is missing"}},
        {"a TF.js weight shard cut short",
         [](const fs::path& d) {
             const auto [json, shard] = seed_files("tfjs/small");
             write_bytes(d / "model.json", json);
             write_bytes(d / "weights.bin", shard.substr(0, shard.size() / 2));
             return "--input_model " + (d / "model.json").string();
         },
         1,
         {"model.json", "the weight shards end before weight"}},
        {"an ONNX model nested too deeply",
         [](const fs::path& d) {
             test::OnnxModelBuilder m(13);
             m.input("x", {4});
             m.node("Neg", {"x"}, {"y"});
             m.output("y");
             onnx::TypeProto* type = m.model().mutable_graph()->mutable_output(0)->mutable_type();
             for (int i = 0; i < 100; ++i) type = type->mutable_sequence_type()->mutable_elem_type();
             return "--input_model " + m.save((d / "m.onnx").string());
         },
         1,
         {"m.onnx", "nests messages more deeply than protobuf parses"}},
        {"an IR .xml cut short (mo-run)",
         [](const fs::path& d) {
             const auto [xml, bin] = seed_files("ir/tiny_cnn");
             write_bytes(d / "m.xml", xml.substr(0, xml.size() / 2));
             write_bytes(d / "m.bin", bin);
             return (d / "m.xml").string();
         },
         1,
         {"m.xml", "malformed XML"},
         true},
        {"an IR .bin shorter than its constants (mo-run)",
         [](const fs::path& d) {
             const auto [xml, bin] = seed_files("ir/tiny_cnn");
             write_bytes(d / "m.xml", xml);
             write_bytes(d / "m.bin", bin.substr(0, bin.size() / 2));
             return (d / "m.xml").string();
         },
         1,
         {"m.xml", "lie outside the .bin file"},
         true},
        {"external data path with ..",
         [](const fs::path& d) {
             write_bytes(d / "outside.bin", std::string(16, '\0'));
             fs::create_directories(d / "model");
             return "--input_model " + add_model(d / "model/m.onnx", test::onnx_external_tensor("w", "../outside.bin", {4}));
         },
         1,
         {"external data path '../outside.bin' leaves the model's directory"}},
        {"external data at an absolute path",
         [](const fs::path& d) {
             return "--input_model " + add_model(d / "m.onnx", test::onnx_external_tensor("w", "/etc/hostname", {4}));
         },
         1,
         {"external data path '/etc/hostname' is absolute"}},
        {"external data through a symlink that leaves the directory",
         [](const fs::path& d) {
             write_bytes(d / "outside.bin", std::string(16, '\0'));
             fs::create_directories(d / "model");
             fs::create_symlink(d / "outside.bin", d / "model/w.bin");
             return "--input_model " + add_model(d / "model/m.onnx", test::onnx_external_tensor("w", "w.bin", {4}));
         },
         1,
         {"external data path 'w.bin' leaves the model's directory"}},
        {"a missing external-data file (shard)",
         [](const fs::path& d) {
             return "--input_model " + add_model(d / "m.onnx", test::onnx_external_tensor("w", "missing.bin", {4}));
         },
         1,
         {"initializer 'w'", "external data file 'missing.bin' cannot be read", "No such file"}},
        {"external data shorter than the tensor",
         [](const fs::path& d) {
             write_bytes(d / "w.bin", std::string(8, '\0'));
             return "--input_model " + add_model(d / "m.onnx", test::onnx_external_tensor("w", "w.bin", {4}));
         },
         1,
         {"needs 16 bytes but 'w.bin' has only 8 left"}},
        {"a graph cycle",
         [](const fs::path& d) {
             test::OnnxModelBuilder m(13);
             m.input("x", {4});
             m.node("Add", {"x", "b"}, {"a"});
             m.node("Relu", {"a"}, {"b"});
             m.output("b");
             return "--input_model " + m.save((d / "m.onnx").string());
         },
         1,
         {"cycle"}},
        {"a dangling edge (an input nothing produces)",
         [](const fs::path& d) {
             test::OnnxModelBuilder m(13);
             m.input("x", {4});
             m.node("Add", {"x", "nowhere"}, {"y"});
             m.output("y");
             return "--input_model " + m.save((d / "m.onnx").string());
         },
         1,
         {"nowhere"}},
        {"duplicate tensor names",
         [](const fs::path& d) {
             test::OnnxModelBuilder m(13);
             m.input("x", {4});
             m.node("Relu", {"x"}, {"y"});
             m.node("Neg", {"x"}, {"y"});
             m.output("y");
             return "--input_model " + m.save((d / "m.onnx").string());
         },
         1,
         {"'y'"}},
        {"an unknown opset domain",
         [](const fs::path& d) {
             test::OnnxModelBuilder m(13);
             m.input("x", {4});
             m.node("Frob", {"x"}, {"y"}, {}, "", "com.example");
             m.output("y");
             return "--input_model " + m.save((d / "m.onnx").string());
         },
         1,
         {"com.example"}},
        {"an attribute of the wrong type",
         [](const fs::path& d) {
             test::OnnxModelBuilder m(13);
             m.input("x", {1, 1, 4, 4});
             m.initializer("w", std::vector<float>(9, 1.0f), {1, 1, 3, 3});
             m.node("Conv", {"x", "w"}, {"y"}, {{"strides", 2.0f}});
             m.output("y");
             return "--input_model " + m.save((d / "m.onnx").string());
         },
         1,
         {"strides"}},
        {"huge dims (a tensor larger than its data)",
         [](const fs::path& d) {
             onnx::TensorProto w =
                 test::int_tensor<float>("w", onnx::TensorProto::FLOAT, {1, 2, 3, 4}, {int64_t{1} << 40});
             return "--input_model " + add_model(d / "m.onnx", w);
         },
         1,
         {"tensor data has 16 bytes but its shape needs"}},
        {"an output index the op does not have",
         [](const fs::path& d) {
             test::OnnxModelBuilder m(13);
             m.input("x", {4});
             m.node("Shape", {"x"}, {"s", "extra"});
             m.node("Neg", {"extra"}, {"y"}, {}, "reader");
             m.output("y");
             return "--input_model " + m.save((d / "m.onnx").string());
         },
         1,
         {"Shape has no output 1, but node 'reader' reads it"}},
        {"an empty constant where one value is needed",
         [](const fs::path& d) {
             test::OnnxModelBuilder m(13);
             m.input("x", {4});
             m.initializer("ratio", {}, {0});
             m.initializer(test::int_tensor<uint8_t>("training", onnx::TensorProto::BOOL, {1}, {}));
             m.node("Dropout", {"x", "ratio", "training"}, {"y"});
             m.output("y");
             return "--input_model " + m.save((d / "m.onnx").string());
         },
         1,
         {"ratio must hold one value, not 0"}},
        {"sizes whose arithmetic overflows int64",
         [](const fs::path& d) {
             test::OnnxModelBuilder m(13);
             m.input("x", {3});
             m.initializer_i64("repeats", {int64_t{1} << 62}, {1});
             m.node("Tile", {"x", "repeats"}, {"y"});
             m.output("y");
             return "--input_model " + m.save((d / "m.onnx").string());
         },
         1,
         {"node 'Tile_0' (Tile)", "dimension arithmetic overflows int64: 3 * 4611686018427387904"}},
        {"an unwritable output directory",
         [](const fs::path& d) {
             write_bytes(d / "a_file", "x");
             return "--input_model " + kValid + " --output_dir " + (d / "a_file/out").string() + " --model_name m";
         },
         1,
         {"cannot create the output directory"}},
        {"a bad flag value",
         [](const fs::path&) { return "--input_model " + kValid + " --batch many"; },
         2,
         {"--batch: 'many' is not a number"}},
        {"an unknown flag",
         [](const fs::path&) { return "--input_model " + kValid + " --frobnicate"; },
         2,
         {"unknown flag '--frobnicate'"}},
        {"a plugin of another ABI",
         [](const fs::path&) {
             return "--input_model " + kValid + " --extensions " + MO_FAULTY_PLUGIN_DIR + "/libmo_faulty_abi.so";
         },
         1,
         {"libmo_faulty_abi.so", "ABI"}},
        {"a plugin whose registration throws",
         [](const fs::path&) {
             return "--input_model " + kValid + " --extensions " + MO_FAULTY_PLUGIN_DIR + "/libmo_faulty_throws.so";
         },
         1,
         {"libmo_faulty_throws.so"}},
        {"a plugin with a missing dependency",
         [](const fs::path&) {
             return "--input_model " + kValid + " --extensions " + MO_FAULTY_PLUGIN_DIR +
                    "/libmo_faulty_needs_dependency.so";
         },
         1,
         {"libmo_faulty_needs_dependency.so", "libmo_test_absent_dependency.so"}},
        {"a malformed transformations config",
         [](const fs::path& d) {
             write_bytes(d / "c.json", "[{\"id\": \"ReplaceSubgraphWithOp\", ");
             return "--input_model " + kValid + " --transformations_config " + (d / "c.json").string();
         },
         1,
         {"c.json"}},
        {"a file of no known format",
         [](const fs::path& d) {
             write_bytes(d / "m.txt", "hello");
             return "--input_model " + (d / "m.txt").string();
         },
         1,
         {"m.txt"}},
    };
}

class BadInputs : public ::testing::TestWithParam<BadInput> {};

// The output directory holds an IR of the same name from an earlier run; it must survive.
TEST_P(BadInputs, ClearErrorExitCodeNothingWrittenExistingIrIntact) {
    const BadInput& bad = GetParam();
    test::ScratchDir dir("bad_input");
    const fs::path in = dir.path() / "in", out = dir.path() / "out";
    fs::create_directories(in);
    fs::create_directories(out);
    write_bytes(out / "m.xml", "earlier xml");
    write_bytes(out / "m.bin", "earlier bin");
    std::string args = bad.make(in);
    if (bad.mo_run) args += " --out " + out.string();
    else if (args.find("--output_dir") == std::string::npos) args += " --output_dir " + out.string() + " --model_name m";
    const test::CommandResult r = test::run_command(bad.mo_run ? MO_RUN_BINARY : MO_BINARY, args);
    EXPECT_EQ(r.exit_code, bad.exit_code) << r.output;
    for (const std::string& fragment : bad.message)
        EXPECT_NE(r.output.find(fragment), std::string::npos) << fragment << "\n" << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
    const size_t files = files_besides_the_ir(out);
    EXPECT_EQ(files, 0u) << "files left behind in " << out;
    EXPECT_EQ(read_bytes(out / "m.xml"), "earlier xml");
    EXPECT_EQ(read_bytes(out / "m.bin"), "earlier bin");
    std::cout << "[ row ] " << bad.row << " | exit " << r.exit_code << " | " << r.output.substr(0, r.output.find('\n'))
              << "\n";
}

INSTANTIATE_TEST_SUITE_P(Table, BadInputs, ::testing::ValuesIn(bad_inputs()),
                         [](const auto& info) { return "row" + std::to_string(info.index); });

// A model of `mib` MiB of f32 zeros in a sparse external-data file: cheap to make, long to write.
std::string large_model(const fs::path& dir, int64_t mib) {
    const int64_t elements = mib << 18;
    { std::ofstream f(dir / "w.bin", std::ios::binary); }
    fs::resize_file(dir / "w.bin", static_cast<uintmax_t>(elements * 4));
    test::OnnxModelBuilder m(13);
    m.input("x", {elements});
    m.initializer(test::onnx_external_tensor("w", "w.bin", {elements}));
    m.node("Add", {"x", "w"}, {"y"});
    m.output("y");
    return m.save((dir / "m.onnx").string());
}

// SIGINT or SIGTERM while the BIN is being written: the process ends by that signal, leaving no
// temporary, and the IR of the same name from an earlier run stays as it was.
TEST(BadInputs, SignalDuringWritingLeavesNothingBehind) {
    for (int sig : {SIGINT, SIGTERM}) {
        test::ScratchDir dir("bad_input_signal");
        const fs::path out = dir.path() / "out";
        fs::create_directories(out);
        write_bytes(out / "m.xml", "earlier xml");
        write_bytes(out / "m.bin", "earlier bin");
        const std::string model = large_model(dir.path(), 1024);
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::execl(MO_BINARY, MO_BINARY, "--input_model", model.c_str(), "--output_dir", out.c_str(), "--model_name",
                    "m", "--compress_to_fp16=False", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        // Wait for the temporary BIN to appear, then interrupt.
        bool seen = false;
        for (int i = 0; i < 20000 && !seen; ++i) {
            for (const auto& e : fs::directory_iterator(out))
                if (e.path().filename().string().find(".m.bin.") == 0) seen = true;
            if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        ::kill(pid, sig);
        int status = 0;
        ::waitpid(pid, &status, 0);
        ASSERT_TRUE(seen) << "the conversion ended before its BIN was seen being written";
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
        const size_t files = files_besides_the_ir(out);
        EXPECT_EQ(files, 0u) << "signal " << sig << " left files in " << out;
        EXPECT_EQ(read_bytes(out / "m.xml"), "earlier xml");
        EXPECT_EQ(read_bytes(out / "m.bin"), "earlier bin");
    }
}

// A full disk: the BIN does not fit a 64 KiB tmpfs (needs root; skipped where mounting is refused).
TEST(BadInputs, FullDiskIsAClearErrorAndLeavesNothingBehind) {
    test::ScratchDir dir("bad_input_enospc");
    const fs::path out = dir.path() / "small";
    fs::create_directories(out);
    if (::mount("tmpfs", out.c_str(), "tmpfs", 0, "size=64k") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
    write_bytes(out / "m.xml", "earlier xml");
    write_bytes(out / "m.bin", "earlier bin");
    const std::string model = std::string(MO_SOURCE_DIR) + "/tests/e2e/data/llm/model.onnx";  // an 88 KB BIN
    const test::CommandResult r =
        test::run_command(MO_BINARY, "--input_model " + model + " --output_dir " + out.string() +
                                         " --model_name m --compress_to_fp16=False");
    const size_t files = files_besides_the_ir(out);
    const std::string xml = read_bytes(out / "m.xml"), bin = read_bytes(out / "m.bin");
    ::umount(out.c_str());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
    EXPECT_EQ(files, 0u);
    EXPECT_EQ(xml, "earlier xml");
    EXPECT_EQ(bin, "earlier bin");
    std::cout << "[ row ] a full disk | exit " << r.exit_code << " | " << r.output.substr(0, r.output.find('\n'))
              << "\n";
}

}  // namespace
}  // namespace mo
