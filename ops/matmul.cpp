#include "ops/ops.hpp"

namespace mo {

void register_matmul_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
