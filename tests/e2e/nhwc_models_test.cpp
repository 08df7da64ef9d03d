// The real NHWC models of ../shared/models/nhwc (TFLite, frozen GraphDef, TF.js) with their
// runtimes' outputs:
// each converts, the IR read back and fed the same NHWC input matches the runtime (rtol 1e-3,
// atol 1e-4), and the layout change leaves the Transposes counted here (docs/tflite.md and
// docs/tf.md list where they are). Skips when ../shared is absent.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "tools/convert.hpp"
#include "core/evaluator.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

struct NhwcModel {
    std::string dir;      // under ../shared/models/nhwc
    std::string file;     // the model file in it
    int transposes;       // in the IR, with the layout change
};

void PrintTo(const NhwcModel& m, std::ostream* os) { *os << m.dir; }

class NhwcSharedModel : public ::testing::TestWithParam<NhwcModel> {};

TEST_P(NhwcSharedModel, MatchesItsRuntimeWithFewTransposes) {
    const fs::path dir = fs::path(MO_SHARED_DIR) / "models/nhwc" / GetParam().dir;
    if (!fs::exists(dir / GetParam().file)) GTEST_SKIP() << dir << " is absent";
    for (bool layout_change : {true, false}) {
        test::ScratchDir out("nhwc");
        ConversionOptions o;
        o.input_model = (dir / GetParam().file).string();
        o.output_dir = out.path().string();
        o.disable_nhwc_to_nchw = !layout_change;
        o.compress_to_fp16 = false;  // the conversion, not f16 weights (docs/tflite.md gives both)
        ConversionResult r = convert(o);
        auto ir = read_ir(r.xml_path, test::builtin_ops());
        int transposes = 0;
        for (const Node& n : ir->nodes()) transposes += n.is("Transpose");
        if (layout_change) EXPECT_EQ(transposes, GetParam().transposes);
        else EXPECT_GT(transposes, GetParam().transposes);
        auto outputs = evaluate(*ir, {read_npy((dir / "input_0.npy").string())});
        for (size_t j = 0; j < outputs.size(); ++j) {
            const auto want = read_npy((dir / ("output_" + std::to_string(j) + ".npy")).string()).to_f64();
            const auto got = outputs[j].to_f64();
            ASSERT_EQ(got.size(), want.size()) << "output " << j;
            size_t bad = 0;
            for (size_t i = 0; i < got.size(); ++i) bad += std::abs(got[i] - want[i]) > 1e-4 + 1e-3 * std::abs(want[i]);
            EXPECT_EQ(bad, 0u) << "output " << j << (layout_change ? "" : " (--disable_nhwc_to_nchw)");
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Tflite, NhwcSharedModel,
                         ::testing::Values(NhwcModel{"tflite/face_detection__face_detection_short_range", "model.tflite", 5},
                                           NhwcModel{"tflite/face_detection__face_detection_full_range", "model.tflite", 2}),
                         [](const auto& info) { return info.param.dir.substr(info.param.dir.rfind("__") + 2); });

INSTANTIATE_TEST_SUITE_P(Tf, NhwcSharedModel,
                         ::testing::Values(NhwcModel{"tf/human__emotion", "model.pb", 1},
                                           NhwcModel{"tf/human__antispoof", "model.pb", 2},
                                           NhwcModel{"tf/human__liveness", "model.pb", 2},
                                           NhwcModel{"tfjs/human__emotion", "model.json", 1}),
                         [](const auto& info) {
                             return info.param.dir.substr(0, info.param.dir.find('/')) + "_" +
                                    info.param.dir.substr(info.param.dir.rfind("__") + 2);
                         });

}  // namespace
}  // namespace mo
