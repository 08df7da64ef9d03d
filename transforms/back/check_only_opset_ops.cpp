#include "transforms/back/check_only_opset_ops.hpp"

#include "core/error.hpp"

namespace mo {

bool CheckOnlyOpsetOps::run(Graph& graph, const TransformContext&) {
    for (Node n : graph.topological_order())
        if (n.op().is_internal())
            throw Error("op '" + (n.is("FrameworkNode") ? n.framework().type : n.type()) + "' is not supported",
                        n.describe(),
                        "no transformation lowered it to an OpenVINO opset op; check that its lowering is enabled");
    return false;
}

}  // namespace mo
