#include "ops/ops.hpp"

namespace mo {

void register_internal_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
