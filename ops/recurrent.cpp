// LSTMSequence-5, GRUSequence-5 and RNNSequence-5 (batch-first layouts: X [B, T, I], states
// [B, D, H], W [D, G*H, I], R [D, G*H, H], B [D, G*H]; outputs Y [B, D, T, H] and the final
// states). Gate order: LSTM f, i, c, o; GRU z, r, h; RNN has one gate. Steps at or past sequence_lengths[b] leave the
// state unchanged and write zeros to Y; the reverse direction runs over each sequence's own
// length backwards.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

enum class Cell { lstm, gru, rnn };

struct CellKind {
    const char* type;
    Cell cell;
    int64_t gates;  // 4 for LSTM, 3 for GRU, 1 for RNN
    size_t activations;
    std::initializer_list<const char*> default_activations;
    bool lstm() const { return cell == Cell::lstm; }
};

const CellKind kLstm{"LSTMSequence", Cell::lstm, 4, 3, {"sigmoid", "tanh", "tanh"}};
const CellKind kGru{"GRUSequence", Cell::gru, 3, 2, {"sigmoid", "tanh"}};
const CellKind kRnn{"RNNSequence", Cell::rnn, 1, 1, {"tanh"}};

// Input positions differ: only the LSTM has a cell state.
struct Inputs {
    size_t x = 0, h = 1, c = 2, lengths = 3, w = 4, r = 5, b = 6;
};
Inputs inputs_of(const CellKind& k) { return k.lstm() ? Inputs{} : Inputs{0, 1, SIZE_MAX, 2, 3, 4, 5}; }

// One activation function. activations_alpha/beta are kept on the node for the IR but the
// three supported functions take no parameters.
struct Activation {
    std::string name;
    float operator()(float x) const {
        if (name == "sigmoid") return 1 / (1 + std::exp(-x));
        if (name == "tanh") return std::tanh(x);
        return x > 0 ? x : 0;  // relu
    }
};

std::vector<Activation> read_activations(const Node& n, const CellKind& k) {
    auto names = n.attr<std::vector<std::string>>("activations");
    const size_t needed = k.activations;
    if (names.size() != needed)
        throw Error("activations must list " + std::to_string(needed) + " functions, got " +
                        std::to_string(names.size()),
                    n.describe());
    std::vector<Activation> result;
    for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] != "sigmoid" && names[i] != "tanh" && names[i] != "relu")
            throw Error("unsupported activation '" + names[i] + "'", n.describe(), "use sigmoid, tanh or relu");
        result.push_back({names[i]});
    }
    return result;
}

int64_t directions_of(const Node& n) {
    const auto d = n.attr<std::string>("direction");
    if (d == "forward" || d == "reverse") return 1;
    if (d == "bidirectional") return 2;
    throw Error("unknown direction '" + d + "'", n.describe(), "use forward, reverse or bidirectional");
}

// Merges `d` into `into`, failing with a message naming both tensors.
void merge_dim(InferContext& c, Dimension& into, const Dimension& d, const std::string& what) {
    if (!into.compatible(d)) c.fail(what + ": " + d.to_string() + " does not match " + into.to_string());
    into = Dimension::merge(into, d);
}

void infer_sequence(InferContext& c, const CellKind& k) {
    const Inputs in = inputs_of(k);
    read_activations(c.node, k);
    const int64_t dirs = directions_of(c.node);
    const int64_t hidden = c.attr<int64_t>("hidden_size");
    if (hidden < 1) c.fail("hidden_size must be positive");
    const bool lbr = k.cell == Cell::gru && c.attr<bool>("linear_before_reset");
    Dimension batch, seq, input_size, num_dirs = dirs, hid = hidden;
    auto shape_of = [&](size_t i, size_t rank, const char* name) -> PartialShape {
        const PartialShape& s = c.in_shape(i);
        if (!s.rank_is_static()) return PartialShape::dynamic(rank);
        if (s.rank() != rank) c.fail(std::string(name) + " must have rank " + std::to_string(rank) + ", got " + s.to_string());
        return s;
    };
    const PartialShape x = shape_of(in.x, 3, "X");
    merge_dim(c, batch, x[0], "X batch");
    merge_dim(c, seq, x[1], "X sequence length");
    merge_dim(c, input_size, x[2], "X input size");
    const PartialShape h0 = shape_of(in.h, 3, "initial_hidden_state");
    merge_dim(c, batch, h0[0], "initial_hidden_state batch");
    merge_dim(c, num_dirs, h0[1], "initial_hidden_state directions");
    merge_dim(c, hid, h0[2], "initial_hidden_state hidden size");
    if (k.lstm()) {
        const PartialShape c0 = shape_of(in.c, 3, "initial_cell_state");
        merge_dim(c, batch, c0[0], "initial_cell_state batch");
        merge_dim(c, num_dirs, c0[1], "initial_cell_state directions");
        merge_dim(c, hid, c0[2], "initial_cell_state hidden size");
    }
    const PartialShape lengths = shape_of(in.lengths, 1, "sequence_lengths");
    merge_dim(c, batch, lengths[0], "sequence_lengths batch");
    const Dimension gates = k.gates * hidden;
    const PartialShape w = shape_of(in.w, 3, "W");
    merge_dim(c, num_dirs, w[0], "W directions");
    Dimension gw = gates;
    merge_dim(c, gw, w[1], "W gate rows (gates * hidden_size)");
    merge_dim(c, input_size, w[2], "W input size");
    const PartialShape r = shape_of(in.r, 3, "R");
    merge_dim(c, num_dirs, r[0], "R directions");
    Dimension gr = gates;
    merge_dim(c, gr, r[1], "R gate rows (gates * hidden_size)");
    merge_dim(c, hid, r[2], "R hidden size");
    const PartialShape b = shape_of(in.b, 2, "B");
    merge_dim(c, num_dirs, b[0], "B directions");
    Dimension gb = lbr ? Dimension((k.gates + 1) * hidden) : gates;
    merge_dim(c, gb, b[1], lbr ? "B rows (4 * hidden_size with linear_before_reset)" : "B rows (gates * hidden_size)");

    ElementType type = c.in_type(in.x);
    if (type == ElementType::dynamic) type = c.in_type(in.w);
    c.set_output(0, type, PartialShape{batch, dirs, seq, hidden});
    c.set_output(1, type, PartialShape{batch, dirs, hidden});
    if (k.lstm()) c.set_output(2, type, PartialShape{batch, dirs, hidden});
}

