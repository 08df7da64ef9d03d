// Converts each real model made by ../shared/models/make_onnx_models.sh (in /work/models, or
// $MO_MODELS_DIR) and checks the IR: it parses, every input port has one edge, and both ends
// of every edge agree on precision and dims. Skips when the models are absent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "emit/ir_test_util.hpp"
#include "driver/convert.hpp"

namespace mo {
namespace {

std::filesystem::path models_dir() {
    const char* env = std::getenv("MO_MODELS_DIR");
    return env ? env : "/work/models";
}

class SharedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModel, ConvertsToConsistentIr) {
    const auto model = models_dir() / GetParam() / "model.onnx";
    if (!std::filesystem::exists(model))
        GTEST_SKIP() << model << " is absent: run ../shared/models/make_onnx_models.sh to create it";
    test::ScratchDir out("models");
    ConversionOptions o;
    o.input_model = model.string();
    o.output_dir = out.path().string();
    ConversionResult r = convert(o);
    pugi::xml_document doc;
    auto ok = doc.load_file(r.xml_path.c_str());
    ASSERT_TRUE(ok) << ok.description();
    EXPECT_EQ(test::edge_problems(doc), std::vector<std::string>{});
    auto types = test::layer_types(doc);
    EXPECT_GT(types.size(), 2u);
    EXPECT_EQ(types.front(), "Parameter");
    EXPECT_EQ(types.back(), "Result");
    EXPECT_EQ(std::filesystem::file_size(r.bin_path), r.bin_bytes);
}

// The models of export_torch.py --list; each test skips on its own when its model is absent.
INSTANTIATE_TEST_SUITE_P(Models, SharedModel,
                         ::testing::Values("squeezenet1_1_op11", "squeezenet1_1_op13", "mobilenet_v2_op11",
                                           "mobilenet_v2_op13", "mobilenet_v2_op13_dynbatch",
                                           "mobilenet_v3_small_op13", "resnet50_op11", "resnet50_op13",
                                           "resnet50_op13_dynbatch", "efficientnet_b0_op13", "densenet121_op13",
                                           "inception_v3_op13", "vgg16_op13", "vit_b_16_op13", "tiny_bert_op13",
                                           "lstm_bidir_op13"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace mo
