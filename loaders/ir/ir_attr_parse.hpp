// Parsing of IR `<data>` attribute values by the kind the op schema declares (the inverse of
// emit/attr_format.hpp; shared/ir/ir-format.md §6).
#pragma once

#include <string>
#include <vector>

#include "core/attributes.hpp"

namespace mo {

// Throws mo::Error (what only; the caller adds the layer) when `text` is not a valid `kind`.
AttrValue parse_ir_attr(AttrKind kind, const std::string& text);
// A decimal integer with optional sign and surrounding spaces; throws mo::Error otherwise.
int64_t parse_ir_int(const std::string& text);
// "1, 2, 3" -> {1, 2, 3}; "" -> {}; an empty field ("1,,2") is an error.
std::vector<int64_t> parse_ir_int_list(const std::string& text);
// Output port `names`: split on unescaped commas, trimmed, empty fields dropped, "\," -> ",".
std::vector<std::string> parse_tensor_names(const std::string& text);

}  // namespace mo
