#include "transforms/back/normalize_axes.hpp"

#include <map>

namespace mo {

namespace {

enum class AxesIn { Attribute, Input1, Input2 };

// Where each op keeps its axes; Unsqueeze counts the rank of its output.
const std::map<std::string, AxesIn, std::less<>>& axes_table() {
    static const std::map<std::string, AxesIn, std::less<>> table{
        {"Softmax", AxesIn::Attribute},        {"LogSoftmax", AxesIn::Attribute},
        {"ReduceMean", AxesIn::Input1},        {"ReduceSum", AxesIn::Input1},
        {"ReduceMax", AxesIn::Input1},         {"ReduceMin", AxesIn::Input1},
        {"ReduceProd", AxesIn::Input1},        {"ReduceL1", AxesIn::Input1},
        {"ReduceL2", AxesIn::Input1},          {"ReduceLogicalAnd", AxesIn::Input1},
        {"ReduceLogicalOr", AxesIn::Input1},   {"Squeeze", AxesIn::Input1},
        {"Unsqueeze", AxesIn::Input1},         {"Gather", AxesIn::Input2},
    };
    return table;
}

}  // namespace

std::vector<std::string> NormalizeAxes::op_types() const {
    std::vector<std::string> types;
    for (const auto& [type, _] : axes_table()) types.push_back(type);
    return types;
}

bool NormalizeAxes::apply(Node node, const TransformContext&) {
    const PartialShape& data = node.in(0).shape();
    if (!data.rank_is_static()) return false;
    auto rank = static_cast<int64_t>(data.rank());
    const AxesIn where = axes_table().find(node.type())->second;
    if (where == AxesIn::Attribute) {
        int64_t axis = node.attr<int64_t>("axis");
        if (axis >= 0) return false;
        node.set_attr("axis", normalize_axis(axis, rank));
        return true;
    }
    const size_t port = where == AxesIn::Input1 ? 1 : 2;
    if (port >= node.input_count() || !node.in(port).connected()) return false;
    OutPort src = node.in(port).src();
    const Tensor* axes = src.value();
    if (!axes || !is_integral(axes->type())) return false;
    auto values = axes->to_i64();
    if (node.is("Unsqueeze")) rank += static_cast<int64_t>(values.size());
    bool negative = false;
    for (auto& v : values) {
        if (v >= 0) continue;
        v = normalize_axis(v, rank);
        negative = true;
    }
    if (!negative) return false;
    Tensor normalized = Tensor::from_vector<int64_t>(values, axes->shape()).convert(axes->type());
    Graph& g = node.graph();
    const bool shared = src.targets().size() > 1 || !src.node().is("Constant");
    Node c = g.add_constant(shared ? src.node().name() + "/normalized" : src.node().name(), std::move(normalized));
    if (!shared) {
        c.out(0).names() = src.names();
        g.remove_node(src.node());
    }
    node.in(port).connect(c.out(0));
    return true;
}

}  // namespace mo
