// Fuzz target: any bytes as model.tflite, through the whole conversion (load, extract, shape
// inference and constant folding, every transformation, the IR written and read back).
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    mo::fuzz::convert_quietly(mo::fuzz::put("model.tflite", {data, size}));
    return 0;
}
