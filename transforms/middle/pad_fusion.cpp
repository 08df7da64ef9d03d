#include "transforms/middle/pad_fusion.hpp"

#include <cmath>
#include <limits>

#include "transforms/middle/partial_inference.hpp"

namespace mo {

namespace {

std::vector<int64_t> ints_or_zeros(const Node& n, const char* name, size_t count) {
    auto v = n.attr<std::vector<int64_t>>(name);
    if (v.empty() || n.attr<std::string>("auto_pad") == "valid") v.assign(count, 0);
    return v;
}

// The value a Pad fills with: its fourth input, or 0.
std::optional<double> pad_value(const Node& pad) {
    if (pad.input_count() < 4 || !pad.in(3).connected()) return 0.0;
    const Tensor* v = pad.in(3).value();
    if (!v || v->size() != 1) return std::nullopt;
    return v->to_f64()[0];
}

// Whether padding with `value` means what `consumer`'s own padding means (see the header).
bool padding_agrees(const Node& consumer, double value, bool consumer_has_pads) {
    if (consumer.is("Convolution") || consumer.is("GroupConvolution")) return value == 0.0;
    if (consumer.is("AvgPool")) return value == 0.0 && (!consumer.attr<bool>("exclude-pad") || !consumer_has_pads);
    // MaxPool: the padding never wins the max; its indices would count from the padded input.
    return std::isinf(value) && value < 0 && !consumer.out(1).has_targets();
}

// A MaxPool window that lies entirely in the padding would see no input element.
bool windows_overlap_input(const Node& pool, const std::vector<int64_t>& begin, const std::vector<int64_t>& end) {
    if (!pool.is("MaxPool")) return true;
    auto kernel = pool.attr<std::vector<int64_t>>("kernel");
    auto dilations = pool.attr<std::vector<int64_t>>("dilations");
    for (size_t i = 0; i < kernel.size(); ++i) {
        const int64_t extent = (kernel[i] - 1) * (dilations.empty() ? 1 : dilations[i]) + 1;
        if (begin[i] >= extent || end[i] >= extent) return false;
    }
    return true;
}

}  // namespace

std::vector<Pattern> PadFusion::patterns() const {
    Pattern p("consumer");
    p.node("consumer", {"Convolution", "GroupConvolution", "AvgPool", "MaxPool"});
    p.node("pad", {"Pad"}, {consumers(1)});
    p.edge("pad", "consumer", 0);
    return {p};
}

bool PadFusion::apply(const PatternMatch& m, const TransformContext&) {
    Node pad = m["pad"], consumer = m["consumer"];
    if (pad.attr<std::string>("pad_mode") != "constant") return false;
    const std::string auto_pad = consumer.attr<std::string>("auto_pad");
    if (auto_pad != "explicit" && auto_pad != "valid") return false;
    const Tensor *begin_t = pad.in(1).value(), *end_t = pad.in(2).value();
    auto value = pad_value(pad);
    if (!begin_t || !end_t || !value) return false;
    const auto pad_begin = begin_t->to_i64(), pad_end = end_t->to_i64();
    if (pad_begin.size() != pad_end.size() || pad_begin.size() < 3) return false;
    const size_t spatial = pad_begin.size() - 2;
    for (size_t i = 0; i < pad_begin.size(); ++i)
        if (pad_begin[i] < 0 || pad_end[i] < 0 || (i < 2 && (pad_begin[i] != 0 || pad_end[i] != 0))) return false;

    auto begin = ints_or_zeros(consumer, "pads_begin", spatial), end = ints_or_zeros(consumer, "pads_end", spatial);
    if (begin.size() != spatial || end.size() != spatial) return false;
    bool has_pads = false;
    for (size_t i = 0; i < spatial; ++i) has_pads = has_pads || begin[i] != 0 || end[i] != 0;
    if (!padding_agrees(consumer, *value, has_pads)) return false;
    for (size_t i = 0; i < spatial; ++i) {
        begin[i] += pad_begin[i + 2];
        end[i] += pad_end[i + 2];
    }
    if (!windows_overlap_input(consumer, begin, end)) return false;

    consumer.in(0).connect(pad.in(0).src());
    consumer.set_attr("pads_begin", begin);
    consumer.set_attr("pads_end", end);
    consumer.set_attr("auto_pad", std::string("explicit"));
    if (consumer.is("AvgPool")) consumer.set_attr("exclude-pad", false);  // the Pad's zeros were counted
    consumer.fused_names().push_back(pad.name());
    return true;
}

}  // namespace mo
