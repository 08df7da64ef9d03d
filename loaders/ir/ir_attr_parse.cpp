#include "loaders/ir/ir_attr_parse.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"

namespace mo {

namespace {

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Splits on ','; "" is no field at all, any empty field is an error (as OpenVINO's reader).
std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> fields;
    if (trim(text).empty()) return fields;
    size_t start = 0;
    while (true) {
        size_t comma = text.find(',', start);
        std::string field = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (field.empty()) throw Error("empty element in list '" + text + "'");
        fields.push_back(field);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return fields;
}

double parse_double(const std::string& text) {
    std::string t = trim(text);
    if (t.empty()) throw Error("'" + text + "' is not a number");
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size() || errno == ERANGE) throw Error("'" + text + "' is not a number");
    return v;
}

}  // namespace

int64_t parse_ir_int(const std::string& text) {
    std::string t = trim(text);
    if (t.empty()) throw Error("'" + text + "' is not an integer");
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(t.c_str(), &end, 10);
    if (end != t.c_str() + t.size() || errno == ERANGE) throw Error("'" + text + "' is not an integer");
    return static_cast<int64_t>(v);
}

std::vector<int64_t> parse_ir_int_list(const std::string& text) {
    std::vector<int64_t> v;
    for (const auto& f : split_list(text)) v.push_back(parse_ir_int(f));
    return v;
}

AttrValue parse_ir_attr(AttrKind kind, const std::string& text) {
    switch (kind) {
        case AttrKind::Bool: {
            const std::string t = lower(trim(text));
            if (t == "true" || t == "1") return true;
            if (t == "false" || t == "0") return false;
            throw Error("'" + text + "' is not a boolean (true, false, 1 or 0)");
        }
        case AttrKind::Int: return parse_ir_int(text);
        case AttrKind::Float: return parse_double(text);
        case AttrKind::String: return text;
        case AttrKind::Ints: return parse_ir_int_list(text);
        case AttrKind::Floats: {
            std::vector<double> v;
            for (const auto& f : split_list(text)) v.push_back(parse_double(f));
            return v;
        }
        case AttrKind::Type: {
            // <data> takes only the short names ("f32"); port precisions ("FP32") are not valid here.
            const std::string t = lower(trim(text));
            const ElementType type = element_type_from_string(t);
            if (t != ir_name(type) && t != "undefined")
                throw Error("'" + text + "' is not an element type name (f32, f16, i64, boolean, ...)");
            return type;
        }
        case AttrKind::Shape: return PartialShape::parse(text);
        case AttrKind::Strings: {
            std::vector<std::string> v;
            for (const auto& f : split_list(text)) v.push_back(trim(f));
            return v;
        }
    }
    throw Error("unknown attribute kind");
}

std::vector<std::string> parse_tensor_names(const std::string& text) {
    std::vector<std::string> names;
    std::string current;
    auto finish = [&] {
        std::string t = trim(current);
        if (!t.empty()) names.push_back(t);
        current.clear();
    };
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ',') {
            current += ',';
            ++i;
        } else if (text[i] == ',') {
            finish();
        } else {
            current += text[i];
        }
    }
    finish();
    return names;
}

}  // namespace mo
