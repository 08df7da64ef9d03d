// TensorFlow's function library in mo's graphs. A function (GraphDef.library's FunctionDef) is
// instantiated into a graph with its arguments bound to given ports; the functional control
// flow ops get bodies built that way (core/subgraph.hpp), in the port-map form of OpenVINO's If
// and Loop, which their extractors (extractors/tf/tf_control_flow.cpp) then only rename:
//   If / StatelessIf (cond, x...)   then_body / else_body: Parameters x..., Results the branch's
//                                    outputs (Invariant inputs, Last outputs)
//   While / StatelessWhile (x...)   inputs become (trip count -1, cond(x) computed outside, x...);
//                                    body: Parameters x, Results body(x) and then cond(body(x)),
//                                    the condition (Merged inputs, Last outputs)
//                                    a TensorList of unknown element shape that tf.map_fn fills,
//                                    one element per iteration, is the Loop's concatenated output
//   PartitionedCall / StatefulPartitionedCall (x...)   inlined: the function's nodes replace the call
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "loaders/tf/tf_graph.pb.h"

namespace mo {

class TfFunctions {
public:
    // `path` names the model in errors; `weights` are a TF.js model's (constants by node name).
    TfFunctions(const mo_tf::GraphDef& graph, std::string path, const std::map<std::string, Tensor>& weights);

    bool empty() const { return functions_.empty(); }
    // Whether `op` is one this class gives bodies to or inlines.
    static bool is_functional(const std::string& op);

    // Builds the bodies of `node` (a FrameworkNode of functional op `def`, its inputs connected),
    // or inlines the call it is: then its consumers move to the function's outputs, which are
    // returned, and the node is removed. `depth` counts the enclosing bodies.
    std::optional<std::vector<OutPort>> expand(Graph& graph, Node node, const mo_tf::NodeDef& def, size_t depth);

    // Adds function `name`'s nodes to `graph` (names prefixed with `prefix`), its arguments
    // bound to `args`; returns its outputs in the signature's order.
    std::vector<OutPort> instantiate(const std::string& name, Graph& graph, const std::vector<OutPort>& args,
                                     const std::string& prefix, size_t depth, const std::string& where);

private:
    const mo_tf::FunctionDef& function(const std::string& name, const std::string& where) const;
    std::string func_attr(const mo_tf::NodeDef& def, const char* attr, const std::string& where) const;
    void build_if(Graph& graph, Node node, const mo_tf::NodeDef& def, size_t depth);
    void build_while(Graph& graph, Node node, const mo_tf::NodeDef& def, size_t depth);
    void lower_mapped_lists(Graph& graph, Node loop);
    std::vector<OutPort> inline_call(Graph& graph, Node node, const mo_tf::NodeDef& def, size_t depth);

    static constexpr size_t kMaxInstantiatedNodes = size_t{1} << 20;
    size_t instantiated_ = 0;    // nodes added by instantiate, in all
    size_t extra_outputs_ = 0;   // their outputs beyond each node's first (kMaxTfExtraOutputs in all)
    std::map<std::string, const mo_tf::FunctionDef*> functions_;
    std::string path_;
    const std::map<std::string, Tensor>& weights_;
};

}  // namespace mo
