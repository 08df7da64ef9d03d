// TensorFlow GraphDefs built by tests (tests/loaders/tf_loader_test.cpp,
// tests/extractors/tf_extractors_test.cpp): nodes, constants and placeholders, a small NHWC graph,
// and conversion of a graph to an IR evaluated on inputs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "loaders/tf/tf_graph.pb.h"

namespace mo::test::tf {

std::filesystem::path scratch();
mo_tf::NodeDef& node(mo_tf::GraphDef& g, const std::string& name, const std::string& op, std::vector<std::string> inputs);
void set_s(mo_tf::NodeDef& n, const std::string& k, const std::string& v);
void set_ints(mo_tf::NodeDef& n, const std::string& k, std::vector<int64_t> v);
mo_tf::NodeDef& constant(mo_tf::GraphDef& g, const std::string& name, mo_tf::DataType type, std::vector<int64_t> shape,
                         const std::vector<float>& f, const std::vector<int32_t>& i = {});
// x [1, 2, 2, 1] -> Conv2D(1x1 filter 2) -> BiasAdd(1) -> Relu -> Mean(H, W, keep) = mean
//                                                            \-> MaxPool 2x2 = max
mo_tf::GraphDef small_graph();
// Writes `g` as a binary .pb under the tests' scratch directory; returns its path.
std::string save(const mo_tf::GraphDef& g, const std::string& name);
// Converts the model at `path` (f32 weights) and evaluates output `output` on small_graph's input
// [1, -3, 2, 4]; counts the IR's Transposes into `transposes` when given.
std::vector<double> run(const std::string& path, size_t output, int* transposes = nullptr);
mo_tf::NodeDef& placeholder(mo_tf::GraphDef& g, const std::string& name, std::vector<int64_t> shape);
// Converts `g` (saved as `name`) and evaluates the IR on `inputs`.
std::vector<Tensor> convert_and_evaluate(const mo_tf::GraphDef& g, const std::string& name, std::vector<Tensor> inputs);

}  // namespace mo::test::tf
