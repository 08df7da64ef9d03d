// Einsum-7: Einstein summation over any number of operands. Equations follow OpenVINO's parser:
// blanks are ignored, labels are ASCII letters (case-sensitive), each subscript holds at most one
// "...", the output subscript after "->" is optional (implicit mode: the labels found in no other
// input subscript, sorted, after "..." if any input has one). A label repeated in one input takes
// the diagonal; same labels in different inputs and the "..." dims broadcast numpy-style.
// Evaluation contracts the operands left to right, each pair as batched GEMMs.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

constexpr int kEllipsis = -1;  // label id of "..." in a parsed subscript

struct Equation {
    std::vector<std::vector<int>> inputs;  // label ids (a letter's char code, or kEllipsis)
    std::vector<int> output;
};

bool has_ellipsis(const std::vector<int>& s) { return std::find(s.begin(), s.end(), kEllipsis) != s.end(); }

std::vector<int> parse_subscript(const std::string& text, const std::string& equation) {
    std::vector<int> labels;
    for (size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (std::isalpha(static_cast<unsigned char>(ch))) {
            labels.push_back(ch);
        } else if (text.compare(i, 3, "...") == 0) {
            if (has_ellipsis(labels))
                throw Error("subscript '" + text + "' of Einsum equation '" + equation + "' has more than one ellipsis");
            labels.push_back(kEllipsis);
            i += 2;
        } else {
            throw Error("Einsum equation '" + equation + "' has an invalid label '" + std::string(1, ch) + "'",
                        {}, "labels are letters A-Z, a-z and one '...' per subscript");
        }
    }
    return labels;
}

Equation parse_equation(std::string equation) {
    equation.erase(std::remove_if(equation.begin(), equation.end(),
                                  [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); }),
                   equation.end());
    Equation eq;
    const size_t arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    for (size_t begin = 0;;) {
        const size_t comma = lhs.find(',', begin);
        eq.inputs.push_back(parse_subscript(lhs.substr(begin, comma - begin), equation));
        if (comma == std::string::npos) break;
        begin = comma + 1;
    }
    const bool any_ellipsis = std::any_of(eq.inputs.begin(), eq.inputs.end(), has_ellipsis);
    if (arrow == std::string::npos) {
        // Implicit mode as OpenVINO recovers it: labels absent from every other subscript.
        for (size_t i = 0; i < eq.inputs.size(); ++i)
            for (int label : eq.inputs[i]) {
                bool elsewhere = false;
                for (size_t j = 0; j < eq.inputs.size(); ++j)
                    if (j != i && std::count(eq.inputs[j].begin(), eq.inputs[j].end(), label)) elsewhere = true;
                if (label != kEllipsis && !elsewhere) eq.output.push_back(label);
            }
        std::sort(eq.output.begin(), eq.output.end());
        if (any_ellipsis) eq.output.insert(eq.output.begin(), kEllipsis);
    } else {
        eq.output = parse_subscript(equation.substr(arrow + 2), equation);
        if (has_ellipsis(eq.output) != any_ellipsis)
            throw Error("Einsum equation '" + equation + "' must have '...' in the output subscript exactly when an input "
                        "subscript has one");
        for (int label : eq.output)
            if (label != kEllipsis && std::none_of(eq.inputs.begin(), eq.inputs.end(), [&](const std::vector<int>& s) {
                    return std::count(s.begin(), s.end(), label) > 0;
                }))
                throw Error("label '" + std::string(1, char(label)) + "' of the output subscript of Einsum equation '" +
                            equation + "' is in no input subscript");
    }
    for (int label : eq.output)
        if (std::count(eq.output.begin(), eq.output.end(), label) > 1)
            throw Error("Einsum equation '" + equation + "' repeats label '" +
                        (label == kEllipsis ? std::string("...") : std::string(1, char(label))) + "' in its output",
                        {}, "write the output subscript explicitly, each label once");
    return eq;
}

// ---- Shape inference -------------------------------------------------------------------------

// Numpy broadcast of one dimension pair; throws when they cannot broadcast.
Dimension broadcast_dim(const Dimension& a, const Dimension& b) {
    return broadcast_numpy(PartialShape{a}, PartialShape{b})[0];
}