// y[rows] = M[rows, cols] * v[cols], accumulated.
void matvec_add(const float* m, const float* v, int64_t rows, int64_t cols, float* y) {
    for (int64_t i = 0; i < rows; ++i) {
        float s = 0;
        const float* row = m + i * cols;
        for (int64_t j = 0; j < cols; ++j) s += row[j] * v[j];
        y[i] += s;
    }
}

std::vector<Tensor> eval_sequence(const Node& n, const std::vector<Tensor>& inputs, const CellKind& k) {
    const Inputs in = inputs_of(k);
    const auto act = read_activations(n, k);
    const int64_t dirs = directions_of(n);
    const bool reverse_only = n.attr<std::string>("direction") == "reverse";
    const int64_t H = n.attr<int64_t>("hidden_size");
    const float clip = static_cast<float>(n.attr<double>("clip"));
    const bool lbr = k.cell == Cell::gru && n.attr<bool>("linear_before_reset");
    const Shape& xs = inputs.at(in.x).shape();
    if (xs.size() != 3) throw Error("X must be 3D", n.describe());
    const int64_t B = xs[0], T = xs[1], I = xs[2], G = k.gates;
    auto expect = [&](size_t i, const Shape& s, const char* name) {
        if (inputs.at(i).shape() != s) throw Error(std::string(name) + " has the wrong shape", n.describe());
    };
    expect(in.h, {B, dirs, H}, "initial_hidden_state");
    if (k.lstm()) expect(in.c, {B, dirs, H}, "initial_cell_state");
    expect(in.lengths, {B}, "sequence_lengths");
    expect(in.w, {dirs, G * H, I}, "W");
    expect(in.r, {dirs, G * H, H}, "R");
    expect(in.b, {dirs, (lbr ? G + 1 : G) * H}, "B");

    EvalBudget::charge_operations(saturating_product({B, dirs, T, G, H, I + H}), "the recurrent sequence");

    auto f32 = [](const Tensor& t) { return t.convert(ElementType::f32); };
    const Tensor X = f32(inputs[in.x]), H0 = f32(inputs[in.h]), W = f32(inputs[in.w]), R = f32(inputs[in.r]),
                 Bias = f32(inputs[in.b]);
    const Tensor C0 = k.lstm() ? f32(inputs[in.c]) : Tensor();
    const auto lengths = inputs[in.lengths].to_i64();

    Tensor Y = Tensor::allocate(ElementType::f32, {B, dirs, T, H});
    Tensor Ho = Tensor::allocate(ElementType::f32, {B, dirs, H});
    Tensor Co = Tensor::allocate(ElementType::f32, {B, dirs, H});
    float* y = Y.mutable_data<float>();
    auto gate_clip = [clip](float v) { return clip > 0 ? std::clamp(v, -clip, clip) : v; };
    std::vector<float> g(static_cast<size_t>((G + 1) * H)), h(static_cast<size_t>(H)), c(static_cast<size_t>(H)),
        rh(static_cast<size_t>(H)), hr(static_cast<size_t>(H)), z(static_cast<size_t>(H)), rg(static_cast<size_t>(H));
    for (int64_t d = 0; d < dirs; ++d) {
        const bool backwards = reverse_only || d == 1;
        const float* w = W.data<float>() + d * G * H * I;
        const float* r = R.data<float>() + d * G * H * H;
        const float* bias = Bias.data<float>() + d * (lbr ? G + 1 : G) * H;
        for (int64_t b = 0; b < B; ++b) {
            const int64_t len = std::clamp<int64_t>(lengths[static_cast<size_t>(b)], 0, T);
            std::copy_n(H0.data<float>() + (b * dirs + d) * H, H, h.begin());
            if (k.lstm()) std::copy_n(C0.data<float>() + (b * dirs + d) * H, H, c.begin());
            for (int64_t step = 0; step < len; ++step) {
                const int64_t t = backwards ? len - 1 - step : step;
                const float* xt = X.data<float>() + (b * T + t) * I;
                // g = W xt + bias (+ R h for the gates that see the whole state)
                std::copy_n(bias, G * H, g.begin());
                matvec_add(w, xt, G * H, I, g.data());
                if (k.cell == Cell::rnn) {
                    matvec_add(r, h.data(), H, H, g.data());
                    for (int64_t j = 0; j < H; ++j) h[j] = act[0](gate_clip(g[j]));
                } else if (k.lstm()) {
                    matvec_add(r, h.data(), G * H, H, g.data());
                    for (int64_t j = 0; j < H; ++j) {
                        const float f = act[0](gate_clip(g[j]));
                        const float i = act[0](gate_clip(g[H + j]));
                        const float cand = act[1](gate_clip(g[2 * H + j]));
                        const float o = act[0](gate_clip(g[3 * H + j]));
                        c[j] = f * c[j] + i * cand;
                        h[j] = o * act[2](c[j]);
                    }
                } else {
                    // z and r see R h directly; h~ sees r * (R h) or R (r * h).
                    matvec_add(r, h.data(), 2 * H, H, g.data());
                    for (int64_t j = 0; j < H; ++j) {
                        z[j] = act[0](gate_clip(g[j]));
                        rg[j] = act[0](gate_clip(g[H + j]));
                    }
                    if (lbr) {
                        std::copy_n(bias + 3 * H, H, rh.begin());
                        matvec_add(r + 2 * H * H, h.data(), H, H, rh.data());
                        for (int64_t j = 0; j < H; ++j) g[2 * H + j] += rg[j] * rh[j];
                    } else {
                        for (int64_t j = 0; j < H; ++j) hr[j] = rg[j] * h[j];
                        matvec_add(r + 2 * H * H, hr.data(), H, H, g.data() + 2 * H);
                    }
                    for (int64_t j = 0; j < H; ++j) {
                        const float cand = act[1](gate_clip(g[2 * H + j]));
                        h[j] = (1 - z[j]) * cand + z[j] * h[j];
                    }
                }
                std::copy_n(h.begin(), H, y + ((b * dirs + d) * T + t) * H);
            }
            std::copy_n(h.begin(), H, Ho.mutable_data<float>() + (b * dirs + d) * H);
            if (k.lstm()) std::copy_n(c.begin(), H, Co.mutable_data<float>() + (b * dirs + d) * H);
        }
    }
    const ElementType type = inputs[in.x].type();
    std::vector<Tensor> out{Y.convert(type), Ho.convert(type)};
    if (k.lstm()) out.push_back(Co.convert(type));
    return out;
}

