#include "core/attributes.hpp"

#include "core/error.hpp"

namespace mo {

AttrKind kind_of(const AttrValue& v) {
    MO_ASSERT(!std::holds_alternative<std::monostate>(v), "empty attribute value");
    return static_cast<AttrKind>(v.index() - 1);
}

std::string_view kind_name(AttrKind k) {
    switch (k) {
    case AttrKind::Bool: return "bool";
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::String: return "string";
    case AttrKind::Ints: return "int[]";
    case AttrKind::Floats: return "float[]";
    case AttrKind::Type: return "element_type";
    case AttrKind::Shape: return "shape";
    case AttrKind::Strings: return "string[]";
    }
    return "?";
}

}  // namespace mo
