#include "transforms/back/flatten_to_reshape.hpp"

#include <limits>
#include <optional>

namespace mo {

namespace {

// Product of dims [begin, end) when all are static (and it fits 64 bits).
std::optional<int64_t> static_product(const PartialShape& s, int64_t begin, int64_t end) {
    int64_t p = 1;
    for (int64_t i = begin; i < end; ++i) {
        const Dimension& d = s[static_cast<size_t>(i)];
        if (d.is_dynamic() || __builtin_mul_overflow(p, d.get_length(), &p)) return std::nullopt;
    }
    return p;
}

}  // namespace

bool FlattenToReshape::apply(Node flatten, const TransformContext&) {
    Graph& g = flatten.graph();
    const std::string& name = flatten.name();
    OutPort x = flatten.in(0).src();
    const PartialShape& s = x.shape();
    int64_t axis = flatten.attr<int64_t>("axis");
    OutPort target;
    if (s.rank_is_static()) {
        const auto rank = static_cast<int64_t>(s.rank());
        if (axis < -rank || axis > rank)
            throw Error("Flatten axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank),
                        flatten.describe());
        if (axis < 0) axis += rank;
        auto outer = static_product(s, 0, axis), inner = static_product(s, axis, rank);
        if (outer || inner)
            target = g.add_constant(name + "/shape", Tensor::from_vector<int64_t>({outer.value_or(-1), inner.value_or(-1)}, {2})).out(0);
    }
    if (!target.node()) {
        auto i64 = [&](const std::string& suffix, std::vector<int64_t> v) {
            Shape shape{static_cast<int64_t>(v.size())};
            return g.add_constant(name + suffix, Tensor::from_vector<int64_t>(v, shape)).out(0);
        };
        OutPort shape_of = g.add_op("ShapeOf", name + "/ShapeOf", {x}).out(0);
        auto product = [&](const std::string& part, int64_t begin, int64_t end) {
            OutPort slice = g.add_op("Slice", name + "/" + part + "_dims",
                                     {shape_of, i64("/" + part + "_begin", {begin}), i64("/" + part + "_end", {end}),
                                      i64("/" + part + "_step", {1}), i64("/" + part + "_axes", {0})}).out(0);
            return g.add_op("ReduceProd", name + "/" + part, {slice, i64("/" + part + "_reduce_axes", {0})},
                            {{"keep_dims", AttrValue(true)}}).out(0);
        };
        OutPort outer = axis == 0 ? i64("/outer", {1}) : product("outer", 0, axis);
        OutPort inner = product("inner", axis, std::numeric_limits<int64_t>::max());
        target = g.add_op("Concat", name + "/shape", {outer, inner}, {{"axis", AttrValue(int64_t{0})}}).out(0);
    }
    Node reshape = g.add_op("Reshape", name + "/Reshape", {x, target}, {{"special_zero", AttrValue(false)}});
    g.replace(flatten, reshape);
    return true;
}

}  // namespace mo
