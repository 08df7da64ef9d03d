// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, decomposed per the ONNX function
// bodies: pick input[n, target[n, d...], d...] with GatherElements along the class axis,
// weight it, and reduce (mean divides by the sum of the weights actually used).
#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

// The loss of `input` [N, C, d1, ...] (log-probabilities) against `target` [N, d1, ...];
// output 0 of the ONNX node gets the (reduced) loss.
void nll_loss(ExtractContext& c, const OutPort& input) {
    const std::string reduction = c.s("reduction", "mean");
    if (reduction != "none" && reduction != "sum" && reduction != "mean")
        c.fail("unknown reduction '" + reduction + "'", "use none, sum or mean");
    const bool has_weight = c.has_input(2), has_ignore = c.has("ignore_index");

    OutPort target = c.op("Convert", "target", {c.input(1)}, {{"destination_type", ElementType::i64}});
    OutPort ignored;
    if (has_ignore) {
        // Ignored targets may be out of range: gather class 0 for them and zero their weight.
        ignored = c.op("Equal", "ignored", {target, c.i64("ignore_index", c.i("ignore_index"))});
        target = c.op("Select", "safe_target", {ignored, c.i64("zero_index", 0), target});
    }
    OutPort picked = c.op("GatherElements", "picked",
                          {input, c.op("Unsqueeze", "target_1", {target, c.i64s("class_axis", {1})})},
                          {{"axis", int64_t{1}}});
    picked = c.op("Squeeze", "picked_squeezed", {picked, c.i64s("class_axis_squeeze", {1})});
    OutPort loss = c.op("Negative", "negated", {picked});

    // Per-element weights (absent = all ones); only needed when they change anything.
    OutPort weight;
    if (has_weight)
        weight = c.op("Gather", "weight", {c.input(2), target, c.i64("weight_axis", 0)}, {{"batch_dims", int64_t{0}}});
    if (has_ignore)
        weight = c.op("Select", "weight_ii",
                      {ignored, c.scalar_like("zero", 0.0, loss), has_weight ? weight : c.scalar_like("one", 1.0, loss)});
    if (has_weight || has_ignore) loss = c.op("Multiply", reduction == "none" ? "" : "weighted", {loss, weight});

    if (reduction == "none") {
        c.set_output(0, loss);
        return;
    }
    OutPort axes = c.axes_from("all_axes", loss, 0);
    if (reduction == "sum" || !(has_weight || has_ignore)) {
        c.set_output(0, c.op(reduction == "sum" ? "ReduceSum" : "ReduceMean", "", {loss, axes}, {{"keep_dims", false}}));
        return;
    }
    OutPort total = c.op("ReduceSum", "loss_sum", {loss, axes}, {{"keep_dims", false}});
    OutPort weight_sum = c.op("ReduceSum", "weight_sum", {weight, c.axes_from("weight_axes", weight, 0)},
                              {{"keep_dims", false}});
    c.set_output(0, c.op("Divide", "", {total, weight_sum}));
}

void softmax_cross_entropy(ExtractContext& c) {
    OutPort log_prob = c.op("LogSoftmax", "log_prob", {c.input(0)}, {{"axis", int64_t{1}}});
    nll_loss(c, log_prob);
    if (c.output_count() > 1) c.set_output(1, log_prob);
}

}  // namespace

void register_onnx_loss(ExtractorRegistry& r) {
    r.add({"onnx", "", "NegativeLogLikelihoodLoss", since(12), [](ExtractContext& c) { nll_loss(c, c.input(0)); }});
    r.add({"onnx", "", "SoftmaxCrossEntropyLoss", since(12), softmax_cross_entropy});
}

}  // namespace mo
