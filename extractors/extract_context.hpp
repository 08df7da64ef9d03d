// What an extractor sees: the FrameworkNode, typed getters for its attributes (the framework's
// defaults are passed by the caller, per opset), its inputs, and helpers that build the
// canonical ops replacing it. Names of added nodes derive from the framework node's name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "../core/api.hpp"
#include "../core/graph.hpp"
#include "extractor_registry.hpp"

namespace mo {

class MO_API ExtractContext {
public:
    ExtractContext(Graph& graph, Node node);

    Graph& graph() const { return graph_; }
    Node node() const { return node_; }  // the FrameworkNode being extracted
    const FrameworkInfo& framework() const { return node_.framework(); }
    int64_t opset() const { return node_.framework().opset; }
    const std::string& name() const { return name_; }

    // Attributes. The getters with a default return it when the attribute is absent; the
    // others fail when it is absent. A wrong attribute type fails.
    bool has(std::string_view attr) const;
    int64_t i(std::string_view attr) const;
    int64_t i(std::string_view attr, int64_t def) const;
    double f(std::string_view attr, double def) const;
    std::string s(std::string_view attr, std::string def) const;
    std::vector<int64_t> ints(std::string_view attr, std::vector<int64_t> def = {}) const;
    std::vector<double> floats(std::string_view attr, std::vector<double> def = {}) const;
    std::vector<std::string> strings(std::string_view attr, std::vector<std::string> def = {}) const;
    Tensor tensor(std::string_view attr) const;

    // Inputs of the framework node (an absent optional input is an unconnected port).
    size_t input_count() const { return node_.input_count(); }
    bool has_input(size_t i) const { return i < node_.input_count() && node_.in(i).connected(); }
    OutPort input(size_t i) const;                 // fails when absent
    const Tensor* input_value(size_t i) const;     // the constant value, or nullptr
    std::vector<int64_t> input_ints(size_t i) const;  // fails unless constant
    size_t output_count() const { return node_.output_count(); }
    // True when output j exists and something (a node or a Result) consumes it.
    bool output_used(size_t j) const;

    // Builders. `suffix` names the node "<node name>/<suffix>"; an empty suffix gives the
    // framework node's name itself (use it for the node that takes over the outputs).
    Node add(std::string_view type, const std::string& suffix, const std::vector<OutPort>& inputs,
             const AttrMap& attrs = {});
    OutPort op(std::string_view type, const std::string& suffix, const std::vector<OutPort>& inputs,
               const AttrMap& attrs = {}) {
        return add(type, suffix, inputs, attrs).out(0);
    }
    OutPort constant(const std::string& suffix, Tensor value);
    OutPort i64s(const std::string& suffix, const std::vector<int64_t>& values);  // 1D
    OutPort i64(const std::string& suffix, int64_t value);                         // scalar
    // A scalar of `like`'s element type: typed directly when known, otherwise f32 + ConvertLike.
    OutPort scalar_like(const std::string& suffix, double value, const OutPort& like);
    // The static rank of a port, or -1.
    static int64_t rank_of(const OutPort& p);
    // [from, from+1, ..., rank-1] for `x`: a Constant when the rank is known, else computed.
    OutPort axes_from(const std::string& suffix, const OutPort& x, int64_t from);
    // Dimension `axis` of `x` (negative counts from the end) as an i64 scalar: ShapeOf + Gather.
    OutPort dim(const std::string& suffix, const OutPort& x, int64_t axis);

    // Turns the FrameworkNode itself into `type`: inputs stay (trailing absent ones are
    // dropped), outputs keep their consumers and names.
    Node become(std::string_view type, const AttrMap& attrs = {});
    // Hands framework output j to `port`: its consumers and tensor names move there. An output
    // the model leaves out (j beyond its outputs, as ONNX may omit optional ones) is skipped.
    void set_output(size_t j, const OutPort& port);

    // Sets an attribute, converting between the equivalent kinds (int/bool/float, string/type).
    static void set(const Node& n, std::string_view name, AttrValue value);

    // Nodes added by the builders, in creation order.
    const std::vector<Node>& created() const { return created_; }

    std::string where() const;
    [[noreturn]] void fail(const std::string& what, const std::string& hint = {}) const;
    [[noreturn]] void unsupported(const std::string& what) const;

private:
    std::optional<FrameworkAttr> find(std::string_view attr) const;
    // The attribute's value; fails when it is absent or of another kind.
    template <typename T> T get(std::string_view attr) const;

    Graph& graph_;
    Node node_;
    std::string name_;
    std::vector<Node> created_;
};

}  // namespace mo