void infer_einsum(InferContext& c) {
    Equation eq;
    try {
        eq = parse_equation(c.attr<std::string>("equation"));
    } catch (const Error& e) {
        c.fail(e.what_part(), e.hint());
    }
    if (eq.inputs.size() != c.input_count())
        c.fail("the equation has " + std::to_string(eq.inputs.size()) + " input subscripts for " +
               std::to_string(c.input_count()) + " inputs");
    ElementType type = ElementType::dynamic;
    for (size_t i = 0; i < c.input_count(); ++i) {
        const ElementType t = c.in_type(i);
        if (t == ElementType::dynamic) continue;
        if (!is_float(t) && !is_integral(t)) c.fail("Einsum inputs must be numeric, input " + std::to_string(i) + " is " + std::string(ir_name(t)));
        if (type != ElementType::dynamic && t != type) c.fail("Einsum inputs must have the same element type");
        type = t;
    }

    std::map<int, Dimension> dims;  // letter -> dimension
    PartialShape ellipsis;          // broadcast of every input's "..." dims
    bool ellipsis_rank_known = true;
    for (size_t i = 0; i < eq.inputs.size(); ++i) {
        const auto& labels = eq.inputs[i];
        const PartialShape& shape = c.in_shape(i);
        const bool has_dots = has_ellipsis(labels);
        if (!shape.rank_is_static()) {
            if (has_dots) ellipsis_rank_known = false;
            for (int l : labels)
                if (l != kEllipsis) dims.emplace(l, Dimension::dynamic());
            continue;
        }
        const size_t rank = shape.rank();
        const size_t letters = labels.size() - (has_dots ? 1 : 0);
        if (has_dots ? rank < letters : rank != letters)
            c.fail("input " + std::to_string(i) + " of shape [" + shape.to_string() + "] has " +
                   (has_dots ? "fewer dimensions than" : "another rank than") + " the " + std::to_string(letters) +
                   " labels of its subscript");
        std::map<int, Dimension> own;  // a label repeated in one input must match (diagonal)
        size_t d = 0;
        for (int l : labels) {
            if (l == kEllipsis) {
                const size_t covered = rank - letters;
                PartialShape part(std::vector<Dimension>(shape.dims().begin() + d, shape.dims().begin() + d + covered));
                try {
                    ellipsis = broadcast_numpy(ellipsis, part);
                } catch (const Error&) {
                    c.fail("the dimensions covered by '...' do not broadcast (input " + std::to_string(i) + ")");
                }
                d += covered;
                continue;
            }
            auto [it, fresh] = own.emplace(l, shape[d]);
            if (!fresh) {
                if (!it->second.compatible(shape[d]))
                    c.fail("label '" + std::string(1, char(l)) + "' is repeated in input " + std::to_string(i) +
                           " over dimensions of different sizes: [" + shape.to_string() + "]");
                it->second = Dimension::merge(it->second, shape[d]);
            }
            ++d;
        }
        for (const auto& [l, dim] : own) {
            auto [it, fresh] = dims.emplace(l, dim);
            if (fresh) continue;
            try {
                it->second = broadcast_dim(it->second, dim);
            } catch (const Error&) {
                c.fail("label '" + std::string(1, char(l)) + "' stands for dimensions " + it->second.to_string() + " and " +
                       dim.to_string() + " that do not broadcast");
            }
        }
    }
    if (!ellipsis_rank_known) {
        c.set_output(0, type, PartialShape::dynamic_rank());
        return;
    }
    PartialShape out;
    for (int l : eq.output) {
        if (l == kEllipsis) out.dims().insert(out.dims().end(), ellipsis.dims().begin(), ellipsis.dims().end());
        else out.dims().push_back(dims.at(l));
    }
    c.set_output(0, type, out);
}

// ---- Evaluation ------------------------------------------------------------------------------

// Label ids during evaluation: a letter's char code, or kDotsBase + k for the k-th dimension of
// the broadcast "..." shape (right-aligned across inputs).
constexpr int kDotsBase = 256;

// A tensor seen through its labels: one stride per distinct label (a repeated label's strides
// add up, which walks the diagonal; a dimension of 1 has stride 0 so it broadcasts).
template <typename T>
struct Operand {
    std::vector<T> owned;
    const T* data = nullptr;
    std::vector<int> labels;
    std::vector<int64_t> strides;

    int64_t stride(int label) const {
        for (size_t i = 0; i < labels.size(); ++i)
            if (labels[i] == label) return strides[i];
        return 0;
    }
    bool has(int label) const { return std::count(labels.begin(), labels.end(), label) > 0; }
};

using Sizes = std::map<int, int64_t>;

