// An ONNX LSTM with peepholes (input P), which OpenVINO's LSTMSequence-5 lacks: a Loop over the
// time steps whose body computes ONNX's equations (gate order i, o, f, c; peepholes i, o, f):
//   i = σ(x·Wiᵀ + h·Riᵀ + b_i + P_i ⊙ c)      f = σ(… + P_f ⊙ c)      c̃ = tanh(…)
//   c' = f ⊙ c + i ⊙ c̃                        o = σ(… + P_o ⊙ c')     h' = o ⊙ tanh(c')
// Steps at or beyond a batch item's sequence length keep its state and give zeros in Y.
// Forward direction, default activations, no clip, no input_forget, layout 0 only.
#include "extractors/onnx/lstm_peepholes.hpp"

namespace mo {

namespace {

class BodyBuilder {
public:
    BodyBuilder(Body& body, std::string prefix, ElementType type) : g_(*body.graph), prefix_(std::move(prefix)), type_(type) {}

    OutPort parameter(const std::string& name, ElementType type, PartialShape shape) {
        Node p = g_.add_op("Parameter", prefix_ + name, {}, {{"shape", AttrValue(shape)}, {"element_type", AttrValue(type)}});
        g_.parameters().push_back(p);
        return p.out(0);
    }
    OutPort op(const std::string& type, const std::string& name, const std::vector<OutPort>& in, const AttrMap& attrs = {}) {
        return g_.add_op(type, prefix_ + name, in, attrs).out(0);
    }
    Node node(const std::string& type, const std::string& name, const std::vector<OutPort>& in, const AttrMap& attrs = {}) {
        return g_.add_op(type, prefix_ + name, in, attrs);
    }
    OutPort i64s(const std::string& name, std::vector<int64_t> v) {
        const auto n = static_cast<int64_t>(v.size());
        return g_.add_constant(prefix_ + name, Tensor::from_vector<int64_t>(v, {n})).out(0);
    }
    OutPort scalar(const std::string& name, double v) { return g_.add_constant(prefix_ + name, Tensor::scalar<double>(v).convert(type_)).out(0); }
    void result(const OutPort& value, const std::string& name) { g_.results().push_back(g_.add_op("Result", prefix_ + name, {value})); }

private:
    Graph& g_;
    std::string prefix_;
    ElementType type_;
};

}  // namespace

void lstm_with_peepholes(ExtractContext& c, int64_t hidden) {
    if (c.s("direction", "forward") != "forward") c.unsupported("LSTM peepholes in a " + c.s("direction", "forward") + " LSTM");
    if (c.has("clip") || c.has("activations") || c.has("activation_alpha") || c.i("input_forget", 0) != 0 || c.i("layout", 0) != 0)
        c.unsupported("LSTM peepholes with clip, activations, input_forget or layout=1");
    OutPort x = c.input(0);  // [T, B, I]
    const ElementType type = x.type();
    if (!is_float(type)) c.unsupported("LSTM peepholes with an input of unknown float type");
    auto squeeze0 = [&](const OutPort& p, const std::string& name) { return c.op("Squeeze", name, {p, c.i64s(name + "/axis", {0})}); };
    OutPort shape = c.op("ShapeOf", "X/shape", {x}, {{"output_type", ElementType::i64}});
    auto dim = [&](int64_t d, const std::string& name) { return c.op("Gather", name, {shape, c.i64(name + "/index", d), c.i64(name + "/axis", 0)}); };
    OutPort steps = dim(0, "steps"), batch = dim(1, "batch");
    OutPort state_shape = c.op("Concat", "state_shape", {c.op("Unsqueeze", "batch_1d", {batch, c.i64s("batch_1d/axis", {0})}), c.i64s("hidden", {hidden})},
                               {{"axis", int64_t{0}}});
    auto state = [&](size_t input, const std::string& name) {
        if (c.has_input(input)) return squeeze0(c.input(input), name);
        return c.op("Broadcast", name, {c.scalar_like(name + "/zero", 0.0, x), state_shape}, {{"mode", std::string("numpy")}});
    };
    OutPort bias = c.has_input(3)
                       ? c.op("Add", "bias", {c.op("Slice", "bias/w", {squeeze0(c.input(3), "bias/all"), c.i64s("bias/w/start", {0}), c.i64s("bias/w/stop", {4 * hidden}), c.i64s("bias/w/step", {1})}),
                                              c.op("Slice", "bias/r", {squeeze0(c.input(3), "bias/all_r"), c.i64s("bias/r/start", {4 * hidden}), c.i64s("bias/r/stop", {8 * hidden}), c.i64s("bias/r/step", {1})})})
                       : c.op("Broadcast", "bias", {c.scalar_like("bias/zero", 0.0, x), c.i64s("bias/shape", {4 * hidden})}, {{"mode", std::string("numpy")}});
    OutPort lengths = c.has_input(4) ? c.op("Convert", "lengths", {c.input(4)}, {{"destination_type", ElementType::i64}})
                                     : c.op("Broadcast", "lengths", {steps, c.op("Unsqueeze", "lengths/shape", {batch, c.i64s("lengths/axis", {0})})},
                                            {{"mode", std::string("numpy")}});
    std::vector<OutPort> outer{steps, c.constant("go", Tensor::scalar<bool>(true)), state(5, "initial_h"), state(6, "initial_c"), x,
                               squeeze0(c.input(1), "W"), squeeze0(c.input(2), "R"), bias, squeeze0(c.input(7), "P"), lengths};
    Node loop = c.add("Loop", "steps_loop", outer);
    loop.set_output_count(3);
    Body& body = loop.add_body("body");
    BodyBuilder b(body, c.name() + "/step/", type);
    const PartialShape any = PartialShape::dynamic_rank();
    OutPort t = b.parameter("t", ElementType::i64, PartialShape{});
    OutPort h = b.parameter("h", type, any), cell = b.parameter("c", type, any), xs = b.parameter("x", type, any);
    OutPort w = b.parameter("w", type, any), r = b.parameter("r", type, any), bb = b.parameter("b", type, any);
    OutPort p = b.parameter("p", type, any), len = b.parameter("lengths", ElementType::i64, any);
    OutPort xt = b.op("Gather", "x_t", {xs, t, b.i64s("x_t/axis", {0})}, {{"batch_dims", int64_t{0}}});
    OutPort gates = b.op("Add", "gates", {b.op("Add", "xh", {b.op("MatMul", "xw", {xt, w}, {{"transpose_b", true}}),
                                                            b.op("MatMul", "hr", {h, r}, {{"transpose_b", true}})}),
                                          bb});
    Node g = b.node("Split", "gate", {gates, b.i64s("gate/axis", {1})}, {{"num_splits", int64_t{4}}});
    g.set_output_count(4);
    Node pp = b.node("Split", "peephole", {p, b.i64s("peephole/axis", {0})}, {{"num_splits", int64_t{3}}});
    pp.set_output_count(3);
    auto sig = [&](const std::string& name, const OutPort& v) { return b.op("Sigmoid", name, {v}); };
    OutPort i = sig("i", b.op("Add", "i_in", {g.out(0), b.op("Multiply", "i_peep", {pp.out(0), cell})}));
    OutPort f = sig("f", b.op("Add", "f_in", {g.out(2), b.op("Multiply", "f_peep", {pp.out(2), cell})}));
    OutPort cand = b.op("Tanh", "c_candidate", {g.out(3)});
    OutPort c_new = b.op("Add", "c_new", {b.op("Multiply", "keep", {f, cell}), b.op("Multiply", "write", {i, cand})});
    OutPort o = sig("o", b.op("Add", "o_in", {g.out(1), b.op("Multiply", "o_peep", {pp.out(1), c_new})}));
    OutPort h_new = b.op("Multiply", "h_new", {o, b.op("Tanh", "c_act", {c_new})});
    OutPort running = b.op("Unsqueeze", "running", {b.op("Less", "in_sequence", {t, len}), b.i64s("running/axis", {1})});
    b.result(body.graph->add_constant(c.name() + "/step/cond", Tensor::scalar<bool>(true)).out(0), "cond_out");
    b.result(b.op("Select", "h_next", {running, h_new, h}), "h_out");
    b.result(b.op("Select", "c_next", {running, c_new, cell}), "c_out");
    OutPort y = b.op("Select", "y_t", {running, h_new, b.scalar("y_t/zero", 0)});
    b.result(b.op("Unsqueeze", "y_t_4d", {y, b.i64s("y_t_4d/axes", {0, 1})}), "y_out");
    body.inputs = {BodyInput{BodyInput::Kind::CurrentIteration, 0, 0}, BodyInput{BodyInput::Kind::Merged, 2, 1, 1},
                   BodyInput{BodyInput::Kind::Merged, 3, 2, 2}};
    for (size_t k = 0; k < 6; ++k) body.inputs.push_back(BodyInput{BodyInput::Kind::Invariant, 4 + k, 3 + k});
    body.outputs = {BodyOutput{BodyOutput::Kind::Condition, 0, 0}, BodyOutput{BodyOutput::Kind::Concat, 0, 3},
                    BodyOutput{BodyOutput::Kind::Last, 1, 1}, BodyOutput{BodyOutput::Kind::Last, 2, 2}};
    c.set_output(0, loop.out(0));  // Y [T, 1, B, H]
    if (c.output_used(1)) c.set_output(1, c.op("Unsqueeze", "Y_h", {loop.out(1), c.i64s("Y_h/axis", {0})}));
    if (c.output_count() > 2 && c.output_used(2)) c.set_output(2, c.op("Unsqueeze", "Y_c", {loop.out(2), c.i64s("Y_c/axis", {0})}));
}

}  // namespace mo
