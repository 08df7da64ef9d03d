#include "transforms/back/clip_to_clamp.hpp"

#include <limits>
#include <utility>

namespace mo {

namespace {

// Finite range of an element type, as Clamp attributes.
std::pair<double, double> type_range(ElementType t) {
    switch (t) {
    case ElementType::f16: return {-65504.0, 65504.0};
    case ElementType::f64: return {std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max()};
    case ElementType::i8: return {-128.0, 127.0};
    case ElementType::u8: return {0.0, 255.0};
    case ElementType::i16: return {-32768.0, 32767.0};
    case ElementType::u16: return {0.0, 65535.0};
    case ElementType::i32: return {-2147483648.0, 2147483647.0};
    case ElementType::u32: return {0.0, 4294967295.0};
    case ElementType::i64: return {-9223372036854775808.0, 9223372036854775807.0};
    case ElementType::u64: return {0.0, 18446744073709551615.0};
    default: return {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()};
    }
}

}  // namespace

bool ClipToClamp::apply(Node clip, const TransformContext&) {
    Graph& g = clip.graph();
    OutPort x = clip.in(0).src();
    auto bound = [&](size_t i) -> std::optional<OutPort> {
        if (i < clip.input_count() && clip.in(i).connected()) return clip.in(i).src();
        return std::nullopt;
    };
    auto lo = bound(1), hi = bound(2);
    auto scalar_value = [](const std::optional<OutPort>& p, double fallback) -> std::optional<double> {
        if (!p) return fallback;
        const Tensor* v = p->value();
        if (!v || v->size() != 1) return std::nullopt;
        return v->to_f64()[0];
    };
    auto [lowest, highest] = type_range(x.type());
    auto min_value = scalar_value(lo, lowest), max_value = scalar_value(hi, highest);
    Node last;
    if (min_value && max_value) {
        last = g.add_op("Clamp", clip.name() + "/Clamp", {x},
                        {{"min", AttrValue(*min_value)}, {"max", AttrValue(*max_value)}});
    } else {
        OutPort y = x;
        if (lo) {
            last = g.add_op("Maximum", clip.name() + "/Maximum", {y, *lo});
            y = last.out(0);
        }
        if (hi) last = g.add_op("Minimum", clip.name() + "/Minimum", {y, *hi});
    }
    g.replace(clip, last);
    return true;
}

}  // namespace mo
