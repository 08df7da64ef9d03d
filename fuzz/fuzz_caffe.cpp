// Fuzz target: any bytes as a Caffe net, through the whole conversion. The input is split into a
// deploy.prototxt (first part) and a .caffemodel (second part); an empty first part converts the
// .caffemodel alone.
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto [text, binary] = mo::fuzz::split({data, size});
    mo::ConversionOptions options;
    options.framework = "caffe";
    if (!text.empty()) options.input_proto = mo::fuzz::put("deploy.prototxt", text);
    mo::fuzz::convert_quietly(mo::fuzz::put("model.caffemodel", binary), options);
    return 0;
}
