// Fuzz target: an ONNX model and one external-data file beside it (fuzz_support.hpp's split():
// the model, then the file "model.onnx.data"), through the whole conversion: external-data
// resolution, offsets and lengths against the file, paths that leave the directory.
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto [model, weights] = mo::fuzz::split({data, size});
    mo::fuzz::put("model.onnx.data", weights);
    mo::fuzz::convert_quietly(mo::fuzz::put("model.onnx", model));
    return 0;
}
