#include "transforms/middle/batch_norm_to_batch_norm_inference.hpp"

namespace mo {

bool BatchNormToBatchNormInference::apply(Node bn, const TransformContext&) {
    Graph& g = bn.graph();
    std::vector<OutPort> inputs;
    for (size_t i = 0; i < 5; ++i) inputs.push_back(bn.in(i).src());
    Node bni = g.add_op("BatchNormInference", bn.name() + "/inference", inputs,
                        {{"epsilon", AttrValue(bn.attr<double>("epsilon"))}});
    g.replace(bn, bni);
    return true;
}

}  // namespace mo
