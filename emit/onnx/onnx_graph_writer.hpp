// Turns a graph (and its bodies) into ONNX GraphProtos: value names unique in the whole model,
// Parameters as graph inputs, Constants as initializers of the main graph (bodies read them
// from the outer scope), every other node through its rule, Results as graph outputs.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/graph.hpp"
#include "emit/onnx/onnx_rules.hpp"

namespace mo::onnx_emit {

struct Initializer {
    std::string name;
    Tensor value;  // in the type ONNX stores (packed types unpacked)
};

class GraphWriter {
public:
    // Fills `out` with the main graph (no name). Throws mo::Error listing every node without an
    // ONNX rule before anything is written.
    void write_main(const Graph& graph, onnx::GraphProto& out);
    // A body: `parameter_values` names each body Parameter's value (an outer value or an input
    // of the body that the caller declares); returns the value each Result reads.
    std::vector<std::string> write_body(const Graph& body, onnx::GraphProto& out,
                                        const std::vector<std::string>& parameter_values);

    // The name of a node output, given on first use.
    std::string value_name(const OutPort& port);
    void bind(const OutPort& port, const std::string& name) { names_of(port.node())[port.index()] = name; }
    std::string fresh(const std::string& hint);
    std::string add_initializer(const std::string& hint, const Tensor& value);
    void add_named_initializer(const std::string& name, const Tensor& value);

    void need_opset(int v) { opset_ = std::max(opset_, v); }
    void need_microsoft() { microsoft_ = true; }
    int opset() const { return opset_; }
    bool uses_microsoft() const { return microsoft_; }
    const std::vector<Initializer>& initializers() const { return initializers_; }

private:
    void write_nodes(const Graph& graph, onnx::GraphProto& out);
    std::vector<std::string>& names_of(const Node& n);

    std::unordered_set<std::string> used_;
    struct NodeKey {
        const Graph* graph;
        uint64_t id;
        bool operator==(const NodeKey&) const = default;
    };
    struct NodeKeyHash {
        size_t operator()(const NodeKey& k) const { return std::hash<const void*>()(k.graph) ^ (k.id * 0x9E3779B97F4A7C15ull); }
    };
    std::unordered_map<NodeKey, std::vector<std::string>, NodeKeyHash> names_;
    std::vector<Initializer> initializers_;
    WeightDequantization dequantization_;
    // Small initializers the rules make (axes, shapes, scalars), by type, shape and bytes: each stored once.
    std::unordered_map<std::string, std::string> small_initializers_;
    int opset_ = 13;
    bool microsoft_ = false;
};

// A value_info of element type t and shape s (dynamic dims unnamed; no shape for a dynamic rank).
onnx::ValueInfoProto value_info(const std::string& name, ElementType t, const PartialShape& s, bool with_shape = true);

}  // namespace mo::onnx_emit
