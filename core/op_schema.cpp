#include "core/op_schema.hpp"

#include "core/error.hpp"

namespace mo {

const AttrSpec* OpSchema::find_attr(std::string_view name) const {
    for (const auto& a : attrs)
        if (a.name == name) return &a;
    return nullptr;
}

std::string OpSchema::input_count_text() const {
    if (min_inputs == max_inputs) return std::to_string(min_inputs);
    if (max_inputs == SIZE_MAX) return std::to_string(min_inputs) + " or more";
    return std::to_string(min_inputs) + " to " + std::to_string(max_inputs);
}

void OpRegistry::add(OpSchema schema) {
    std::string type = schema.type;
    auto it = schemas_.find(type);
    if (it != schemas_.end())
        throw Error("op type '" + type + "' is registered twice (first by " + it->second->origin + ")", origin_,
                    "give the op another type name");
    schema.origin = origin_;
    schemas_.emplace(type, std::make_unique<OpSchema>(std::move(schema)));
}

const OpSchema* OpRegistry::find(std::string_view type) const {
    auto it = schemas_.find(type);
    return it == schemas_.end() ? nullptr : it->second.get();
}

const std::string& OpRegistry::origin(std::string_view type) const {
    auto it = schemas_.find(type);
    MO_ASSERT(it != schemas_.end(), "unknown op type ", type);
    return it->second->origin;
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
