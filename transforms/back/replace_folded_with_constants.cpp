#include "transforms/back/replace_folded_with_constants.hpp"

namespace mo {

namespace {

bool is_folded(Node n) {
    if (n.is("Parameter") || n.is("Constant") || n.is("Result") || n.output_count() == 0) return false;
    for (size_t j = 0; j < n.output_count(); ++j)
        if (!n.out(j).value()) return false;
    return true;
}

// Some consumer still needs the value as a node: it is not folded itself.
bool feeds_unfolded(Node n) {
    for (size_t j = 0; j < n.output_count(); ++j)
        for (const InPort& t : n.out(j).targets())
            if (!is_folded(t.node())) return true;
    return false;
}

}  // namespace

bool ReplaceFoldedWithConstants::run(Graph& graph, const TransformContext&) {
    std::vector<Node> folded;
    for (Node n : graph.nodes())
        if (is_folded(n) && feeds_unfolded(n)) folded.push_back(n);
    for (Node n : folded) {
        if (n.output_count() == 1) {
            Node c = graph.add_constant(n.name() + "/folded", *n.out(0).value());
            graph.replace(n, c);
            continue;
        }
        for (size_t j = 0; j < n.output_count(); ++j) {
            Node c = graph.add_constant(n.name() + "." + std::to_string(j), *n.out(j).value());
            n.out(j).replace_all_uses_with(c.out(0));
            c.out(0).names() = std::move(n.out(j).names());
            c.fused_names().push_back(n.name());
        }
    }
    return !folded.empty();
}

}  // namespace mo
