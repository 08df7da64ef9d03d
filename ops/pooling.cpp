#include "ops/ops.hpp"

namespace mo {

void register_pooling_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
