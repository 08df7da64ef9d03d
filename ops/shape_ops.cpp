#include "ops/ops.hpp"

namespace mo {

void register_shape_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
