#include "core/infer.hpp"

#include <algorithm>
#include <deque>
#include <optional>

#include "core/error.hpp"
#include "core/eval_budget.hpp"
#include "core/log.hpp"
#include "core/plugin_code.hpp"

namespace mo {

void check_eval_outputs(const Node& n, const std::vector<Tensor>& outputs) {
    const OpSchema& op = n.op();
    // A plugin's evaluation that contradicts its inference is the plugin's bug; a built-in's is mo's.
    auto broken = [&](const std::string& what) {
        if (from_plugin(op.origin)) throw_plugin_fault(op.origin, "the evaluation of op '" + op.type + "' " + what, n.describe());
        detail::assert_failed("eval outputs agree with inference", __FILE__, __LINE__, n.describe() + ": eval " + what);
    };
    if (outputs.size() != n.output_count())
        broken("returned " + std::to_string(outputs.size()) + " outputs, the node has " + std::to_string(n.output_count()));
    for (size_t j = 0; j < outputs.size(); ++j) {
        const OutPort port = n.out(j);
        if (port.type() != ElementType::dynamic && outputs[j].type() != port.type())
            broken("gives output " + std::to_string(j) + " as " + std::string(ir_name(outputs[j].type())) +
                   ", its shape inference as " + std::string(ir_name(port.type())));
        if (!shape_fits(port.shape(), outputs[j].shape()))
            broken("gives output " + std::to_string(j) + " the shape [" + PartialShape(outputs[j].shape()).to_string() +
                   "], its shape inference [" + port.shape().to_string() + "]");
    }
}

namespace {

// What failed, for a plugin op's error: "the shape inference of op 'Foo'".
PluginCodeSite op_site(const char* part, const Node& n) {
    return {"the " + std::string(part) + " of op '" + n.op().type + "'", n.describe()};
}

struct OutputSnapshot {
    ElementType type;
    PartialShape shape;
    const void* value;  // the value's buffer: comparing bytes would compute a derived one
};

const void* value_buffer(const OutPort& p) {
    const Tensor* v = p.value();
    return v ? static_cast<const void*>(v->buffer().get()) : nullptr;
}

// A node's outputs as they were before its inference, copied into lists kept per thread and
// nesting level (a body is inferred inside its owner's inference): their shapes' storage is
// reused, so taking one allocates nothing for most nodes.
class Snapshot {
public:
    explicit Snapshot(const Node& n) : outputs_(take_list()) {
        outputs_.resize(n.output_count());
        for (size_t j = 0; j < outputs_.size(); ++j) {
            const OutPort p = n.out(j);
            outputs_[j].type = p.type();
            outputs_[j].shape = p.shape();
            outputs_[j].value = value_buffer(p);
        }
    }
    ~Snapshot() { --depth(); }
    Snapshot(const Snapshot&) = delete;
    Snapshot& operator=(const Snapshot&) = delete;

