#include "ops/ops.hpp"

namespace mo {

void register_recurrent_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
