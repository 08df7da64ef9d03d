#include "emit/attr_format.hpp"

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"

namespace mo {

std::string format_double(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);  // what OpenVINO's pugixml-based writer prints
    return text;
}

std::string format_int_list(const std::vector<int64_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(v[i]);
    }
    return s;
}

static std::string format_double_list(const std::vector<double>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += ", ";
        s += format_double(v[i]);
    }
    return s;
}

std::string format_attr(const AttrValue& value) {
    struct Formatter {
        std::string operator()(std::monostate) const { MO_ASSERT(false, "formatting an unset attribute"); return {}; }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(int64_t i) const { return std::to_string(i); }
        std::string operator()(double d) const { return format_double(d); }
        std::string operator()(const std::string& s) const { return s; }
        std::string operator()(const std::vector<int64_t>& v) const { return format_int_list(v); }
        std::string operator()(const std::vector<double>& v) const { return format_double_list(v); }
        std::string operator()(ElementType t) const { return std::string(ir_name(t)); }
        std::string operator()(const PartialShape& s) const { return s.to_string(); }
        std::string operator()(const std::vector<std::string>& v) const {
            std::string s;
            for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
            return s;
        }
    };
    return std::visit(Formatter{}, value);
}

std::string format_tensor_names(const std::vector<std::string>& names_as_given) {
    // One name without a comma, as most ports have: itself (no copy of the list to sort).
    if (names_as_given.size() == 1 && names_as_given[0].find(',') == std::string::npos) return names_as_given[0];
    std::vector<std::string> names = names_as_given;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) s += ',';
        for (char c : names[i]) {
            if (c == ',') s += '\\';
            s += c;
        }
    }
    return s;
}

}  // namespace mo
