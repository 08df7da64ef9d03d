#include "ops/ops.hpp"

namespace mo {

void register_reduction_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
