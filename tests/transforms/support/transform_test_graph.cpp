#include "transforms/support/transform_test_graph.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "ops/ops.hpp"
#include "transforms/middle/partial_inference.hpp"

namespace mo::test {

namespace {

// ---------------------------------------------------------------- test-only ops

void same_as_input(InferContext& c) { c.set_output(0, c.in_type(0), c.in_shape(0)); }

OpSchema test_op(const std::string& type, size_t inputs) {
    return OpSchema{.type = type, .ir_type = type, .ir_version = "opset1", .min_inputs = inputs,
                    .max_inputs = inputs, .infer = same_as_input};
}

}  // namespace

int& counted_evals() {
    static int count = 0;
    return count;
}

const OpRegistry& transform_test_ops() {
    static const OpRegistry ops = [] {
        OpRegistry r;
        register_builtin_ops(r);
        OpSchema sensitive = test_op("TestSensitive", 2);
        sensitive.precision_sensitive_inputs = {1};
        r.add(std::move(sensitive));
        OpSchema counted = test_op("TestCounted", 1);
        counted.eval = [](const Node&, const std::vector<Tensor>& in) {
            ++counted_evals();
            return std::vector<Tensor>{in[0]};
        };
        r.add(std::move(counted));
        return r;
    }();
    return ops;
}

// ---------------------------------------------------------------- builder

TestGraph::TestGraph() : graph_(std::make_unique<Graph>(transform_test_ops())) {}

OutPort TestGraph::input(ElementType type, PartialShape shape, std::string name) {
    Node p = graph_->add_op("Parameter", std::move(name), {},
                            {{"shape", AttrValue(shape)}, {"element_type", AttrValue(type)}});
    p.out(0).set_type_and_shape(type, shape);
    p.out(0).names().push_back(p.name());
    graph_->parameters().push_back(p);
    return p.out(0);
}

OutPort TestGraph::op(const std::string& type, const std::vector<OutPort>& inputs, const AttrMap& attrs, std::string name) {
    return graph_->add_op(type, std::move(name), inputs, attrs).out(0);
}

Node TestGraph::output(OutPort value, std::string name) {
    Node r = graph_->add_op("Result", std::move(name), {value});
    graph_->results().push_back(r);
    return r;
}

// ---------------------------------------------------------------- dump

namespace {

std::string format(const AttrValue& v) {
    std::ostringstream os;
    os.precision(17);
    std::visit([&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) os << "<unset>";
        else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>> ||
                           std::is_same_v<T, std::vector<std::string>>) {
            os << "[";
            for (size_t i = 0; i < x.size(); ++i) os << (i ? "," : "") << x[i];
            os << "]";
        } else if constexpr (std::is_same_v<T, ElementType>) os << ir_name(x);
        else if constexpr (std::is_same_v<T, PartialShape>) os << "[" << x.to_string() << "]";
        else os << x;
    }, v);
    return os.str();
}

std::string dump_node(Node n) {
    std::ostringstream os;
    os.precision(9);
    os << n.name() << " = " << n.type() << "(";
    bool first = true;
    for (const auto& spec : n.op().attrs) {
        if (spec.required() && !n.has_attr(spec.name)) continue;
        os << (first ? "" : ", ") << spec.name << "=" << format(n.attr_value(spec.name));
        first = false;
    }
    os << ") <-";
    for (size_t i = 0; i < n.input_count(); ++i) {
        auto s = n.in(i).source();
        os << " " << (s ? s->node().name() + ":" + std::to_string(s->index()) : "-");
    }
    for (size_t j = 0; j < n.output_count(); ++j) {
        if (!n.out(j).names().empty()) {
            os << " names" << j << "=";
            for (const auto& t : n.out(j).names()) os << t << ";";
        }
    }
    if (n.is("Constant")) {
        const Tensor& t = *n.out(0).value();
        os << " " << ir_name(t.type()) << "[" << PartialShape(t.shape()).to_string() << "]{";
        auto v = t.to_f64();
        for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
        os << "}";
    }
    for (const auto& [k, v] : n.rt_info()) os << " rt:" << k << "=" << v;
    return os.str();
}

}  // namespace

std::string dump(const Graph& g) {
    std::vector<std::string> lines;
    for (Node n : g.nodes()) lines.push_back(dump_node(n));
    std::sort(lines.begin(), lines.end());
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

AttrMap conv2d_attrs() {
    std::vector<int64_t> ones{1, 1}, zeros{0, 0};
    return {{"strides", AttrValue(ones)}, {"dilations", AttrValue(ones)}, {"pads_begin", AttrValue(zeros)},
            {"pads_end", AttrValue(zeros)}};
}

void infer(Graph& g) {
    PartialInference pi;
    ConversionOptions options;
    pi.run(g, TransformContext{options});
}

bool run_pass(Transformation& t, Graph& g, const ConversionOptions& options) {
    bool changed = t.run(g, TransformContext{options});
    if (t.force_clean_up()) g.remove_dead_nodes();
    infer(g);
    return changed;
}

std::vector<Tensor> evaluate(const Graph& g, const std::map<std::string, Tensor>& inputs) {
    std::map<std::pair<uint64_t, size_t>, Tensor> values;
    std::vector<Tensor> results;
    for (Node n : g.topological_order()) {
        std::vector<Tensor> in(n.input_count());
        for (size_t i = 0; i < n.input_count(); ++i)
            if (auto s = n.in(i).source()) in[i] = values.at({s->node().id(), s->index()});
        std::vector<Tensor> out;
        if (n.is("Parameter")) out = {inputs.at(n.name())};
        else if (n.is("Result")) continue;
        else {
            MO_ASSERT(n.op().eval, n.describe(), " cannot be evaluated");
            out = n.op().eval(n, in);
        }
        for (size_t j = 0; j < out.size(); ++j) values[{n.id(), j}] = out[j];
    }
    for (Node r : g.results()) {
        auto s = r.in(0).src();
        results.push_back(values.at({s.node().id(), s.index()}));
    }
    return results;
}

}  // namespace mo::test
