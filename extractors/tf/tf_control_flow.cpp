// If / StatelessIf -> If-8, While / StatelessWhile -> Loop-5. The loader built the bodies and
// their port maps from the function library (loaders/tf/tf_functions.hpp; TF1's Switch / Merge /
// Enter / Exit form lifted into these ops first); here the condition is made boolean and the
// node becomes the OpenVINO op.
#include "extractors/tf/tf_extractors.hpp"

namespace mo {

namespace {

void if_op(ExtractContext& c) {
    if (c.node().bodies().size() != 2) c.fail("the If has no branches built", "the model is corrupt; re-export it");
    // TensorFlow reads a non-boolean scalar condition as "not zero".
    const ElementType t = c.input(0).type();
    if (t != ElementType::boolean && t != ElementType::dynamic)
        c.node().in(0).connect(c.op("Convert", "cond", {c.input(0)}, {{"destination_type", ElementType::boolean}}));
    c.become("If");
}

void while_op(ExtractContext& c) {
    if (c.node().bodies().size() != 1) c.fail("the While has no body built", "the model is corrupt; re-export it");
    c.become("Loop");
}

}  // namespace

void register_tf_control_flow(ExtractorRegistry& r) {
    for (const char* op : {"If", "StatelessIf"}) r.add({"tf", "", op, 1, INT64_MAX, if_op});
    for (const char* op : {"While", "StatelessWhile"}) r.add({"tf", "", op, 1, INT64_MAX, while_op});
}

}  // namespace mo
