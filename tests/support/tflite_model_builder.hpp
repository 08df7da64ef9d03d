// Builds small TFLite flatbuffers for tests with flatc's code for loaders/tflite/tflite_schema.fbs.
//   TfliteModelBuilder m;
//   int x = m.input("x", {1, 4, 4, 2});
//   int w = m.constant("w", {3, 1, 1, 2}, {...});
//   int y = m.tensor("y", {1, 4, 4, 3});
//   m.op(tflite::BuiltinOperator::CONV_2D, {x, w, -1}, {y}, conv_options(...));
//   m.output(y);  m.save(path);
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.hpp"
#include "loaders/tflite/tflite_schema_generated.h"

namespace mo::test {

// Builds an operator's options table: its union type and offset.
using TfliteOptions = std::function<std::pair<tflite::BuiltinOptions, flatbuffers::Offset<void>>(
    flatbuffers::FlatBufferBuilder&)>;

class TfliteModelBuilder {
public:
    // A tensor without data (an operator's output); returns its index.
    int tensor(const std::string& name, std::vector<int32_t> shape, tflite::TensorType type = tflite::TensorType::FLOAT32);
    int input(const std::string& name, std::vector<int32_t> shape, tflite::TensorType type = tflite::TensorType::FLOAT32);
    // A variable tensor without data (an LSTM's state: TFLite starts it at zero).
    int variable(const std::string& name, std::vector<int32_t> shape);
    int constant(const std::string& name, std::vector<int32_t> shape, const std::vector<float>& values);
    int constant_i32(const std::string& name, std::vector<int32_t> shape, const std::vector<int32_t>& values);
    // A constant of any type from its raw little-endian bytes.
    int constant_bytes(const std::string& name, std::vector<int32_t> shape, tflite::TensorType type,
                       const void* data, size_t size);
    // Linear quantization of a tensor: real = scale · (q - zero_point), per tensor (one scale) or
    // per channel along `axis`.
    void quantize(int tensor, std::vector<float> scale, std::vector<int64_t> zero_point, int32_t axis = 0);
    // One dimension of a sparse constant: DENSE with its size, or SPARSE_CSR with segments and indices.
    struct SparseDim {
        int32_t dense_size = 0;
        std::vector<int32_t> segments, indices;  // empty: DENSE
    };
    // A float constant of dense `shape` stored sparse: `values` in traversal order.
    int sparse_constant(const std::string& name, std::vector<int32_t> shape, const std::vector<float>& values,
                        std::vector<int32_t> traversal_order, std::vector<int32_t> block_map, std::vector<SparseDim> dims);
    void op(tflite::BuiltinOperator code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
            TfliteOptions options = {});
    // A CUSTOM operator; `custom_options` are its raw option bytes (often a flexbuffer map).
    void custom_op(const std::string& custom_code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                   std::vector<uint8_t> custom_options = {});
    void output(int tensor) { cur().outputs.push_back(tensor); }
    // Subgraphs (IF's branches, WHILE's cond and body, CALL_ONCE's init): the builder starts in
    // subgraph 0, the main one; subgraph() adds one and makes it current, use() makes another
    // current. Tensors, operators, inputs and outputs go to the current subgraph.
    int subgraph(const std::string& name);
    void use(int subgraph) { current_ = static_cast<size_t>(subgraph); }
    // Overrides of what the builder would write, to make broken files.
    void set_tensor_buffer(int tensor, uint32_t buffer) { cur().tensors.at(static_cast<size_t>(tensor)).buffer = buffer; }

    std::vector<uint8_t> bytes() const;
    // Writes the model to a file under the test's temporary directory; returns its path.
    std::string save(const std::string& file_name) const;

private:
    struct TensorDef {
        std::string name;
        std::vector<int32_t> shape;
        tflite::TensorType type;
        uint32_t buffer;
        // Sparsity, when the tensor has it.
        std::vector<int32_t> traversal_order, block_map;
        std::vector<SparseDim> dims;
        // Quantization, when scale is not empty.
        std::vector<float> scale;
        std::vector<int64_t> zero_point;
        int32_t quantized_dimension = 0;
        bool is_variable = false;
    };
    struct OpDef {
        int32_t builtin;
        std::string custom_code;
        std::vector<int32_t> inputs, outputs;
        TfliteOptions options;
        std::vector<uint8_t> custom_options;
    };
    struct SubgraphDef {
        std::string name;
        std::vector<TensorDef> tensors;
        std::vector<OpDef> ops;
        std::vector<int32_t> inputs, outputs;
    };
    int add_buffer(const void* data, size_t size);
    SubgraphDef& cur() { return subgraphs_.at(current_); }

    std::vector<std::vector<uint8_t>> buffers_{{}};  // buffer 0: the empty sentinel
    std::vector<SubgraphDef> subgraphs_{SubgraphDef{"main", {}, {}, {}, {}}};
    size_t current_ = 0;
};

// A fixture directory for the generators in tests/e2e: dir/model.tflite and the model's inputs as
// dir/input_<i>.npy (the reference script runs TFLite on them).
void save_fixture(const TfliteModelBuilder& m, const std::filesystem::path& dir, const std::vector<Tensor>& inputs);

}  // namespace mo::test
