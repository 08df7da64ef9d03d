// ReadValue-6 and Assign-6: a model's variables (the state of a stateful model, e.g. an LLM's
// key/value cache). Neither has an eval of its own: the value of a variable lives across calls,
// so the evaluator reads and writes it (core/evaluator.hpp, VariableState); and a ReadValue is
// never folded, even when its initial value is known.
#include "ops/ops.hpp"

#include "core/graph.hpp"

namespace mo {

namespace {

bool shapes_compatible(const PartialShape& a, const PartialShape& b) {
    if (!a.rank_is_static() || !b.rank_is_static()) return true;
    if (a.rank() != b.rank()) return false;
    for (size_t i = 0; i < a.rank(); ++i)
        if (!a[i].compatible(b[i])) return false;
    return true;
}

}  // namespace

void register_state_ops(OpRegistry& r) {
    r.add(OpSchema{
        .type = "ReadValue", .ir_type = "ReadValue", .ir_version = "opset6",
        .min_inputs = 0, .max_inputs = 1, .num_outputs = 1,
        .attrs = {{"variable_id", AttrKind::String, {}},
                  {"variable_type", AttrKind::Type, {}},
                  {"variable_shape", AttrKind::Shape, {}}},
        .infer = [](InferContext& c) {
            const auto type = c.attr<ElementType>("variable_type");
            const auto shape = c.attr<PartialShape>("variable_shape");
            if (c.attr<std::string>("variable_id").empty()) c.fail("variable_id is empty");
            if (c.has_input(0)) {
                if (c.in_type(0) != type && c.in_type(0) != ElementType::dynamic)
                    c.fail("the initial value is " + std::string(ir_name(c.in_type(0))) + " but the variable is " +
                           std::string(ir_name(type)));
                if (!shapes_compatible(shape, c.in_shape(0)))
                    c.fail("the initial value's shape [" + c.in_shape(0).to_string() + "] does not fit the variable's [" +
                           shape.to_string() + "]");
            }
            c.set_output(0, type, shape);
        },
    });
    r.add(OpSchema{
        .type = "Assign", .ir_type = "Assign", .ir_version = "opset6",
        .min_inputs = 1, .max_inputs = 1, .num_outputs = 1,
        .attrs = {{"variable_id", AttrKind::String, {}}},
        .infer = [](InferContext& c) {
            if (c.attr<std::string>("variable_id").empty()) c.fail("variable_id is empty");
            c.set_output(0, c.in_type(0), c.in_shape(0));
        },
    });
}

}  // namespace mo
