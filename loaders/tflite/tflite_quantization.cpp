#include "loaders/tflite/tflite_quantization.hpp"

#include <cmath>
#include <cstring>
#include <map>

#include "core/error.hpp"
#include "loaders/tflite/tflite_schema_generated.h"

namespace mo {

namespace {

class QuantizationAttributes final : public FrameworkAttributes {
public:
    explicit QuantizationAttributes(std::map<std::string, FrameworkAttr, std::less<>> values)
        : values_(std::move(values)) {}
    std::optional<FrameworkAttr> get(std::string_view name) const override {
        auto it = values_.find(name);
        if (it == values_.end()) return std::nullopt;
        return it->second;
    }

private:
    std::map<std::string, FrameworkAttr, std::less<>> values_;
};

}  // namespace

std::shared_ptr<const FrameworkAttributes> tflite_quantization(const tflite::Tensor& t, ElementType stored,
                                                               const std::string& name, const std::string& where,
                                                               const std::string& producer) {
    const tflite::QuantizationParameters* q = t.quantization();
    if (!q || !q->scale() || q->scale()->size() == 0 || is_float(stored)) return nullptr;
    const std::string at = "tensor '" + name + "' in " + where;
    if (q->details_type() != tflite::QuantizationDetails::NONE)
        throw Error("custom quantization (QuantizationDetails) is not supported", at,
                    "mo reads linear quantization: scale and zero_point, per tensor or per channel");
    std::vector<double> scale;
    for (float s : *q->scale()) {
        if (!std::isfinite(s) || s <= 0)
            throw Error("a quantization scale is " + std::to_string(s) + " (scales must be positive and finite)", at,
                        "the model is corrupt; re-export it");
        scale.push_back(s);
    }
    std::vector<int64_t> zero_point;
    if (const auto* zp = q->zero_point()) {
        // Copied as bytes: the verifier checks a vector's 4-byte length, not that its int64
        // elements are 8-byte aligned (a hostile file's may not be). Little-endian, as the file.
        zero_point.resize(zp->size());
        if (!zero_point.empty()) std::memcpy(zero_point.data(), zp->Data(), zero_point.size() * sizeof(int64_t));
    }
    if (zero_point.empty()) zero_point.assign(scale.size(), 0);
    if (zero_point.size() != scale.size())
        throw Error(std::to_string(scale.size()) + " quantization scales but " + std::to_string(zero_point.size()) +
                        " zero points",
                    at, "the model is corrupt; re-export it");
    const int64_t axis = q->quantized_dimension();
    if (scale.size() > 1) {
        // Per channel: one scale per index of the quantized dimension.
        const auto* shape = t.shape();
        const int64_t rank = shape ? static_cast<int64_t>(shape->size()) : 0;
        if (axis < 0 || axis >= rank || shape->Get(static_cast<uint32_t>(axis)) != static_cast<int32_t>(scale.size()))
            throw Error(std::to_string(scale.size()) + " quantization scales do not match dimension " +
                            std::to_string(axis) + " of the tensor's shape",
                        at, "the model is corrupt; re-export it");
    }
    std::map<std::string, FrameworkAttr, std::less<>> values{{"scale", scale},
                                                             {"zero_point", zero_point},
                                                             {"quantized_dimension", axis},
                                                             {"tensor", name},
                                                             {"storage", std::string(ir_name(stored))}};
    if (!producer.empty()) values["producer"] = producer;
    return std::make_shared<QuantizationAttributes>(std::move(values));
}

}  // namespace mo
