// If-8, Loop-5 and TensorIterator-1: ops that own bodies (core/subgraph.hpp). Inference binds
// the body Parameters to the node's inputs and infers the body; evaluation runs the body with
// the graph evaluator, once (If) or per iteration (Loop, TensorIterator), as the specs say.
#include <algorithm>
#include <cstring>

#include "core/eval_budget.hpp"
#include "core/evaluator.hpp"
#include "core/graph.hpp"
#include "core/infer.hpp"
#include "core/loop_unroll.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {

namespace {

// The shape both a and b fit: dims that differ become dynamic, ranks that differ a dynamic rank.
PartialShape join(const PartialShape& a, const PartialShape& b) {
    if (!a.rank_is_static() || !b.rank_is_static() || a.rank() != b.rank()) return PartialShape::dynamic_rank();
    std::vector<Dimension> dims;
    for (size_t i = 0; i < a.rank(); ++i) dims.push_back(a[i] == b[i] ? a[i] : Dimension::dynamic());
    return PartialShape(dims);
}

// Gives a body Parameter the type and shape it receives; its body is re-inferred afterwards.
void bind_parameter(Node p, ElementType type, const PartialShape& shape) {
    if (p.attr<ElementType>("element_type") != type) p.set_attr("element_type", type);
    if (p.attr<PartialShape>("shape") != shape) p.set_attr("shape", shape);
}

void check_body(const InferContext& c, const Body& body) {
    const Graph& g = *body.graph;
    for (const BodyInput& in : body.inputs) {
        if (in.parameter >= g.parameters().size())
            c.fail("the " + body.role + " port map names Parameter " + std::to_string(in.parameter) + " of " +
                   std::to_string(g.parameters().size()));
        if (in.kind != BodyInput::Kind::CurrentIteration && in.external >= c.input_count())
            c.fail("the " + body.role + " port map names input " + std::to_string(in.external) + " of " +
                   std::to_string(c.input_count()));
        if (in.kind == BodyInput::Kind::Merged && in.result >= g.results().size())
            c.fail("a back edge of the " + body.role + " leaves from Result " + std::to_string(in.result) + " of " +
                   std::to_string(g.results().size()));
    }
    for (size_t p = 0; p < g.parameters().size(); ++p)
        if (!body.input_for_parameter(p))
            c.fail("Parameter '" + g.parameters()[p].name() + "' of the " + body.role + " gets no value",
                   "every body Parameter needs a port map entry");
    for (const BodyOutput& out : body.outputs) {
        if (out.kind == BodyOutput::Kind::Condition && c.node.type() != "Loop")
            c.fail("the " + body.role + " port map gives an execution condition, which only a Loop has");
        if (out.result >= g.results().size())
            c.fail("the " + body.role + " port map names Result " + std::to_string(out.result) + " of " +
                   std::to_string(g.results().size()));
        if (out.kind != BodyOutput::Kind::Condition && out.external >= c.node.output_count())
            c.fail("the " + body.role + " port map names output " + std::to_string(out.external) + " of " +
                   std::to_string(c.node.output_count()));
    }
}

const OutputData& result_data(const Body& body, size_t result) {
    return body.graph->results()[result].in(0).src().data();
}

// ---------------------------------------------------------------- If

// A condition or trip count is one value: a scalar or a tensor of one element.
void check_single_value(const InferContext& c, size_t input, const char* what) {
    if (!c.has_input(input)) return;
    const PartialShape& s = c.in_shape(input);
    if (s.is_static() && shape_size(s.to_shape()) != 1)
        c.fail(std::string(what) + " must hold one value, its shape is [" + s.to_string() + "]");
}

void infer_if(InferContext& c) {
    auto& bodies = c.node.bodies();
    if (bodies.size() != 2) c.fail("If needs a then_body and an else_body");
    check_single_value(c, 0, "the condition");
    const Tensor* cond = c.in_value(0);
    std::vector<std::vector<const OutputData*>> produced(2, std::vector<const OutputData*>(c.node.output_count()));
    for (size_t b = 0; b < 2; ++b) {
        Body& body = bodies[b];
        check_body(c, body);
        for (const BodyInput& in : body.inputs)
            bind_parameter(body.graph->parameters()[in.parameter], c.in_type(in.external), c.in_shape(in.external));
        infer_graph(*body.graph);
        for (const BodyOutput& out : body.outputs) produced[b][out.external] = &result_data(body, out.result);
    }
    for (size_t j = 0; j < c.node.output_count(); ++j) {
        const OutputData* then_out = produced[0][j];
        const OutputData* else_out = produced[1][j];
        if (!then_out || !else_out) c.fail("output " + std::to_string(j) + " is not given by both bodies");
        if (cond) {
            const OutputData* taken = cond->single_i64("the condition") != 0 ? then_out : else_out;
            c.set_output(j, taken->type, taken->shape);
            continue;
        }
        ElementType t = then_out->type;
        if (t == ElementType::dynamic) t = else_out->type;
        else if (else_out->type != ElementType::dynamic && else_out->type != t)
            c.fail("output " + std::to_string(j) + " is " + std::string(ir_name(then_out->type)) + " in the then_body but " +
                   std::string(ir_name(else_out->type)) + " in the else_body");
        c.set_output(j, t, join(then_out->shape, else_out->shape));
    }
}

std::vector<Tensor> evaluate_if(const Node& n, const std::vector<Tensor>& inputs) {
    const Body& body = n.bodies().at(inputs.at(0).single_i64("the condition") != 0 ? 0 : 1);
    std::vector<Tensor> args(body.graph->parameters().size());
    for (const BodyInput& in : body.inputs) args[in.parameter] = inputs.at(in.external);
    std::vector<Tensor> results = evaluate(*body.graph, args);
    std::vector<Tensor> outputs(n.output_count());
    for (const BodyOutput& out : body.outputs) outputs[out.external] = results[out.result];
    return outputs;
}

// ---------------------------------------------------------------- Loop and TensorIterator

// Where the sliced parts of an axis of `extent` elements lie: `count` parts of `part_size`
// from `first`, going forwards or backwards.
struct SliceWalk {
    int64_t first = 0, count = 0, part_size = 1;
    bool backwards = false;
    int64_t offset(int64_t i) const { return backwards ? first - (i + 1) * part_size + 1 : first + i * part_size; }
};

SliceWalk slice_walk(int64_t start, int64_t end, int64_t stride, int64_t part_size, int64_t extent) {
    if (stride != 1 && stride != -1) throw Error("slicing with stride " + std::to_string(stride) + " is not supported",
                                                 {}, "mo iterates sliced inputs with stride 1 or -1");
    if (part_size < 1) throw Error("part_size " + std::to_string(part_size) + " must be positive");
    const int64_t given_start = start, given_end = end;
    if (start < 0) start += extent;
    if (end < 0) end += extent;
    SliceWalk w;
    w.part_size = part_size;
    w.backwards = stride < 0;
    w.first = start;
    // In 128 bits: start and end come from the file, and their difference may leave int64.
    const __int128 span = (w.backwards ? __int128{start} - end : __int128{end} - start) + 1;
    const __int128 count = std::max<__int128>(0, span / part_size);
    const __int128 lowest = w.backwards ? start - count * part_size + 1 : start;
    const __int128 highest = w.backwards ? start : start + count * part_size - 1;
    if (count > 0 && (lowest < 0 || highest >= extent))
        throw Error("the sliced parts from " + std::to_string(given_start) + " to " + std::to_string(given_end) +
                        " lie outside the axis of " + std::to_string(extent) + " elements",
                    {}, "the port map's start and end must index the sliced input");
    w.count = static_cast<int64_t>(count);
    return w;
}

// The part [offset, offset + size) of `t` along `axis`.
Tensor slice_axis(const Tensor& t, int64_t axis, int64_t offset, int64_t size) {
    if (bit_width(t.type()) % 8 != 0) throw Error("slicing " + std::string(ir_name(t.type())) + " tensors is not supported");
    const Shape& s = t.shape();
    MO_ASSERT(offset >= 0 && size >= 0 && offset <= s[axis] - size, "slice [", offset, ", +", size, ") of ", s[axis]);
    Shape out_shape = s;
    out_shape[axis] = size;
    int64_t outer = 1, inner = static_cast<int64_t>(bit_width(t.type()) / 8);
    for (int64_t d = 0; d < axis; ++d) outer *= s[d];
    for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
    Tensor out = Tensor::allocate(t.type(), out_shape);
    auto* dst = out.mutable_data<std::byte>();
    for (int64_t o = 0; o < outer; ++o)
        std::memcpy(dst + o * size * inner, t.bytes() + (o * s[axis] + offset) * inner, size * inner);
    return out;
}

Tensor concat_axis(const std::vector<Tensor>& parts, int64_t axis) {
    const Tensor& first = parts.front();
    if (bit_width(first.type()) % 8 != 0)
        throw Error("concatenating " + std::string(ir_name(first.type())) + " tensors is not supported");
    Shape shape = first.shape();
    shape[axis] = 0;
    for (const Tensor& p : parts) {
        if (p.shape().size() != shape.size()) throw Error("body outputs to concatenate differ in rank");
        shape[axis] += p.shape()[axis];
    }
    int64_t outer = 1, inner = static_cast<int64_t>(bit_width(first.type()) / 8);
    for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    Tensor out = Tensor::allocate(first.type(), shape);
    auto* dst = out.mutable_data<std::byte>();
    int64_t row = shape[axis] * inner, done = 0;
    for (const Tensor& p : parts) {
        for (size_t d = 0; d < shape.size(); ++d)
            if (static_cast<int64_t>(d) != axis && p.shape()[d] != shape[d])
                throw Error("body outputs to concatenate differ in shape outside the axis");
        int64_t chunk = p.shape()[axis] * inner;
        for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + o * row + done, p.bytes() + o * chunk, chunk);
        done += chunk;
    }
    return out;
}

