#include "ops/ops.hpp"

namespace mo {

void register_normalization_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
