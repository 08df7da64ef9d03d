// Fuzz target: a --transformations_config JSON file, parsed and then used to convert a small
// model with a sub-graph the configured replacements can match (samples/tiny_cnn.prototxt).
#include "core/error.hpp"
#include "fuzz/fuzz_support.hpp"
#include "transforms/config/transformations_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        mo::parse_transformations_config(text, "fuzz.json");
    } catch (const mo::Error&) {
        return 0;
    }
    mo::ConversionOptions options;
    options.transformations_config = mo::fuzz::put("config.json", {data, size});
    mo::fuzz::convert_quietly(MO_SOURCE_DIR "/samples/tiny_cnn.prototxt", options);
    return 0;
}
