#include "ops/ops.hpp"

namespace mo {

void register_interpolate_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
