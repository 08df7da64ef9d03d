// The held model of the Python module (tools/held_model.hpp): converted without writing, saved
// compressed or not from one graph, it writes the bytes convert() writes with the same options,
// for every test model (If / Loop bodies, quantized weights, plugins' configs, TFLite, TF). The
// f16 compression runs at save time on a clone (core/graph_clone.hpp), so saving leaves the held
// graph as it was; a stateful model keeps its variables between runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include "core/graph_clone.hpp"
#include "emit/ir_test_util.hpp"
#include "support/op_test_util.hpp"
#include "tools/held_model.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> test_models() {
    std::vector<fs::path> models{fs::path(MO_SOURCE_DIR) / "samples/tiny_cnn.prototxt"};
    for (const auto& e : fs::recursive_directory_iterator(fs::path(MO_SOURCE_DIR) / "tests/e2e/data")) {
        const std::string ext = e.path().extension().string();
        if (e.path().filename() == "model.onnx" || ext == ".tflite" || ext == ".pb") models.push_back(e.path());
    }
    std::sort(models.begin(), models.end());
    return models;
}

TEST(HeldModel, SavesTheBytesConvertWritesForEveryTestModelBothWays) {
    size_t compared = 0;
    for (const fs::path& model : test_models()) {
        test::ScratchDir dir("held");
        ConversionOptions options;
        options.input_model = model.string();
        options.model_name = "m";
        options.cli_parameters = {{"input_model", model.string()}};
        std::unique_ptr<HeldModel> held;
        try {
            held = HeldModel::convert(options);
        } catch (const Error&) {
            // A fixture mo refuses must be refused by convert() too.
            options.output_dir = dir.file("refused");
            EXPECT_THROW(convert(options), Error) << model;
            continue;
        }
        for (bool compress : {true, false}) {
            ConversionOptions o = options;
            o.compress_to_fp16 = compress;
            if (!compress) o.cli_parameters.insert(o.cli_parameters.begin(), {"compress_to_fp16", "False"});  // sorted, as mo lists them
            o.output_dir = dir.file(compress ? "cli_f16" : "cli_f32");
            const ConversionResult want = convert(o);
            const ConversionResult got = held->save(dir.file(compress ? "held_f16/m.xml" : "held_f32/m.xml"), compress);
            EXPECT_TRUE(test::read_bytes(got.xml_path) == test::read_bytes(want.xml_path)) << model << " " << compress;
            EXPECT_TRUE(test::read_bytes(got.bin_path) == test::read_bytes(want.bin_path)) << model << " " << compress;
            EXPECT_EQ(got.layers, want.layers);
        }
        ++compared;
    }
    EXPECT_GE(compared, 60u);
}

TEST(HeldModel, CloneOfAGraphWithBodiesWritesTheSameIr) {
    ConversionOptions options;
    options.input_model = (fs::path(MO_SOURCE_DIR) / "tests/e2e/data/control_flow/nested_branches/model.onnx").string();
    options.compress_to_fp16 = false;
    auto held = HeldModel::convert(options);
    std::unique_ptr<Graph> clone = clone_graph(held->graph());
    std::function<size_t(const Graph&)> bodies = [&](const Graph& g) {
        size_t count = 0;
        for (const Node& n : g.nodes())
            for (const Body& b : n.bodies()) count += 1 + bodies(*b.graph);
        return count;
    };
    EXPECT_GE(bodies(*clone), 3u);  // an If inside an If
    EXPECT_EQ(bodies(*clone), bodies(held->graph()));
    EXPECT_EQ(clone->node_count(), held->graph().node_count());
    test::ScratchDir dir("clone");
    const std::string a = held->save(dir.file("a/m.xml"), false).xml_path;
    // The same graph written again after a compressed save: the clone took the compression.
    held->save(dir.file("c/m.xml"), true);
    const std::string b = held->save(dir.file("b/m.xml"), false).xml_path;
    EXPECT_TRUE(test::read_bytes(a) == test::read_bytes(b));
}

TEST(HeldModel, StatefulRunsKeepTheCacheUntilReset) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/llm";
    ConversionOptions options;
    options.input_model = (dir / "model.onnx").string();
    options.make_stateful = true;
    auto held = HeldModel::convert(options);
    auto step = [&](int n) {
        std::vector<Tensor> inputs;
        for (const ModelPort& p : held->inputs())
            inputs.push_back(p.name == "beam_idx"  // each batch entry continues its own cache
                                 ? Tensor::from_vector<int32_t>({0}, {1})
                                 : read_npy((dir / ("step" + std::to_string(n) + "_in_" + p.name + ".npy")).string()));
        return held->run(inputs);
    };
    auto logits = [&](int n) { return read_npy((dir / ("step" + std::to_string(n) + "_out_logits.npy")).string()); };
    for (int n : {1, 2}) test::expect_close(step(n).at(0), logits(n), 1e-4, 1e-4, "step " + std::to_string(n));
    held->reset_state();
    test::expect_close(step(1).at(0), logits(1), 1e-4, 1e-4, "step 1 after reset_state");
}

TEST(HeldModel, SaveNeedsAnXmlPathAndLeavesNoDirectoryOnFailure) {
    ConversionOptions options;
    options.input_model = (fs::path(MO_SOURCE_DIR) / "samples/tiny_cnn.prototxt").string();
    auto held = HeldModel::convert(options);
    test::ScratchDir dir("held_fail");
    test::expect_error([&] { held->save(dir.file("x/m.onnx"), true); }, {"must end in .xml"});
    std::ofstream(dir.file("file")).put('x');
    test::expect_error([&] { held->save(dir.file("file/sub/m.xml"), true); }, {"cannot create the output directory"});
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"file"});
}

}  // namespace
}  // namespace mo
