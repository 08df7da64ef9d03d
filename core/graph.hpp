// The one graph form of every phase: a bidirectional multigraph (its edge store kept out of this
// header) whose edges carry (out_port, in_port). The tensor a port produces (element type,
// partial shape, optional constant value, tensor names) lives on the output port. Passes use
// Node / InPort / OutPort handles and never see descriptors.
#pragma once

#include <map>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api.hpp"
#include "attributes.hpp"
#include "error.hpp"
#include "framework_attributes.hpp"
#include "op_schema.hpp"
#include "subgraph.hpp"
#include "tensor.hpp"

namespace mo {

class Graph;
struct GraphAccess;
struct NodeData;
class OutPort;

// A port's value when it is known at conversion time, held apart with std::optional's reading
// interface: most ports have none, and an empty std::optional<Tensor> took 56 bytes of each of
// a million-node graph's ports (this takes 8).
class KnownValue {
public:
    KnownValue() = default;
    KnownValue(const KnownValue& o) : t_(o.t_ ? std::make_unique<Tensor>(*o.t_) : nullptr) {}
    KnownValue(KnownValue&&) noexcept = default;
    KnownValue& operator=(const KnownValue& o) {
        if (this != &o) t_ = o.t_ ? std::make_unique<Tensor>(*o.t_) : nullptr;
        return *this;
    }
    KnownValue& operator=(KnownValue&&) noexcept = default;
    KnownValue& operator=(Tensor t) {
        t_ = std::make_unique<Tensor>(std::move(t));
        return *this;
    }
    explicit operator bool() const { return t_ != nullptr; }
    bool has_value() const { return t_ != nullptr; }
    const Tensor& operator*() const { return *t_; }
    Tensor& operator*() { return *t_; }
    const Tensor* operator->() const { return t_.get(); }
    Tensor* operator->() { return t_.get(); }
    void reset() { t_.reset(); }

private:
    std::unique_ptr<Tensor> t_;
};

// The tensor an output port produces.
struct OutputData {
    ElementType type = ElementType::dynamic;
    PartialShape shape = PartialShape::dynamic_rank();
    KnownValue value;                // set when the value is known at conversion time
    std::vector<std::string> names;  // tensor names (the source model's output names)
};

// What a loader knows about a node before extraction: framework op type, domain, opset
// version of that domain and its attributes.
struct FrameworkInfo {
    std::string framework;  // "onnx", "tflite", ...
    std::string domain;     // ONNX domain ("" for ai.onnx); TFLite: "custom" for CUSTOM ops
    std::string type;
    int64_t opset = 0;
    std::shared_ptr<const FrameworkAttributes> attributes;  // null: the node has none
};

// rt_info key (version "0"): this op must stay in f32 (see Node::rt_info).
inline constexpr const char* kDisableFp16Compression = "disable_fp16_compression";
// rt_info key (version "0"): this Convert decompresses stored low-precision weights (f16, u8,
// u4, ...); constant folding leaves it alone, as OpenVINO's does.
inline constexpr const char* kDecompression = "decompression";

namespace detail {
// What every walk over nodes reads, kept where Node's accessors can read it inline (the rest of
// a node is in core/graph.cpp).
struct NodeCore {
    Graph* graph = nullptr;
    uint64_t id = 0;
    const OpSchema* op = nullptr;
};
}  // namespace detail

class MO_API Node {
public:
    Node() = default;
    explicit Node(NodeData* d);
    explicit operator bool() const { return d_ != nullptr; }
    bool operator==(const Node& o) const { return d_ == o.d_; }
    bool operator!=(const Node& o) const { return d_ != o.d_; }
    bool operator<(const Node& o) const { return id() < o.id(); }

    Graph& graph() const { return *d_->graph; }
    uint64_t id() const { return d_->id; }  // unique in its graph, increasing in creation order
    const std::string& name() const;
    void set_name(std::string name) const;
    const OpSchema& op() const { return *d_->op; }
    const std::string& type() const { return op().type; }
    bool is(std::string_view type) const { return op().type == type; }
    // Replaces the op (used by extraction); clears attributes set for the old op.
    void set_op(const OpSchema& op) const;

    // Attributes: a set value, else the schema default; throws mo::Error naming the node when
    // a required attribute is missing.
    template <typename T> T attr(std::string_view name) const { return std::get<T>(attr_value(name)); }
    const AttrValue& attr_value(std::string_view name) const;
    bool has_attr(std::string_view name) const;  // set explicitly on this node
    template <typename T> void set_attr(std::string_view name, T value) const { set_attr_value(name, AttrValue(std::move(value))); }
    void set_attr_value(std::string_view name, AttrValue value) const;  // checks name and kind against the schema
    const AttrMap& attrs() const;

    size_t input_count() const;
    void set_input_count(size_t n) const;  // disconnects inputs beyond n
    size_t output_count() const;
    void set_output_count(size_t n) const;  // disconnects consumers of outputs beyond n
    class InPort in(size_t i) const;
    OutPort out(size_t i) const;

