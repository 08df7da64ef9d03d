#include "loaders/caffe/caffe_attributes.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"

namespace mo {

namespace {

namespace pb = google::protobuf;

std::vector<std::string> split_path(std::string_view path) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        const size_t dot = path.find('.', start);
        parts.emplace_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) return parts;
        start = dot + 1;
    }
}

std::optional<size_t> index_of(const std::string& part) {
    size_t v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || part.empty()) return std::nullopt;
    return v;
}

FrameworkAttr message_value(const pb::Message& m, const std::string& path) {
    if (m.GetDescriptor()->name() == "BlobShape") {
        const auto* dim = m.GetDescriptor()->FindFieldByName("dim");
        std::vector<int64_t> dims;
        const auto* r = m.GetReflection();
        for (int i = 0; i < r->FieldSize(m, dim); ++i) dims.push_back(r->GetRepeatedInt64(m, dim, i));
        return dims;
    }
    throw Error("attribute '" + path + "' is a " + m.GetDescriptor()->name() + " message; read its fields by path");
}

FrameworkAttr singular_value(const pb::Message& m, const pb::FieldDescriptor* f, const std::string& path) {
    const auto* r = m.GetReflection();
    using T = pb::FieldDescriptor;
    switch (f->cpp_type()) {
        case T::CPPTYPE_INT32: return int64_t{r->GetInt32(m, f)};
        case T::CPPTYPE_INT64: return int64_t{r->GetInt64(m, f)};
        case T::CPPTYPE_UINT32: return int64_t{r->GetUInt32(m, f)};
        case T::CPPTYPE_UINT64: return static_cast<int64_t>(r->GetUInt64(m, f));
        case T::CPPTYPE_BOOL: return int64_t{r->GetBool(m, f) ? 1 : 0};
        case T::CPPTYPE_FLOAT: return double{r->GetFloat(m, f)};
        case T::CPPTYPE_DOUBLE: return r->GetDouble(m, f);
        case T::CPPTYPE_STRING: return r->GetString(m, f);
        case T::CPPTYPE_ENUM: return r->GetEnum(m, f)->name();
        case T::CPPTYPE_MESSAGE: return message_value(r->GetMessage(m, f), path);
    }
    throw Error("attribute '" + path + "' is of a kind mo does not read");
}

FrameworkAttr repeated_value(const pb::Message& m, const pb::FieldDescriptor* f, const std::string& path) {
    const auto* r = m.GetReflection();
    const int n = r->FieldSize(m, f);
    using T = pb::FieldDescriptor;
    std::vector<int64_t> ints;
    std::vector<double> floats;
    std::vector<std::string> strings;
    for (int i = 0; i < n; ++i) {
        switch (f->cpp_type()) {
            case T::CPPTYPE_INT32: ints.push_back(r->GetRepeatedInt32(m, f, i)); break;
            case T::CPPTYPE_INT64: ints.push_back(r->GetRepeatedInt64(m, f, i)); break;
            case T::CPPTYPE_UINT32: ints.push_back(r->GetRepeatedUInt32(m, f, i)); break;
            case T::CPPTYPE_UINT64: ints.push_back(static_cast<int64_t>(r->GetRepeatedUInt64(m, f, i))); break;
            case T::CPPTYPE_BOOL: ints.push_back(r->GetRepeatedBool(m, f, i) ? 1 : 0); break;
            case T::CPPTYPE_FLOAT: floats.push_back(r->GetRepeatedFloat(m, f, i)); break;
            case T::CPPTYPE_DOUBLE: floats.push_back(r->GetRepeatedDouble(m, f, i)); break;
            case T::CPPTYPE_STRING: strings.push_back(r->GetRepeatedString(m, f, i)); break;
            case T::CPPTYPE_ENUM: strings.push_back(r->GetRepeatedEnum(m, f, i)->name()); break;
            case T::CPPTYPE_MESSAGE:
                throw Error("attribute '" + path + "' is a list of messages; index it: '" + path + ".0'");
        }
    }
    switch (f->cpp_type()) {
        case T::CPPTYPE_FLOAT: case T::CPPTYPE_DOUBLE: return floats;
        case T::CPPTYPE_STRING: case T::CPPTYPE_ENUM: return strings;
        default: return ints;
    }
}

