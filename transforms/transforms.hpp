// Registration of the built-in front / middle / back transformations.
#pragma once

#include "transforms/registry.hpp"

namespace mo {

void register_builtin_transforms(TransformRegistry& r);

}  // namespace mo
