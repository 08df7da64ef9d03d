// TFLite builtin operators against the TFLite interpreter's outputs (tests/e2e/data/tflite_builtins,
// written by make_tflite_builtin_models.cpp, outputs by scripts/tflite_outputs.js with the
// WebAssembly build of @tensorflow/tfjs-tflite 0.0.1-alpha.10), one model per op family; and,
// for an op that interpreter lacks (BROADCAST_TO, RIGHT_SHIFT), values worked by hand. Integer and bool
// outputs must be equal, float outputs within 1e-5 (absolute and relative), with and without f16
// compression of the weights (f16 changes none of these models' constants beyond that).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "support/op_test_util.hpp"
#include "support/run_command.hpp"
#include "support/tflite_model_builder.hpp"
#include "validate/npy.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;
using tflite::BuiltinOperator;
using tflite::TensorType;

const fs::path kData = fs::path(MO_SOURCE_DIR) / "tests/e2e/data/tflite_builtins";

class TfliteBuiltins : public ::testing::TestWithParam<std::string> {};

TEST_P(TfliteBuiltins, GiveTheRuntimesOutputs) {
    const fs::path dir = kData / GetParam();
    std::vector<Tensor> inputs;
    for (size_t i = 0; fs::exists(dir / ("input_" + std::to_string(i) + ".npy")); ++i)
        inputs.push_back(read_npy((dir / ("input_" + std::to_string(i) + ".npy")).string()));
    for (const bool f16 : {false, true}) {
        test::ScratchDir out("tflite_builtins");
        auto ir = convert_to_ir((dir / "model.tflite").string(), out, f16);
        if (f16) {  // the strict IR check, when Python and the shared opsets are there
            const fs::path opsets = fs::path(MO_SHARED_DIR) / "ir/opsets.json";
            if (fs::exists("/usr/bin/python3") && fs::exists(opsets)) {
                const fs::path script = fs::path(MO_SOURCE_DIR) / "scripts/check_ir.py";
                const auto check = test::run_command("/usr/bin/python3", script.string() + " --opsets " + opsets.string() +
                                                                             " " + (out.path() / "model.xml").string());
                EXPECT_EQ(check.exit_code, 0) << check.output;
            }
        }
        const auto got = evaluate(*ir, inputs);
        size_t k = 0;
        double worst = 0;
        for (; fs::exists(dir / ("output_" + std::to_string(k) + ".npy")); ++k) {
            ASSERT_LT(k, got.size());
            const Tensor want = read_npy((dir / ("output_" + std::to_string(k) + ".npy")).string());
            const std::string what = GetParam() + " output " + std::to_string(k) + " ('" +
                                     ir->results()[k].in(0).src().names().front() + "')" + (f16 ? " f16" : "");
            EXPECT_EQ(got[k].type(), want.type()) << what;
            EXPECT_EQ(got[k].shape(), want.shape()) << what;
            if (got[k].shape() != want.shape()) continue;
            const auto g = got[k].to_f64(), w = want.to_f64();
            if (!is_float(want.type())) {
                EXPECT_EQ(g, w) << what;
                continue;
            }
            for (size_t i = 0; i < g.size(); ++i) {
                const double err = std::abs(g[i] - w[i]) / (1e-5 + 1e-5 * std::abs(w[i]));
                worst = std::max(worst, err);
                EXPECT_LE(err, 1.0) << what << " element " << i << ": " << g[i] << " vs " << w[i];
            }
        }
        EXPECT_EQ(k, got.size()) << "every output has a reference";
        std::cout << GetParam() << (f16 ? " (f16)" : "") << ": " << k << " outputs as TFLite's; float error at most "
                  << worst << " of the tolerance\n";
    }
}

INSTANTIATE_TEST_SUITE_P(Tflite, TfliteBuiltins,
                         ::testing::Values("comparison", "math", "tensor", "scatter_segment", "spatial", "fft", "lstm", "more", "volume", "extra"));

// BROADCAST_TO (the interpreter the fixtures use predates it): b [3, 1] to [2, 3, 4], each value
// repeated along the new and the size-1 axes.
TEST(TfliteBuiltinsByHand, BroadcastTo) {
    test::TfliteModelBuilder m;
    const int b = m.input("b", {3, 1});
    const int y = m.tensor("y", {2, 3, 4});
    m.op(BuiltinOperator::BROADCAST_TO, {b, m.constant_i32("shape", {3}, {2, 3, 4})}, {y});
    m.output(y);
    test::ScratchDir out("tflite_broadcast_to");
    auto ir = convert_to_ir(m.save("broadcast_to.tflite"), out, false);
    const auto got = evaluate(*ir, {Tensor::from_vector<float>({1.5f, -2.f, 0.25f}, {3, 1})});
    std::vector<double> want;
    for (int n = 0; n < 2; ++n)
        for (double v : {1.5, -2.0, 0.25})
            for (int k = 0; k < 4; ++k) want.push_back(v);
    EXPECT_EQ(got.at(0).to_f64(), want);
}

// RIGHT_SHIFT (newer than the fixtures' interpreter): arithmetic for signed integers, so a
// negative value stays negative (-7 >> 1 = -4, rounding toward minus infinity).
TEST(TfliteBuiltinsByHand, RightShift) {
    test::TfliteModelBuilder m;
    const int x = m.input("x", {4}, TensorType::INT32), s = m.input("s", {4}, TensorType::INT32);
    const int y = m.tensor("y", {4}, TensorType::INT32);
    m.op(BuiltinOperator::RIGHT_SHIFT, {x, s}, {y});
    m.output(y);
    test::ScratchDir out("tflite_right_shift");
    auto ir = convert_to_ir(m.save("right_shift.tflite"), out, false);
    const auto got = evaluate(*ir, {Tensor::from_vector<int32_t>({-7, 7, 1024, -1}, {4}), Tensor::from_vector<int32_t>({1, 2, 10, 31}, {4})});
    EXPECT_EQ(got.at(0).to_i64(), (std::vector<int64_t>{-4, 1, 1, -1}));
}

// OpenVINO has no complex type: RFFT2D's result converts only into the ops that read it back as
// real numbers; anywhere else (here a model output) it is refused by name.
TEST(TfliteBuiltinsByHand, ComplexResultsOnlyFeedComplexAbsRealImag) {
    test::TfliteModelBuilder m;
    const int x = m.input("x", {4, 4});
    const int spectrum = m.tensor("spectrum", {4, 3}, TensorType::COMPLEX64);
    m.op(BuiltinOperator::RFFT2D, {x, m.constant_i32("fft_length", {2}, {4, 4})}, {spectrum});
    m.output(spectrum);
    test::ScratchDir dir{"tflite_complex"};
    test::expect_error([&] { test::convert_to_ir(m.save("complex_out.tflite"), dir, true); }, {"node 'spectrum' (RFFT2D", "complex tensors convert only into COMPLEX_ABS, REAL and IMAG"});
}

}  // namespace
}  // namespace mo
