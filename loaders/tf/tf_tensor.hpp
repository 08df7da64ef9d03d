// TensorFlow DataType and TensorProto -> mo element types and tensors.
#pragma once

#include <string>

#include "core/tensor.hpp"
#include "loaders/tf/tf_graph.pb.h"

namespace mo {

// Throws mo::Error naming `where` for a type mo does not read (strings, quantized, resources).
// `dtype` is int64_t: an attribute may hold any integer, not only a DataType.
ElementType tf_element_type(int64_t dtype, const std::string& where);
std::string tf_type_name(int64_t dtype);

// The tensor's values: tensor_content when present, else the typed value list (a list shorter
// than the shape is padded with its last value, as TensorFlow does). Throws mo::Error naming
// `where` for a size mismatch, and for a value list repeated beyond `max_bytes`
// (--max_constant_size).
Tensor tf_tensor_value(const mo_tf::TensorProto& t, const std::string& where, int64_t max_bytes);

// Dims of a TensorShapeProto: -1 (or unknown rank) stays dynamic.
PartialShape tf_shape(const mo_tf::TensorShapeProto& s);

}  // namespace mo
