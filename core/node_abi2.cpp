// Node::graph(), id() and op() out of line, under the symbols mo exported before graph.hpp made
// them inline: plugins built against the earlier ABI-2 headers call these, and must still load.
// (A separate file, so that no inline copy of the same names is emitted beside them.)
#include "core/graph.hpp"

namespace mo::abi2 {
namespace {

// A Node is its one pointer (the recorded layout: "Node 8").
const detail::NodeCore& core(const Node* n) { return **reinterpret_cast<detail::NodeCore* const*>(n); }

}  // namespace

MO_API Graph& node_graph(const Node* n) asm("_ZNK2mo4Node5graphEv");
MO_API uint64_t node_id(const Node* n) asm("_ZNK2mo4Node2idEv");
MO_API const OpSchema& node_op(const Node* n) asm("_ZNK2mo4Node2opEv");

Graph& node_graph(const Node* n) { return *core(n).graph; }
uint64_t node_id(const Node* n) { return core(n).id; }
const OpSchema& node_op(const Node* n) { return *core(n).op; }

}  // namespace mo::abi2
