// LSTM / GRU / RNN -> LSTMSequence-5 / GRUSequence-5 / RNNSequence-5. ONNX is time-major
// ([T, B, I], states [D, B, H]) unless layout=1; OpenVINO is batch-first ([B, T, I], states
// [B, D, H], Y [B, D, T, H]). LSTM gates go from ONNX i,o,f,c to OpenVINO f,i,c,o; GRU keeps
// z,r,h; RNN has one gate.
// ONNX biases are [D, 2*G*H] (W biases then R biases): summed per gate, except the GRU's
// h gate with linear_before_reset, where OpenVINO keeps both ([D, 4H]).
#include <algorithm>
#include <cctype>
#include <cstring>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/lstm_peepholes.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

struct RnnKind {
    const char* type;
    int64_t gates;
    std::vector<int64_t> order;  // OpenVINO gate k comes from ONNX gate order[k]
    size_t initial_h, initial_c;  // ONNX input positions of the initial states
    size_t activations;           // activation functions per direction
    bool gru;                     // has linear_before_reset
};

const RnnKind kLstm{"LSTMSequence", 4, {2, 0, 3, 1}, 5, 6, 3, false};
const RnnKind kGru{"GRUSequence", 3, {0, 1, 2}, 5, SIZE_MAX, 2, true};
const RnnKind kRnn{"RNNSequence", 1, {0}, 5, SIZE_MAX, 1, false};

// Gate chunks along axis 1 of [D, G*H, ...] reordered physically.
Tensor reorder_gates(ExtractContext& c, const Tensor& t, int64_t gates, const std::vector<int64_t>& order) {
    const Shape& s = t.shape();
    if (s.size() < 2 || s[0] < 1 || s[1] % gates != 0)
        c.fail("weights of shape [" + PartialShape(s).to_string() + "] do not hold " + std::to_string(gates) +
                   " gates for at least one direction",
               "fix the model");
    size_t chunk = t.byte_size() / static_cast<size_t>(s[0] * gates);
    Tensor out = Tensor::allocate(t.type(), s);
    auto* dst = out.mutable_data<std::byte>();
    for (int64_t d = 0; d < s[0]; ++d)
        for (int64_t g = 0; g < gates; ++g)
            std::memcpy(dst + static_cast<size_t>(d * gates + g) * chunk,
                        t.bytes() + static_cast<size_t>(d * gates + order[g]) * chunk, chunk);
    return out;
}

// The same reorder with ops, for weights that are not constant.
OutPort reorder_gates(ExtractContext& c, const std::string& suffix, const OutPort& w, int64_t gates,
                      const std::vector<int64_t>& order) {
    if (const Tensor* v = w.value()) return c.constant(suffix, reorder_gates(c, *v, gates, order));
    bool identity = true;
    for (int64_t g = 0; g < gates; ++g) identity = identity && order[g] == g;
    if (identity) return w;
    Node parts = c.add("Split", suffix + "/split", {w, c.i64(suffix + "/axis", 1)}, {{"num_splits", gates}});
    parts.set_output_count(static_cast<size_t>(gates));
    std::vector<OutPort> in;
    for (int64_t g = 0; g < gates; ++g) in.push_back(parts.out(static_cast<size_t>(order[g])));
    return c.op("Concat", suffix, in, {{"axis", int64_t{1}}});
}

// OpenVINO gate biases from ONNX [D, 2*G*H] constant: per gate Wb + Rb (in ONNX gate order),
// plus Rb of the last gate for GRU linear_before_reset.
Tensor combine_bias(ExtractContext& c, const Tensor& b, int64_t gates, int64_t hidden, bool keep_last_rb) {
    const Shape& s = b.shape();
    if (s.size() != 2 || s[1] != 2 * gates * hidden)
        c.fail("B must have shape [num_directions, " + std::to_string(2 * gates * hidden) + "]", "fix the model");
    std::vector<double> v = b.to_f64();
    int64_t out_cols = (gates + (keep_last_rb ? 1 : 0)) * hidden;
    std::vector<double> out(static_cast<size_t>(s[0] * out_cols));
    for (int64_t d = 0; d < s[0]; ++d) {
        const double* row = v.data() + d * s[1];
        double* o = out.data() + d * out_cols;
        for (int64_t k = 0; k < gates * hidden; ++k) {
            bool separate = keep_last_rb && k >= (gates - 1) * hidden;
            o[k] = separate ? row[k] : row[k] + row[gates * hidden + k];
        }
        if (keep_last_rb)
            for (int64_t k = 0; k < hidden; ++k) o[gates * hidden + k] = row[(2 * gates - 1) * hidden + k];
    }
    return Tensor::from_vector<double>(out, {s[0], out_cols}).convert(b.type());
}

