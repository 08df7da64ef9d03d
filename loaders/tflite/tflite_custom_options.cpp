#include "loaders/tflite/tflite_custom_options.hpp"

#include <flatbuffers/flexbuffers.h>

#include <cstring>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "core/tensor.hpp"

namespace mo {

namespace {

Tensor bytes_tensor(const uint8_t* data, size_t size) {
    Tensor t = Tensor::allocate(ElementType::u8, {static_cast<int64_t>(size)});
    if (size) std::memcpy(t.mutable_data<uint8_t>(), data, size);
    return t;
}

[[noreturn]] void unreadable(const std::string& name, const std::string& kind) {
    throw Error("custom option '" + name + "' is " + kind + ", a kind mo does not read as an attribute",
                "read the raw bytes from the attribute 'custom_options' instead");
}

int64_t integer(const flexbuffers::Reference& r, const std::string& name) {
    if (r.IsUInt() && r.AsUInt64() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw Error("custom option '" + name + "' is " + std::to_string(r.AsUInt64()) + ", beyond int64",
                    "the model is corrupt; re-export it");
    return r.AsInt64();
}

// The elements of any kind of flexbuffer vector (untyped, typed, fixed-size typed).
template <typename Vector>
std::vector<flexbuffers::Reference> elements(const Vector& v) {
    std::vector<flexbuffers::Reference> out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) out.push_back(v[i]);
    return out;
}

FrameworkAttr vector_attr(const std::vector<flexbuffers::Reference>& items, const std::string& name) {
    bool integral = true, numeric = true, strings = true;
    for (const auto& e : items) {
        const bool is_int = e.IsIntOrUint() || e.IsBool();
        integral = integral && is_int;
        numeric = numeric && (is_int || e.IsFloat());
        strings = strings && (e.IsString() || e.IsKey());
    }
    if (integral) {
        std::vector<int64_t> out;
        for (const auto& e : items) out.push_back(integer(e, name));
        return out;
    }
    if (numeric) {
        std::vector<double> out;
        for (const auto& e : items) out.push_back(e.AsDouble());
        return out;
    }
    if (strings) {
        std::vector<std::string> out;
        for (const auto& e : items) out.push_back(e.IsKey() ? std::string(e.AsKey()) : e.AsString().str());
        return out;
    }
    unreadable(name, "a vector of mixed or nested values");
}

std::optional<FrameworkAttr> attr(const flexbuffers::Reference& r, const std::string& name) {
    if (r.IsNull()) return std::nullopt;  // TFLite's kernels read a null as an absent key
    if (r.IsBool() || r.IsIntOrUint()) return integer(r, name);
    if (r.IsFloat()) return r.AsDouble();
    if (r.IsString()) return r.AsString().str();
    if (r.IsKey()) return std::string(r.AsKey());
    if (r.IsBlob()) {
        const flexbuffers::Blob b = r.AsBlob();
        return bytes_tensor(b.data(), b.size());
    }
    if (r.IsMap()) unreadable(name, "a map");
    if (r.IsUntypedVector()) return vector_attr(elements(r.AsVector()), name);
    if (r.IsTypedVector()) return vector_attr(elements(r.AsTypedVector()), name);
    if (r.IsFixedTypedVector()) return vector_attr(elements(r.AsFixedTypedVector()), name);
    unreadable(name, "of flexbuffer type " + std::to_string(static_cast<int>(r.GetType())));
}

class TfliteCustomAttributes final : public FrameworkAttributes {
public:
    explicit TfliteCustomAttributes(std::span<const uint8_t> options) : bytes_(options.begin(), options.end()) {
        // The verifier checks every offset, size and nesting depth against the (8-byte aligned)
        // copy before anything is read; bytes it rejects are not a flexbuffer.
        if (bytes_.size() >= 3 && flexbuffers::VerifyBuffer(bytes_.data(), bytes_.size()))
            is_map_ = flexbuffers::GetRoot(bytes_.data(), bytes_.size()).IsMap();
    }

    std::optional<FrameworkAttr> get(std::string_view name) const override {
        if (bytes_.empty()) return std::nullopt;
        if (name == "custom_options") return bytes_tensor(bytes_.data(), bytes_.size());
        if (!is_map_) return std::nullopt;
        const std::string key(name);
        const flexbuffers::Map map = flexbuffers::GetRoot(bytes_.data(), bytes_.size()).AsMap();
        return attr(map[key.c_str()], key);
    }

private:
    std::vector<uint8_t> bytes_;
    bool is_map_ = false;
};

}  // namespace

std::shared_ptr<const FrameworkAttributes> tflite_custom_attributes(std::span<const uint8_t> options) {
    return std::make_shared<TfliteCustomAttributes>(options);
}

}  // namespace mo
