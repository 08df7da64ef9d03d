// ONNX TensorProto -> mo::Tensor: element types, typed data fields, raw data (copied, or a
// view into the mapped model file) and external data files next to the model.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/mapped_file.hpp"
#include "core/tensor.hpp"

namespace onnx { class TensorProto; }

namespace mo {

// onnx::TensorProto::DataType -> ElementType; UNDEFINED -> dynamic; throws mo::Error for
// types mo cannot represent (string, complex), naming `where`.
ElementType onnx_element_type(int32_t onnx_type, const std::string& where);

// Reads tensors of one model. External data paths resolve against the model's directory (or
// `data_dir` when given) and may not leave it; each external file is mapped once.
class OnnxTensorReader {
public:
    explicit OnnxTensorReader(std::string model_path = {}, std::string data_dir = {});

    // `where` names the tensor for errors. When `raw` is given, it holds the tensor's raw_data
    // (lifted out of the message by the loader) inside `raw_owner`'s mapping: the result views it.
    Tensor read(const onnx::TensorProto& t, const std::string& where,
                const std::shared_ptr<const MappedFile>& raw_owner = nullptr, const std::byte* raw = nullptr,
                size_t raw_size = 0);

private:
    Tensor read_external(const onnx::TensorProto& t, ElementType type, const Shape& shape, const std::string& where);
    std::string model_path_, data_dir_;
    std::map<std::string, std::shared_ptr<const MappedFile>> external_files_;
};

// A tensor without external data (e.g. a node attribute): always owned.
Tensor onnx_tensor_value(const onnx::TensorProto& t, const std::string& where);

}  // namespace mo