int64_t axis_of(int64_t axis, const PartialShape& shape, const InferContext& c) {
    if (!shape.rank_is_static()) return axis;
    try {
        return normalize_axis(axis, static_cast<int64_t>(shape.rank()));
    } catch (const Error& e) {
        c.fail("port map axis: " + e.what_part());
    }
}

// Iterations known at conversion time, or -1: a Loop's constant trip count (with constant, true
// conditions), capped by the parts of its sliced inputs; a TensorIterator's parts alone.
int64_t known_iterations(const InferContext& c, const Body& body, bool is_loop) {
    int64_t count = -1;
    if (is_loop) {
        const Tensor* trip = c.in_value(0);
        const Tensor* cond = c.in_value(1);
        if (cond && cond->single_i64("the condition") == 0) return 0;
        if (!trip || !cond) return -1;
        for (const BodyOutput& out : body.outputs) {
            if (out.kind != BodyOutput::Kind::Condition) continue;
            const Tensor* v = body.graph->results()[out.result].in(0).value();
            if (!v || v->single_i64("the body's condition") == 0) return -1;
        }
        count = trip->single_i64("the trip count");
        if (count < 0) return -1;
    }
    for (const BodyInput& in : body.inputs) {
        if (in.kind != BodyInput::Kind::Sliced) continue;
        const PartialShape& s = c.in_shape(in.external);
        if (!s.rank_is_static()) return -1;
        const Dimension& d = s[axis_of(in.axis, s, c)];
        if (!d.is_static()) return -1;
        int64_t parts = slice_walk(in.start, in.end, in.stride, in.part_size, d.get_length()).count;
        count = count < 0 ? parts : std::min(count, parts);
    }
    return count;
}

