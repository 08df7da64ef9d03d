#include "ops/ops.hpp"

namespace mo {

void register_eltwise_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
