// FrameworkAttributes over a TensorFlow NodeDef's attr map. Kinds: i -> int, f -> float,
// b -> int 0/1, s -> string, type -> int (the DataType value), shape -> ints (-1: unknown),
// tensor -> tensor, list(i / f / s / type) -> ints / floats / strings / ints.
#pragma once

#include <memory>

#include "core/framework_attributes.hpp"

namespace mo_tf {
class NodeDef;
}

namespace mo {

// `node` must outlive the result (the graph keeps the GraphDef alive).
std::shared_ptr<const FrameworkAttributes> tf_attributes(const mo_tf::NodeDef& node);

}  // namespace mo
