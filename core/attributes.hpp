// Typed op attributes. Each op schema declares its attributes (name, kind, default) once;
// extractors set them, shape inference and evaluation read them, the emitter writes them in
// declaration order with the IR formatting of their kind.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "api.hpp"
#include "element_type.hpp"
#include "shape.hpp"

namespace mo {

enum class AttrKind { Bool, Int, Float, String, Ints, Floats, Type, Shape, Strings };

using AttrValue = std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, ElementType, PartialShape, std::vector<std::string>>;

// The kind a C++ type stores as; a compile error for anything else.
template <typename T> constexpr AttrKind attr_kind_of();
template <> constexpr AttrKind attr_kind_of<bool>() { return AttrKind::Bool; }
template <> constexpr AttrKind attr_kind_of<int64_t>() { return AttrKind::Int; }
template <> constexpr AttrKind attr_kind_of<double>() { return AttrKind::Float; }
template <> constexpr AttrKind attr_kind_of<std::string>() { return AttrKind::String; }
template <> constexpr AttrKind attr_kind_of<std::vector<int64_t>>() { return AttrKind::Ints; }
template <> constexpr AttrKind attr_kind_of<std::vector<double>>() { return AttrKind::Floats; }
template <> constexpr AttrKind attr_kind_of<ElementType>() { return AttrKind::Type; }
template <> constexpr AttrKind attr_kind_of<PartialShape>() { return AttrKind::Shape; }
template <> constexpr AttrKind attr_kind_of<std::vector<std::string>>() { return AttrKind::Strings; }

MO_API AttrKind kind_of(const AttrValue& v);  // asserts v is not empty
MO_API std::string_view kind_name(AttrKind k);

// One declared attribute of an op.
struct AttrSpec {
    std::string name;      // IR spelling, e.g. "pads_begin"
    AttrKind kind;
    AttrValue default_value;  // monostate: required, no default
    bool required() const { return std::holds_alternative<std::monostate>(default_value); }
};

// The values set on one node; unset attributes read as the schema default.
using AttrMap = std::map<std::string, AttrValue, std::less<>>;

}  // namespace mo
