// RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN (h = act(x W^T + h R^T + b);
// one step as MatMuls, a sequence as RNNSequence-5), and LSTM (one step),
// UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM (TFLite's kernels
// tensorflow/lite/kernels/{unidirectional,bidirectional}_sequence_lstm.cc, the input order of
// lstm_shared.h) as LSTMSequence-5. Per direction the op reads 4 input weights [cell, input], 4
// recurrent weights [cell, output], 3 optional peephole weights, 4 gate biases, an optional
// projection and layer-norm coefficients, and two state tensors (TFLite variables, zero at the
// first invocation). LSTMSequence computes the standard cell with the gates in f, i, c, o order and
// the op's activation (TANH, or RELU) for the cell input and the output; so a model with CIFG
// (no input gate), peepholes, a projection, layer normalization, cell or projection clipping,
// or auxiliary inputs is refused by name.
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

// The inputs of one direction's cell, as positions in the op's input list.
struct LstmInputs {
    size_t input_weights;      // input_to_{input, forget, cell, output}_weights, 4 in a row
    size_t recurrent_weights;  // recurrent_to_..., 4 in a row
    size_t peepholes;          // cell_to_{input, forget, output}_weights, 3
    size_t biases;             // {input, forget, cell, output}_gate_bias, 4
    size_t projection;         // projection weights and bias, 2
    size_t output_state, cell_state;
};

std::string activation_of(ExtractContext& c) {
    switch (c.i("fused_activation_function", 0)) {
        case 4: return "tanh";
        case 1: return "relu";
        default:
            c.unsupported("a recurrent op whose activation is not TANH or RELU (fused_activation_function " +
                          std::to_string(c.i("fused_activation_function", 0)) + ")");
    }
}

void check_supported(ExtractContext& c, const LstmInputs& in, const char* direction) {
    auto refuse_present = [&](size_t first, size_t count, const char* what) {
        for (size_t i = first; i < first + count; ++i)
            if (c.has_input(i)) c.unsupported(std::string("an LSTM with ") + what + " (" + direction + ")");
    };
    if (!c.has_input(in.input_weights) || !c.has_input(in.recurrent_weights) || !c.has_input(in.biases))
        c.unsupported(std::string("an LSTM with CIFG (no input gate, ") + direction + ")");
    refuse_present(in.peepholes, 3, "peephole connections");
    refuse_present(in.projection, 2, "a projection");
    if (c.f("cell_clip", 0.0) != 0.0 || c.f("proj_clip", 0.0) != 0.0) c.unsupported("an LSTM with cell or projection clipping");
}

// [1, 4 · cell, ...]: the four gates' tensors at positions `first` (TFLite's i, f, c, o) in
// LSTMSequence's order f, i, c, o.
OutPort gates(ExtractContext& c, const std::string& suffix, size_t first) {
    const OutPort joined = c.op("Concat", suffix, {c.input(first + 1), c.input(first), c.input(first + 2), c.input(first + 3)},
                                {{"axis", int64_t{0}}});
    return c.op("Unsqueeze", suffix + "/direction", {joined, c.i64s(suffix + "/direction/axes", {0})});
}

OutPort unsqueeze(ExtractContext& c, const std::string& suffix, const OutPort& x, int64_t axis) {
    return c.op("Unsqueeze", suffix, {x, c.i64s(suffix + "/axes", {axis})});
}

