#include "transforms/middle/rotate_half_form.hpp"

#include <limits>

namespace mo {

namespace {

constexpr int64_t kIntMax32 = std::numeric_limits<int32_t>::max();

// The single value of a constant input, or nullopt.
std::optional<int64_t> single(const Node& n, size_t input) {
    if (input >= n.input_count()) return std::nullopt;
    const Tensor* t = n.in(input).value();
    if (!t || t->size() != 1 || !is_integral(t->type())) return std::nullopt;
    return t->to_i64()[0];
}

struct SliceOfLastAxis {
    int64_t start = 0, stop = 0, axis = 0;
};

// Slice(x, start, stop, 1, axis) over the last of x's `rank` axes, with one-element constants.
std::optional<SliceOfLastAxis> last_axis_slice(const Node& slice, int64_t rank) {
    if (!slice.is("Slice")) return std::nullopt;
    auto start = single(slice, 1), stop = single(slice, 2), step = single(slice, 3), axis = single(slice, 4);
    if (!start || !stop || step != 1 || !axis || (*axis != -1 && *axis != rank - 1)) return std::nullopt;
    return SliceOfLastAxis{*start, *stop, *axis};
}

OutPort i64s(Graph& g, const std::string& name, int64_t value) {
    return g.add_constant(name, Tensor::from_vector<int64_t>({value}, {1})).out(0);
}

// Slice(x, [start], [stop], [1], [3]) in the place of `old`.
void replace_slice(Node old, const OutPort& x, int64_t start, int64_t stop) {
    Graph& g = old.graph();
    const std::string name = old.name();
    Node slice = g.add_op("Slice", name + "/rope_form",
                          {x, i64s(g, name + "/rope_form/start", start), i64s(g, name + "/rope_form/stop", stop),
                           i64s(g, name + "/rope_form/step", 1), i64s(g, name + "/rope_form/axis", 3)});
    g.replace(old, slice);
}

}  // namespace

bool RotateHalfForRoPEFusion::apply(Node concat, const TransformContext&) {
    if (concat.input_count() != 2 || !concat.in(0).connected() || !concat.in(1).connected()) return false;
    const Node negation = concat.in(0).src().node(), first_half = concat.in(1).src().node();
    // -x2 as Negative(x2), or already x2 * -1
    Node second_half;
    const bool negative = negation.is("Negative");
    if (negative) {
        second_half = negation.in(0).src().node();
    } else if (negation.is("Multiply")) {
        for (size_t i = 0; i < 2; ++i) {
            const Tensor* c = negation.in(i).value();
            if (c && c->size() == 1 && c->to_f64()[0] == -1.0) second_half = negation.in(1 - i).src().node();
        }
    }
    if (!second_half || !first_half.is("Slice") || !second_half.is("Slice")) return false;
    const OutPort x = first_half.in(0).src();
    if (second_half.in(0).src() != x || !is_float(x.type())) return false;
    const PartialShape& xs = x.shape();
    if (!xs.rank_is_static() || xs.rank() != 4 || !xs[3].is_static() || xs[3].get_length() % 2 != 0) return false;
    const int64_t dim = xs[3].get_length(), half = dim / 2;
    const auto x1 = last_axis_slice(first_half, 4), x2 = last_axis_slice(second_half, 4);
    if (!x1 || !x2 || x1->start != 0 || x1->stop != half || x2->start != half || x2->stop < dim) return false;
    const int64_t axis = concat.attr<int64_t>("axis");
    if (axis != -1 && axis != 3) return false;
    const bool first_ok = x1->axis == 3, second_ok = x2->axis == 3 && x2->stop == kIntMax32;
    if (first_ok && second_ok && !negative && axis == -1) return false;  // already in the form

    if (!first_ok) replace_slice(first_half, x, 0, half);
    if (!second_ok) replace_slice(second_half, x, half, kIntMax32);
    if (negative) {
        Graph& g = concat.graph();
        const OutPort minus_one = g.add_constant(negation.name() + "/minus_one", Tensor::scalar<double>(-1.0).convert(x.type())).out(0);
        g.replace(negation, g.add_op("Multiply", negation.name() + "/times_minus_one", {negation.in(0).src(), minus_one}));
    }
    concat.set_attr<int64_t>("axis", -1);
    return true;
}

}  // namespace mo
