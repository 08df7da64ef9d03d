// ONNX DFT-17 -> DFT-7 / IDFT-7 / RDFT-9. ONNX's input ends in a dimension of 1 (real) or 2
// (complex): a real input becomes complex with a zero imaginary part (Pad) for a full
// transform, or goes to RDFT without that dimension for a one-sided one. dft_length is
// OpenVINO's signal_size on the one axis. ONNX STFT-17 -> STFT-15.
#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

void dft(ExtractContext& c) {
    OutPort x = c.input(0);
    const int64_t rank = ExtractContext::rank_of(x);
    if (rank < 2) c.unsupported("DFT of an input of unknown rank");
    const Dimension& last = x.shape()[static_cast<size_t>(rank - 1)];
    if (!last.is_static() || (last.get_length() != 1 && last.get_length() != 2))
        c.fail("the last dimension of DFT's input must be 1 (real) or 2 (complex), it is " + last.to_string(), "fix the model");
    const bool real = last.get_length() == 1;
    const bool inverse = c.i("inverse", 0) != 0, onesided = c.i("onesided", 0) != 0;
    int64_t axis = c.i("axis", 1);
    if (axis < 0) axis += rank;  // negative axes (opset 20) count from the end, the complex dimension included
    if (axis < 0 || axis >= rank - 1) c.fail("axis " + std::to_string(c.i("axis", 1)) + " is outside the signal's dimensions", "fix the model");
    std::vector<OutPort> extra;
    if (c.has_input(1)) extra.push_back(c.op("Reshape", "signal_size", {c.input(1), c.i64s("signal_size/shape", {1})}, {{"special_zero", false}}));
    OutPort axes = c.i64s("axes", {axis});
    if (onesided) {
        if (inverse) c.unsupported("an inverse one-sided DFT");
        if (!real) c.unsupported("a one-sided DFT of a complex input");
        std::vector<OutPort> in{c.op("Squeeze", "real", {x, c.i64s("real/axis", {rank - 1})}), axes};
        in.insert(in.end(), extra.begin(), extra.end());
        c.set_output(0, c.op("RDFT", "", in));
        return;
    }
    if (real) {
        std::vector<int64_t> begin(static_cast<size_t>(rank), 0), end(static_cast<size_t>(rank), 0);
        end.back() = 1;
        x = c.op("Pad", "complex", {x, c.i64s("complex/begin", begin), c.i64s("complex/end", end), c.scalar_like("complex/zero", 0.0, x)},
                 {{"pad_mode", std::string("constant")}});
    }
    std::vector<OutPort> in{x, axes};
    in.insert(in.end(), extra.begin(), extra.end());
    c.set_output(0, c.op(inverse ? "IDFT" : "DFT", "", in));
}

// ONNX STFT-17(signal [batch, length, 1], frame_step, window?, frame_length?) -> STFT-15 of the
// squeezed signal with transpose_frames false: [batch, frames, bins, 2], as ONNX's output.
void stft(ExtractContext& c) {
    OutPort x = c.input(0);
    const int64_t rank = ExtractContext::rank_of(x);
    if (rank != 3) c.unsupported("STFT of a signal that is not [batch, length, 1 or 2] with a known rank");
    const Dimension& last = x.shape()[2];
    if (!last.is_static() || last.get_length() != 1) c.unsupported("STFT of a complex signal (OpenVINO's STFT is real-to-complex)");
    if (c.i("onesided", 1) == 0) c.unsupported("a two-sided STFT (onesided=0)");
    if (!c.has_input(2) && !c.has_input(3)) c.fail("STFT needs a window or a frame_length", "fix the model");
    OutPort size = c.has_input(3) ? c.op("Reshape", "frame_size", {c.input(3), c.i64s("frame_size/shape", {})}, {{"special_zero", false}})
                                  : c.op("Squeeze", "frame_size", {c.op("ShapeOf", "window_length", {c.input(2)}, {{"output_type", ElementType::i64}}),
                                                                   c.i64s("frame_size/axis", {0})});
    OutPort window = c.has_input(2) ? c.input(2)
                                    : c.op("Broadcast", "window", {c.scalar_like("one", 1.0, x), c.op("Unsqueeze", "window/shape", {size, c.i64s("window/axis", {0})})},
                                           {{"mode", std::string("numpy")}});
    OutPort step = c.op("Reshape", "frame_step", {c.input(1), c.i64s("frame_step/shape", {})}, {{"special_zero", false}});
    OutPort signal = c.op("Squeeze", "signal", {x, c.i64s("signal/axis", {2})});
    c.set_output(0, c.op("STFT", "", {signal, window, size, step}, {{"transpose_frames", false}}));
}

}  // namespace

void register_onnx_signal(ExtractorRegistry& r) {
    r.add({"onnx", "", "DFT", since(17), dft});
    r.add({"onnx", "", "STFT", since(17), stft});
}

}  // namespace mo