// LSTMSequence over batch-major x [B, T, I] in `direction`: Y [B, T, H].
OutPort lstm(ExtractContext& c, const std::string& name, const OutPort& x, const LstmInputs& in, const char* direction) {
    check_supported(c, in, direction);
    const PartialShape& w = c.input(in.input_weights).shape();
    if (!w.rank_is_static() || w.rank() != 2 || !w[0].is_static())
        c.fail("input_to_input_weights must be a 2-D [cell, input] constant", "the model is corrupt; re-export it");
    const int64_t hidden = w[0].get_length();
    const OutPort batch = unsqueeze(c, name + "/batch", c.dim(name + "/batch_size", x, 0), 0);
    const OutPort lengths = c.op("Broadcast", name + "/lengths", {c.dim(name + "/steps", x, 1), batch},
                                 {{"mode", std::string("numpy")}});
    const std::string act = activation_of(c);
    Node n = c.add("LSTMSequence", name,
                   {x, unsqueeze(c, name + "/h0", c.input(in.output_state), 1), unsqueeze(c, name + "/c0", c.input(in.cell_state), 1),
                    lengths, gates(c, name + "/W", in.input_weights), gates(c, name + "/R", in.recurrent_weights),
                    gates(c, name + "/B", in.biases)},
                   {{"hidden_size", hidden}, {"direction", std::string(direction)},
                    {"activations", std::vector<std::string>{"sigmoid", act, act}}, {"clip", 0.0}});
    n.set_output_count(3);
    return c.op("Squeeze", name + "/y", {n.out(0), c.i64s(name + "/y/axes", {1})});
}

OutPort batch_major(ExtractContext& c, const std::string& suffix, const OutPort& x, bool time_major) {
    return time_major ? c.op("Transpose", suffix, {x, c.i64s(suffix + "/order", {1, 0, 2})}) : x;
}

void unidirectional(ExtractContext& c) {
    if (c.input_count() > 20)
        for (size_t i = 20; i < c.input_count(); ++i)
            if (c.has_input(i)) c.unsupported("an LSTM with layer normalization");
    const bool time_major = c.i("time_major", 0) != 0;
    const OutPort x = batch_major(c, "batch_major", c.input(0), time_major);
    const OutPort y = lstm(c, "lstm", x, {1, 5, 9, 12, 16, 18, 19}, "forward");
    c.set_output(0, batch_major(c, "", y, time_major));
}

// A bidirectional op's outputs: forward and backward, or both concatenated along the last axis
// (merge_outputs), in the model's time_major order.
void bidirectional_outputs(ExtractContext& c, const OutPort& fw, const OutPort& bw, bool time_major) {
    if (c.i("merge_outputs", 0)) {
        c.set_output(0, batch_major(c, "", c.op("Concat", "merged", {fw, bw}, {{"axis", int64_t{2}}}), time_major));
        return;
    }
    c.set_output(0, batch_major(c, "forward_output", fw, time_major));
    c.set_output(1, batch_major(c, "backward_output", bw, time_major));
}

// Inputs: x, forward 1-17, backward 18-34, forward states 35-36, backward states 37-38, auxiliary
// input 39 and its weights 40-47. Outputs: forward and backward, or both concatenated
// (merge_outputs) along the last axis.
void bidirectional(ExtractContext& c) {
    for (size_t i = 39; i < c.input_count(); ++i)
        if (c.has_input(i)) c.unsupported("a bidirectional LSTM with auxiliary inputs");
    const bool time_major = c.i("time_major", 1) != 0;
    const OutPort x = batch_major(c, "batch_major", c.input(0), time_major);
    const OutPort fw = lstm(c, "forward", x, {1, 5, 9, 12, 16, 35, 36}, "forward");
    const OutPort bw = lstm(c, "backward", x, {18, 22, 26, 29, 33, 37, 38}, "reverse");
    bidirectional_outputs(c, fw, bw, time_major);
}

// RNN(x [B, I], weights [U, I], recurrent [U, U], bias [U], hidden state [B, U]): one step.
void rnn(ExtractContext& c) {
    const AttrMap transposed{{"transpose_a", false}, {"transpose_b", true}};
    OutPort y = c.op("Add", "sum", {c.op("MatMul", "input", {c.input(0), c.input(1)}, transposed),
                                    c.op("MatMul", "recurrent", {c.input(4), c.input(2)}, transposed)});
    y = c.op("Add", "biased", {y, c.input(3)});
    c.set_output(0, tflite_activation(c, y, "activation"));
}

