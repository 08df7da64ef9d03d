// Caffe nets checked against Caffe's semantics: the fixtures of tests/e2e/data/caffe (made by
// scripts/make_caffe_models.py: deploy.prototxt, model.caffemodel with random weights, inputs and
// outputs computed by OpenCV's Caffe importer, or by the script's numpy interpreter where
// OpenCV 4.6 lacks the layer; each reference.txt says which) convert, the IR read back and fed
// the inputs gives the outputs within 1e-4 of each output's range, in the net's output order.
// An SSD's DetectionOutput is compared on its detections: the reference's rows, then mo's -1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "tools/convert.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

// The blob names reference.txt lists, in output order.
std::vector<std::string> reference_outputs(const fs::path& dir) {
    std::ifstream in(dir / "reference.txt");
    std::vector<std::string> names;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("output_", 0) == 0) names.push_back(line.substr(line.find(": ") + 2));
    return names;
}

// Converts dir's net (the .caffemodel with --input_proto), checks the outputs' names and values.
void check_net(const fs::path& dir, const fs::path& caffemodel, const fs::path& prototxt, double tolerance = 1e-4) {
    test::ScratchDir out("caffe_model");
    ConversionOptions o;
    o.input_model = caffemodel.string();
    o.input_proto = prototxt.string();
    o.output_dir = out.path().string();
    o.compress_to_fp16 = false;
    ConversionResult r = convert(o);
    auto ir = read_ir(r.xml_path, test::builtin_ops());
    std::vector<Tensor> inputs;
    for (size_t i = 0; fs::exists(dir / ("input_" + std::to_string(i) + ".npy")); ++i)
        inputs.push_back(read_npy((dir / ("input_" + std::to_string(i) + ".npy")).string()));
    ASSERT_EQ(ir->parameters().size(), inputs.size());
    const auto names = reference_outputs(dir);
    ASSERT_EQ(ir->results().size(), names.size());
    for (size_t j = 0; j < names.size(); ++j) EXPECT_TRUE(ir->results()[j].answers_to(names[j])) << "output " << j << " is " << names[j];
    auto got = evaluate(*ir, inputs);
    for (size_t j = 0; j < got.size(); ++j) {
        SCOPED_TRACE("output " + std::to_string(j) + " (" + names[j] + ")");
        const Tensor want_t = read_npy((dir / ("output_" + std::to_string(j) + ".npy")).string());
        auto want = want_t.to_f64(), have = got[j].to_f64();
        Shape want_shape = want_t.shape();
        if (ir->results()[j].in(0).src().node().is("DetectionOutput") && want_shape.size() == 4 && got[j].shape().size() == 4 &&
            got[j].shape()[2] >= want_shape[2]) {
            // DetectionOutput: the reference's rows, then an end row (image -1) unless all rows are used.
            const size_t rows = static_cast<size_t>(want_shape[2]);
            if (got[j].shape()[2] > want_shape[2]) EXPECT_EQ(have[rows * 7], -1.0) << "the detections end after " << rows << " rows";
            have.resize(rows * 7);
        } else {
            EXPECT_EQ(got[j].shape(), want_shape);
        }
        ASSERT_EQ(have.size(), want.size());
        double lo = INFINITY, hi = -INFINITY, worst = 0;
        for (size_t i = 0; i < want.size(); ++i) {
            lo = std::min(lo, want[i]);
            hi = std::max(hi, want[i]);
            worst = std::max(worst, std::abs(have[i] - want[i]));
        }
        const double range = std::max(hi - lo, 1e-6);
        EXPECT_LE(worst, tolerance * range) << "max abs error " << worst << " for an output range of " << range;
        std::cout << "[ caffe ] " << dir.filename().string() << " " << names[j] << ": max |error| / range = " << worst / range
                  << "\n";
    }
}

class CaffeNets : public ::testing::TestWithParam<std::string> {};

TEST_P(CaffeNets, MatchCaffeSemantics) {
    const fs::path dir = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/caffe" / GetParam();
    check_net(dir, dir / "model.caffemodel", dir / "deploy.prototxt");
}

const std::vector<std::string> kNets = {"conv", "deconv", "pooling", "inner_product", "inner_product_transpose",
                                        "activations", "log", "normalization", "lrn_k", "bias", "eltwise", "shapes",
                                        "slice_equal", "argmax", "ssd_vgg", "mobilenet_ssd", "prior_box", "prior_box_sizes",
                                        "inception_block", "openpose_like", "segnet_like", "inputs", "v1_layers"};

INSTANTIATE_TEST_SUITE_P(Fixtures, CaffeNets, ::testing::ValuesIn(kNets));

// Every fixture directory is listed above (a new one is not left untested).
TEST(CaffeNets, EveryFixtureIsListed) {
    for (const auto& e : fs::directory_iterator(fs::path(MO_SOURCE_DIR) / "tests/e2e/data/caffe"))
        if (e.is_directory() && fs::exists(e.path() / "model.caffemodel"))
            EXPECT_NE(std::find(kNets.begin(), kNets.end(), e.path().filename().string()), kNets.end()) << e.path();
}

// Full-size architectures rebuilt from their deploy files with random weights
// (scripts/make_caffe_models.py --full DIR: BVLC GoogLeNet, MobileNet-SSD 300 x 300) or any
// directory of the same files there, found through MO_CAFFE_MODELS; skipped without it.
TEST(CaffeNets, FullSizeArchitecturesFromMoCaffeModels) {
    const char* root = std::getenv("MO_CAFFE_MODELS");
    if (!root) GTEST_SKIP() << "MO_CAFFE_MODELS is not set (write the nets with scripts/make_caffe_models.py --full DIR)";
    size_t checked = 0;
    for (const auto& e : fs::directory_iterator(root)) {
        if (!fs::exists(e.path() / "model.caffemodel") || !fs::exists(e.path() / "output_0.npy")) continue;
        SCOPED_TRACE(e.path().string());
        check_net(e.path(), e.path() / "model.caffemodel", e.path() / "deploy.prototxt");
        ++checked;
    }
    EXPECT_GT(checked, 0u) << "no net in " << root;
}

}  // namespace
}  // namespace mo