OutPort bias_with_ops(ExtractContext& c, const OutPort& b, int64_t gates, bool keep_last_rb) {
    Node parts = c.add("Split", "B/split", {b, c.i64("B/axis", 1)}, {{"num_splits", 2 * gates}});
    parts.set_output_count(static_cast<size_t>(2 * gates));
    std::vector<OutPort> in;
    for (int64_t g = 0; g < gates; ++g) {
        if (keep_last_rb && g == gates - 1) {
            in.push_back(parts.out(static_cast<size_t>(g)));
            in.push_back(parts.out(static_cast<size_t>(2 * gates - 1)));
        } else {
            in.push_back(c.op("Add", "B/gate" + std::to_string(g),
                              {parts.out(static_cast<size_t>(g)), parts.out(static_cast<size_t>(gates + g))}));
        }
    }
    return c.op("Concat", "B/combined", in, {{"axis", int64_t{1}}});
}

std::vector<std::string> activations(ExtractContext& c, size_t per_direction, int64_t directions) {
    std::vector<std::string> a = c.strings("activations");
    if (a.empty()) return {};
    if (a.size() != per_direction * static_cast<size_t>(directions))
        c.fail("needs " + std::to_string(per_direction * directions) + " activations", "fix the model");
    if (directions == 2 && !std::equal(a.begin(), a.begin() + static_cast<long>(per_direction),
                                       a.begin() + static_cast<long>(per_direction)))
        c.unsupported("different activations per direction");
    std::vector<std::string> names;
    for (size_t k = 0; k < per_direction; ++k) {
        std::string lower = a[k];
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
        // The only functions OpenVINO's sequences have; none of them reads activation_alpha/beta.
        if (lower != "sigmoid" && lower != "tanh" && lower != "relu") c.unsupported("activation " + a[k]);
        names.push_back(lower);
    }
    return names;
}

// A [B, D, H] (or [B]) tensor filled with `value`, with B read from X at run time when unknown.
OutPort filled(ExtractContext& c, const std::string& suffix, const OutPort& value, const OutPort& x,
               int64_t batch_axis, std::vector<int64_t> tail) {
    const PartialShape& xs = x.shape();
    if (xs.rank_is_static() && xs.rank() == 3 && xs[static_cast<size_t>(batch_axis)].is_static()) {
        std::vector<int64_t> shape{xs[static_cast<size_t>(batch_axis)].get_length()};
        shape.insert(shape.end(), tail.begin(), tail.end());
        return c.op("Broadcast", suffix, {value, c.i64s(suffix + "/shape", shape)}, {{"mode", std::string("numpy")}});
    }
    OutPort x_shape = c.op("ShapeOf", suffix + "/x_shape", {x}, {{"output_type", ElementType::i64}});
    OutPort batch = c.op("Gather", suffix + "/batch", {x_shape, c.i64s(suffix + "/batch_index", {batch_axis}),
                                                      c.i64(suffix + "/batch_axis", 0)},
                         {{"batch_dims", int64_t{0}}});
    OutPort shape = tail.empty() ? batch
                                 : c.op("Concat", suffix + "/shape", {batch, c.i64s(suffix + "/tail", tail)},
                                        {{"axis", int64_t{0}}});
    return c.op("Broadcast", suffix, {value, shape}, {{"mode", std::string("numpy")}});
}

// Per-batch lengths: ONNX's input 4, else the time extent of X for every batch element.
OutPort sequence_lengths(ExtractContext& c, const OutPort& x, int64_t batch_axis, int64_t time_axis) {
    if (c.has_input(4)) return c.input(4);
    const PartialShape& xs = x.shape();
    OutPort steps;
    if (xs.rank_is_static() && xs.rank() == 3 && xs[static_cast<size_t>(time_axis)].is_static()) {
        steps = c.i64("sequence_lengths/steps", xs[static_cast<size_t>(time_axis)].get_length());
    } else {
        OutPort x_shape = c.op("ShapeOf", "sequence_lengths/x_shape", {x}, {{"output_type", ElementType::i64}});
        steps = c.op("Gather", "sequence_lengths/steps",
                     {x_shape, c.i64("sequence_lengths/time_index", time_axis), c.i64("sequence_lengths/axis", 0)},
                     {{"batch_dims", int64_t{0}}});
    }
    return filled(c, "sequence_lengths", steps, x, batch_axis, {});
}

// OpenVINO's B [D, G*H] (+H for GRU linear_before_reset): ONNX's Wb + Rb with the gates
// reordered, or zeros when the model has no bias.
OutPort sequence_bias(ExtractContext& c, const RnnKind& k, const OutPort& x, int64_t dirs, int64_t hidden, bool lbr) {
    if (!c.has_input(3)) {
        int64_t bias_cols = (k.gates + (lbr ? 1 : 0)) * hidden;
        return c.op("Broadcast", "B", {c.scalar_like("B/zero", 0.0, x), c.i64s("B/shape", {dirs, bias_cols})},
                    {{"mode", std::string("numpy")}});
    }
    OutPort b = c.input(3);
    if (const Tensor* v = b.value()) {
        Tensor combined = combine_bias(c, *v, k.gates, hidden, lbr);
        return c.constant("B", lbr ? combined : reorder_gates(c, combined, k.gates, k.order));
    }
    OutPort combined = bias_with_ops(c, b, k.gates, lbr);
    return lbr ? combined : reorder_gates(c, "B", combined, k.gates, k.order);
}

