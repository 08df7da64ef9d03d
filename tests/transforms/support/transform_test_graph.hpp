// Test support for transformation tests: an op registry (the built-in ops plus two test-only
// ops), a graph builder on it, a structural graph dump for comparing graphs, and an evaluator
// (each op's eval) for comparing numbers before/after a rewrite.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "transforms/transformation.hpp"

namespace mo::test {

// The built-in ops plus two test-only ops: "TestSensitive" (input 1 is precision sensitive)
// and "TestCounted" (identity whose evaluations are counted in counted_evals()).
const OpRegistry& transform_test_ops();
int& counted_evals();

class TestGraph {
public:
    TestGraph();
    Graph& graph() { return *graph_; }
    Graph* operator->() { return graph_.get(); }

    OutPort input(ElementType type, PartialShape shape, std::string name);
    template <typename T>
    OutPort constant(std::vector<T> values, Shape shape, std::string name) {
        return graph_->add_constant(std::move(name), Tensor::from_vector<T>(values, std::move(shape))).out(0);
    }
    OutPort op(const std::string& type, const std::vector<OutPort>& inputs, const AttrMap& attrs, std::string name);
    Node output(OutPort value, std::string name);

private:
    std::unique_ptr<Graph> graph_;
};

// One line per node, sorted by node name: name, type, set attributes, inputs (source name:port),
// output tensor names, constant values, rt_info. Equal dumps = structurally equal graphs.
std::string dump(const Graph& g);

// Attributes of a 2D convolution with stride 1, no padding, no dilation.
AttrMap conv2d_attrs();

// Runs partial inference on the whole graph.
void infer(Graph& g);
// Runs one transformation (with a default ConversionOptions unless given), then partial inference.
bool run_pass(Transformation& t, Graph& g, const ConversionOptions& options = {});

// Evaluates the graph's results for the given Parameter values (by name) with each op's eval.
std::vector<Tensor> evaluate(const Graph& g, const std::map<std::string, Tensor>& inputs);

}  // namespace mo::test