// Visits every index of `dims` in row-major order with the two matching offsets.
template <typename F>
void walk(const std::vector<int64_t>& dims, const std::vector<int64_t>& sa, const std::vector<int64_t>& sb, F&& f) {
    for (int64_t d : dims)
        if (d == 0) return;
    std::vector<int64_t> idx(dims.size(), 0);
    int64_t a = 0, b = 0;
    for (;;) {
        f(a, b);
        size_t k = dims.size();
        for (; k-- > 0;) {
            a += sa[k];
            b += sb[k];
            if (++idx[k] < dims[k]) break;
            a -= sa[k] * dims[k];
            b -= sb[k] * dims[k];
            idx[k] = 0;
        }
        if (k == SIZE_MAX) return;
    }
}

// The operand as a contiguous tensor over `keep` (in that order), summed over its other labels.
template <typename T>
Operand<T> reduce_to(const Operand<T>& op, const std::vector<int>& keep, const Sizes& sizes) {
    std::vector<int64_t> dims, s_in, s_out(keep.size());
    int64_t count = 1;
    for (size_t i = keep.size(); i-- > 0;) {
        s_out[i] = count;
        count *= sizes.at(keep[i]);
    }
    for (int l : keep) {
        dims.push_back(sizes.at(l));
        s_in.push_back(op.stride(l));
    }
    for (size_t i = 0; i < op.labels.size(); ++i)
        if (std::count(keep.begin(), keep.end(), op.labels[i]) == 0) {
            dims.push_back(sizes.at(op.labels[i]));
            s_in.push_back(op.strides[i]);
            s_out.push_back(0);
        }
    Operand<T> out;
    out.owned.assign(static_cast<size_t>(count), T(0));
    const T* src = op.data;
    T* dst = out.owned.data();
    walk(dims, s_in, s_out, [&](int64_t i, int64_t o) { dst[o] = wrapping_add(dst[o], src[i]); });
    out.data = out.owned.data();
    out.labels = keep;
    out.strides.assign(keep.size(), 0);
    for (size_t i = 0; i < keep.size(); ++i) out.strides[i] = sizes.at(keep[i]) == 1 ? 0 : s_out[i];
    return out;
}

// a x b over their shared labels: batch labels (kept) and K labels (summed) are shared, M labels
// are a's alone, N labels b's alone. Labels of one operand that are not `needed` are summed first.
template <typename T>
Operand<T> contract(const Operand<T>& a, const Operand<T>& b, const std::vector<int>& needed, const Sizes& sizes) {
    auto is_needed = [&](int l) { return std::count(needed.begin(), needed.end(), l) > 0; };
    std::vector<int> batch, m, n, k;
    for (int l : a.labels) {
        if (b.has(l)) (is_needed(l) ? batch : k).push_back(l);
        else if (is_needed(l)) m.push_back(l);
    }
    for (int l : b.labels)
        if (!a.has(l) && is_needed(l)) n.push_back(l);
    auto concat = [](std::vector<int> x, const std::vector<int>& y, const std::vector<int>& z) {
        x.insert(x.end(), y.begin(), y.end());
        x.insert(x.end(), z.begin(), z.end());
        return x;
    };
    auto product = [&](const std::vector<int>& ls) {
        int64_t p = 1;
        for (int l : ls) p *= sizes.at(l);
        return p;
    };
    const Operand<T> ra = reduce_to(a, concat(batch, m, k), sizes);
    const Operand<T> rb = reduce_to(b, concat(batch, k, n), sizes);
    const int64_t B = product(batch), M = product(m), N = product(n), K = product(k);
    Operand<T> out;
    out.owned.assign(static_cast<size_t>(B * M * N), T(0));
    if (M > 0 && N > 0 && K > 0)
        for (int64_t i = 0; i < B; ++i)
            gemm<T>(M, N, K, ra.data + i * M * K, K, false, rb.data + i * K * N, N, false, out.owned.data() + i * M * N, N,
                    false);
    out.data = out.owned.data();
    out.labels = concat(batch, m, n);
    int64_t stride = 1;
    out.strides.assign(out.labels.size(), 0);
    for (size_t i = out.labels.size(); i-- > 0;) {
        const int64_t size = sizes.at(out.labels[i]);
        out.strides[i] = size == 1 ? 0 : stride;
        stride *= size;
    }
    return out;
}

