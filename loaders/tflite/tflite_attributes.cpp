#include "loaders/tflite/tflite_attributes.hpp"

#include <flatbuffers/minireflect.h>

#include <cstring>

#include "core/error.hpp"

namespace mo {

namespace {

template <typename T>
std::vector<int64_t> int_vector(const flatbuffers::Table& t, flatbuffers::voffset_t field) {
    std::vector<int64_t> out;
    if (auto* v = t.GetPointer<const flatbuffers::Vector<T>*>(field))
        for (T x : *v) out.push_back(static_cast<int64_t>(x));
    return out;
}

template <typename T>
std::vector<double> float_vector(const flatbuffers::Table& t, flatbuffers::voffset_t field) {
    std::vector<double> out;
    if (auto* v = t.GetPointer<const flatbuffers::Vector<T>*>(field))
        for (T x : *v) out.push_back(static_cast<double>(x));
    return out;
}

// The field's value; the caller has checked that the table stores it.
FrameworkAttr read_field(const flatbuffers::Table& t, flatbuffers::voffset_t field, flatbuffers::TypeCode code,
                         const char* name) {
    using namespace flatbuffers;
    const auto type = static_cast<ElementaryType>(code.base_type);
    if (code.is_repeating) {
        switch (type) {
            case ET_BOOL: case ET_UCHAR: return int_vector<uint8_t>(t, field);
            case ET_CHAR: return int_vector<int8_t>(t, field);
            case ET_SHORT: return int_vector<int16_t>(t, field);
            case ET_USHORT: return int_vector<uint16_t>(t, field);
            case ET_INT: return int_vector<int32_t>(t, field);
            case ET_UINT: return int_vector<uint32_t>(t, field);
            case ET_LONG: return int_vector<int64_t>(t, field);
            case ET_FLOAT: return float_vector<float>(t, field);
            case ET_DOUBLE: return float_vector<double>(t, field);
            default: break;
        }
    } else {
        switch (type) {
            case ET_UTYPE: case ET_BOOL: case ET_UCHAR: return static_cast<int64_t>(t.GetField<uint8_t>(field, 0));
            case ET_CHAR: return static_cast<int64_t>(t.GetField<int8_t>(field, 0));
            case ET_SHORT: return static_cast<int64_t>(t.GetField<int16_t>(field, 0));
            case ET_USHORT: return static_cast<int64_t>(t.GetField<uint16_t>(field, 0));
            case ET_INT: return static_cast<int64_t>(t.GetField<int32_t>(field, 0));
            case ET_UINT: return static_cast<int64_t>(t.GetField<uint32_t>(field, 0));
            case ET_LONG: return t.GetField<int64_t>(field, 0);
            case ET_FLOAT: return static_cast<double>(t.GetField<float>(field, 0));
            case ET_DOUBLE: return t.GetField<double>(field, 0);
            case ET_STRING: {
                auto* s = t.GetPointer<const String*>(field);
                return s ? s->str() : std::string();
            }
            default: break;
        }
    }
    throw Error(std::string("option '") + name + "' is of a kind mo does not read (a table or a union)");
}

class TfliteAttributes final : public FrameworkAttributes {
public:
    TfliteAttributes(const flatbuffers::Table* options, const flatbuffers::TypeTable* type_table)
        : options_(options), type_table_(type_table) {}

    std::optional<FrameworkAttr> get(std::string_view name) const override {
        if (!options_ || !type_table_ || !type_table_->names) return std::nullopt;
        for (size_t i = 0; i < type_table_->num_elems; ++i) {
            if (name != type_table_->names[i]) continue;
            const auto field = static_cast<flatbuffers::voffset_t>(flatbuffers::FieldIndexToOffset(
                static_cast<flatbuffers::voffset_t>(i)));
            if (!options_->CheckField(field)) return std::nullopt;  // not stored: the default
            return read_field(*options_, field, type_table_->type_codes[i], type_table_->names[i]);
        }
        return std::nullopt;
    }

private:
    const flatbuffers::Table* options_;
    const flatbuffers::TypeTable* type_table_;
};

}  // namespace

std::shared_ptr<const FrameworkAttributes> tflite_attributes(const flatbuffers::Table* options,
                                                             const flatbuffers::TypeTable* type_table) {
    return std::make_shared<TfliteAttributes>(options, type_table);
}

}  // namespace mo
