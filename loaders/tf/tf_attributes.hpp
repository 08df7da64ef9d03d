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

// `node` must outlive the result (the graph keeps the GraphDef alive). Tensor attributes are
// held to `max_bytes` (--max_constant_size) where they expand beyond their stored values.
std::shared_ptr<const FrameworkAttributes> tf_attributes(const mo_tf::NodeDef& node, int64_t max_bytes);

}  // namespace mo