void infer_iterations(InferContext& c, bool is_loop) {
    auto& bodies = c.node.bodies();
    if (bodies.size() != 1) c.fail(c.node.type() + " needs exactly one body");
    if (is_loop) {
        check_single_value(c, 0, "the trip count");
        check_single_value(c, 1, "the condition");
        // Loop-5 takes an integer trip count and a boolean condition (ONNX too).
        if (c.has_input(0) && c.in_type(0) != ElementType::dynamic && !is_integral(c.in_type(0)))
            c.fail("the trip count is " + std::string(ir_name(c.in_type(0))) + ", not an integer");
        if (c.has_input(1) && c.in_type(1) != ElementType::dynamic && c.in_type(1) != ElementType::boolean)
            c.fail("the execution condition is " + std::string(ir_name(c.in_type(1))) + ", not boolean");
    }
    Body& body = bodies[0];
    check_body(c, body);
    std::vector<bool> mapped(c.node.output_count());
    for (const BodyOutput& out : body.outputs)
        if (out.kind != BodyOutput::Kind::Condition) mapped[out.external] = true;
    for (size_t j = 0; j < mapped.size(); ++j)
        if (!mapped[j]) c.fail("output " + std::to_string(j) + " has no entry in the port map");
    const auto& params = body.graph->parameters();
    for (const BodyInput& in : body.inputs) {
        Node p = params[in.parameter];
        switch (in.kind) {
        case BodyInput::Kind::CurrentIteration:
            if (!is_loop) c.fail("TensorIterator has no current-iteration input");
            break;
        case BodyInput::Kind::Sliced: {
            PartialShape s = c.in_shape(in.external);
            if (s.rank_is_static()) s[axis_of(in.axis, s, c)] = Dimension(in.part_size);
            bind_parameter(p, c.in_type(in.external), s);
            break;
        }
        default: bind_parameter(p, c.in_type(in.external), c.in_shape(in.external));
        }
    }
    // A back edge may change a shape from one iteration to the next: widen the Parameter to
    // what both its first value and the body's result fit, until nothing changes. Ranks and
    // dims only ever become more dynamic, so each round but the last makes at least one of
    // them dynamic: the rounds are bounded by their number.
    size_t max_rounds = 1;
    for (const BodyInput& in : body.inputs)
        if (in.kind == BodyInput::Kind::Merged) {
            const PartialShape& s = params[in.parameter].attr<PartialShape>("shape");
            max_rounds += 1 + (s.rank_is_static() ? s.rank() : 0);
        }
    for (size_t round = 0;; ++round) {
        infer_graph(*body.graph);
        bool widened = false;
        for (const BodyInput& in : body.inputs) {
            if (in.kind != BodyInput::Kind::Merged) continue;
            Node p = params[in.parameter];
            const OutputData& r = result_data(body, in.result);
            if (r.type != ElementType::dynamic && r.type != p.attr<ElementType>("element_type"))
                c.fail("the back edge into Parameter '" + p.name() + "' carries " + std::string(ir_name(r.type)) +
                       " but the first iteration gets " + std::string(ir_name(p.attr<ElementType>("element_type"))));
            PartialShape wider = join(p.attr<PartialShape>("shape"), r.shape);
            if (wider != p.attr<PartialShape>("shape")) {
                bind_parameter(p, p.attr<ElementType>("element_type"), wider);
                widened = true;
            }
        }
        if (!widened) break;
        MO_ASSERT(round < max_rounds, c.node.describe(), ": back-edge shapes do not settle");
    }
    for (const BodyOutput& out : body.outputs) {
        const ElementType t = result_data(body, out.result).type;
        if (out.kind == BodyOutput::Kind::Condition && t != ElementType::dynamic && t != ElementType::boolean)
            c.fail("the body's execution condition is " + std::string(ir_name(t)) + ", not boolean");
    }
    const int64_t iterations = known_iterations(c, body, is_loop);
    for (const BodyOutput& out : body.outputs) {
        if (out.kind == BodyOutput::Kind::Condition) continue;
        const OutputData& r = result_data(body, out.result);
        PartialShape shape = r.shape;
        if (out.kind == BodyOutput::Kind::Concat) {
            if (shape.rank_is_static()) {
                Dimension& d = shape[axis_of(out.axis, shape, c)];
                d = iterations >= 0 && d.is_static() ? Dimension(iterations) * d : Dimension::dynamic();
            }
        } else {
            // Without an iteration the output is the back edge's first value.
            for (const BodyInput& in : body.inputs)
                if (in.kind == BodyInput::Kind::Merged && in.result == out.result)
                    shape = params[in.parameter].attr<PartialShape>("shape");
        }
        c.set_output(out.external, r.type, shape);
    }
}

