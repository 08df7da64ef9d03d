#include "support/tflite_model_builder.hpp"
#include "support/write_file.hpp"
#include "validate/npy.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace mo::test {

int TfliteModelBuilder::tensor(const std::string& name, std::vector<int32_t> shape, tflite::TensorType type) {
    cur().tensors.push_back({name, std::move(shape), type, 0});
    return static_cast<int>(cur().tensors.size() - 1);
}

int TfliteModelBuilder::input(const std::string& name, std::vector<int32_t> shape, tflite::TensorType type) {
    int t = tensor(name, std::move(shape), type);
    cur().inputs.push_back(t);
    return t;
}

int TfliteModelBuilder::variable(const std::string& name, std::vector<int32_t> shape) {
    int t = tensor(name, std::move(shape));
    cur().tensors.back().is_variable = true;
    return t;
}

int TfliteModelBuilder::add_buffer(const void* data, size_t size) {
    std::vector<uint8_t> b(size);
    if (size > 0) std::memcpy(b.data(), data, size);  // an empty tensor's data may be null
    buffers_.push_back(std::move(b));
    return static_cast<int>(buffers_.size() - 1);
}

int TfliteModelBuilder::constant(const std::string& name, std::vector<int32_t> shape, const std::vector<float>& values) {
    int t = tensor(name, std::move(shape));
    cur().tensors.back().buffer = static_cast<uint32_t>(add_buffer(values.data(), values.size() * sizeof(float)));
    return t;
}

int TfliteModelBuilder::constant_i32(const std::string& name, std::vector<int32_t> shape,
                                     const std::vector<int32_t>& values) {
    int t = tensor(name, std::move(shape), tflite::TensorType::INT32);
    cur().tensors.back().buffer = static_cast<uint32_t>(add_buffer(values.data(), values.size() * sizeof(int32_t)));
    return t;
}

int TfliteModelBuilder::constant_bytes(const std::string& name, std::vector<int32_t> shape, tflite::TensorType type,
                                       const void* data, size_t size) {
    int t = tensor(name, std::move(shape), type);
    cur().tensors.back().buffer = static_cast<uint32_t>(add_buffer(data, size));
    return t;
}

void TfliteModelBuilder::quantize(int tensor, std::vector<float> scale, std::vector<int64_t> zero_point, int32_t axis) {
    auto& t = cur().tensors.at(static_cast<size_t>(tensor));
    t.scale = std::move(scale);
    t.zero_point = std::move(zero_point);
    t.quantized_dimension = axis;
}

int TfliteModelBuilder::sparse_constant(const std::string& name, std::vector<int32_t> shape,
                                       const std::vector<float>& values, std::vector<int32_t> traversal_order,
                                       std::vector<int32_t> block_map, std::vector<SparseDim> dims) {
    int t = constant(name, std::move(shape), values);
    auto& def = cur().tensors.back();
    def.traversal_order = std::move(traversal_order);
    def.block_map = std::move(block_map);
    def.dims = std::move(dims);
    return t;
}

void TfliteModelBuilder::op(tflite::BuiltinOperator code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                            TfliteOptions options) {
    cur().ops.push_back({static_cast<int32_t>(code), "", std::move(inputs), std::move(outputs), std::move(options)});
}

void TfliteModelBuilder::custom_op(const std::string& custom_code, std::vector<int32_t> inputs,
                                   std::vector<int32_t> outputs, std::vector<uint8_t> custom_options) {
    cur().ops.push_back({static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM), custom_code, std::move(inputs),
                    std::move(outputs), {}, std::move(custom_options)});
}

int TfliteModelBuilder::subgraph(const std::string& name) {
    subgraphs_.push_back(SubgraphDef{name, {}, {}, {}, {}});
    current_ = subgraphs_.size() - 1;
    return static_cast<int>(current_);
}

