// The transformation registry: every front/middle/back transformation, built-in or from a
// plugin, sorted into one deterministic order by its run_after / run_before constraints.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../core/api.hpp"
#include "../core/op_schema.hpp"
#include "transformation.hpp"

namespace mo {

class MO_API TransformRegistry {
public:
    TransformRegistry();  // registers the six anchors

    // Throws mo::Error when the id is already registered.
    void add(std::unique_ptr<Transformation> t);
    const Transformation* find(const std::string& id) const;
    // Every registered transformation (anchors included), in registration order, to configure.
    std::vector<Transformation*> all();
    size_t size() const { return items_.size(); }
    // Registrations made until the next call are attributed to `origin` (a plugin's path).
    void set_origin(std::string origin) { origin_ = std::move(origin); }
    // "built-in" or the file of the plugin that registered `t`.
    const std::string& origin(const Transformation& t) const;

    // All transformations (anchors included) in run order: a topological sort of the
    // constraints, ties broken by id. Throws mo::Error naming the members of a cycle, or an
    // unknown id used in a constraint.
    std::vector<const Transformation*> order() const;

    // Throws mo::Error naming the first transformation (and its origin) whose named_op_types()
    // holds a type `ops` does not define. Run once the built-ins and every plugin are registered.
    void check_op_types(const OpRegistry& ops) const;

    // Whether `t` runs, after MO_ENABLED_TRANSFORMS / MO_DISABLED_TRANSFORMS (disable wins).
    bool is_enabled(const Transformation& t) const;
    // Reads the two environment variables (comma-separated ids). Unknown ids are warned about.
    void apply_environment();
    void set_overrides(std::vector<std::string> enabled, std::vector<std::string> disabled);

    // Runs everything in order. Shape inference (the "PartialInference" transformation) is
    // re-run after each later change. Errors are re-thrown with the transformation id attached.
    // At DEBUG level logs the order and, per transformation, its time and node-change count.
    // With `from`, the transformations ordered before that id are skipped (shape inference
    // counts as done when it is among them): finishing a graph held after an earlier run_all.
    void run_all(Graph& graph, const TransformContext& ctx, const std::string& from = {}) const;

    // One line per transformation in run order: id, phase, enabled, origin (--list_transformations).
    std::string describe_order() const;

private:
    std::vector<std::unique_ptr<Transformation>> items_;
    std::map<const Transformation*, std::string> origins_;
    std::string origin_ = "built-in";
    std::vector<std::string> force_enabled_, force_disabled_;
};

// The id of the shape inference + constant folding transformation that opens the middle phase.
inline constexpr const char* kPartialInferenceId = "PartialInference";

}  // namespace mo
