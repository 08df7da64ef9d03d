#include "loaders/tf/tf_tensor.hpp"

#include <cstring>

#include "core/error.hpp"
#include "core/float16.hpp"
#include "core/eval_budget.hpp"

namespace mo {

ElementType tf_element_type(int64_t dtype, const std::string& where) {
    switch (dtype) {
        case mo_tf::DT_FLOAT: return ElementType::f32;
        case mo_tf::DT_DOUBLE: return ElementType::f64;
        case mo_tf::DT_HALF: return ElementType::f16;
        case mo_tf::DT_BFLOAT16: return ElementType::bf16;
        case mo_tf::DT_INT8: return ElementType::i8;
        case mo_tf::DT_INT16: return ElementType::i16;
        case mo_tf::DT_INT32: return ElementType::i32;
        case mo_tf::DT_INT64: return ElementType::i64;
        case mo_tf::DT_UINT8: return ElementType::u8;
        case mo_tf::DT_UINT16: return ElementType::u16;
        case mo_tf::DT_UINT32: return ElementType::u32;
        case mo_tf::DT_UINT64: return ElementType::u64;
        case mo_tf::DT_BOOL: return ElementType::boolean;
        default:
            throw Error("TensorFlow type " + tf_type_name(dtype) + " is not supported", where,
                        "mo reads numeric and bool tensors");
    }
}

std::string tf_type_name(int64_t dtype) {
    const bool valid = dtype >= INT32_MIN && dtype <= INT32_MAX && mo_tf::DataType_IsValid(static_cast<int>(dtype));
    return valid ? mo_tf::DataType_Name(static_cast<mo_tf::DataType>(dtype)) : "DataType(" + std::to_string(dtype) + ")";
}

PartialShape tf_shape(const mo_tf::TensorShapeProto& s) {
    if (s.unknown_rank()) return PartialShape::dynamic_rank();
    std::vector<Dimension> dims;
    for (const auto& d : s.dim()) dims.push_back(d.size() < 0 ? Dimension() : Dimension(d.size()));
    return PartialShape(std::move(dims));
}

namespace {

// Fills `count` elements of T from `values` (converted), repeating the last one.
template <typename T, typename List>
Tensor from_list(ElementType type, const Shape& shape, const List& values, size_t count, const std::string& where,
                 int64_t max_bytes) {
    // Fewer values than elements (TensorFlow's splat) is the one case where the file does not
    // bound the size: held to the limit constant folding keeps.
    if (static_cast<size_t>(values.size()) < count && !fits_bytes(type, static_cast<int64_t>(count), max_bytes))
        throw Error("a constant of " + std::to_string(values.size()) + " value(s) repeated to " + std::to_string(count) +
                        " elements is larger than --max_constant_size (" + std::to_string(max_bytes) + " bytes)",
                    where, "raise --max_constant_size if the model is genuine");
    Tensor t = Tensor::allocate(type, shape);
    if (count == 0) return t;
    if (values.empty()) return t;  // all zeros
    if (static_cast<size_t>(values.size()) > count)
        throw Error("the tensor has " + std::to_string(values.size()) + " values for " + std::to_string(count) +
                        " elements",
                    where, "the model is corrupt; re-export it");
    T* out = t.mutable_data<T>();
    for (size_t i = 0; i < count; ++i)
        out[i] = static_cast<T>(values[static_cast<int>(std::min(i, static_cast<size_t>(values.size()) - 1))]);
    return t;
}

Tensor read_value(const mo_tf::TensorProto& t, const std::string& where, int64_t max_bytes) {
    const ElementType type = tf_element_type(t.dtype(), where);
    const PartialShape ps = tf_shape(t.tensor_shape());
    if (!ps.is_static()) throw Error("a constant tensor has an unknown shape", where, "the model is corrupt");
    const Shape shape = ps.to_shape();
    const size_t count = static_cast<size_t>(shape_size(shape));
    if (!t.tensor_content().empty()) {
        if (t.tensor_content().size() != byte_size(type, count))
            throw Error("tensor_content holds " + std::to_string(t.tensor_content().size()) + " bytes, the shape needs " +
                            std::to_string(byte_size(type, count)),
                        where, "the model is corrupt; re-export it");
        Tensor out = Tensor::allocate(type, shape);
        std::memcpy(out.mutable_data<std::byte>(), t.tensor_content().data(), t.tensor_content().size());
        return out;
    }
    switch (type) {
        case ElementType::f32: return from_list<float>(type, shape, t.float_val(), count, where, max_bytes);
        case ElementType::f64: return from_list<double>(type, shape, t.double_val(), count, where, max_bytes);
        case ElementType::i64: return from_list<int64_t>(type, shape, t.int64_val(), count, where, max_bytes);
        case ElementType::u32: return from_list<uint32_t>(type, shape, t.uint32_val(), count, where, max_bytes);
        case ElementType::u64: return from_list<uint64_t>(type, shape, t.uint64_val(), count, where, max_bytes);
        case ElementType::boolean: return from_list<uint8_t>(type, shape, t.bool_val(), count, where, max_bytes);
        case ElementType::f16:
        case ElementType::bf16: return from_list<uint16_t>(type, shape, t.half_val(), count, where, max_bytes);  // the bits
        case ElementType::i32: return from_list<int32_t>(type, shape, t.int_val(), count, where, max_bytes);
        case ElementType::i16: return from_list<int16_t>(type, shape, t.int_val(), count, where, max_bytes);
        case ElementType::i8: return from_list<int8_t>(type, shape, t.int_val(), count, where, max_bytes);
        case ElementType::u8: return from_list<uint8_t>(type, shape, t.int_val(), count, where, max_bytes);
        case ElementType::u16: return from_list<uint16_t>(type, shape, t.int_val(), count, where, max_bytes);
        default: throw Error("unsupported constant type", where);
    }
}

}  // namespace

Tensor tf_tensor_value(const mo_tf::TensorProto& t, const std::string& where, int64_t max_bytes) {
    return located(where, [&] { return read_value(t, where, max_bytes); });
}

}  // namespace mo
