#include "ops/op_utils.hpp"

namespace mo {

std::vector<int64_t> row_major_strides(const Shape& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
    return s;
}

std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
    MO_ASSERT(in.size() <= out.size(), "broadcast to a lower rank");
    std::vector<int64_t> result(out.size(), 0);
    auto own = row_major_strides(in);
    size_t offset = out.size() - in.size();
    for (size_t i = 0; i < in.size(); ++i) result[offset + i] = in[i] == 1 ? 0 : own[i];
    return result;
}

}  // namespace mo
