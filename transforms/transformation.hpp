// The transformation interface. A transformation has an id, a phase and declared order
// constraints; the registry (registry.hpp) decides when it runs.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/api.hpp"
#include "../core/graph.hpp"
#include "../core/options.hpp"

namespace mo {

enum class Phase { Front, Middle, Back };

// The anchors that order the phases; they do nothing themselves.
namespace anchors {
inline constexpr const char* FrontStart = "FrontStart";
inline constexpr const char* FrontFinish = "FrontFinish";
inline constexpr const char* MiddleStart = "MiddleStart";
inline constexpr const char* MiddleFinish = "MiddleFinish";
inline constexpr const char* BackStart = "BackStart";
inline constexpr const char* BackFinish = "BackFinish";
}  // namespace anchors

// The conversion choices a transformation may read: those that change the graph, not where the
// files are, which plugins run or how much is logged (the rest of ConversionOptions).
struct TransformOptions {
    std::vector<std::string> outputs;  // --output: cut the graph at these tensors
    std::vector<InputSpec> inputs;     // --input / --input_shape: shapes and frozen values
    std::vector<InputChannelValues> mean_values, scale_values;
    bool reverse_input_channels = false;
    std::optional<int64_t> batch;
    std::vector<InputLayout> layouts;
    bool static_shape = false;
    bool disable_nhwc_to_nchw = false;
    bool compress_to_fp16 = true;
    int64_t max_constant_bytes = int64_t{2} << 30;  // --max_constant_size
    // --transform MakeStateful[param_res_names={...}]
    bool make_stateful = false;
    std::vector<std::pair<std::string, std::string>> stateful_pairs;
};

// What a transformation may read besides the graph.
struct MO_API TransformContext {
    TransformContext() = default;
    // The transformation choices of a conversion's options.
    explicit TransformContext(const ConversionOptions& conversion);

    TransformOptions options;
};

class MO_API Transformation {
public:
    virtual ~Transformation() = default;
    virtual std::string id() const = 0;
    virtual Phase phase() const = 0;
    // Ids (or anchors) this must run after / before. With none given, the transformation runs
    // between its phase's Start and Finish anchors.
    virtual std::vector<std::string> run_after() const { return {}; }
    virtual std::vector<std::string> run_before() const { return {}; }
    // Default on/off; MO_ENABLED_TRANSFORMS / MO_DISABLED_TRANSFORMS override it.
    virtual bool enabled() const { return true; }
    // Skipped when false (e.g. only for NHWC sources).
    virtual bool condition(const Graph&, const TransformContext&) const { return true; }
    // Also run on the bodies of If / Loop / TensorIterator nodes (after the graph that owns
    // them; their owner is re-inferred when a body changed). Passes about the model's inputs
    // and outputs, or that infer bodies through their owner, say no.
    virtual bool wants_bodies() const { return true; }
    // Remove dead nodes afterwards.
    virtual bool force_clean_up() const { return false; }
    // Re-run shape inference afterwards (also done automatically after partial inference has
    // run, whenever a transformation reports a change).
    virtual bool force_shape_inference() const { return false; }
    // The op types this transformation looks for by name. The registry checks them against the
    // op registry once every plugin is loaded (TransformRegistry::check_op_types), so that a
    // misspelt type is an error instead of a rewrite that never fires. OpTransformation and
    // PatternTransformation list theirs; a generic transformation lists the types it tests.
    virtual std::vector<std::string> named_op_types() const { return {}; }
    // Returns whether the graph changed.
    virtual bool run(Graph& graph, const TransformContext& ctx) = 0;
};

// The schemas of `types` that some node of `graph` has: what a pass rooted at those types
// looks for (none: it has nothing to do, without a walk over the graph).
MO_API std::vector<const OpSchema*> present_ops(const Graph& graph, const std::vector<std::string>& types);

// A local rewrite rooted at nodes of the given op types: the driver offers it each such node
// (in topological order, skipping nodes removed meanwhile). matches() is cheap and has no side
// effects; apply() returns whether it changed the graph. "No match" is false, not an error.
class MO_API OpTransformation : public Transformation {
public:
    virtual std::vector<std::string> op_types() const = 0;
    virtual bool matches(Node) const { return true; }
    virtual bool apply(Node node, const TransformContext& ctx) = 0;
    std::vector<std::string> named_op_types() const override { return op_types(); }
    bool run(Graph& graph, const TransformContext& ctx) final;
};

}  // namespace mo
