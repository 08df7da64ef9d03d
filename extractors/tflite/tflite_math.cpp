// More element-wise math: SIGN, SQUARE, ROUND, GELU, RELU_0_TO_1, FLOOR_DIV, ADD_N,
// L2_NORMALIZATION, and the reductions REDUCE_PROD, REDUCE_ANY, REDUCE_ALL.
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

// FLOOR_DIV: floor(x / y); integers floor too (Divide with m_pythondiv), floats Floor(Divide).
void floor_div(ExtractContext& c) {
    const ElementType t = c.input(0).type();
    if (t == ElementType::dynamic) c.unsupported("FLOOR_DIV of an input of unknown type");
    if (is_float(t)) {
        c.set_output(0, c.op("Floor", "", {c.op("Divide", "quotient", {c.input(0), c.input(1)})}));
        return;
    }
    c.set_output(0, c.op("Divide", "", {c.input(0), c.input(1)}, {{"m_pythondiv", true}}));
}

// ADD_N: x0 + x1 + ... in input order.
void add_n(ExtractContext& c) {
    if (c.input_count() == 0) c.fail("nothing to add: the node has no inputs", "the model is corrupt; re-export it");
    OutPort sum = c.input(0);
    for (size_t i = 1; i < c.input_count(); ++i)
        sum = c.op("Add", i + 1 == c.input_count() ? "" : "sum" + std::to_string(i), {sum, c.input(i)});
    c.set_output(0, sum);
}

// L2_NORMALIZATION over the last axis, as TFLite's kernel: x / max(sqrt(sum(x²)), 1e-6).
void l2_normalization(ExtractContext& c) {
    const OutPort x = c.input(0);
    OutPort sum = c.op("ReduceSum", "sum_of_squares", {c.op("Multiply", "squares", {x, x}), c.i64s("axes", {-1})},
                       {{"keep_dims", true}});
    OutPort norm = c.op("Maximum", "norm", {c.op("Sqrt", "root", {sum}), c.scalar_like("epsilon", 1e-6, x)});
    c.set_output(0, tflite_activation(c, c.op("Divide", "normalized", {x, norm}), "activation"));
}

void reduction(ExtractContext& c, const char* type) {
    c.set_output(0, c.op(type, "", {c.input(0), c.input(1)}, {{"keep_dims", c.i("keep_dims", 0) != 0}}));
}

}  // namespace

void register_tflite_math(ExtractorRegistry& r) {
    r.add({"tflite", "", "SIGN", 1, INT64_MAX, [](ExtractContext& c) { c.become("Sign"); }});
    r.add({"tflite", "", "SQUARE", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Multiply", "", {c.input(0), c.input(0)})); }});
    // TFLite rounds half to even (its RoundToNearest), as TensorFlow's Round.
    r.add({"tflite", "", "ROUND", 1, INT64_MAX,
           [](ExtractContext& c) { c.become("Round", {{"mode", std::string("half_to_even")}}); }});
    r.add({"tflite", "", "GELU", 1, INT64_MAX, [](ExtractContext& c) {
               c.become("Gelu", {{"approximation_mode", std::string(c.i("approximate", 0) ? "TANH" : "ERF")}});
           }});
    r.add({"tflite", "", "RELU_0_TO_1", 1, INT64_MAX,
           [](ExtractContext& c) { c.become("Clamp", {{"min", 0.0}, {"max", 1.0}}); }});
    r.add({"tflite", "", "FLOOR_DIV", 1, INT64_MAX, floor_div});
    r.add({"tflite", "", "ADD_N", 1, INT64_MAX, add_n});
    r.add({"tflite", "", "L2_NORMALIZATION", 1, INT64_MAX, l2_normalization});
    r.add({"tflite", "", "REDUCE_PROD", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceProd"); }});
    r.add({"tflite", "", "REDUCE_ANY", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceLogicalOr"); }});
    r.add({"tflite", "", "REDUCE_ALL", 1, INT64_MAX, [](ExtractContext& c) { reduction(c, "ReduceLogicalAnd"); }});
}

}  // namespace mo
