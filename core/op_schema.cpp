#include "core/op_schema.hpp"

#include "core/error.hpp"

namespace mo {

const AttrSpec* OpSchema::find_attr(std::string_view name) const {
    for (const auto& a : attrs)
        if (a.name == name) return &a;
    return nullptr;
}

void OpRegistry::add(OpSchema schema) {
    std::string type = schema.type;
    if (schemas_.count(type)) throw Error("op type '" + type + "' is registered twice", {}, "give the op another type name");
    schemas_.emplace(type, std::make_unique<OpSchema>(std::move(schema)));
}

const OpSchema* OpRegistry::find(std::string_view type) const {
    auto it = schemas_.find(type);
    return it == schemas_.end() ? nullptr : it->second.get();
}

const OpSchema& OpRegistry::get(std::string_view type) const {
    if (auto* s = find(type)) return *s;
    throw Error("unknown op type '" + std::string(type) + "'");
}

std::vector<std::string> OpRegistry::types() const {
    std::vector<std::string> v;
    for (const auto& [k, _] : schemas_) v.push_back(k);
    return v;
}

}  // namespace mo
