// BatchNormalization (internal op, lowered later), InstanceNormalization and
// LayerNormalization (MVN with scale and bias).
#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

void batch_norm(ExtractContext& c) {
    if (c.opset() < 9 && c.i("spatial", 1) == 0) c.unsupported("BatchNormalization with spatial=0");
    if (c.i("training_mode", 0) != 0) c.unsupported("BatchNormalization in training mode");
    c.become("BatchNormalization", {{"epsilon", c.f("epsilon", 1e-5)}});
}

// [C] -> [1, C, 1, ...] for a rank-`rank` tensor.
OutPort per_channel(ExtractContext& c, const std::string& suffix, const OutPort& v, int64_t rank) {
    Shape target{1, -1};
    for (int64_t i = 2; i < rank; ++i) target.push_back(1);
    return c.op("Reshape", suffix, {v, c.i64s(suffix + "/shape", target)}, {{"special_zero", false}});
}

void instance_norm(ExtractContext& c) {
    OutPort x = c.input(0);
    int64_t rank = ExtractContext::rank_of(x);
    if (rank < 0) c.fail("needs an input of known rank", "give the model's inputs static ranks");
    OutPort mvn = c.op("MVN", "mvn", {x, c.axes_from("axes", x, 2)},
                       {{"normalize_variance", true}, {"eps", c.f("epsilon", 1e-5)}, {"eps_mode", std::string("inside_sqrt")}});
    OutPort scaled = c.op("Multiply", "scale", {mvn, per_channel(c, "scale_shape", c.input(1), rank)});
    c.set_output(0, c.op("Add", "", {scaled, per_channel(c, "bias_shape", c.input(2), rank)}));
}

void layer_norm(ExtractContext& c) {
    OutPort x = c.input(0);
    const int64_t axis = c.i("axis", -1);
    const int64_t rank = ExtractContext::rank_of(x);
    if (rank >= 0 && (axis < -rank || axis >= rank))
        c.fail("axis " + std::to_string(axis) + " is outside the input's rank " + std::to_string(rank));
    // Axes axis .. rank - 1. Negative ones need no rank: listed when the rank bounds the list,
    // else Range(axis, 0), so that no list is as long as a number the file states.
    OutPort axes;
    if (axis >= 0) {
        axes = c.axes_from("axes", x, axis);
    } else if (rank >= 0) {
        std::vector<int64_t> a;
        for (int64_t k = axis; k < 0; ++k) a.push_back(k);
        axes = c.i64s("axes", a);
    } else {
        axes = c.op("Range", "axes", {c.i64("axes/start", axis), c.i64("axes/stop", 0), c.i64("axes/step", 1)},
                    {{"output_type", ElementType::i64}});
    }
    OutPort y = c.op("MVN", c.has_input(1) || c.has_input(2) ? "mvn" : "", {x, axes},
                     {{"normalize_variance", true}, {"eps", c.f("epsilon", 1e-5)}, {"eps_mode", std::string("inside_sqrt")}});
    if (c.has_input(1)) y = c.op("Multiply", c.has_input(2) ? "scale" : "", {y, c.input(1)});
    if (c.has_input(2)) y = c.op("Add", "", {y, c.input(2)});
    c.set_output(0, y);
    // Optional outputs: Mean and InvStdDev = 1 / sqrt(var + epsilon), reduced dims kept.
    if (c.output_used(1) || c.output_used(2)) {
        OutPort mean = c.op("ReduceMean", "mean", {x, axes}, {{"keep_dims", true}});
        if (c.output_used(1)) c.set_output(1, mean);
        if (c.output_used(2)) {
            OutPort sq = c.op("SquaredDifference", "squared_difference", {x, mean});
            OutPort var = c.op("ReduceMean", "variance", {sq, axes}, {{"keep_dims", true}});
            OutPort std_dev = c.op("Sqrt", "std", {c.op("Add", "var_eps", {var, c.scalar_like("epsilon", c.f("epsilon", 1e-5), x)})});
            c.set_output(2, c.op("Divide", "inv_std", {c.scalar_like("one", 1.0, x), std_dev}));
        }
    }
}

}  // namespace

void register_onnx_normalization(ExtractorRegistry& r) {
    r.add({"onnx", "", "BatchNormalization", since(7), batch_norm});
    r.add({"onnx", "", "InstanceNormalization", since(1), instance_norm});
    r.add({"onnx", "", "LayerNormalization", since(17), layer_norm});
    r.add({"onnx", "", "MeanVarianceNormalization", since(9), [](ExtractContext& c) {
               // ONNX: (x - mean) / sqrt(var + 1e-9) over axes (default N, H, W).
               c.set_output(0, c.op("MVN", "", {c.input(0), c.i64s("axes", c.ints("axes", {0, 2, 3}))},
                                    {{"normalize_variance", true}, {"eps", 1e-9}, {"eps_mode", std::string("inside_sqrt")}}));
           }});
}

}  // namespace mo
