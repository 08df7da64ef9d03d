#include "transforms/back/check_only_opset_ops.hpp"

#include "core/error.hpp"
#include "core/graph_data.hpp"

namespace mo {

bool CheckOnlyOpsetOps::run(Graph& graph, const TransformContext&) {
    const GraphAccess::Order order = GraphAccess::order(graph);
    for (size_t i = 0; i < order.nodes.size(); ++i) {
        if (!order.op(i)->is_internal()) continue;
        const Node n = order.nodes[i];
        throw Error("op '" + (n.is("FrameworkNode") ? n.framework().type : n.type()) + "' is not supported",
                    n.describe(), "no transformation lowered it to an OpenVINO opset op; check that its lowering is enabled");
    }
    return false;
}

}  // namespace mo
