// The IR spelling of attribute values and port names (shared/ir/ir-format.md §4-§6): lists
// joined with ", ", booleans true/false, floats as %.17g, element types by their short name,
// partial shapes as "1,?,1..10".
#pragma once

#include <string>
#include <vector>

#include "core/attributes.hpp"

namespace mo {

std::string format_attr(const AttrValue& value);
std::string format_double(double v);
std::string format_int_list(const std::vector<int64_t>& v);  // "64, 3, 7, 7"; "" when empty
// Tensor names of an output port: sorted, literal commas escaped as "\,", joined with ",".
std::string format_tensor_names(const std::vector<std::string>& names);

}  // namespace mo
