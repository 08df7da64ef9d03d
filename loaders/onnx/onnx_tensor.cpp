#include "loaders/onnx/onnx_tensor.hpp"

#include <cstring>
#include <filesystem>
#include <limits>

#include <onnx/onnx_pb.h>

#include "core/error.hpp"

namespace mo {

namespace fs = std::filesystem;

ElementType onnx_element_type(int32_t onnx_type, const std::string& where) {
    switch (onnx_type) {
        case onnx::TensorProto::UNDEFINED: return ElementType::dynamic;
        case onnx::TensorProto::FLOAT: return ElementType::f32;
        case onnx::TensorProto::UINT8: return ElementType::u8;
        case onnx::TensorProto::INT8: return ElementType::i8;
        case onnx::TensorProto::UINT16: return ElementType::u16;
        case onnx::TensorProto::INT16: return ElementType::i16;
        case onnx::TensorProto::INT32: return ElementType::i32;
        case onnx::TensorProto::INT64: return ElementType::i64;
        case onnx::TensorProto::BOOL: return ElementType::boolean;
        case onnx::TensorProto::FLOAT16: return ElementType::f16;
        case onnx::TensorProto::DOUBLE: return ElementType::f64;
        case onnx::TensorProto::UINT32: return ElementType::u32;
        case onnx::TensorProto::UINT64: return ElementType::u64;
        case onnx::TensorProto::BFLOAT16: return ElementType::bf16;
        // UINT4 and INT4 (ONNX 1.16, opset 21) are newer than Debian's ONNX headers: by number.
        case 21: return ElementType::u4;
        case 22: return ElementType::i4;
        default: break;
    }
    std::string name = onnx::TensorProto_DataType_IsValid(onnx_type)
                           ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(onnx_type))
                           : std::to_string(onnx_type);
    throw Error("unsupported ONNX element type " + name, where,
                "mo supports bool, integer and floating-point tensors only");
}

namespace {

Shape tensor_shape(const onnx::TensorProto& t, const std::string& where) {
    Shape shape;
    int64_t count = 1;
    for (int64_t d : t.dims()) {
        if (d < 0) throw Error("tensor has a negative dimension " + std::to_string(d), where, "fix the model");
        if (d != 0 && count > std::numeric_limits<int64_t>::max() / d)
            throw Error("tensor element count overflows", where, "fix the model");
        count *= d;
        shape.push_back(d);
    }
    return shape;
}

[[noreturn]] void size_mismatch(const std::string& where, size_t expected, size_t got, const char* field) {
    throw Error("tensor data has " + std::to_string(got) + " " + field + " but its shape needs " +
                    std::to_string(expected),
                where, "the model is corrupt; re-export it");
}

// Copies a typed repeated field into an owned tensor, converting each value to the element type.
// The count is checked before the tensor is allocated: the dims may ask for petabytes.
template <typename Field>
Tensor from_field(const Field& field, ElementType type, const Shape& shape, const std::string& where) {
    const auto n = static_cast<size_t>(shape_size(shape));
    if (static_cast<size_t>(field.size()) != n) size_mismatch(where, n, field.size(), "values");
    Tensor out = Tensor::allocate(type, shape);
    auto fill = [&](auto* dst) {
        for (size_t i = 0; i < n; ++i) dst[i] = static_cast<std::remove_pointer_t<decltype(dst)>>(field.Get(static_cast<int>(i)));
    };
    switch (type) {
        case ElementType::f32: fill(out.mutable_data<float>()); break;
        case ElementType::f64: fill(out.mutable_data<double>()); break;
        case ElementType::i64: fill(out.mutable_data<int64_t>()); break;
        case ElementType::i32: fill(out.mutable_data<int32_t>()); break;
        case ElementType::i16: fill(out.mutable_data<int16_t>()); break;
        case ElementType::i8: fill(out.mutable_data<int8_t>()); break;
        case ElementType::u8: fill(out.mutable_data<uint8_t>()); break;
        case ElementType::boolean: {
            auto* dst = out.mutable_data<uint8_t>();
            for (size_t i = 0; i < n; ++i) dst[i] = field.Get(static_cast<int>(i)) != 0;
            break;
        }
        // f16 / bf16 travel as their 16-bit patterns in int32_data.
        case ElementType::u16: case ElementType::f16: case ElementType::bf16: fill(out.mutable_data<uint16_t>()); break;
        case ElementType::u32: fill(out.mutable_data<uint32_t>()); break;
        case ElementType::u64: fill(out.mutable_data<uint64_t>()); break;
        default: throw Error("unsupported element type for typed tensor data", where);
    }
    return out;
}

Tensor copy_bytes(const void* data, size_t size, ElementType type, const Shape& shape, const std::string& where) {
    const size_t need = byte_size(type, static_cast<size_t>(shape_size(shape)));
    if (size != need) size_mismatch(where, need, size, "bytes");
    Tensor out = Tensor::allocate(type, shape);
    if (size) std::memcpy(out.mutable_data<std::byte>(), data, size);
    return out;
}

}  // namespace