// RNNSequence over batch-major x [B, T, I] with weights, recurrent weights, bias and initial
// state at inputs `first` .. `first` + 3: Y [B, T, U].
OutPort rnn_sequence(ExtractContext& c, const std::string& name, const OutPort& x, size_t first, const char* direction) {
    const PartialShape& w = c.input(first).shape();
    if (!w.rank_is_static() || w.rank() != 2 || !w[0].is_static())
        c.fail("the weights must be a 2-D [units, input] tensor", "the model is corrupt; re-export it");
    const OutPort batch = unsqueeze(c, name + "/batch", c.dim(name + "/batch_size", x, 0), 0);
    const OutPort lengths = c.op("Broadcast", name + "/lengths", {c.dim(name + "/steps", x, 1), batch}, {{"mode", std::string("numpy")}});
    Node n = c.add("RNNSequence", name,
                   {x, unsqueeze(c, name + "/h0", c.input(first + 3), 1), lengths, unsqueeze(c, name + "/W", c.input(first), 0),
                    unsqueeze(c, name + "/R", c.input(first + 1), 0), unsqueeze(c, name + "/B", c.input(first + 2), 0)},
                   {{"hidden_size", w[0].get_length()}, {"direction", std::string(direction)},
                    {"activations", std::vector<std::string>{activation_of(c)}}, {"clip", 0.0}});
    n.set_output_count(2);
    return c.op("Squeeze", name + "/y", {n.out(0), c.i64s(name + "/y/axes", {1})});
}

// UNIDIRECTIONAL_SEQUENCE_RNN(x, weights, recurrent, bias, hidden state; time_major, activation).
void sequence_rnn(ExtractContext& c) {
    const bool time_major = c.i("time_major", 0) != 0;
    const OutPort y = rnn_sequence(c, "rnn", batch_major(c, "batch_major", c.input(0), time_major), 1, "forward");
    c.set_output(0, batch_major(c, "", y, time_major));
}

// BIDIRECTIONAL_SEQUENCE_RNN(x, forward weights, recurrent, bias, state, backward the same,
// auxiliary input and weights; time_major, merge_outputs).
void bidirectional_rnn(ExtractContext& c) {
    for (size_t i = 9; i < c.input_count(); ++i)
        if (c.has_input(i)) c.unsupported("a bidirectional RNN with auxiliary inputs");
    const bool time_major = c.i("time_major", 0) != 0;
    const OutPort x = batch_major(c, "batch_major", c.input(0), time_major);
    const OutPort fw = rnn_sequence(c, "forward", x, 1, "forward"), bw = rnn_sequence(c, "backward", x, 5, "reverse");
    bidirectional_outputs(c, fw, bw, time_major);
}

// LSTM (one step of the full kernel): x [B, I] as a sequence of one step. Its outputs 1 and 2
// (the new states, in old models) are refused; kernel_type BASIC (one concatenated weight) too.
void lstm_step(ExtractContext& c) {
    if (c.i("kernel_type", 0) != 0) c.unsupported("LSTM with kernel_type BASIC");
    if (c.input_count() > 20)
        for (size_t i = 20; i < c.input_count(); ++i)
            if (c.has_input(i)) c.unsupported("an LSTM with layer normalization");
    for (size_t j = 1; j < c.output_count(); ++j)
        if (c.output_used(j)) c.unsupported("LSTM whose state outputs are read");
    const OutPort x = unsqueeze(c, "sequence", c.input(0), 1);
    const OutPort y = lstm(c, "lstm", x, {1, 5, 9, 12, 16, 18, 19}, "forward");
    c.set_output(0, c.op("Squeeze", "", {y, c.i64s("step", {1})}));
}

}  // namespace

void register_tflite_recurrent(ExtractorRegistry& r) {
    r.add({"tflite", "", "RNN", all_versions, rnn});
    r.add({"tflite", "", "UNIDIRECTIONAL_SEQUENCE_RNN", all_versions, sequence_rnn});
    r.add({"tflite", "", "BIDIRECTIONAL_SEQUENCE_RNN", all_versions, bidirectional_rnn});
    r.add({"tflite", "", "LSTM", all_versions, lstm_step});
    r.add({"tflite", "", "UNIDIRECTIONAL_SEQUENCE_LSTM", all_versions, unidirectional});
    r.add({"tflite", "", "BIDIRECTIONAL_SEQUENCE_LSTM", all_versions, bidirectional});
}

}  // namespace mo
