// Parameter, Result, Constant and the FrameworkNode placeholder that loaders create.
#include "ops/ops.hpp"

#include "core/graph.hpp"

namespace mo {

void register_core_ops(OpRegistry& r) {
    r.add(OpSchema{
        .type = "Parameter", .ir_type = "Parameter", .ir_version = "opset1",
        .min_inputs = 0, .max_inputs = 0, .num_outputs = 1,
        .attrs = {{"shape", AttrKind::Shape, {}}, {"element_type", AttrKind::Type, {}}},
        .infer = [](InferContext& c) {
            c.set_output(0, c.attr<ElementType>("element_type"), c.attr<PartialShape>("shape"));
        },
    });
    r.add(OpSchema{
        .type = "Result", .ir_type = "Result", .ir_version = "opset1",
        .min_inputs = 1, .max_inputs = 1, .num_outputs = 0,
        .infer = [](InferContext&) {},
    });
    // The value lives on the output port (set by Graph::add_constant); the emitter writes
    // element_type, shape, offset and size from it.
    r.add(OpSchema{
        .type = "Constant", .ir_type = "Const", .ir_version = "opset1",
        .min_inputs = 0, .max_inputs = 0, .num_outputs = 1,
        .infer = [](InferContext& c) {
            if (!c.node.out(0).value()) c.fail("constant has no value");
        },
        .eval = [](const Node& n, const std::vector<Tensor>&) { return std::vector<Tensor>{*n.out(0).value()}; },
    });
    // A loaded node before extraction: node.framework() holds the framework record.
    r.add(OpSchema{
        .type = "FrameworkNode", .min_inputs = 0, .max_inputs = SIZE_MAX, .num_outputs = SIZE_MAX,
        .infer = [](InferContext& c) {
            c.fail("op '" + c.node.framework().type + "' was not converted", "this op is not supported by mo");
        },
    });
}

}  // namespace mo
