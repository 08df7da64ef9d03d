// Arithmetic (numpy broadcasting), activations, Reciprocal, BiasAdd, AddN, FusedBatchNorm (inference).
#include "extractors/tf/tf_extractors.hpp"

namespace mo {

namespace {

void binary(ExtractContext& c, const char* type) { c.set_output(0, c.op(type, "", {c.input(0), c.input(1)})); }

void activation(ExtractContext& c) {
    auto y = tf_activation(c, c.framework().type, c.input(0), "", c.f("alpha", 0.2));
    c.set_output(0, *y);
}

// BiasAdd over the channel axis: last for NHWC, 1 for NCHW (the bias reshaped to [1, C, 1, ...]
// of the input's rank, at least 3 as TensorFlow requires).
void bias_add(ExtractContext& c) {
    OutPort b = c.input(1);
    if (!tf_nhwc(c)) {
        const PartialShape& x = c.input(0).shape();
        if (!x.rank_is_static()) c.unsupported("BiasAdd with data_format NCHW on an input of unknown rank");
        if (x.rank() < 3) c.fail("BiasAdd with data_format NCHW needs an input of rank 3 or more, not " + std::to_string(x.rank()));
        std::vector<int64_t> shape(x.rank(), 1);
        shape[1] = -1;
        b = c.op("Reshape", "bias", {b, c.i64s("bias/shape", shape)}, {{"special_zero", false}});
    }
    c.set_output(0, c.op("Add", "", {c.input(0), b}));
}

void add_n(ExtractContext& c) {
    OutPort sum = c.input(0);
    for (size_t i = 1; i < c.input_count(); ++i) sum = c.op("Add", i + 1 == c.input_count() ? "" : "add" + std::to_string(i), {sum, c.input(i)});
    c.set_output(0, sum);
}

// Inference batch norm: x * k + (offset - mean * k), k = scale / sqrt(variance + epsilon), per
// channel (the last axis for NHWC).
void fused_batch_norm(ExtractContext& c) {
    if (c.i("is_training", 0)) c.unsupported("FusedBatchNorm in training mode");
    for (size_t j = 1; j < c.output_count(); ++j)
        if (c.output_used(j)) c.unsupported("FusedBatchNorm's statistics outputs");
    const bool nhwc = tf_nhwc(c);
    OutPort x = c.input(0);
    OutPort eps = c.scalar_like("epsilon", c.f("epsilon", 1e-4), c.input(2));
    OutPort k = c.op("Divide", "k", {c.input(1), c.op("Sqrt", "std", {c.op("Add", "var_eps", {c.input(4), eps})})});
    OutPort shift = c.op("Subtract", "shift", {c.input(2), c.op("Multiply", "mean_k", {c.input(3), k})});
    if (!nhwc) {
        k = c.op("Reshape", "k/nchw", {k, c.i64s("k/shape", {1, -1, 1, 1})}, {{"special_zero", false}});
        shift = c.op("Reshape", "shift/nchw", {shift, c.i64s("shift/shape", {1, -1, 1, 1})}, {{"special_zero", false}});
    }
    c.set_output(0, c.op("Add", "", {c.op("Multiply", "scaled", {x, k}), shift}));
}

}  // namespace

void register_tf_elementwise(ExtractorRegistry& r) {
    const std::pair<const char*, const char*> binaries[] = {
        {"Add", "Add"},         {"AddV2", "Add"},         {"Sub", "Subtract"}, {"Mul", "Multiply"},
        {"RealDiv", "Divide"},  {"Maximum", "Maximum"},   {"Minimum", "Minimum"},
        {"SquaredDifference", "SquaredDifference"},       {"Pow", "Power"},    {"FloorMod", "FloorMod"},
        {"Greater", "Greater"}, {"GreaterEqual", "GreaterEqual"}, {"Less", "Less"}, {"LessEqual", "LessEqual"},
        {"Equal", "Equal"},     {"NotEqual", "NotEqual"}, {"LogicalAnd", "LogicalAnd"}, {"LogicalOr", "LogicalOr"}};
    for (const auto& [name, type] : binaries)
        r.add({"tf", "", name, 1, INT64_MAX, [type = type](ExtractContext& c) { binary(c, type); }});
    for (const char* name : {"Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "Sigmoid", "Tanh", "Softplus"})
        r.add({"tf", "", name, 1, INT64_MAX, activation});
    const std::pair<const char*, const char*> unaries[] = {{"Exp", "Exp"},   {"Log", "Log"},   {"Sqrt", "Sqrt"},
                                                           {"Neg", "Negative"}, {"Abs", "Abs"}, {"Floor", "Floor"},
                                                           {"Ceil", "Ceiling"}, {"Sin", "Sin"}, {"Cos", "Cos"},
                                                           {"LogicalNot", "LogicalNot"}};
    for (const auto& [name, type] : unaries)
        r.add({"tf", "", name, 1, INT64_MAX,
               [type = type](ExtractContext& c) { c.set_output(0, c.op(type, "", {c.input(0)})); }});
    r.add({"tf", "", "Rsqrt", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("Divide", "", {c.scalar_like("one", 1.0, c.input(0)), c.op("Sqrt", "sqrt", {c.input(0)})}));
           }});
    r.add({"tf", "", "Reciprocal", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("Divide", "", {c.scalar_like("one", 1.0, c.input(0)), c.input(0)}));
           }});
    r.add({"tf", "", "Square", 1, INT64_MAX,
           [](ExtractContext& c) { c.set_output(0, c.op("Multiply", "", {c.input(0), c.input(0)})); }});
    r.add({"tf", "", "BiasAdd", 1, INT64_MAX, bias_add});
    r.add({"tf", "", "AddN", 1, INT64_MAX, add_n});
    r.add({"tf", "", "FusedBatchNorm", 1, INT64_MAX, fused_batch_norm});
    r.add({"tf", "", "FusedBatchNormV3", 1, INT64_MAX, fused_batch_norm});
    r.add({"tf", "", "Prelu", 1, INT64_MAX, [](ExtractContext& c) {
               // TF.js: x >= 0 ? x : alpha * x with alpha broadcast like an operand.
               OutPort x = c.input(0);
               OutPort neg = c.op("Multiply", "negative_part",
                                  {c.input(1), c.op("Minimum", "min", {x, c.scalar_like("zero", 0.0, x)})});
               c.set_output(0, c.op("Add", "", {c.op("Relu", "positive_part", {x}), neg}));
           }});
}

}  // namespace mo
