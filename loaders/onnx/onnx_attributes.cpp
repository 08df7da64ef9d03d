#include "loaders/onnx/onnx_attributes.hpp"

#include <onnx/onnx_pb.h>

#include "core/error.hpp"
#include "loaders/onnx/onnx_tensor.hpp"

namespace mo {

namespace {

// Old exporters leave AttributeProto.type unset; infer it from the filled field.
int effective_type(const onnx::AttributeProto& a) {
    if (a.type() != onnx::AttributeProto::UNDEFINED) return a.type();
    if (a.ints_size()) return onnx::AttributeProto::INTS;
    if (a.floats_size()) return onnx::AttributeProto::FLOATS;
    if (a.strings_size()) return onnx::AttributeProto::STRINGS;
    if (a.has_t()) return onnx::AttributeProto::TENSOR;
    if (a.has_s()) return onnx::AttributeProto::STRING;
    if (a.has_f()) return onnx::AttributeProto::FLOAT;
    return onnx::AttributeProto::INT;
}

FrameworkAttr read(const onnx::AttributeProto& a) {
    switch (effective_type(a)) {
        case onnx::AttributeProto::INT: return a.i();
        case onnx::AttributeProto::FLOAT: return static_cast<double>(a.f());
        case onnx::AttributeProto::STRING: return a.s();
        case onnx::AttributeProto::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
        case onnx::AttributeProto::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
        case onnx::AttributeProto::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
        case onnx::AttributeProto::TENSOR: return onnx_tensor_value(a.t(), "attribute '" + a.name() + "'");
        default:
            throw Error("attribute '" + a.name() + "' is of a kind mo does not read (graph, sparse tensor or type)",
                        {}, "see docs/onnx.md for the supported ONNX features");
    }
}

class OnnxAttributes final : public FrameworkAttributes {
public:
    explicit OnnxAttributes(const onnx::NodeProto& node) : node_(node) {}

    std::optional<FrameworkAttr> get(std::string_view name) const override {
        for (const auto& a : node_.attribute())
            if (a.name() == name) return read(a);
        return std::nullopt;
    }

private:
    const onnx::NodeProto& node_;
};

}  // namespace

std::shared_ptr<const FrameworkAttributes> onnx_attributes(const onnx::NodeProto& node) {
    return std::make_shared<OnnxAttributes>(node);
}

}  // namespace mo
