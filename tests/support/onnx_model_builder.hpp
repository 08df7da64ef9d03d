// Builds small ONNX models in tests and saves them to temp files:
//   OnnxModelBuilder m(13);
//   m.input("x", {1, "C", 8, 8});
//   m.initializer("w", std::vector<float>{...}, {4, 3, 3, 3});
//   m.node("Conv", {"x", "w"}, {"y"}, {{"kernel_shape", {3, 3}}, {"group", 1}});
//   m.output("y");
//   std::string path = m.save("conv.onnx");
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include <onnx/onnx_pb.h>

namespace mo::test {

// One dimension of a value_info shape: a number, a symbol ("N"), or unknown (-1).
struct OnnxDim {
    OnnxDim(int64_t v) : value(v) {}
    OnnxDim(int v) : value(v) {}
    OnnxDim(const char* p) : param(p) {}
    OnnxDim(std::string p) : param(std::move(p)) {}
    int64_t value = -1;
    std::string param;
};

// One node attribute; integers, floats, strings, int/float lists and tensors.
struct OnnxAttr {
    template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
    OnnxAttr(std::string n, T v) : name(std::move(n)), type(onnx::AttributeProto::INT), i(static_cast<int64_t>(v)) {}
    OnnxAttr(std::string n, float v) : name(std::move(n)), type(onnx::AttributeProto::FLOAT), f(v) {}
    OnnxAttr(std::string n, double v) : name(std::move(n)), type(onnx::AttributeProto::FLOAT), f(static_cast<float>(v)) {}
    OnnxAttr(std::string n, const char* v) : name(std::move(n)), type(onnx::AttributeProto::STRING), s(v) {}
    OnnxAttr(std::string n, std::string v) : name(std::move(n)), type(onnx::AttributeProto::STRING), s(std::move(v)) {}
    OnnxAttr(std::string n, std::initializer_list<int64_t> v) : name(std::move(n)), type(onnx::AttributeProto::INTS), ints(v) {}
    OnnxAttr(std::string n, std::vector<int64_t> v) : name(std::move(n)), type(onnx::AttributeProto::INTS), ints(std::move(v)) {}
    OnnxAttr(std::string n, std::vector<float> v) : name(std::move(n)), type(onnx::AttributeProto::FLOATS), floats(std::move(v)) {}
    OnnxAttr(std::string n, onnx::TensorProto v) : name(std::move(n)), type(onnx::AttributeProto::TENSOR), t(std::move(v)) {}

    std::string name;
    onnx::AttributeProto::AttributeType type;
    int64_t i = 0;
    float f = 0;
    std::string s;
    std::vector<int64_t> ints;
    std::vector<float> floats;
    onnx::TensorProto t;
};

// Tensors for initializers and tensor attributes. raw = true stores raw_data (little endian),
// otherwise the typed field (float_data / int64_data).
onnx::TensorProto onnx_tensor(const std::string& name, const std::vector<float>& values,
                              const std::vector<int64_t>& dims, bool raw = true);
onnx::TensorProto onnx_tensor_i64(const std::string& name, const std::vector<int64_t>& values,
                                  const std::vector<int64_t>& dims, bool raw = true);
// A float initializer whose data is in the external file `location` (relative to the model).
onnx::TensorProto onnx_external_tensor(const std::string& name, const std::string& location,
                                       const std::vector<int64_t>& dims);

// A fresh path in this test process's temp directory (created on first use).
std::string onnx_temp_path(const std::string& file_name);

class OnnxModelBuilder {
public:
    // Imports the default domain at `opset` (more domains: import()).
    explicit OnnxModelBuilder(int64_t opset = 13);
    OnnxModelBuilder& import(const std::string& domain, int64_t version);

    // A graph input with a known rank; `elem_type` is an onnx::TensorProto::DataType.
    OnnxModelBuilder& input(const std::string& name, const std::vector<OnnxDim>& dims,
                            int32_t elem_type = onnx::TensorProto::FLOAT);
    // A graph input without shape information (dynamic rank).
    OnnxModelBuilder& input_any_rank(const std::string& name, int32_t elem_type = onnx::TensorProto::FLOAT);
    OnnxModelBuilder& output(const std::string& name, int32_t elem_type = onnx::TensorProto::FLOAT);

    OnnxModelBuilder& initializer(const std::string& name, const std::vector<float>& values,
                                  const std::vector<int64_t>& dims, bool raw = true);
    OnnxModelBuilder& initializer_i64(const std::string& name, const std::vector<int64_t>& values,
                                      const std::vector<int64_t>& dims, bool raw = true);
    OnnxModelBuilder& initializer(onnx::TensorProto tensor);

    // Adds a node; an empty input name is an absent optional input.
    onnx::NodeProto& node(const std::string& op_type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::vector<OnnxAttr>& attrs = {},
                          const std::string& name = {}, const std::string& domain = {});

    onnx::ModelProto& model() { return model_; }
    std::string bytes() const;  // serialized binary
    // Writes binary (.onnx) or text format (.prototxt, by extension) into the temp directory
    // (a relative name) or to an absolute path; returns the path.
    std::string save(const std::string& file_name) const;

private:
    onnx::ModelProto model_;
};

}  // namespace mo::test