AttrMap sequence_attrs(ExtractContext& c, const RnnKind& k, const std::string& direction, int64_t dirs,
                       int64_t hidden, bool lbr) {
    AttrMap attrs{{"hidden_size", hidden}, {"direction", direction}};
    std::vector<std::string> acts = activations(c, k.activations, dirs);
    if (!acts.empty()) attrs["activations"] = acts;
    if (c.has("activation_alpha")) attrs["activations_alpha"] = c.floats("activation_alpha");
    if (c.has("activation_beta")) attrs["activations_beta"] = c.floats("activation_beta");
    if (c.has("clip")) {
        // OpenVINO reads clip=0 as "no clipping"; ONNX would clip to [-clip, clip].
        double clip = c.f("clip", 0.0);
        if (!(clip > 0)) c.unsupported("clip=" + std::to_string(clip) + " (not positive)");
        attrs["clip"] = clip;
    }
    if (k.gru) attrs["linear_before_reset"] = lbr;
    return attrs;
}

// Y [B, D, T, H] -> ONNX [T, D, B, H] (or [B, T, D, H] with layout=1); states [B, D, H] -> [D, B, H].
void set_sequence_outputs(ExtractContext& c, const Node& seq, bool batch_first) {
    if (c.output_used(0))
        c.set_output(0, c.op("Transpose", "Y", {seq.out(0), c.i64s("Y/order", batch_first ? std::vector<int64_t>{0, 2, 1, 3} : std::vector<int64_t>{2, 1, 0, 3})}));
    for (size_t j = 1; j < c.output_count() && j < seq.output_count(); ++j) {
        if (!c.output_used(j)) continue;
        std::string suffix = j == 1 ? "Y_h" : "Y_c";
        c.set_output(j, batch_first ? seq.out(j) : c.op("Transpose", suffix, {seq.out(j), c.i64s(suffix + "/order", {1, 0, 2})}));
    }
}

void rnn(ExtractContext& c, const RnnKind& k) {
    bool lstm = k.gates == 4;
    if (lstm && c.has_input(7)) {
        const Tensor* p = c.input_value(7);
        if (!p || p->size() > 0) {
            int64_t hidden = c.i("hidden_size", -1);
            if (hidden <= 0) c.unsupported("LSTM peepholes without hidden_size");
            return lstm_with_peepholes(c, hidden);
        }
    }
    if (lstm && c.i("input_forget", 0)) c.unsupported("input_forget=1");
    std::string direction = c.s("direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
        c.fail("unknown direction '" + direction + "'", "use forward, reverse or bidirectional");
    int64_t dirs = direction == "bidirectional" ? 2 : 1;
    bool batch_first = c.i("layout", 0) == 1;
    OutPort x = c.input(0), w = c.input(1), r = c.input(2);
    int64_t hidden = c.i("hidden_size", -1);
    if (hidden <= 0 && r.shape().rank_is_static() && r.shape().rank() == 3 && r.shape()[2].is_static())
        hidden = r.shape()[2].get_length();
    if (hidden <= 0) c.fail("hidden_size is unknown", "set hidden_size or make R a constant");
    bool lbr = k.gru && c.i("linear_before_reset", 0) != 0;

    OutPort x_bf = batch_first ? x : c.op("Transpose", "X", {x, c.i64s("X/order", {1, 0, 2})});
    int64_t batch_axis = batch_first ? 0 : 1, time_axis = batch_first ? 1 : 0;
    auto state = [&](size_t input, const std::string& suffix) {
        if (input != SIZE_MAX && c.has_input(input)) {
            OutPort s = c.input(input);
            return batch_first ? s : c.op("Transpose", suffix, {s, c.i64s(suffix + "/order", {1, 0, 2})});
        }
        return filled(c, suffix, c.scalar_like(suffix + "/zero", 0.0, x), x, batch_axis, {dirs, hidden});
    };
    OutPort h0 = state(k.initial_h, "initial_h");
    std::optional<OutPort> c0;
    if (lstm) c0 = state(k.initial_c, "initial_c");

    std::vector<OutPort> in{x_bf, h0};
    if (lstm) in.push_back(*c0);
    in.insert(in.end(), {sequence_lengths(c, x, batch_axis, time_axis), reorder_gates(c, "W", w, k.gates, k.order),
                         reorder_gates(c, "R", r, k.gates, k.order), sequence_bias(c, k, x, dirs, hidden, lbr)});
    Node seq = c.add(k.type, "", in, sequence_attrs(c, k, direction, dirs, hidden, lbr));
    set_sequence_outputs(c, seq, batch_first);
}

}  // namespace

void register_onnx_rnn(ExtractorRegistry& r) {
    r.add({"onnx", "", "LSTM", since(7), [](ExtractContext& c) { rnn(c, kLstm); }});
    r.add({"onnx", "", "GRU", since(7), [](ExtractContext& c) { rnn(c, kGru); }});
    r.add({"onnx", "", "RNN", since(7), [](ExtractContext& c) { rnn(c, kRnn); }});
}

}  // namespace mo
