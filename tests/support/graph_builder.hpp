// Builds small graphs for tests:
//   GraphBuilder b;  auto x = b.input(ElementType::f32, {1, 3, 8, 8});
//   auto y = b.op("Add", {x, b.constant(3.f)});  b.output(y);
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/graph.hpp"

namespace mo::test {

// The built-in op registry, created once per test binary.
const OpRegistry& builtin_ops();

class GraphBuilder {
public:
    GraphBuilder();
    Graph& graph() { return *graph_; }
    std::unique_ptr<Graph> release() { return std::move(graph_); }

    OutPort input(ElementType type, PartialShape shape, std::string name = {});
    template <typename T>
    OutPort constant(std::vector<T> values, Shape shape, std::string name = {}) {
        return graph_->add_constant(fresh(name, "const"), Tensor::from_vector<T>(values, std::move(shape))).out(0);
    }
    OutPort constant(float value) { return constant<float>({value}, {}); }
    // One-output op; attributes as name -> value.
    OutPort op(const std::string& type, const std::vector<OutPort>& inputs, const AttrMap& attrs = {}, std::string name = {});
    Node node(const std::string& type, const std::vector<OutPort>& inputs, const AttrMap& attrs = {}, std::string name = {});
    Node output(OutPort value, std::string name = {});

private:
    std::string fresh(const std::string& name, const std::string& prefix);
    std::unique_ptr<Graph> graph_;
    size_t counter_ = 0;
};

}  // namespace mo::test
