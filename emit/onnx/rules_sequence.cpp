// Recurrent sequences and Fourier transforms as ONNX.
// * LSTMSequence / GRUSequence / RNNSequence: ONNX's LSTM / GRU / RNN in its sequence-first
//   layout (ONNX Runtime's CPU kernels refuse layout = 1), with Transposes from and to OpenVINO's
//   batch-first one; the LSTM's gates reordered from OpenVINO's f, i, c, o to ONNX's i, o, f, c
//   (GRU's z, r, h are the same order); OpenVINO's bias (W and R biases added; the GRU's R bias of
//   h apart with linear_before_reset) split into ONNX's [W bias, R bias].
// * DFT / IDFT / RDFT: ONNX's DFT (opset 17), one axis at a time (RDFT: the last axis first,
//   one-sided, on the real input given a trailing dim of 1); signal_size is DFT's dft_length.
// * STFT: ONNX's STFT (opset 17) on the signal given a batch and a trailing dim of 1; a window
//   shorter than the frame is centred in it with zeros, as OpenVINO does.
#include <algorithm>
#include <cctype>

#include "emit/onnx/onnx_rules.hpp"

namespace mo::onnx_emit {

namespace {

std::string onnx_activation(std::string name) {
    if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    return name;  // sigmoid -> Sigmoid, tanh -> Tanh, relu -> Relu
}

// `gates` slices of `size` rows along axis 1 of v, concatenated in `order`.
std::string reorder_gates(OnnxNodeContext& c, const std::string& v, int64_t gates, const std::vector<int>& order,
                          const char* hint) {
    std::vector<std::string> parts;
    for (int64_t g = 0; g < gates; ++g) parts.push_back(c.fresh(c.node.name() + "/" + hint + std::to_string(g)));
    c.add("Split", {v}, parts, {a_int("axis", 1)});
    std::vector<std::string> ordered;
    for (int k : order) ordered.push_back(parts[static_cast<size_t>(k)]);
    return c.add_tmp("Concat", ordered, {a_int("axis", 1)}, hint);
}

// Inputs: LSTM x, h, c, lengths, w, r, b; GRU / RNN x, h, lengths, w, r, b.
void emit_recurrent(OnnxNodeContext& c, const std::string& onnx_op, int64_t gates) {
    const bool lstm = onnx_op == "LSTM";
    const size_t lengths = lstm ? 3 : 2, w = lengths + 1, r = w + 1, b = r + 1;
    const int64_t hidden = c.attr<int64_t>("hidden_size");
    const std::string direction = c.attr<std::string>("direction");
    const int64_t dirs = direction == "bidirectional" ? 2 : 1;
    std::string W = c.in(w), R = c.in(r), B = c.in(b);
    // OpenVINO's LSTM gates f, i, c, o; ONNX's i, o, f, c.
    if (lstm) {
        W = reorder_gates(c, W, 4, {1, 3, 0, 2}, "W");
        R = reorder_gates(c, R, 4, {1, 3, 0, 2}, "R");
        B = reorder_gates(c, B, 4, {1, 3, 0, 2}, "B");
    }
    const ElementType t = c.in_type(b);
    if (onnx_op == "GRU" && c.attr<bool>("linear_before_reset")) {
        // [Wz+Rz, Wr+Rr, Wh, Rh] -> [Wz+Rz, Wr+Rr, Wh] and [0, 0, Rh].
        const std::string wb = c.add_tmp("Slice", {B, c.ints({0}, "zero"), c.ints({3 * hidden}, "end"), c.ints({1}, "axis")});
        const std::string rh = c.add_tmp("Slice", {B, c.ints({3 * hidden}, "begin"), c.ints({4 * hidden}, "end"), c.ints({1}, "axis")});
        const std::string zeros = c.constant(Tensor::allocate(t, {dirs, 2 * hidden}), "zero_bias");
        B = c.add_tmp("Concat", {wb, zeros, rh}, {a_int("axis", 1)}, "bias");
    } else {
        B = c.add_tmp("Concat", {B, c.constant(Tensor::allocate(t, {dirs, gates * hidden}), "zero_bias")}, {a_int("axis", 1)}, "bias");
    }
    std::vector<onnx::AttributeProto> attrs{a_int("hidden_size", hidden), a_str("direction", direction)};
    std::vector<std::string> acts;
    for (int64_t d = 0; d < dirs; ++d)
        for (const auto& a : c.attr<std::vector<std::string>>("activations")) acts.push_back(onnx_activation(a));
    attrs.push_back(a_strs("activations", acts));
    for (const char* name : {"activations_alpha", "activations_beta"}) {
        auto v = c.attr<std::vector<double>>(name);
        if (v.empty()) continue;
        std::vector<double> both;
        for (int64_t d = 0; d < dirs; ++d) both.insert(both.end(), v.begin(), v.end());
        attrs.push_back(a_floats(name, both));
    }
    if (c.attr<double>("clip") > 0) attrs.push_back(a_float("clip", c.attr<double>("clip")));
    if (onnx_op == "GRU") attrs.push_back(a_int("linear_before_reset", c.attr<bool>("linear_before_reset") ? 1 : 0));
    const std::string seq = c.cast(c.in(lengths), c.in_type(lengths), ElementType::i32);
    auto swap01 = [&](const std::string& v) { return c.add_tmp("Transpose", {v}, {a_ints("perm", {1, 0, 2})}); };
    std::vector<std::string> in{swap01(c.in(0)), W, R, B, seq, swap01(c.in(1))};  // [T, B, I], [D, B, H]
    if (lstm) in.push_back(swap01(c.in(2)));
    const std::string y = c.fresh(c.node.name() + "/Y"), y_h = c.fresh(c.node.name() + "/Y_h"), y_c = c.fresh(c.node.name() + "/Y_c");
    std::vector<std::string> out{y, y_h};
    if (lstm) out.push_back(y_c);
    c.add(onnx_op, in, out, attrs);
    c.add("Transpose", {y}, {c.out(0)}, {a_ints("perm", {2, 1, 0, 3})});  // [T, D, B, H] -> [B, D, T, H]
    c.add("Transpose", {y_h}, {c.out(1)}, {a_ints("perm", {1, 0, 2})});
    if (lstm) c.add("Transpose", {y_c}, {c.out(2)}, {a_ints("perm", {1, 0, 2})});
}

enum class Transform { Forward, Inverse, Real };

void emit_dft(OnnxNodeContext& c, Transform kind) {
    c.need_opset(17);
    auto axes = c.const_ints(1, "the axes");
    const PartialShape& in = c.in_shape(0);
    if (!in.rank_is_static()) c.fail("a Fourier transform of dynamic rank");
    const auto signal_rank = static_cast<int64_t>(in.rank()) - (kind == Transform::Real ? 0 : 1);
    for (auto& a : axes) a = a < 0 ? a + signal_rank : a;
    std::vector<int64_t> sizes(axes.size(), -1);
    if (c.has_in(2)) sizes = c.const_ints(2, "signal_size");
    std::string v = c.in(0);
    std::vector<size_t> order(axes.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    if (kind == Transform::Real) {  // the one-sided axis (the last) first, on the real signal
        v = c.add_tmp("Unsqueeze", {v, c.ints({-1}, "last")});
        std::rotate(order.begin(), order.end() - 1, order.end());
    }
    for (size_t n = 0; n < order.size(); ++n) {
        const size_t k = order[n];
        std::vector<onnx::AttributeProto> attrs{a_int("axis", axes[k])};
        if (kind == Transform::Inverse) attrs.push_back(a_int("inverse", 1));
        if (kind == Transform::Real && n == 0) attrs.push_back(a_int("onesided", 1));
        const std::string length = sizes[k] > 0 ? c.int_scalar(sizes[k], "dft_length") : std::string();
        v = c.add_tmp("DFT", {v, length}, attrs);
    }
    c.add("Identity", {v}, {c.out(0)});
}

// STFT-15 (signal, window, frame_size, frame_step) -> ONNX STFT-17 (signal, frame_step, window, frame_length).
void emit_stft(OnnxNodeContext& c) {
    c.need_opset(17);
    const PartialShape& in = c.in_shape(0);
    if (!in.rank_is_static()) c.fail("an STFT of dynamic rank");
    const bool batched = in.rank() == 2;
    std::string signal = c.add_tmp("Unsqueeze", {c.in(0), c.ints(batched ? std::vector<int64_t>{2} : std::vector<int64_t>{0, 2}, "axes")});
    std::string window = c.in(1);
    const PartialShape& ws = c.in_shape(1);
    if (const Tensor* size_value = c.in_value(2); size_value && ws.rank_is_static() && ws[0].is_static()) {
        const int64_t size = size_value->single_i64("frame_size"), win = ws[0].get_length();
        if (win < size) {  // centred in the frame, zeros around it
            const int64_t left = (size - win) / 2;
            window = c.add_tmp("Pad", {window, c.ints({left, size - win - left}, "pads")}, {}, "window");
        }
    }  // else ONNX's STFT takes a window of the frame's length only
    auto scalar_i64 = [&](size_t i) { return c.cast(c.add_tmp("Reshape", {c.in(i), c.ints({}, "scalar")}), c.in_type(i), ElementType::i64); };
    std::string out = c.add_tmp("STFT", {signal, scalar_i64(3), window, scalar_i64(2)}, {a_int("onesided", 1)});
    if (c.attr<bool>("transpose_frames")) out = c.add_tmp("Transpose", {out}, {a_ints("perm", {0, 2, 1, 3})});
    if (!batched) out = c.add_tmp("Squeeze", {out, c.ints({0}, "batch")});
    c.add("Identity", {out}, {c.out(0)});
}

}  // namespace

std::vector<OnnxRule> sequence_rules() {
    return {
        {"LSTMSequence", 13, [](OnnxNodeContext& c) { emit_recurrent(c, "LSTM", 4); }, "LSTM (gates reordered to i, o, f, c; sequence-first, between Transposes)"},
        {"GRUSequence", 13, [](OnnxNodeContext& c) { emit_recurrent(c, "GRU", 3); }, "GRU (biases split; sequence-first, between Transposes)"},
        {"RNNSequence", 13, [](OnnxNodeContext& c) { emit_recurrent(c, "RNN", 1); }, "RNN (sequence-first, between Transposes)"},
        {"DFT", 17, [](OnnxNodeContext& c) { emit_dft(c, Transform::Forward); }, "DFT per axis"},
        {"IDFT", 17, [](OnnxNodeContext& c) { emit_dft(c, Transform::Inverse); }, "DFT(inverse) per axis"},
        {"RDFT", 17, [](OnnxNodeContext& c) { emit_dft(c, Transform::Real); }, "DFT per axis, the last one-sided first"},
        {"STFT", 17, emit_stft, "STFT (a short window centred with Pad; transposed frames)"},
    };
}

}  // namespace mo::onnx_emit
