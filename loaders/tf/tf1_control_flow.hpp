// TensorFlow's dataflow control flow (tf.while_loop and tf.cond before TF2, and the form TF2's
// grappler lowers While / If to, which TF.js graph models keep) rewritten into the functional
// form, so that one path (loaders/tf/tf_functions.hpp) turns both into OpenVINO's Loop and If:
// * a while frame (the nodes between its Enter and Exit nodes: per loop variable
//   Enter -> Merge <- NextIteration, Switch(Merge, LoopCond) whose output 1 feeds the body and
//   output 0 an Exit; constant Enters for the values the loop only reads) becomes
//   StatelessWhile(x..., invariants...) with generated cond and body functions: cond the nodes
//   between the Merges and LoopCond, body those between the Switches' output 1 and the
//   NextIterations; each Exit becomes an Identity of the While's output;
// * a conditional (the Switches sharing one predicate, their branch nodes, and the Merges
//   joining the branches) becomes StatelessIf(pred, x...) with generated branch functions; each
//   Merge becomes an Identity of the If's output.
// Innermost first, so that nested loops and conditionals end as nested functions. Nodes a frame
// or branch reads from outside without Enter / Switch (constants held only by control inputs)
// are copied into the function. A structure of another shape is an error naming its node.
#pragma once

#include <string>

#include "loaders/tf/tf_graph.pb.h"

namespace mo {

// Whether the graph has any of these ops (then lift_v1_control_flow moves and copies nodes).
bool has_v1_control_flow(const mo_tf::GraphDef& graph);

// Rewrites `graph` in place (its library grows); `path` names the model in errors.
void lift_v1_control_flow(mo_tf::GraphDef& graph, const std::string& path);

}  // namespace mo
