#include "ops/ops.hpp"

namespace mo {

void register_convolution_ops(OpRegistry&) {}  // TODO: being written

}  // namespace mo