    // Kept until extraction gives the node a canonical op: then it is released (an empty one is
    // made if asked for again). A node given a source index (set_framework_source) has it made
    // on first use by its graph's framework source.
    FrameworkInfo& framework() const;
    void set_framework_source(uint32_t index) const;
    // Releases this node's FrameworkInfo (extraction does, node by node, once the node has its
    // canonical op).
    void release_framework() const;
    // Names of source-model nodes fused into this one (provenance, for rt_info and debugging).
    std::vector<std::string>& fused_names() const;
    // Layer rt_info written by the emitter: attribute name -> version (e.g. "decompression" -> "0").
    // OpenVINO's "disable_fp16_compression" (kDisableFp16Compression) keeps an op in f32: the
    // f16 compression leaves its constant inputs f32, and OpenVINO keeps it out of f16 inference.
    std::map<std::string, std::string>& rt_info() const;
    // The same for reading: empty for a node that has none, without making storage for them
    // (made on first use of the two above: most nodes never have any).
    const std::vector<std::string>& read_fused_names() const;
    const std::map<std::string, std::string>& read_rt_info() const;
    bool has_rt_info(std::string_view key) const;  // read_rt_info() has this key
    // "node 'conv1' (Convolution)": for error messages.
    std::string describe() const;
    // Whether `name` is this node's name or one of its tensor names (a Result's are those of
    // the value it reads): how users name model inputs and outputs on the command line.
    bool answers_to(std::string_view name) const;
    // Set when inputs, attributes or the op changed since the last shape inference (partial
    // inference clears it after inferring the node).
    bool needs_infer() const;
    void set_inferred() const;
    void set_needs_infer() const;

    // Bodies of a sub-graph op (If, Loop, TensorIterator), in the op's order; empty for others.
    std::vector<Body>& bodies() const;
    // Adds an empty body graph owned by this node (its Parameters and Results are added later).
    // The reference stays valid until the next add_body() on this node.
    Body& add_body(std::string role) const;

private:
    friend class Graph;
    friend class InPort;
    friend class OutPort;
    friend struct GraphAccess;  // core/graph_data.hpp
    NodeData* data() const;

    detail::NodeCore* d_ = nullptr;
};

class MO_API OutPort {
public:
    OutPort() = default;
    OutPort(Node n, size_t i) : node_(n), index_(i) {}
    Node node() const { return node_; }
    size_t index() const { return index_; }
    bool operator==(const OutPort& o) const { return node_ == o.node_ && index_ == o.index_; }

    // Consumers, ordered by (consumer id, input index): deterministic.
    std::vector<class InPort> targets() const;
    bool has_targets() const;
    size_t target_count() const;  // targets().size() without building the list

    OutputData& data() const;
    ElementType type() const { return data().type; }
    const PartialShape& shape() const { return data().shape; }
    const Tensor* value() const;  // nullptr when not known
    std::vector<std::string>& names() const { return data().names; }
    void set_type_and_shape(ElementType t, PartialShape s) const;
    void set_value(Tensor v) const;  // also sets type and shape

    // Moves every consumer of this port to `other` (tensor names stay here).
    void replace_all_uses_with(const OutPort& other) const;

private:
    Node node_;
    size_t index_ = 0;
};

class MO_API InPort {
public:
    InPort() = default;
    InPort(Node n, size_t i) : node_(n), index_(i) {}
    Node node() const { return node_; }
    size_t index() const { return index_; }
    bool operator==(const InPort& o) const { return node_ == o.node_ && index_ == o.index_; }

    std::optional<OutPort> source() const;
    bool connected() const;
    // Connects to `src`, replacing any current source; marks the node for re-inference.
    void connect(const OutPort& src) const;
    void disconnect() const;
    // Shorthands for the source's data; the port must be connected.
    OutPort src() const;  // throws MO_ASSERT when not connected
    ElementType type() const { return src().type(); }
    const PartialShape& shape() const { return src().shape(); }
    const Tensor* value() const { return connected() ? src().value() : nullptr; }

private:
    Node node_;
    size_t index_ = 0;
};

// --max_constant_size's default: 2 GiB.
inline constexpr int64_t kDefaultMaxConstantBytes = int64_t{2} << 30;

class MO_API Graph {
public:
    explicit Graph(const OpRegistry& ops);
    ~Graph();
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    const OpRegistry& ops() const { return *ops_; }
    // The node whose body this graph is; empty for the model's graph.
    Node owner() const { return owner_; }
    const std::string& owner_role() const { return owner_role_; }
    void set_owner_role(std::string role) { owner_role_ = std::move(role); }

    // Adds an unconnected node. Input/output counts default to the schema's minimum / count.
    Node add_node(const OpSchema& op, std::string name);
    Node add_node(std::string_view type, std::string name) { return add_node(ops_->get(type), std::move(name)); }
    // Adds a node with these inputs connected in order and these attributes set.
    Node add_op(std::string_view type, std::string name, const std::vector<OutPort>& inputs, const AttrMap& attrs = {});
    // Adds a Constant node producing `value`.
    Node add_constant(std::string name, Tensor value);
    void remove_node(Node n);