std::vector<Tensor> eval_einsum(const Node& n, const std::vector<Tensor>& in) {
    const Equation eq = parse_equation(n.attr<std::string>("equation"));
    if (eq.inputs.size() != in.size()) throw Error("the equation does not have one subscript per input", n.describe());
    const ElementType type = in.at(0).type();
    for (const Tensor& t : in)
        if (t.type() != type) throw Error("Einsum inputs must have the same element type", n.describe());
    if (!is_float(type) && !is_integral(type)) throw Error("Einsum inputs must be numeric", n.describe());

    // Label sizes, with the "..." dims broadcast right-aligned.
    Shape dots;
    Sizes sizes;
    auto merge = [&](int label, int64_t size) {
        auto [it, fresh] = sizes.emplace(label, size);
        if (fresh || it->second == size || size == 1) return;
        if (it->second != 1) throw Error("Einsum dimensions of one label do not broadcast", n.describe());
        it->second = size;
    };
    std::vector<std::vector<int>> expanded(in.size());  // per input dimension: its label id
    for (size_t i = 0; i < in.size(); ++i) {
        const Shape& shape = in[i].shape();
        const auto& labels = eq.inputs[i];
        const size_t letters = labels.size() - (has_ellipsis(labels) ? 1 : 0);
        if (has_ellipsis(labels) ? shape.size() < letters : shape.size() != letters)
            throw Error("input " + std::to_string(i) + " does not match its subscript", n.describe());
        if (has_ellipsis(labels)) dots.resize(std::max(dots.size(), shape.size() - letters), 1);
    }
    for (size_t i = 0; i < in.size(); ++i) {
        const Shape& shape = in[i].shape();
        const size_t covered = shape.size() - (eq.inputs[i].size() - (has_ellipsis(eq.inputs[i]) ? 1 : 0));
        for (int l : eq.inputs[i]) {
            if (l != kEllipsis) {
                expanded[i].push_back(l);
                continue;
            }
            for (size_t k = 0; k < covered; ++k) expanded[i].push_back(kDotsBase + int(dots.size() - covered + k));
        }
        std::map<int, int64_t> own;
        for (size_t d = 0; d < shape.size(); ++d) {
            auto [it, fresh] = own.emplace(expanded[i][d], shape[d]);
            if (!fresh && it->second != shape[d])
                throw Error("a label repeated in one Einsum input has dimensions of different sizes", n.describe());
            merge(expanded[i][d], shape[d]);
        }
    }
    std::vector<int> out_labels;
    for (int l : eq.output) {
        if (l != kEllipsis) out_labels.push_back(l);
        else
            for (size_t k = 0; k < dots.size(); ++k) {
                out_labels.push_back(kDotsBase + int(k));
                sizes.emplace(kDotsBase + int(k), 1);
            }
    }
    Shape out_shape;
    for (int l : out_labels) out_shape.push_back(sizes.at(l));
    // Each contraction walks at most every combination of labels.
    std::vector<int64_t> work{static_cast<int64_t>(in.size())};
    for (const auto& [label, size] : sizes) work.push_back(size);
    EvalBudget::charge_operations(saturating_product(work), "the Einsum");

    return evaluate_via_f32(in, [&](const std::vector<Tensor>& wide) {
        Tensor y = Tensor::allocate(wide[0].type(), out_shape);
        dispatch_type(wide[0].type(), [&]<typename T>() {
            std::vector<Operand<T>> ops(wide.size());
            for (size_t i = 0; i < wide.size(); ++i) {
                Operand<T>& op = ops[i];
                op.data = wide[i].data<T>();
                const Shape& shape = wide[i].shape();
                const auto strides = row_major_strides(shape);
                for (size_t d = 0; d < shape.size(); ++d) {
                    const int l = expanded[i][d];
                    const int64_t s = shape[d] == 1 ? 0 : strides[d];
                    auto it = std::find(op.labels.begin(), op.labels.end(), l);
                    if (it == op.labels.end()) {
                        op.labels.push_back(l);
                        op.strides.push_back(s);
                    } else {
                        op.strides[size_t(it - op.labels.begin())] += s;
                    }
                }
            }
            Operand<T> acc = std::move(ops[0]);
            if (acc.owned.size()) acc.data = acc.owned.data();
            for (size_t i = 1; i < ops.size(); ++i) {
                std::vector<int> needed = out_labels;
                for (size_t j = i + 1; j < ops.size(); ++j) needed.insert(needed.end(), ops[j].labels.begin(), ops[j].labels.end());
                acc = contract(acc, ops[i], needed, sizes);
            }
            const Operand<T> result = reduce_to(acc, out_labels, sizes);
            std::copy(result.owned.begin(), result.owned.end(), y.mutable_data<T>());
        }, false);
        return std::vector<Tensor>{y};
    });
}

}  // namespace

void register_einsum_ops(OpRegistry& r) {
    OpSchema s = make_schema("Einsum", "Einsum", "opset7", 1, SIZE_MAX, 1, {{"equation", AttrKind::String, {}}});
    s.infer = infer_einsum;
    s.eval = eval_einsum;
    r.add(std::move(s));
}

}  // namespace mo
