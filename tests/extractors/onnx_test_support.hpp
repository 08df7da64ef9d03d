// Loads and extracts a model built with OnnxModelBuilder; small lookup helpers.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "extractors/onnx/onnx_extractors.hpp"
#include "loaders/onnx/onnx_loader.hpp"
#include "support/graph_builder.hpp"
#include "support/onnx_model_builder.hpp"
#include "transforms/back/report_unsupported_ops.hpp"

namespace mo::test {

inline std::unique_ptr<Graph> convert_onnx(const OnnxModelBuilder& m, const std::string& file) {
    auto g = load_onnx(m.save(file), ConversionOptions{}, builtin_ops());
    ExtractorRegistry r;
    register_onnx_extractors(r);
    extract(*g, r);
    report_unsupported_ops(*g);  // as the pipeline does without a transformations config
    return g;
}

// The text of the error that loading and extracting `m` throws, or "no error".
inline std::string extract_error(const OnnxModelBuilder& m, const std::string& file) {
    try {
        convert_onnx(m, file);
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

// EXPECTs equal sizes and each element within `tol`.
inline void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-6) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

// An integer initializer of ONNX element type `type` (raw little-endian data), and its uint8 /
// int8 shorthands.
template <typename T>
inline onnx::TensorProto int_tensor(const std::string& name, int32_t type, const std::vector<T>& values,
                             const std::vector<int64_t>& dims) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(type);
    for (int64_t d : dims) t.add_dims(d);
    std::string raw(values.size() * sizeof(T), '\0');
    if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
    t.set_raw_data(raw);
    return t;
}

inline onnx::TensorProto u8s(const std::string& name, const std::vector<uint8_t>& v, const std::vector<int64_t>& dims) {
    return int_tensor(name, onnx::TensorProto::UINT8, v, dims);
}
inline onnx::TensorProto i8s(const std::string& name, const std::vector<int8_t>& v, const std::vector<int64_t>& dims) {
    return int_tensor(name, onnx::TensorProto::INT8, v, dims);
}

// EXPECTs the element type and exactly these values.
inline void expect_values(const Tensor& t, ElementType type, const std::vector<double>& want) {
    EXPECT_EQ(t.type(), type);
    const auto got = t.to_f64();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want[i]) << "element " << i;
}

// The node producing graph output `k`.
inline Node output_node(const Graph& g, size_t k = 0) { return g.results().at(k).in(0).src().node(); }

inline std::vector<double> const_values(const Node& n, size_t input) {
    const Tensor* v = n.in(input).value();
    EXPECT_NE(v, nullptr) << n.describe() << " input " << input << " is not constant";
    return v ? v->to_f64() : std::vector<double>{};
}

inline std::vector<int64_t> const_ints(const Node& n, size_t input) {
    const Tensor* v = n.in(input).value();
    EXPECT_NE(v, nullptr) << n.describe() << " input " << input << " is not constant";
    return v ? v->to_i64() : std::vector<int64_t>{};
}

// Evaluates an extracted graph with each op's eval (OpenVINO semantics); inputs by Parameter
// name; returns the Results' values in order.
inline std::vector<Tensor> evaluate(const Graph& g, const std::map<std::string, Tensor>& inputs) {
    std::map<std::pair<uint64_t, size_t>, Tensor> values;
    std::vector<Tensor> outputs;
    for (const Node& n : g.topological_order()) {
        std::vector<Tensor> in;
        for (size_t i = 0; i < n.input_count(); ++i) {
            if (!n.in(i).connected()) {
                in.emplace_back();
                continue;
            }
            OutPort src = n.in(i).src();
            in.push_back(values.at({src.node().id(), src.index()}));
        }
        std::vector<Tensor> out;
        if (n.is("Parameter")) out = {inputs.at(n.name())};
        else if (n.is("Result")) outputs.push_back(in.at(0));
        else if (n.out(0).value() && n.is("Constant")) out = {*n.out(0).value()};
        else if (n.op().eval) out = n.op().eval(n, in);
        else throw Error("no eval", n.describe());
        for (size_t j = 0; j < out.size(); ++j) values[{n.id(), j}] = out[j];
    }
    return outputs;
}

using Ints = std::vector<int64_t>;
using Doubles = std::vector<double>;

}  // namespace mo::test