    // Moves every consumer of old_node's outputs to new_node's outputs (same index), moves the
    // tensor names and the node name to new_node, records old_node in new_node's fused names,
    // and removes old_node. Both must have the same output count.
    void replace(Node old_node, Node new_node);

    size_t node_count() const;
    std::vector<Node> nodes() const;  // in id order
    // How many nodes have this op: passes rooted at ops the graph does not have skip it.
    size_t count_of(const OpSchema& op) const;
    // Whether any node was given a body (Node::add_body) and is still in the graph.
    bool has_bodies() const;
    // Producers before consumers; among ready nodes the smallest id first (deterministic).
    // Throws mo::Error naming a node on a cycle.
    std::vector<Node> topological_order() const;
    Node find_by_name(std::string_view name) const;  // empty Node when absent (linear scan)
    Node find_by_id(uint64_t id) const;              // empty Node when removed
    // Every node's id is below this: tables indexed by id can be vectors of this size.
    uint64_t id_limit() const;

    // Model inputs and outputs in the source model's order (Parameter and Result nodes).
    std::vector<Node>& parameters() { return parameters_; }
    const std::vector<Node>& parameters() const { return parameters_; }
    std::vector<Node>& results() { return results_; }
    const std::vector<Node>& results() const { return results_; }
    // Nodes kept although nothing reads their outputs (Assign, which writes a variable): like
    // Results they keep what they read alive, and the IR lists them as the model's sinks.
    std::vector<Node>& sinks() { return sinks_; }
    const std::vector<Node>& sinks() const { return sinks_; }

    // Removes nodes from which no Result or sink is reachable, except Parameters. Returns how many.
    size_t remove_dead_nodes();
    // Releases the FrameworkInfo of every node that is no longer a FrameworkNode (extraction
    // does, once done: on a large graph it is a quarter of the memory).
    void release_framework_info();
    // Makes the FrameworkInfo of a node given an index (Node::set_framework_source) on its first
    // use: a loader of a million nodes keeps their op types and attributes in the model's bytes
    // instead of a million FrameworkInfos. Dropped once no node waits for it.
    void set_framework_source(std::function<FrameworkInfo(uint32_t index)> source);

    // Increases on every structural change (node added/removed, input (re)connected, op set):
    // the registry reports it per transformation.
    uint64_t change_count() const { return change_count_; }
    void note_change() { ++change_count_; }

    // Source model description (file name, framework) kept for error messages and meta data.
    std::string source_path;
    std::string source_framework;
    std::string source_layout;  // "NHWC" for TFLite and TensorFlow sources: the layout change applies
    // The largest tensor constant folding may create in this graph, in bytes (--max_constant_size;
    // a body takes its owner's): a node whose output would be larger stays unfolded.
    int64_t max_constant_bytes = kDefaultMaxConstantBytes;
    // Keeps loader state alive (protobuf message, mapped file) as long as the graph lives.
    std::vector<std::shared_ptr<const void>> keep_alive;

private:
    friend class Node;
    friend class InPort;
    friend class OutPort;
    friend struct GraphAccess;  // core/graph_data.hpp
    struct Impl;  // the node table, kept out of this header
    Impl& impl() const { return *impl_; }
    std::vector<Node> compute_topological_order() const;
    uint64_t clean_up_key() const;

    const OpRegistry* ops_;
    Node owner_;
    std::string owner_role_;
    std::unique_ptr<Impl> impl_;
    std::vector<Node> parameters_, results_, sinks_;
    uint64_t change_count_ = 0;
};

// Removes an unused body Parameter and its port map entry; later Parameters move up by one.
MO_API void remove_body_parameter(Body& body, size_t parameter);

// Removes input `input` of a node with bodies (no port map entry may read it any more); later
// inputs move up by one, and so do the port maps' references to them.
MO_API void remove_subgraph_op_input(Node node, size_t input);

// What an op's shape inference sees and sets.
class MO_API InferContext {
public:
    explicit InferContext(Node n) : node(n) {}
    Node node;

    size_t input_count() const { return node.input_count(); }
    bool has_input(size_t i) const { return i < node.input_count() && node.in(i).connected(); }
    const PartialShape& in_shape(size_t i) const { return node.in(i).shape(); }
    ElementType in_type(size_t i) const { return node.in(i).type(); }
    const Tensor* in_value(size_t i) const { return has_input(i) ? node.in(i).value() : nullptr; }
    template <typename T> T attr(std::string_view name) const { return node.attr<T>(name); }

    void set_output(size_t j, ElementType t, PartialShape s) const { node.out(j).set_type_and_shape(t, std::move(s)); }
    // Throws mo::Error naming the node and op.
    [[noreturn]] void fail(const std::string& what, const std::string& hint = {}) const;
};

}  // namespace mo
