// Writes the TFLite control-flow fixtures of tests/e2e/data/tflite_control_flow (model.tflite and
// input_<i>.npy per directory; the models are those of tflite_control_flow_models.hpp);
// scripts/tflite_outputs.js then runs the TFLite interpreter on them for output_<i>.npy. Not run
// by CI:
//   ./build/tests/mo-make-tflite-control-flow-models tests/e2e/data/tflite_control_flow
#include <cstdio>
#include <filesystem>

#include "e2e/tflite_control_flow_models.hpp"
#include "support/write_file.hpp"

namespace {

namespace fs = std::filesystem;


mo::Tensor floats(std::vector<float> v, mo::Shape shape) { return mo::Tensor::from_vector<float>(v, shape); }

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    const fs::path out = argv[1];
    const auto x = floats({1.5f, -2.f, 0.25f, 3.f, -0.5f, 4.f}, {2, 3});
    const auto y = floats({2.f, 0.5f, -4.f, 1.f, 6.f, -0.25f}, {2, 3});
    for (bool cond : {true, false})
        save_fixture(mo::test::if_select_model(), out / (cond ? "if_select_then" : "if_select_else"),
             {mo::Tensor::from_vector<bool>({cond}, {1}), x, y});
    for (bool cond : {true, false})
        save_fixture(mo::test::onnx_tf_if_model(), out / (cond ? "onnx_tf_if_then" : "onnx_tf_if_else"),
             {mo::Tensor::from_vector<bool>({cond}, {}), floats({-1.25f}, {1, 1})});
    save_fixture(mo::test::while_countdown_model(), out / "while_countdown",
         {mo::Tensor::from_vector<int32_t>({3}, {}), floats({1.f, -2.f}, {2}), floats({0.5f, 1.f}, {2})});
    save_fixture(mo::test::variables_model(), out / "variables", {floats({0.25f, 2.f}, {2})});
    return 0;
}
