#include "core/framework_attributes.hpp"

namespace mo {

const char* framework_attr_kind(const FrameworkAttr& value) {
    static constexpr const char* kNames[] = {"int", "float", "string", "ints", "floats", "strings", "tensor"};
    return kNames[value.index()];
}

}  // namespace mo
