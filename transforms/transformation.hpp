// The transformation interface. A transformation has an id, a phase and declared order
// constraints; the registry (registry.hpp) decides when it runs.
#pragma once

#include <string>
#include <vector>

#include "core/api.hpp"
#include "core/graph.hpp"
#include "core/options.hpp"

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

// What a transformation may read besides the graph.
struct TransformContext {
    const ConversionOptions& options;
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
    bool run(Graph& graph, const TransformContext& ctx) final;
};

}  // namespace mo
