#include "core/loop_unroll.hpp"

#include <algorithm>
#include <map>

#include "core/graph_copy.hpp"

namespace mo {

bool known_true(const Tensor* t) { return t && t->size() == 1 && t->to_i64().at(0) != 0; }

Tensor iteration_number(const Node& parameter, int64_t i) {
    const PartialShape& s = parameter.out(0).shape();
    const Shape shape = s.rank_is_static() && s.rank() == 1 ? Shape{1} : Shape{};
    return Tensor::from_vector<int64_t>({i}, shape).convert(parameter.out(0).type());
}

std::vector<OutPort> unroll_loop_body(const Body& body, Graph& outer, const std::vector<OutPort>& inputs,
                                      size_t output_count, int64_t iterations, const std::string& prefix) {
    MO_ASSERT(iterations >= 1, "unrolling ", iterations, " iterations");
    const Graph& g = *body.graph;
    std::map<size_t, OutPort> current;  // body Parameter index -> its value in this iteration
    for (const BodyInput& in : body.inputs) {
        MO_ASSERT(in.kind != BodyInput::Kind::Sliced, "unrolling a Loop with a sliced input");
        if (in.kind != BodyInput::Kind::CurrentIteration) current.emplace(in.parameter, inputs.at(in.external));
    }
    std::vector<std::vector<OutPort>> concat(body.outputs.size());
    std::vector<OutPort> last(body.outputs.size());
    for (int64_t i = 0; i < iterations; ++i) {
        const std::string copy_prefix = prefix + "iteration_" + std::to_string(i) + "/";
        std::map<uint64_t, OutPort> bound;
        for (const BodyInput& in : body.inputs) {
            Node p = g.parameters()[in.parameter];
            bound.emplace(p.id(), in.kind == BodyInput::Kind::CurrentIteration
                                      ? outer.add_constant(copy_prefix + p.name(), iteration_number(p, i)).out(0)
                                      : current.at(in.parameter));
        }
        GraphCopy copy = copy_graph(g, outer, copy_prefix, bound, false);
        auto value_of = [&](size_t result) { return copy.port(g.results()[result].in(0).src()); };
        for (size_t k = 0; k < body.outputs.size(); ++k) {
            const BodyOutput& out = body.outputs[k];
            if (out.kind == BodyOutput::Kind::Concat) concat[k].push_back(value_of(out.result));
            if (out.kind == BodyOutput::Kind::Last) last[k] = value_of(out.result);
        }
        for (const BodyInput& in : body.inputs)
            if (in.kind == BodyInput::Kind::Merged) current[in.parameter] = value_of(in.result);
    }
    std::vector<OutPort> outputs(output_count);
    for (size_t k = 0; k < body.outputs.size(); ++k) {
        const BodyOutput& out = body.outputs[k];
        if (out.kind == BodyOutput::Kind::Concat) {
            if (out.stride < 0) std::reverse(concat[k].begin(), concat[k].end());
            outputs.at(out.external) = outer.add_op("Concat", prefix + "output_" + std::to_string(out.external), concat[k],
                                                    {{"axis", AttrValue(out.axis)}})
                                           .out(0);
        } else if (out.kind == BodyOutput::Kind::Last) {
            outputs.at(out.external) = last[k];
        }
    }
    return outputs;
}

}  // namespace mo