std::vector<uint8_t> TfliteModelBuilder::bytes() const {
    flatbuffers::FlatBufferBuilder fb;
    std::vector<flatbuffers::Offset<tflite::Buffer>> buffers;
    for (const auto& b : buffers_)
        buffers.push_back(tflite::CreateBuffer(fb, b.empty() ? 0 : fb.CreateVector(b)));
    // One operator code per op, in op order (simple, and valid: codes may repeat).
    std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes;
    std::vector<flatbuffers::Offset<tflite::SubGraph>> subgraphs;
    for (const SubgraphDef& sg : subgraphs_) {
        std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
        for (const auto& t : sg.tensors) {
            flatbuffers::Offset<tflite::SparsityParameters> sparsity = 0;
            if (!t.dims.empty()) {
                std::vector<flatbuffers::Offset<tflite::DimensionMetadata>> dims;
                for (const auto& d : t.dims) {
                    if (d.segments.empty()) {
                        dims.push_back(tflite::CreateDimensionMetadata(fb, tflite::DimensionType::DENSE, d.dense_size));
                        continue;
                    }
                    auto segments = tflite::CreateInt32Vector(fb, fb.CreateVector(d.segments)).Union();
                    auto indices = tflite::CreateInt32Vector(fb, fb.CreateVector(d.indices)).Union();
                    dims.push_back(tflite::CreateDimensionMetadata(fb, tflite::DimensionType::SPARSE_CSR, 0,
                                                                   tflite::SparseIndexVector::Int32Vector, segments,
                                                                   tflite::SparseIndexVector::Int32Vector, indices));
                }
                sparsity = tflite::CreateSparsityParameters(fb, fb.CreateVector(t.traversal_order),
                                                            t.block_map.empty() ? 0 : fb.CreateVector(t.block_map),
                                                            fb.CreateVector(dims));
            }
            flatbuffers::Offset<tflite::QuantizationParameters> quantization = 0;
            if (!t.scale.empty())
                quantization = tflite::CreateQuantizationParameters(fb, 0, 0, fb.CreateVector(t.scale),
                                                                    fb.CreateVector(t.zero_point),
                                                                    tflite::QuantizationDetails::NONE, 0,
                                                                    t.quantized_dimension);
            tensors.push_back(tflite::CreateTensor(fb, fb.CreateVector(t.shape), t.type, t.buffer, fb.CreateString(t.name),
                                                   quantization, t.is_variable, sparsity));
        }
        std::vector<flatbuffers::Offset<tflite::Operator>> ops;
        for (size_t i = 0; i < sg.ops.size(); ++i) {
            const OpDef& o = sg.ops[i];
            const auto deprecated = static_cast<int8_t>(std::min(o.builtin, 127));
            codes.push_back(tflite::CreateOperatorCode(fb, deprecated, o.custom_code.empty() ? 0 : fb.CreateString(o.custom_code),
                                                       1, static_cast<tflite::BuiltinOperator>(o.builtin)));
            auto options = o.options ? o.options(fb) : std::make_pair(tflite::BuiltinOptions::NONE, flatbuffers::Offset<void>());
            ops.push_back(tflite::CreateOperator(fb, static_cast<uint32_t>(codes.size() - 1), fb.CreateVector(o.inputs),
                                                 fb.CreateVector(o.outputs), options.first, options.second,
                                                 o.custom_options.empty() ? 0 : fb.CreateVector(o.custom_options)));
        }
        subgraphs.push_back(tflite::CreateSubGraph(fb, fb.CreateVector(tensors), fb.CreateVector(sg.inputs),
                                                   fb.CreateVector(sg.outputs), fb.CreateVector(ops), fb.CreateString(sg.name)));
    }
    auto model = tflite::CreateModel(fb, 3, fb.CreateVector(codes), fb.CreateVector(subgraphs),
                                     fb.CreateString("mo test"), fb.CreateVector(buffers));
    tflite::FinishModelBuffer(fb, model);
    return {fb.GetBufferPointer(), fb.GetBufferPointer() + fb.GetSize()};
}

std::string TfliteModelBuilder::save(const std::string& file_name) const {
    auto dir = std::filesystem::temp_directory_path() / "mo_tflite_tests";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / file_name).string();
    const auto b = bytes();
    write_file_atomically(path, {reinterpret_cast<const char*>(b.data()), b.size()});
    return path;
}

void save_fixture(const TfliteModelBuilder& m, const std::filesystem::path& dir, const std::vector<Tensor>& inputs) {
    std::filesystem::create_directories(dir);
    const auto bytes = m.bytes();
    write_file_atomically((dir / "model.tflite").string(), {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
    for (size_t i = 0; i < inputs.size(); ++i) write_npy((dir / ("input_" + std::to_string(i) + ".npy")).string(), inputs[i]);
    std::printf("%s: %zu bytes\n", dir.string().c_str(), bytes.size());
}

}  // namespace mo::test
