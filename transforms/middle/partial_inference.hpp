// Shape inference and constant folding: for each node in topological order,
// out(j).{type, shape} := op.infer(inputs), and out(j).value := op.eval(input values) when
// every connected input has a known value.
#pragma once

#include <cstdint>
#include <vector>

#include "core/infer.hpp"
#include "transforms/registry.hpp"
#include "transforms/transformation.hpp"

namespace mo {

// Opens the middle phase; the registry re-runs it after every later change. Incremental: a
// node is re-inferred only when it is marked (inputs, attributes or op changed) or when
// something about its inputs (source, type, shape, value) differs from its last inference,
// so a re-run costs one walk over nodes + edges. Parameters are never folded; outputs above
// kMaxFoldedElements are folded only when every input is a Constant. ShapeOf of a static
// shape is folded from the shape alone. An eval that throws mo::Error leaves the node unfolded.
class PartialInference final : public Transformation {
public:
    static constexpr int64_t kMaxFoldedElements = mo::kMaxFoldedElements;

    std::string id() const override { return kPartialInferenceId; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<std::string> run_after() const override { return {anchors::FrontFinish}; }
    std::vector<std::string> run_before() const override { return {anchors::MiddleStart}; }
    bool wants_bodies() const override { return false; }
    bool run(Graph& graph, const TransformContext& ctx) override;

    // Infers (and folds) one node now, regardless of its marks. Returns whether an output changed.
    static bool infer_node(Node node);

private:
    const Graph* graph_ = nullptr;
    // Per node id: a 64-bit digest of its inputs (source, port, type, shape, value buffer) at its
    // last inference, 0 before the first. A digest instead of the states themselves keeps this
    // at 8 bytes a node on million-node graphs; two different states share a digest with odds
    // of 2^-64.
    std::vector<uint64_t> last_inputs_;
};

}  // namespace mo
