// The mapping of canonical ops to ONNX, one rule per op: the lowest ONNX opset (13 or above)
// that expresses it, and the function that writes its ONNX nodes through an OnnxNodeContext.
// The rules live in tables by family (rules_*.cpp), as the extractors do; the writer
// (onnx_writer.hpp) looks a node's rule up by its op type and names the op when there is none.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/graph.hpp"

namespace mo::onnx_emit {

// ONNX's TensorProto data type of an element type; throws mo::Error (naming `where`) for a type
// ONNX has no tensor type for (the packed types are stored unpacked: see docs/onnx-output.md).
int onnx_type(ElementType t, const std::string& where);

class GraphWriter;  // onnx_writer.cpp: names, initializers and opset needs of one model

// What a rule sees and writes: the node's inputs and outputs as ONNX value names, helpers that
// add ONNX nodes and initializers, and the opset the nodes need.
class OnnxNodeContext {
public:
    OnnxNodeContext(GraphWriter& writer, onnx::GraphProto& graph, Node node) : node(node), writer_(writer), graph_(graph) {}
    const Node node;

    // The ONNX value that input i reads (empty when the input is not connected).
    std::string in(size_t i) const;
    bool has_in(size_t i) const { return i < node.input_count() && node.in(i).connected(); }
    ElementType in_type(size_t i) const { return node.in(i).type(); }
    const PartialShape& in_shape(size_t i) const { return node.in(i).shape(); }
    const Tensor* in_value(size_t i) const { return has_in(i) ? node.in(i).value() : nullptr; }
    // Input i's value as integers / numbers; fails naming the node when it is not a constant.
    std::vector<int64_t> const_ints(size_t i, const std::string& what) const;
    std::vector<double> const_floats(size_t i, const std::string& what) const;
    // The name output j gets (the source model's tensor name where it has one).
    std::string out(size_t j) const;
    // Makes output j the value `name` (already produced elsewhere, e.g. a model input).
    void bind_out(size_t j, const std::string& name);
    // The graph being written (the main graph or a body), for rules that add inputs or outputs.
    onnx::GraphProto& graph() { return graph_; }
    ElementType out_type(size_t j) const { return node.out(j).type(); }
    const PartialShape& out_shape(size_t j) const { return node.out(j).shape(); }
    template <typename T> T attr(std::string_view name) const { return node.attr<T>(name); }

    // Adds an ONNX node reading `inputs` and writing `outputs`; returns outputs[0].
    std::string add(const std::string& op_type, std::vector<std::string> inputs, std::vector<std::string> outputs,
                    std::vector<onnx::AttributeProto> attrs = {}, const std::string& domain = {});
    // The same with one new intermediate output, named after the node and `hint`.
    std::string add_tmp(const std::string& op_type, std::vector<std::string> inputs,
                        std::vector<onnx::AttributeProto> attrs = {}, const std::string& hint = {});
    // A fresh value name, unique in the whole model (bodies included).
    std::string fresh(const std::string& hint) const;
    // Initializers: a tensor as it is, or small lists made here.
    std::string constant(const Tensor& value, const std::string& hint = {});
    // An initializer named `name` exactly: a model input's default value.
    void input_default(const std::string& name, const Tensor& value);
    std::string ints(const std::vector<int64_t>& values, const std::string& hint = {});  // 1-D i64
    std::string int_scalar(int64_t value, const std::string& hint = {});                   // 0-D i64
    // A 0-D (or 1-D of `values`) tensor of element type t.
    std::string scalar(double value, ElementType t, const std::string& hint = {});
    std::string values(const std::vector<double>& values, ElementType t, const std::string& hint = {});
    // A Cast of `value` to t (value itself when `from` is t already).
    std::string cast(const std::string& value, ElementType from, ElementType t);

    // The node needs at least this opset of the default domain / the com.microsoft domain.
    void need_opset(int version);
    void need_microsoft();

    // Writes a body graph (If, Loop): `parameter_values` names each body Parameter's value,
    // `inputs` are the body graph's declared inputs (Loop's iteration, condition and carried
    // values), `prologue` nodes come first (they compute values the parameters name).
    onnx::GraphProto body(const Graph& body, const std::string& name, const std::vector<std::string>& parameter_values,
                          const std::vector<onnx::ValueInfoProto>& inputs = {},
                          const std::vector<onnx::NodeProto>& prologue = {});
    // The value each Result of the last body() written reads.
    const std::vector<std::string>& body_results() const { return body_results_; }

    [[noreturn]] void fail(const std::string& what, const std::string& hint = {}) const;

private:
    GraphWriter& writer_;
    onnx::GraphProto& graph_;
    std::vector<std::string> body_results_;
};

// ONNX node attributes.
onnx::AttributeProto a_int(const std::string& name, int64_t v);
onnx::AttributeProto a_float(const std::string& name, double v);
onnx::AttributeProto a_str(const std::string& name, const std::string& v);
onnx::AttributeProto a_ints(const std::string& name, const std::vector<int64_t>& v);
onnx::AttributeProto a_floats(const std::string& name, const std::vector<double>& v);
onnx::AttributeProto a_strs(const std::string& name, const std::vector<std::string>& v);
onnx::AttributeProto a_graph(const std::string& name, onnx::GraphProto g);

// A node for a graph being built by hand (bodies' prologues and epilogues).
onnx::NodeProto make_node(const std::string& op_type, const std::string& name, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, std::vector<onnx::AttributeProto> attrs = {});
// A value_info of type t (and shape s when given).
onnx::ValueInfoProto typed_value(const std::string& name, ElementType t, const PartialShape& s = PartialShape::dynamic_rank());

using EmitFn = std::function<void(OnnxNodeContext&)>;

struct OnnxRule {
    std::string type;  // canonical op type
    int since = 13;    // lowest ONNX opset of the default domain that expresses it
    EmitFn emit;
    std::string note;  // how it maps, for docs and --log_level DEBUG: "Resize", "decomposed: x * sigmoid(x)"
};

// Rows of each family (rules_*.cpp).
std::vector<OnnxRule> eltwise_rules();
std::vector<OnnxRule> shape_rules();
std::vector<OnnxRule> nn_rules();
std::vector<OnnxRule> quantization_rules();
std::vector<OnnxRule> control_flow_rules();
std::vector<OnnxRule> detection_rules();
std::vector<OnnxRule> sequence_rules();

// Every rule, keyed by op type; nullptr when the op has no ONNX form.
const OnnxRule* find_rule(std::string_view type);
const std::vector<OnnxRule>& all_rules();

// Weight decompression written as one DequantizeLinear (rules_quantization.cpp): the plan of
// each Multiply that ends such a sub-graph, and the Converts / Subtracts it absorbs.
struct DequantizePlan {
    Node weights;                     // the integer Constant
    ElementType type = ElementType::i8;  // its stored type (int4 stored as int8)
    int64_t axis = -1;                // -1: per tensor
    std::vector<double> scale, zero_point;
};
struct WeightDequantization {
    std::map<const Graph*, std::map<uint64_t, DequantizePlan>> multiply;
    std::map<const Graph*, std::set<uint64_t>> absorbed;
};
void plan_weight_dequantization(const Graph& graph, WeightDequantization& plans);
void emit_dequantize(OnnxNodeContext& c, const DequantizePlan& plan, const std::string& weights);

// Shorthands for rows.
// The ONNX op `onnx_type` on the same inputs, in order, writing the same outputs.
EmitFn same_as(std::string onnx_type, std::vector<onnx::AttributeProto> attrs = {});

}  // namespace mo::onnx_emit
