// An op schema: everything mo knows about one op type, declared once in a table in ops/.
// IR ops carry their IR type spelling and opset version; internal ops (framework-level ops
// still waiting to be lowered) have no IR version and the emitter refuses them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api.hpp"
#include "attributes.hpp"
#include "tensor.hpp"

namespace mo {

class Node;
class InferContext;

// Sets the element type and partial shape of every output from the inputs and attributes.
using InferFn = std::function<void(InferContext&)>;
// Computes the outputs from concrete input tensors (inputs[i] is empty for an absent optional
// input). Follows the OpenVINO opset semantics; used by constant folding and validation.
using EvalFn = std::function<std::vector<Tensor>(const Node&, const std::vector<Tensor>& inputs)>;

// How the NHWC -> NCHW layout change (transforms/middle/layout_change.hpp) passes an op that has
// no row of its own there: a plugin's op says whether a Transpose may move behind it.
enum class LayoutRole : uint8_t {
    Stops,        // the op's meaning depends on axes: a Transpose stays in front of it
    Transparent,  // one output, y[i] = f(x[i]) of input 0; other inputs hold no per-element data
    Elementwise,  // one output of two inputs broadcast numpy-style, y[i] = f(a[i], b[i])
};

struct MO_API OpSchema {
    std::string type;        // canonical name used in code and tests, e.g. "Relu", "Constant"
    std::string ir_type;     // spelling in <layer type=...>, e.g. "ReLU", "Const"; empty: internal op
    std::string ir_version;  // "opset1", ...; empty for internal ops
    size_t min_inputs = 0;
    size_t max_inputs = 0;   // SIZE_MAX: variadic
    size_t num_outputs = 1;  // SIZE_MAX: set per node (Split)
    std::vector<AttrSpec> attrs;
    InferFn infer;
    EvalFn eval;             // empty: the op cannot be folded or evaluated
    // Inputs whose value must stay exact (e.g. Interpolate scales): never compressed to f16.
    std::vector<size_t> precision_sensitive_inputs;
    LayoutRole layout = LayoutRole::Stops;
    // Set by OpRegistry::add: "built-in" or the file of the plugin that registered the op, so
    // that a failure of its inference or evaluation names the plugin (core/plugin_code.hpp).
    std::string origin = "built-in";

    bool is_internal() const { return ir_version.empty(); }
    const AttrSpec* find_attr(std::string_view name) const;
    // How many inputs the op takes, for messages: "2", "1 to 3", "1 or more".
    std::string input_count_text() const;
};

// All op schemas known to this run: the built-in ones (ops/) and those plugins add.
class MO_API OpRegistry {
public:
    // Adds a schema; throws mo::Error if the type is already registered.
    void add(OpSchema schema);
    // Registrations made until the next call are attributed to `origin` (a plugin's path).
    void set_origin(std::string origin) { origin_ = std::move(origin); }
    // "built-in" or the file of the plugin that registered the type.
    const std::string& origin(std::string_view type) const;
    const OpSchema* find(std::string_view type) const;
    const OpSchema& get(std::string_view type) const;  // throws mo::Error when unknown
    size_t size() const { return schemas_.size(); }
    std::vector<std::string> types() const;  // sorted

private:
    // Stable addresses: nodes point at the schemas.
    std::map<std::string, std::unique_ptr<OpSchema>, std::less<>> schemas_;
    std::string origin_ = "built-in";
};

}  // namespace mo
