// A framework node's attributes as its loader reads them. The loader of each framework
// implements this for its records (ONNX NodeProto, TFLite options, TensorFlow AttrValue), so
// extractors, built-in or from a plugin, read attributes without the framework's headers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api.hpp"
#include "tensor.hpp"

namespace mo {

using FrameworkAttr = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                                   std::vector<std::string>, Tensor>;

// "int", "float", "string", "ints", "floats", "strings", "tensor": for error messages.
MO_API const char* framework_attr_kind(const FrameworkAttr& value);

class MO_API FrameworkAttributes {
public:
    virtual ~FrameworkAttributes() = default;
    // The attribute, or nullopt when the node has none of that name. Throws mo::Error when
    // the attribute exists but cannot be read (a malformed tensor, a kind mo does not read).
    virtual std::optional<FrameworkAttr> get(std::string_view name) const = 0;
};

}  // namespace mo
