#include "transforms/middle/stacked_upsampling.hpp"

#include <optional>

namespace mo {

namespace {

struct Stack {
    OutPort source;  // the tensor copied
    int64_t copies = 0;
};

bool used_once(const OutPort& p) { return p.target_count() == 1; }

// Concat(axis a) of k Unsqueeze(s, [a]) of one s, each used only there: the stack of k copies of s.
std::optional<Stack> stack_of(const OutPort& port, int64_t axis) {
    const Node concat = port.node();
    if (!concat.is("Concat") || concat.attr<int64_t>("axis") != axis || concat.input_count() < 1) return std::nullopt;
    Stack s;
    for (size_t i = 0; i < concat.input_count(); ++i) {
        const OutPort in = concat.in(i).src();
        const Node u = in.node();
        if (!u.is("Unsqueeze") || !used_once(in) || u.input_count() != 2) return std::nullopt;
        const Tensor* axes = u.in(1).value();
        if (!axes || axes->size() != 1 || axes->to_i64()[0] != axis) return std::nullopt;
        if (i == 0) s.source = u.in(0).src();
        else if (!(u.in(0).src() == s.source)) return std::nullopt;
    }
    s.copies = static_cast<int64_t>(concat.input_count());
    return s;
}

}  // namespace

bool StackedCopiesToInterpolate::apply(Node reshape, const TransformContext&) {
    auto rows = stack_of(reshape.in(0).src(), 2);
    if (!rows || !used_once(reshape.in(0).src()) || rows->source.target_count() != static_cast<size_t>(rows->copies)) return false;
    auto columns = stack_of(rows->source, 3);
    if (!columns) return false;
    const OutPort x = columns->source;
    const PartialShape& s = x.shape();
    const Tensor* target = reshape.in(1).value();
    if (!s.rank_is_static() || s.rank() != 4 || !target || target->size() != 4) return false;
    for (size_t d = 1; d < 4; ++d)
        if (!s[d].is_static()) return false;
    // The batch may be unknown (a Loop's concatenated output): a target of -1 keeps it, and one
    // of N' makes the Reshape fail for any other batch, so both agree wherever the model runs.
    const auto t = target->to_i64();
    const std::vector<int64_t> want{s[1].get_length() * rows->copies, s[2].get_length() * columns->copies, s[3].get_length()};
    if (t[1] != want[0] || t[2] != want[1] || t[3] != want[2]) return false;
    if (t[0] != -1 && s[0].is_static() && s[0].get_length() != t[0]) return false;
    Graph& g = reshape.graph();
    const std::string name = reshape.name();
    Node sizes = g.add_constant(name + "/sizes", Tensor::from_vector<int64_t>({want[0], want[1]}, {2}));
    Node axes = g.add_constant(name + "/axes", Tensor::from_vector<int64_t>({1, 2}, {2}));
    Node up = g.add_op("Interpolate", name + "/interpolate", {x, sizes.out(0), axes.out(0)},
                       {{"mode", std::string("nearest")},
                        {"shape_calculation_mode", std::string("sizes")},
                        {"coordinate_transformation_mode", std::string("asymmetric")},
                        {"nearest_mode", std::string("floor")},
                        {"cube_coeff", -0.75},
                        {"antialias", false}});
    up.out(0).set_type_and_shape(reshape.out(0).type(), reshape.out(0).shape());
    g.replace(reshape, up);
    return true;
}

}  // namespace mo