    // Whether `n`'s outputs differ from the snapshot's.
    bool differs(const Node& n) const {
        if (n.output_count() != outputs_.size()) return true;
        for (size_t j = 0; j < outputs_.size(); ++j) {
            const OutPort p = n.out(j);
            if (outputs_[j].type != p.type() || outputs_[j].shape != p.shape() || outputs_[j].value != value_buffer(p))
                return true;
        }
        return false;
    }

private:
    static size_t& depth() {
        thread_local size_t d = 0;
        return d;
    }
    static std::vector<OutputSnapshot>& take_list() {
        thread_local std::deque<std::vector<OutputSnapshot>> lists;  // a deque: growing it moves no list
        if (lists.size() == depth()) lists.emplace_back();
        return lists[depth()++];
    }
    std::vector<OutputSnapshot>& outputs_;
};

// Whether running `n`'s bodies at conversion is bounded: a Loop folds only with a known trip
// count of at most kMaxFoldedIterations (-1 or a huge constant could run for ever), and a
// TensorIterator only with at most that many parts of each sliced input.
bool bounded_iterations(const Node& n) {
    if (n.bodies().empty() || n.is("If")) return true;
    if (n.is("Loop")) {
        const Tensor* trip = n.in(0).value();
        if (!trip || trip->size() != 1) return false;
        const int64_t count = trip->to_i64().at(0);
        return count >= 0 && count <= kMaxFoldedIterations;
    }
    for (const BodyInput& in : n.bodies().at(0).inputs) {
        if (in.kind != BodyInput::Kind::Sliced) continue;
        const PartialShape& s = n.in(in.external).shape();
        if (!s.rank_is_static() || s.rank() == 0) return false;
        const int64_t axis = in.axis < 0 ? in.axis + static_cast<int64_t>(s.rank()) : in.axis;
        if (axis < 0 || axis >= static_cast<int64_t>(s.rank()) || !s[static_cast<size_t>(axis)].is_static()) return false;
        if (s[static_cast<size_t>(axis)].get_length() > kMaxFoldedIterations * std::max<int64_t>(in.part_size, 1)) return false;
    }
    return true;
}

// Whether every output of `n` with a static shape fits in its graph's max_constant_bytes. Checked before eval
// allocates: a hostile ConstantOfShape or Range of constants would otherwise ask for terabytes.
bool outputs_fit(const Node& n) {
    for (size_t j = 0; j < n.output_count(); ++j) {
        const auto& s = n.out(j).shape();
        if (!s.is_static()) continue;
        int64_t elements = 0;
        try {
            elements = shape_size(s.to_shape());
        } catch (const Error& e) {
            throw e.with_context(n.describe());
        }
        if (!fits_bytes(n.out(j).type(), elements, n.graph().max_constant_bytes)) {
            MO_LOG(Info, "not folding ", n.describe(), ": output ", j, " would hold ", elements,
                   " elements, more than --max_constant_size (", n.graph().max_constant_bytes, " bytes)");
            return false;
        }
    }
    return true;
}

// Gather(ShapeOf(x), indices, axis 0) reading only static dims of x: a known value even when
// other dims are not (TorchScript exports read a size so, e.g. the condition of the If its
// squeeze(dim) becomes).
std::optional<Tensor> gathered_static_dims(const Node& n) {
    if (n.input_count() != 3 || !n.in(0).connected() || !n.in(0).src().node().is("ShapeOf")) return std::nullopt;
    const Node shape_of = n.in(0).src().node();
    if (!shape_of.in(0).connected()) return std::nullopt;
    const PartialShape& s = shape_of.in(0).shape();
    const Tensor* indices = n.in(1).value();
    const Tensor* axis = n.in(2).value();
    if (!s.rank_is_static() || !indices || !axis || axis->size() != 1 || axis->to_i64()[0] != 0 ||
        !is_integral(indices->type()) || !is_integral(n.out(0).type()) || !n.out(0).shape().is_static())
        return std::nullopt;
    const auto rank = static_cast<int64_t>(s.rank());
    std::vector<int64_t> dims;
    for (int64_t i : indices->to_i64()) {
        if (i < -rank || i >= rank) return std::nullopt;
        const Dimension& d = s[static_cast<size_t>(i < 0 ? i + rank : i)];
        if (!d.is_static()) return std::nullopt;
        dims.push_back(d.get_length());
    }
    const Shape out = n.out(0).shape().to_shape();
    if (shape_size(out) != dims.size()) return std::nullopt;
    return Tensor::from_vector<int64_t>(dims, out).convert(n.out(0).type());
}

// Whether every connected input of `n` has a known value.
bool inputs_known(const Node& n) {
    for (size_t i = 0; i < n.input_count(); ++i) {
        auto src = n.in(i).source();
        if (src && !src->value()) return false;
    }
    return true;
}

// Folds `n` when its inputs are known; clears stale values otherwise.
void fold(Node n) {
    const OpSchema& op = n.op();
    if (op.type == "Constant") return;
    // A static shape is a known value even when the data is not: fold ShapeOf like MO does.
    if (op.type == "ShapeOf" && n.input_count() == 1 && n.in(0).connected() && n.in(0).shape().is_static() &&
        is_integral(n.out(0).type())) {
        Shape s = n.in(0).shape().to_shape();
        n.out(0).set_value(Tensor::from_vector<int64_t>(s, {static_cast<int64_t>(s.size())}).convert(n.out(0).type()));
        return;
    }
    if (op.type == "Gather" && !n.in(0).value()) {
        if (auto dims = gathered_static_dims(n)) {
            n.out(0).set_value(std::move(*dims));
            return;
        }
    }
    // Decompression Converts stay: folding them would undo f16 compression (as in OpenVINO).
    // Known inputs first: most nodes have an input that is not, and nothing else need be asked.
    bool foldable = static_cast<bool>(op.eval) && op.type != "Parameter" && inputs_known(n) &&
                    !n.has_rt_info(kDecompression) && bounded_iterations(n) && outputs_fit(n);
    bool all_constant = true;
    std::vector<Tensor> inputs(n.input_count());
    for (size_t i = 0; foldable && i < n.input_count(); ++i) {
        auto src = n.in(i).source();
        if (!src) continue;
        inputs[i] = src->value()->aligned();  // known: inputs_known() said so
        all_constant &= src->node().is("Constant");
    }
    if (foldable && !all_constant) {
        for (size_t j = 0; j < n.output_count(); ++j) {
            const auto& s = n.out(j).shape();
            if (s.is_static() && shape_size(s.to_shape()) > kMaxFoldedElements) {
                MO_LOG(Debug, "not folding ", n.describe(), ": output ", j, " would hold ", shape_size(s.to_shape()),
                       " elements (more than ", kMaxFoldedElements, ") and not every input is a Constant");
                foldable = false;
            }
        }
    }
    std::optional<std::vector<Tensor>> outputs;
    if (foldable) {
        // An Error is not an inference failure: the node simply stays unfolded (an unsupported
        // type, or more work than the budget). Anything else a plugin's eval throws is its bug.
        outputs = run_plugin_code(op.origin, [&] { return op_site("evaluation", n); },
                                  [&]() -> std::optional<std::vector<Tensor>> {
                                      try {
                                          EvalBudget budget(kMaxFoldedOperations, kMaxFoldedIterations, n.graph().max_constant_bytes);
                                          return op.eval(n, inputs);
                                      } catch (const Error& e) {
                                          MO_LOG(Debug, "not folding ", n.describe(), ": ", e.what());
                                          return std::nullopt;
                                      }
                                  });
        foldable = outputs.has_value();
    }
    if (!foldable) {
        for (size_t j = 0; j < n.output_count(); ++j) n.out(j).data().value.reset();
        return;
    }
    check_eval_outputs(n, *outputs);
    for (size_t j = 0; j < outputs->size(); ++j) n.out(j).set_value(std::move((*outputs)[j]));
}

// A negative dim, or a bound below its minimum, is what an attribute that contradicts the input
// shape (a negative frame length, a repeat count that overflowed) makes of an inferred shape.
void check_dims(const Node& n) {
    for (size_t j = 0; j < n.output_count(); ++j) {
        const PartialShape& s = n.out(j).shape();
        if (!s.rank_is_static()) continue;
        for (const Dimension& d : s.dims())
            if (d.min() < 0 || (d.max() != Dimension::kUnbounded && d.max() < d.min()))
                throw Error("output " + std::to_string(j) + " would have the invalid shape [" + s.to_string() + "]",
                            n.describe(), "the node's attributes or inputs contradict each other");
    }
}

}  // namespace

void check_required_inputs(const Node& n) {
    const OpSchema& op = n.op();
    if (n.input_count() < op.min_inputs)
        throw Error("has " + std::to_string(n.input_count()) + " inputs, " + op.type + " takes " + op.input_count_text(),
                    n.describe(), "the source model is malformed");
    for (size_t i = 0; i < op.min_inputs; ++i)
        if (!n.in(i).connected())
            throw Error("required input " + std::to_string(i) + " is not connected", n.describe(),
                        "the source model is malformed or a transformation left the node incomplete");
}

bool infer_node(Node n) {
    const OpSchema& op = n.op();
    const Snapshot before(n);
    check_required_inputs(n);
    if (!op.infer)
        throw Error("op '" + op.type + "' has no shape inference", n.describe(), "the op schema must provide one");
    InferContext c(n);
    try {
        EvalBudget budget(kMaxFoldedOperations, kMaxFoldedIterations, n.graph().max_constant_bytes);  // for an infer that evaluates
        run_plugin_code(op.origin, [&] { return op_site("shape inference", n); }, [&] { op.infer(c); });
    } catch (const Error& e) {
        if (e.where().empty()) throw e.with_context(n.describe());  // a value's own check: say where
        throw;
    } catch (const std::logic_error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(std::string("shape inference failed: ") + e.what(), n.describe());
    }
    check_dims(n);
    fold(n);
    n.set_inferred();
    return before.differs(n);
}

void infer_graph(Graph& graph) {
    for (Node n : graph.topological_order()) infer_node(n);
}

}  // namespace mo
