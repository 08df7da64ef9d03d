#include "loaders/onnx/onnx_attributes.hpp"

#include <onnx/onnx_pb.h>

#include "core/error.hpp"
#include "loaders/onnx/onnx_tensor.hpp"
#include "loaders/protobuf_wire.hpp"

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

// Attributes of a NodeProto still in its serialized form: NodeProto.attribute is field 5, and
// AttributeProto.name field 1.
class SerializedOnnxAttributes final : public FrameworkAttributes {
public:
    SerializedOnnxAttributes(std::shared_ptr<const void> owner, std::string_view node,
                             std::shared_ptr<const std::string> file)
        : owner_(std::move(owner)), node_(node), file_(std::move(file)) {}

    std::optional<FrameworkAttr> get(std::string_view name) const override {
        const auto* base = reinterpret_cast<const std::byte*>(node_.data());
        protobuf_wire::Reader node(base, 0, node_.size(), *file_, "ONNX");
        while (!node.done()) {
            const protobuf_wire::Field f = node.next_field();
            if (f.number != 5 || f.wire != protobuf_wire::LengthDelimited || attribute_name(base, f) != name) continue;
            onnx::AttributeProto a;
            if (!a.ParseFromArray(base + f.body, static_cast<int>(f.size)))
                throw Error("attribute '" + std::string(name) + "' cannot be parsed", *file_,
                            "the model is malformed; re-export it");
            return read(a);
        }
        return std::nullopt;
    }

private:
    std::string_view attribute_name(const std::byte* base, const protobuf_wire::Field& attribute) const {
        protobuf_wire::Reader r(base, attribute.body, attribute.body + attribute.size, *file_, "ONNX");
        std::string_view name;
        while (!r.done()) {
            const protobuf_wire::Field f = r.next_field();
            if (f.number == 1 && f.wire == protobuf_wire::LengthDelimited) name = r.view(f);  // the last, as protobuf keeps
        }
        return name;
    }

    std::shared_ptr<const void> owner_;
    std::string_view node_;
    std::shared_ptr<const std::string> file_;
};

}  // namespace

std::shared_ptr<const FrameworkAttributes> onnx_attributes(const onnx::NodeProto& node) {
    return std::make_shared<OnnxAttributes>(node);
}

std::shared_ptr<const FrameworkAttributes> onnx_attributes(std::shared_ptr<const void> owner,
                                                           std::string_view node_bytes,
                                                           std::shared_ptr<const std::string> file) {
    return std::make_shared<SerializedOnnxAttributes>(std::move(owner), node_bytes, std::move(file));
}

}  // namespace mo