// A text value as an attribute: integers, floats (an integer among floats is a float),
// true / false as ints, other identifiers (enum names) and strings as strings.
FrameworkAttr text_value(const std::vector<const TextValue*>& values, const std::string& path) {
    using K = TextValue::Kind;
    bool all_int = true, all_number = true;
    for (const auto* v : values) {
        const bool boolean = v->kind == K::Identifier && (v->text == "true" || v->text == "false");
        const bool special = v->kind == K::Identifier && (v->text == "inf" || v->text == "-inf" || v->text == "nan");
        if (v->kind == K::Message) throw Error("attribute '" + path + "' is a message; read its fields by path");
        if (v->kind != K::Integer && !boolean) all_int = false;
        if (v->kind != K::Integer && v->kind != K::Float && !boolean && !special) all_number = false;
    }
    auto number = [&](const TextValue* v) {
        if (v->text == "true") return 1.0;
        if (v->text == "false") return 0.0;
        return std::strtod(v->text.c_str(), nullptr);  // inf, nan and 0x.. included
    };
    if (all_int) {
        std::vector<int64_t> out;
        for (const auto* v : values) out.push_back(v->kind == K::Integer ? std::strtoll(v->text.c_str(), nullptr, 0) : v->text == "true");
        if (out.size() == 1) return out[0];
        return out;
    }
    if (all_number) {
        std::vector<double> out;
        for (const auto* v : values) out.push_back(number(v));
        if (out.size() == 1) return out[0];
        return out;
    }
    std::vector<std::string> out;
    for (const auto* v : values) out.push_back(v->text);
    if (out.size() == 1) return out[0];
    return out;
}

class CaffeAttributes final : public FrameworkAttributes {
public:
    CaffeAttributes(const pb::Message& layer, std::vector<Tensor> blobs, std::shared_ptr<const TextMessage> text,
                    std::vector<std::string> unknown)
        : layer_(layer), blobs_(std::move(blobs)), text_(std::move(text)), unknown_(std::move(unknown)) {}

    std::optional<FrameworkAttr> get(std::string_view name) const override {
        const std::string path(name);
        const auto parts = split_path(name);
        if (path == "unknown_fields") return unknown_.empty() ? std::nullopt : std::optional<FrameworkAttr>(unknown_);
        if (parts[0] == "blobs" && parts.size() == 2) {
            auto i = index_of(parts[1]);
            if (!i || *i >= blobs_.size()) return std::nullopt;
            return blobs_[*i];
        }
        const pb::Message* m = &layer_;
        for (size_t i = 0; i < parts.size(); ++i) {
            const auto* f = m->GetDescriptor()->FindFieldByName(parts[i]);
            if (!f) return from_text(parts, path);
            const auto* r = m->GetReflection();
            const bool last = i + 1 == parts.size();
            if (f->is_repeated()) {
                if (last) return r->FieldSize(*m, f) ? std::optional<FrameworkAttr>(repeated_value(*m, f, path)) : std::nullopt;
                auto index = index_of(parts[i + 1]);
                if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE || !index)
                    throw Error("attribute path '" + path + "': '" + parts[i] + "' is a list; follow it with an index");
                if (*index >= static_cast<size_t>(r->FieldSize(*m, f))) return std::nullopt;
                m = &r->GetRepeatedMessage(*m, f, static_cast<int>(*index));
                if (++i + 1 == parts.size()) return message_value(*m, path);
                continue;
            }
            if (!r->HasField(*m, f)) return std::nullopt;
            if (last) return singular_value(*m, f, path);
            if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE)
                throw Error("attribute path '" + path + "': '" + parts[i] + "' is not a message");
            m = &r->GetMessage(*m, f);
        }
        return std::nullopt;
    }

private:
    std::optional<FrameworkAttr> from_text(const std::vector<std::string>& parts, const std::string& path) const {
        if (!text_) return std::nullopt;
        const TextMessage* m = text_.get();
        for (size_t i = 0; i < parts.size(); ++i) {
            auto values = m->all(parts[i]);
            if (values.empty()) return std::nullopt;
            if (i + 1 == parts.size()) return text_value(values, path);
            size_t pick = 0;
            if (auto index = index_of(parts[i + 1])) {
                if (*index >= values.size()) return std::nullopt;
                pick = *index;
                if (++i + 1 == parts.size()) throw Error("attribute '" + path + "' is a message; read its fields by path");
            }
            if (values[pick]->kind != TextValue::Kind::Message)
                throw Error("attribute path '" + path + "': '" + parts[i] + "' is not a message");
            m = values[pick]->message.get();
        }
        return std::nullopt;
    }

    const pb::Message& layer_;
    std::vector<Tensor> blobs_;
    std::shared_ptr<const TextMessage> text_;
    std::vector<std::string> unknown_;
};

void collect_unknown(const TextMessage& text, const pb::Descriptor& type, const std::string& prefix, std::vector<std::string>& out) {
    for (const auto& [name, value] : text.fields) {
        const auto* f = type.FindFieldByName(name);
        if (!f) {
            const std::string path = prefix + name;
            if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(path);
        } else if (value.kind == TextValue::Kind::Message && f->message_type()) {
            collect_unknown(*value.message, *f->message_type(), prefix + name + ".", out);
        }
    }
}

}  // namespace

std::vector<std::string> unknown_text_fields(const TextMessage& text, const pb::Descriptor& type) {
    std::vector<std::string> out;
    collect_unknown(text, type, "", out);
    return out;
}

std::shared_ptr<const FrameworkAttributes> caffe_attributes(const pb::Message& layer, std::vector<Tensor> blobs,
                                                            std::shared_ptr<const TextMessage> text,
                                                            std::vector<std::string> unknown_fields) {
    return std::make_shared<CaffeAttributes>(layer, std::move(blobs), std::move(text), std::move(unknown_fields));
}

}  // namespace mo
