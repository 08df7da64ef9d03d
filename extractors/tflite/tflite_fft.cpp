// RFFT2D and the complex64 ops that read its result, COMPLEX_ABS, REAL and IMAG. OpenVINO has
// no complex type: a complex tensor is a float tensor with a trailing dimension of 2 (real,
// imaginary), as RDFT gives it. So RFFT2D's result may only be read by those three ops; a complex
// tensor reaching anything else (a model output too) is refused.
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

bool reads_complex(const InPort& in) {
    const Node n = in.node();
    if (!n.is("FrameworkNode") || n.framework().framework != "tflite" || !n.framework().domain.empty()) return false;
    const std::string& t = n.framework().type;
    return t == "COMPLEX_ABS" || t == "REAL" || t == "IMAG";
}

// RFFT2D(x [..., H, W], fft_length [2]): the 2-D FFT of the last two axes, each cut or zero-padded
// to fft_length, keeping fft_length[1] / 2 + 1 bins of the last.
void rfft2d(ExtractContext& c) {
    for (const InPort& in : c.node().out(0).targets())
        if (!reads_complex(in))
            c.unsupported("RFFT2D whose complex64 result is read by " + in.node().describe() +
                          " (complex tensors convert only into COMPLEX_ABS, REAL and IMAG)");
    c.set_output(0, c.op("RDFT", "", {c.input(0), c.i64s("axes", {-2, -1}), c.input(1)}));
}

// The real or imaginary part: component `k` of the trailing pair.
void part(ExtractContext& c, int64_t k) {
    c.set_output(0, c.op("Gather", "", {c.input(0), c.i64("component", k), c.i64("axis", -1)}, {{"batch_dims", int64_t{0}}}));
}

void complex_abs(ExtractContext& c) {
    const OutPort z = c.input(0);
    OutPort sum = c.op("ReduceSum", "norm", {c.op("Multiply", "squares", {z, z}), c.i64s("axes", {-1})}, {{"keep_dims", false}});
    c.set_output(0, c.op("Sqrt", "", {sum}));
}

}  // namespace

void register_tflite_fft(ExtractorRegistry& r) {
    r.add({"tflite", "", "RFFT2D", 1, INT64_MAX, rfft2d});
    r.add({"tflite", "", "COMPLEX_ABS", 1, INT64_MAX, complex_abs});
    r.add({"tflite", "", "REAL", 1, INT64_MAX, [](ExtractContext& c) { part(c, 0); }});
    r.add({"tflite", "", "IMAG", 1, INT64_MAX, [](ExtractContext& c) { part(c, 1); }});
}

}  // namespace mo