// Loop (trip count and condition in inputs 0 and 1) or TensorIterator (neither).
std::vector<Tensor> evaluate_iterations(const Node& n, const std::vector<Tensor>& inputs, bool is_loop) {
    const Body& body = n.bodies().at(0);
    const Graph& g = *body.graph;
    int64_t trip = -1;
    bool cond = true;
    if (is_loop) {
        trip = inputs.at(0).single_i64("the trip count");
        cond = inputs.at(1).single_i64("the condition") != 0;
    }
    std::vector<Tensor> args(g.parameters().size());
    std::vector<SliceWalk> walks(body.inputs.size());
    int64_t slices = -1;
    for (size_t k = 0; k < body.inputs.size(); ++k) {
        const BodyInput& in = body.inputs[k];
        if (in.kind == BodyInput::Kind::Invariant || in.kind == BodyInput::Kind::Merged) args[in.parameter] = inputs.at(in.external);
        if (in.kind != BodyInput::Kind::Sliced) continue;
        const Tensor& t = inputs.at(in.external);
        int64_t axis = normalize_axis(in.axis, static_cast<int64_t>(t.shape().size()));
        walks[k] = slice_walk(in.start, in.end, in.stride, in.part_size, t.shape()[axis]);
        slices = slices < 0 ? walks[k].count : std::min(slices, walks[k].count);
    }
    if (!is_loop && slices < 0) throw Error("TensorIterator has no sliced input to count its iterations");
    std::vector<std::vector<Tensor>> concat(body.outputs.size());
    std::vector<Tensor> last(body.outputs.size());
    int64_t i = 0;
    for (; (trip < 0 || i < trip) && (slices < 0 || i < slices) && cond; ++i) {
        EvalBudget::charge_iteration();
        for (size_t k = 0; k < body.inputs.size(); ++k) {
            const BodyInput& in = body.inputs[k];
            if (in.kind == BodyInput::Kind::Sliced) {
                const Tensor& t = inputs.at(in.external);
                int64_t axis = normalize_axis(in.axis, static_cast<int64_t>(t.shape().size()));
                args[in.parameter] = slice_axis(t, axis, walks[k].offset(i), in.part_size);
            } else if (in.kind == BodyInput::Kind::CurrentIteration) {
                args[in.parameter] = iteration_number(g.parameters()[in.parameter], i);
            }
        }
        std::vector<Tensor> results = evaluate(g, args);
        for (const BodyInput& in : body.inputs)
            if (in.kind == BodyInput::Kind::Merged) args[in.parameter] = results[in.result];
        for (size_t k = 0; k < body.outputs.size(); ++k) {
            const BodyOutput& out = body.outputs[k];
            if (out.kind == BodyOutput::Kind::Condition) cond = results[out.result].single_i64("the body's condition") != 0;
            else if (out.kind == BodyOutput::Kind::Concat) concat[k].push_back(results[out.result]);
            else last[k] = results[out.result];
        }
    }
    std::vector<Tensor> outputs(n.output_count());
    for (size_t k = 0; k < body.outputs.size(); ++k) {
        const BodyOutput& out = body.outputs[k];
        if (out.kind == BodyOutput::Kind::Condition) continue;
        const OutPort port = n.out(out.external);
        if (out.kind == BodyOutput::Kind::Concat) {
            if (concat[k].empty()) {
                const PartialShape& s = port.shape();
                if (!s.rank_is_static()) throw Error("the loop ran no iteration and output " + std::to_string(out.external) + " has no known rank");
                Shape shape;
                for (const Dimension& d : s.dims()) shape.push_back(d.is_static() ? d.get_length() : 0);
                shape[normalize_axis(out.axis, static_cast<int64_t>(shape.size()))] = 0;
                outputs[out.external] = Tensor::allocate(port.type(), shape);
                continue;
            }
            if (out.stride < 0) std::reverse(concat[k].begin(), concat[k].end());
            int64_t axis = normalize_axis(out.axis, static_cast<int64_t>(concat[k].front().shape().size()));
            outputs[out.external] = concat_axis(concat[k], axis);
            continue;
        }
        if (i > 0) {
            outputs[out.external] = last[k];
            continue;
        }
        for (const BodyInput& in : body.inputs)
            if (in.kind == BodyInput::Kind::Merged && in.result == out.result) outputs[out.external] = inputs.at(in.external);
        if (outputs[out.external].empty())
            throw Error("the loop ran no iteration and output " + std::to_string(out.external) + " has no initial value");
    }
    return outputs;
}

}  // namespace

void register_subgraph_ops(OpRegistry& r) {
    OpSchema if_op = make_schema("If", "If", "opset8", 1, SIZE_MAX, SIZE_MAX);
    if_op.infer = infer_if;
    if_op.eval = evaluate_if;
    r.add(std::move(if_op));

    OpSchema loop = make_schema("Loop", "Loop", "opset5", 2, SIZE_MAX, SIZE_MAX);
    loop.infer = [](InferContext& c) { infer_iterations(c, true); };
    loop.eval = [](const Node& n, const std::vector<Tensor>& in) { return evaluate_iterations(n, in, true); };
    r.add(std::move(loop));

    OpSchema ti = make_schema("TensorIterator", "TensorIterator", "opset1", 1, SIZE_MAX, SIZE_MAX);
    ti.infer = [](InferContext& c) { infer_iterations(c, false); };
    ti.eval = [](const Node& n, const std::vector<Tensor>& in) { return evaluate_iterations(n, in, false); };
    r.add(std::move(ti));
}

}  // namespace mo