OnnxTensorReader::OnnxTensorReader(std::string model_path, std::string data_dir)
    : model_path_(std::move(model_path)), data_dir_(std::move(data_dir)) {}

Tensor OnnxTensorReader::read(const onnx::TensorProto& t, const std::string& where,
                              const std::shared_ptr<const MappedFile>& raw_owner, const std::byte* raw,
                              size_t raw_size) {
    return located(where, [&] {
        ElementType type = onnx_element_type(t.data_type(), where);
        if (type == ElementType::dynamic) throw Error("tensor has no element type", where, "fix the model");
        Shape shape = tensor_shape(t, where);
        if (t.data_location() == onnx::TensorProto::EXTERNAL) return read_external(t, type, shape, where);
        if (raw) {
            size_t need = byte_size(type, static_cast<size_t>(shape_size(shape)));
            if (raw_size != need) size_mismatch(where, need, raw_size, "bytes");
            auto view = std::make_shared<ViewBuffer>(raw_owner, raw, raw_size);
            return Tensor(type, shape, std::move(view)).aligned_if_small();
        }
        if (t.has_raw_data()) return copy_bytes(t.raw_data().data(), t.raw_data().size(), type, shape, where);
        if (type == ElementType::u4 || type == ElementType::i4)
            throw Error("a 4-bit tensor stored in int32_data", where, "store 4-bit tensors as raw_data (two values a byte)");
        switch (type) {
            case ElementType::f32: return from_field(t.float_data(), type, shape, where);
            case ElementType::f64: return from_field(t.double_data(), type, shape, where);
            case ElementType::i64: return from_field(t.int64_data(), type, shape, where);
            case ElementType::u32: case ElementType::u64: return from_field(t.uint64_data(), type, shape, where);
            default: return from_field(t.int32_data(), type, shape, where);
        }
    });
}

Tensor OnnxTensorReader::read_external(const onnx::TensorProto& t, ElementType type, const Shape& shape,
                                       const std::string& where) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& kv : t.external_data()) {
        try {
            if (kv.key() == "location") location = kv.value();
            else if (kv.key() == "offset") offset = std::stoll(kv.value());
            else if (kv.key() == "length") length = std::stoll(kv.value());
        } catch (const std::exception&) {
            throw Error("external data '" + kv.key() + "' is not a number: '" + kv.value() + "'", where,
                        "fix the model's external_data entries");
        }
    }
    if (location.empty())
        throw Error("external data has no location", where, "fix the model's external_data entries");
    if (model_path_.empty())
        throw Error("external data is not supported here", where, "store the tensor inside the model");
    fs::path rel(location);
    if (rel.is_absolute())
        throw Error("external data path '" + location + "' is absolute", where,
                    "external data must be a relative path inside the model's directory");
    std::error_code ec;
    fs::path dir = fs::weakly_canonical(
        data_dir_.empty() ? fs::absolute(fs::path(model_path_)).parent_path() : fs::absolute(fs::path(data_dir_)), ec);
    fs::path file = fs::weakly_canonical(dir / rel, ec);
    auto [d_end, f_it] = std::mismatch(dir.begin(), dir.end(), file.begin(), file.end());
    if (ec || d_end != dir.end() || file == dir)
        throw Error("external data path '" + location + "' leaves the model's directory " + dir.string(), where,
                    "external data files must live in the model's directory or below it");
    auto& mapped = external_files_[file.string()];
    if (!mapped) {
        try {
            mapped = MappedFile::open(file.string());
        } catch (const Error& e) {
            external_files_.erase(file.string());
            throw Error("external data file '" + location + "' cannot be read: " + e.what_part(), where,
                        "copy the model's data files next to it, as the model names them");
        }
    }
    size_t need = byte_size(type, static_cast<size_t>(shape_size(shape)));
    if (offset < 0 || static_cast<uint64_t>(offset) > mapped->size())
        throw Error("external data offset " + std::to_string(offset) + " is outside '" + location + "' (" +
                        std::to_string(mapped->size()) + " bytes)",
                    where, "fix the model's external_data entries or the data file");
    size_t avail = mapped->size() - static_cast<size_t>(offset);
    if (length >= 0 && static_cast<size_t>(length) != need)
        throw Error("external data length " + std::to_string(length) + " does not match the tensor's " +
                        std::to_string(need) + " bytes",
                    where, "fix the model's external_data entries");
    if (need > avail)
        throw Error("external data at offset " + std::to_string(offset) + " needs " + std::to_string(need) +
                        " bytes but '" + location + "' has only " + std::to_string(avail) + " left",
                    where, "the data file is truncated or the offset is wrong");
    auto view = std::make_shared<ViewBuffer>(mapped, mapped->data() + offset, need);
    return Tensor(type, shape, std::move(view)).aligned_if_small();
}

Tensor onnx_tensor_value(const onnx::TensorProto& t, const std::string& where) {
    return OnnxTensorReader().read(t, where);
}

}  // namespace mo