std::vector<AttrSpec> sequence_attrs(const CellKind& k) {
    std::vector<AttrSpec> attrs = {
        {"hidden_size", AttrKind::Int, {}},
        {"direction", AttrKind::String, {}},
        {"activations", AttrKind::Strings,
         std::vector<std::string>(k.default_activations.begin(), k.default_activations.end())},
        {"activations_alpha", AttrKind::Floats, std::vector<double>{}},
        {"activations_beta", AttrKind::Floats, std::vector<double>{}},
        // 0: no clipping (OpenVINO's runtime default and IR spelling).
        {"clip", AttrKind::Float, 0.0},
    };
    if (k.cell == Cell::gru) attrs.push_back({"linear_before_reset", AttrKind::Bool, false});
    return attrs;
}

void add_sequence(OpRegistry& r, const CellKind& k) {
    r.add(OpSchema{
        .type = k.type, .ir_type = k.type, .ir_version = "opset5",
        .min_inputs = k.lstm() ? 7u : 6u, .max_inputs = k.lstm() ? 7u : 6u, .num_outputs = k.lstm() ? 3u : 2u,
        .attrs = sequence_attrs(k),
        .infer = [k](InferContext& c) { infer_sequence(c, k); },
        .eval = [k](const Node& n, const std::vector<Tensor>& in) { return eval_sequence(n, in, k); },
    });
}

}  // namespace

void register_recurrent_ops(OpRegistry& r) {
    add_sequence(r, kLstm);
    add_sequence(r, kGru);
    add_sequence(r, kRnn);
}

}  // namespace mo
