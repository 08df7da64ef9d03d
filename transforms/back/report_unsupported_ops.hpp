// Framework ops no extractor turned into mo ops. Without --output or --transformations_config
// they are reported right after extraction; with either, an output cut or a configured
// replacement (of a detector's post-processing tail with control flow, say) may still remove
// them, so they are reported when the middle phase is over. Either way: one error listing every
// op type with its node names.
#pragma once

#include "core/tool_api.hpp"
#include "transforms/transformation.hpp"

namespace mo {

// Throws mo::Error when the graph still has FrameworkNodes.
MO_TOOL_API void report_unsupported_ops(const Graph& graph);

class ReportUnsupportedOps final : public Transformation {
public:
    std::string id() const override { return "ReportUnsupportedOps"; }
    Phase phase() const override { return Phase::Back; }
    std::vector<std::string> run_after() const override { return {anchors::MiddleFinish}; }
    std::vector<std::string> run_before() const override { return {anchors::BackStart}; }
    bool wants_bodies() const override { return false; }
    bool run(Graph& graph, const TransformContext&) override {
        report_unsupported_ops(graph);
        return false;
    }
};

}  // namespace mo
