#include "transforms/front/input_preprocessing.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/eval_budget.hpp"
#include "core/infer.hpp"
#include "transforms/middle/partial_inference.hpp"

namespace mo {

namespace {

// The Parameter an option entry names, or the one at `position` for an unnamed entry.
Node parameter_for(Graph& g, const std::string& name, size_t position, const char* flag) {
    auto& params = g.parameters();
    if (name.empty()) {
        if (position >= params.size())
            throw Error(std::string(flag) + " gives more entries than the model has inputs (" +
                            std::to_string(params.size()) + ")",
                        g.source_path, "name the inputs: name[values]");
        return params[position];
    }
    for (const Node& p : params)
        if (p.answers_to(name)) return p;
    std::string list;
    for (const Node& p : params) list += (list.empty() ? "" : ", ") + p.name();
    throw Error(std::string(flag) + " names input '" + name + "', which the model does not have", g.source_path,
                "the model's inputs are: " + list);
}

void set_batch(Graph& g, int64_t batch) {
    for (const Node& p : g.parameters()) {
        PartialShape s = p.attr<PartialShape>("shape");
        if (!s.rank_is_static() || s.rank() == 0) continue;
        s[0] = Dimension(batch);
        p.set_attr("shape", s);
        p.out(0).set_type_and_shape(p.out(0).type(), s);
    }
}

// `values` (one per element, or one for all) as a tensor of `type` and shape `s`; one value is
// repeated in its own type, without a list of doubles as long as the tensor.
Tensor frozen_value(const std::vector<double>& values, const Shape& s, ElementType type) {
    if (values.size() != 1) return Tensor::from_vector<double>(values, s).convert(type);
    if (bit_width(type) % 8 != 0)  // sub-byte elements share bytes: built from the list
        return Tensor::from_vector<double>(std::vector<double>(static_cast<size_t>(shape_size(s)), values[0]), s).convert(type);
    const Tensor one = Tensor::from_vector<double>(values, {}).convert(type);
    Tensor out = Tensor::allocate(type, s);
    const size_t width = one.byte_size();
    auto* dst = out.mutable_data<std::byte>();
    for (size_t i = 0, n = static_cast<size_t>(shape_size(s)); i < n; ++i) std::memcpy(dst + i * width, one.bytes(), width);
    return out;
}

void freeze(Graph& g, const InputSpec& spec) {
    Node p = parameter_for(g, spec.name, 0, "--input");
    const PartialShape shape = spec.shape ? *spec.shape : p.attr<PartialShape>("shape");
    if (!shape.is_static())
        throw Error("input '" + spec.name + "' has no static shape to freeze with", g.source_path,
                    "give its shape: --input " + spec.name + "[1,3]->[...]");
    const Shape s = shape.to_shape();
    const std::vector<double>& values = *spec.value;
    const auto count = static_cast<size_t>(shape_size(s));
    if (values.size() != 1 && values.size() != count)
        throw Error("input '" + spec.name + "' is frozen with " + std::to_string(spec.value->size()) + " values for " +
                        std::to_string(count) + " elements",
                    g.source_path, "give one value per element, or one for all");
    const ElementType type = p.out(0).type() == ElementType::dynamic ? ElementType::f32 : p.out(0).type();
    // One value repeated over a shape the user gave: checked before anything is allocated.
    if (!fits_bytes(type, static_cast<int64_t>(count), g.max_constant_bytes))
        throw Error("input '" + spec.name + "' is frozen to " + std::to_string(count) + " elements of " +
                        std::string(ir_name(type)) + ", more than --max_constant_size (" +
                        std::to_string(g.max_constant_bytes) + " bytes)",
                    g.source_path, "freeze it to a smaller shape, or raise --max_constant_size");
    Node c = g.add_constant(p.name() + "/frozen", frozen_value(*spec.value, s, type));
    p.out(0).replace_all_uses_with(c.out(0));
    c.out(0).names() = p.out(0).names();
    auto& params = g.parameters();
    params.erase(std::find(params.begin(), params.end(), p));
    g.remove_node(p);
}

// The layout the model reads a 4-D input in when the user does not say: the source's.
std::string default_layout(const Graph& g, size_t rank) {
    if (rank != 4) return "";
    return g.source_layout == "NHWC" ? "nhwc" : "nchw";
}

// The Parameter takes `target` layout; a Transpose behind it gives the model `source`, and its
// output (inferred now) is what the model reads.
OutPort relayout(Graph& g, const Node& p, const std::string& source, const std::string& target) {
    const PartialShape s = p.attr<PartialShape>("shape");
    const std::string where = "input '" + p.name() + "'";
    if (!s.rank_is_static() || s.rank() != source.size())
        throw Error(where + " does not have the " + std::to_string(source.size()) + " axes of layout '" + source + "'",
                    g.source_path, "give a layout with one letter per axis");
    std::string a = source, b = target;
    std::sort(a.begin(), a.end()), std::sort(b.begin(), b.end());
    if (a != b)
        throw Error("layouts '" + source + "' and '" + target + "' name different axes", where,
                    "give the same letters in another order, e.g. nhwc->nchw");
    if (source == target) return p.out(0);
    std::vector<int64_t> to_source(source.size());
    std::vector<Dimension> dims(source.size());
    for (size_t i = 0; i < source.size(); ++i) {
        to_source[i] = static_cast<int64_t>(target.find(source[i]));
        dims[i] = s[source.find(target[i])];
    }
    const PartialShape shape(std::move(dims));
    p.set_attr("shape", shape);
    p.out(0).set_type_and_shape(p.out(0).type(), shape);
    std::vector<InPort> consumers = p.out(0).targets();
    Node order = g.add_constant(p.name() + "/to_source_layout/order",
                                Tensor::from_vector<int64_t>(to_source, {static_cast<int64_t>(to_source.size())}));
    Node t = g.add_op("Transpose", p.name() + "/to_source_layout", {p.out(0), order.out(0)});
    for (const InPort& c : consumers) c.connect(t.out(0));
    PartialInference::infer_node(order);
    PartialInference::infer_node(t);
    return t.out(0);
}

struct ChannelSteps {
    bool reverse = false;
    std::vector<double> mean, scale;
};

// x (what the model reads of input p, in layout `layout`) -> [reverse channels] -> [- mean] ->
// [/ scale], the consumers of x moved to the end.
void preprocess(Graph& g, const Node& p, const OutPort& x, const ChannelSteps& steps, const std::string& layout) {
    const PartialShape& s = x.shape();
    // --reverse_input_channels alone applies to images (rank 3 or more) of 3 channels and leaves
    // the other inputs (a mask of [1], token ids of [1, 3]).
    const bool only_reverse = steps.mean.empty() && steps.scale.empty();
    if (!s.rank_is_static() || s.rank() < 2) {
        if (only_reverse) return;
        throw Error("input '" + p.name() + "' needs a known rank of 2 or more for means and scales", g.source_path,
                    s.rank_is_static() ? "drop --mean_values / --scale_values for it" : "give its shape with --input");
    }
    const size_t c_pos = layout.find('c');
    const size_t axis = c_pos != std::string::npos && layout.size() == s.rank() ? c_pos
                        : g.source_layout == "NHWC"                             ? s.rank() - 1
                                                                                : 1;
    const std::optional<int64_t> channels = s[axis].is_static() ? std::optional(s[axis].get_length()) : std::nullopt;
    const bool reverse = steps.reverse && s.rank() >= 3 && channels == 3;
    if (!reverse && only_reverse) return;
    if (!only_reverse && !is_float(x.type()))
        throw Error("input '" + p.name() + "' is " + std::string(ir_name(x.type())) + ": means and scales need a float input",
                    g.source_path, "drop --mean_values / --scale_values for it");
    std::vector<InPort> consumers = x.targets();
    OutPort y = x;
    auto per_channel = [&](const std::vector<double>& v, const char* what) {
        for (double value : v)
            if (!std::isfinite(value) || (value == 0 && std::string(what) == "scale_values"))
                throw Error(std::string(what) + " for input '" + p.name() + "' holds " + (std::ostringstream() << value).str(),
                            g.source_path,
                            std::string(what) == "scale_values" ? "a scale divides: give finite, non-zero values"
                                                                : "give finite values");
        if (v.size() != 1 && (!channels || static_cast<int64_t>(v.size()) != *channels))
            throw Error(std::string(what) + " for input '" + p.name() + "' has " + std::to_string(v.size()) +
                            " values; the input has " + (channels ? std::to_string(*channels) : "an unknown number of") +
                            " channels (axis " + std::to_string(axis) + ")",
                        g.source_path, "give one value per channel");
        Shape shape(s.rank(), 1);
        shape[axis] = static_cast<int64_t>(v.size());
        return g.add_constant(p.name() + "/" + what, Tensor::from_vector<double>(v, shape).convert(x.type())).out(0);
    };
    if (reverse) {
        OutPort indices = g.add_constant(p.name() + "/reverse/indices", Tensor::from_vector<int64_t>({2, 1, 0}, {3})).out(0);
        OutPort ax = g.add_constant(p.name() + "/reverse/axis", Tensor::scalar<int64_t>(static_cast<int64_t>(axis))).out(0);
        y = g.add_op("Gather", p.name() + "/reverse_channels", {y, indices, ax}, {{"batch_dims", int64_t{0}}}).out(0);
    }
    // The user's means and scales stay exact: a scale of 1e-8 became 0 in f16 (and the IR inf).
    // (std::string: a const char* trips GCC 12's false -Wrestrict.)
    auto exact = [](Node n) { return n.rt_info()[kDisableFp16Compression] = std::string("0"), n.out(0); };
    if (!steps.mean.empty())
        y = exact(g.add_op("Subtract", p.name() + "/mean", {y, per_channel(steps.mean, "mean_values")}));
    if (!steps.scale.empty())
        y = exact(g.add_op("Divide", p.name() + "/scale", {y, per_channel(steps.scale, "scale_values")}));
    for (const InPort& c : consumers) c.connect(y);
}

// What the model reads of each input (the Parameter, or the Transpose behind it) and in which
// layout, after --layout / --source_layout / --target_layout.
struct ModelSide {
    OutPort port;
    std::string layout;
};

std::map<uint64_t, ModelSide> apply_layouts(Graph& g, const std::vector<InputLayout>& layouts) {
    std::map<uint64_t, ModelSide> sides;
    for (const Node& p : g.parameters()) {
        const PartialShape& s = p.out(0).shape();
        sides[p.id()] = {p.out(0), default_layout(g, s.rank_is_static() ? s.rank() : 0)};
    }
    for (const InputLayout& l : layouts) {
        std::vector<Node> targets;
        if (!l.name.empty()) targets.push_back(parameter_for(g, l.name, 0, "--layout"));
        else targets = g.parameters();
        for (const Node& p : targets) {
            ModelSide& side = sides[p.id()];
            const std::string source = l.source.empty() ? side.layout : l.source;
            const PartialShape& s = p.out(0).shape();
            if (l.name.empty() && (!s.rank_is_static() || s.rank() != std::max(source.size(), l.target.size())))
                continue;  // a layout for every input applies to the inputs of its rank
            if (source.empty())
                throw Error("the layout input '" + p.name() + "' is read in is not known", g.source_path,
                            "give it: --source_layout " + p.name() + "(nhwc)");
            if (s.rank_is_static() && source.size() != s.rank())
                throw Error("input '" + p.name() + "' has " + std::to_string(s.rank()) + " axes but layout '" + source +
                                "' has " + std::to_string(source.size()),
                            g.source_path, "give a layout with one letter per axis");
            side.layout = source;
            if (!l.target.empty()) side.port = relayout(g, p, source, l.target);
        }
    }
    return sides;
}

}  // namespace

bool InputPreprocessing::run(Graph& g, const TransformContext& ctx) {
    const TransformOptions& o = ctx.options;
    bool changed = false;
    for (const InputSpec& spec : o.inputs)
        if (spec.value) freeze(g, spec), changed = true;
    if (o.batch) set_batch(g, *o.batch), changed = true;  // the inputs left after freezing
    if (o.static_shape)
        for (const Node& p : g.parameters())
            if (!p.out(0).shape().is_static())
                throw Error("--static_shape: input '" + p.name() + "' has the dynamic shape [" +
                                p.out(0).shape().to_string() + "]",
                            g.source_path, "give it a static shape: --input " + p.name() + "[...]");
    std::map<uint64_t, ModelSide> sides = apply_layouts(g, o.layouts);
    changed |= !o.layouts.empty();
    std::map<uint64_t, ChannelSteps> steps;
    auto entries = [&](const std::vector<InputChannelValues>& given, const char* flag, std::vector<double> ChannelSteps::*field) {
        std::set<uint64_t> seen;  // a second entry for an input would silently replace the first
        for (size_t i = 0; i < given.size(); ++i) {
            const Node p = parameter_for(g, given[i].name, i, flag);
            if (!seen.insert(p.id()).second)
                throw Error(std::string(flag) + " gives input '" + p.name() + "' twice", g.source_path, "give each input once");
            steps[p.id()].*field = given[i].values;
        }
    };
    entries(o.mean_values, "--mean_values", &ChannelSteps::mean);
    entries(o.scale_values, "--scale_values", &ChannelSteps::scale);
    if (o.reverse_input_channels)
        for (const Node& p : g.parameters()) steps[p.id()].reverse = true;
    for (const auto& [id, s] : steps) {
        const ModelSide& side = sides.at(id);
        preprocess(g, g.find_by_id(id), side.port, s, side.layout);
        changed = true;
    }
    return changed;
}

}  // namespace mo
