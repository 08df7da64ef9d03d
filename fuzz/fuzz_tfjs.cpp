// Fuzz target: a TF.js graph model (model.json) and one weight shard beside it (split(): the
// JSON, then the file "weights.bin"), through the whole conversion.
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto [json, shard] = mo::fuzz::split({data, size});
    mo::fuzz::put("weights.bin", shard);
    mo::fuzz::convert_quietly(mo::fuzz::put("model.json", json));
    return 0;
}
