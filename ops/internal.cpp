// Internal ops with ONNX semantics, kept until a back transformation lowers them to opset ops:
// Gemm, Flatten, BatchNormalization (inference form) and Clip (ONNX-11, min/max as inputs); and
// the placeholders of ONNX sequences known at conversion, which extractors resolve away.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/normalization.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

// Float evaluation through double; integral types are rounded back by the dispatch.
template <typename Compute>
std::vector<Tensor> eval_numeric(const std::vector<Tensor>& inputs, Compute&& compute) {
    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        return dispatch_type(in[0].type(), [&]<typename T>() { return compute.template operator()<T>(in); }, false);
    });
}

// ---------------------------------------------------------------- Gemm

// ONNX Gemm: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A (2D), C broadcast to [M, N].
void infer_gemm(InferContext& c) {
    const auto& a = c.in_shape(0);
    const auto& b = c.in_shape(1);
    if (a.rank_is_static() && a.rank() != 2) c.fail("input A must be 2D, got rank " + std::to_string(a.rank()));
    if (b.rank_is_static() && b.rank() != 2) c.fail("input B must be 2D, got rank " + std::to_string(b.rank()));
    if (c.in_type(0) != c.in_type(1) && c.in_type(0) != ElementType::dynamic && c.in_type(1) != ElementType::dynamic)
        c.fail("inputs A and B have different element types");
    const bool ta = c.attr<bool>("transA"), tb = c.attr<bool>("transB");
    Dimension m, k_a, k_b, n;
    if (a.rank_is_static()) {
        m = a[ta ? 1 : 0];
        k_a = a[ta ? 0 : 1];
    }
    if (b.rank_is_static()) {
        k_b = b[tb ? 1 : 0];
        n = b[tb ? 0 : 1];
    }
    if (!k_a.compatible(k_b))
        c.fail("inner dimensions of A' (" + k_a.to_string() + ") and B' (" + k_b.to_string() + ") differ");
    PartialShape out{m, n};
    if (c.has_input(2)) {
        const auto& cs = c.in_shape(2);
        if (cs.rank_is_static() && cs.rank() > 2) c.fail("input C must have rank <= 2");
        // C broadcasts one way to [M, N]: it may refine dynamic M, N but never grow a static one.
        PartialShape merged;
        try {
            merged = broadcast_numpy(out, cs);
        } catch (const Error&) {
            c.fail("input C of shape [" + cs.to_string() + "] does not broadcast to [" + out.to_string() + "]");
        }
        if (!merged.rank_is_static()) merged = out;  // C of unknown rank refines nothing (found by fuzz_onnx)
        for (size_t i = 0; i < 2; ++i)
            if (out[i].is_static() && merged[i] != out[i])
                c.fail("input C of shape [" + cs.to_string() + "] does not broadcast to [" + out.to_string() + "]");
        out = merged;
    }
    c.set_output(0, c.in_type(0), out);
}

std::vector<Tensor> eval_gemm(const Node& n, const std::vector<Tensor>& inputs) {
    const double alpha = n.attr<double>("alpha"), beta = n.attr<double>("beta");
    const bool ta = n.attr<bool>("transA"), tb = n.attr<bool>("transB");
    return eval_numeric(inputs, [&]<typename T>(const std::vector<Tensor>& in) {
        const Shape& as = in[0].shape();
        const Shape& bs = in[1].shape();
        MO_ASSERT(as.size() == 2 && bs.size() == 2);
        const int64_t M = ta ? as[1] : as[0], K = ta ? as[0] : as[1], N = tb ? bs[0] : bs[1];
        EvalBudget::charge_operations(saturating_product({M, N, K}), "the Gemm");
        const T* A = in[0].data<T>();
        const T* B = in[1].data<T>();
        Tensor out = Tensor::allocate(in[0].type(), {M, N});
        T* Y = out.mutable_data<T>();
        std::vector<int64_t> c_strides(2, 0);
        const T* C = nullptr;
        if (in.size() > 2 && !in[2].empty()) {
            C = in[2].data<T>();
            c_strides = broadcast_strides(in[2].shape(), {M, N});
        }
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
                double acc = 0;
                for (int64_t k = 0; k < K; ++k) {
                    double a = static_cast<double>(ta ? A[k * M + i] : A[i * K + k]);
                    double b = static_cast<double>(tb ? B[j * K + k] : B[k * N + j]);
                    acc += a * b;
                }
                double y = alpha * acc;
                if (C) y += beta * static_cast<double>(C[i * c_strides[0] + j * c_strides[1]]);
                Y[i * N + j] = saturate_cast<T>(y);
            }
        return std::vector<Tensor>{out};
    });
}

// ---------------------------------------------------------------- Flatten

// ONNX Flatten: [d0..d(axis-1)] and [d(axis)..] collapse into a 2D [prod, prod].
void infer_flatten(InferContext& c) {
    const auto& in = c.in_shape(0);
    if (!in.rank_is_static()) {
        c.set_output(0, c.in_type(0), PartialShape::dynamic(2));
        return;
    }
    const auto rank = static_cast<int64_t>(in.rank());
    int64_t axis = c.attr<int64_t>("axis");
    if (axis < -rank || axis > rank)
        c.fail("axis " + std::to_string(axis) + " is out of range [" + std::to_string(-rank) + ", " + std::to_string(rank) + "]");
    if (axis < 0) axis += rank;
    Dimension outer(1), inner(1);
    for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) = (i < axis ? outer : inner) * in[static_cast<size_t>(i)];
    c.set_output(0, c.in_type(0), PartialShape{outer, inner});
}

std::vector<Tensor> eval_flatten(const Node& n, const std::vector<Tensor>& inputs) {
    const Shape& s = inputs[0].shape();
    const auto rank = static_cast<int64_t>(s.size());
    int64_t axis = n.attr<int64_t>("axis");
    if (axis < 0) axis += rank;
    MO_ASSERT(axis >= 0 && axis <= rank);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= s[static_cast<size_t>(i)];
    return {inputs[0].reshaped({outer, inner})};
}

// ---------------------------------------------------------------- Clip

// ONNX-11 Clip: Y = min(max(X, min), max); absent bounds do not clip.
void infer_clip(InferContext& c) {
    for (size_t i = 1; i < 3; ++i) {
        if (!c.has_input(i)) continue;
        const auto& s = c.in_shape(i);
        if (s.rank_is_static() && !(s.rank() == 0 || (s.rank() == 1 && s[0].compatible(1))))
            c.fail(std::string(i == 1 ? "min" : "max") + " must be a scalar, got shape [" + s.to_string() + "]");
    }
    c.set_output(0, c.in_type(0), c.in_shape(0));
}

std::vector<Tensor> eval_clip(const Node&, const std::vector<Tensor>& inputs) {
    return eval_numeric(inputs, [&]<typename T>(const std::vector<Tensor>& in) {
        auto bound = [&](size_t i, double fallback) {
            if (in.size() <= i || in[i].empty()) return fallback;
            auto v = in[i].to_f64();
            MO_ASSERT(v.size() == 1);
            return v[0];
        };
        const double lo = bound(1, -std::numeric_limits<double>::infinity());
        const double hi = bound(2, std::numeric_limits<double>::infinity());
        Tensor out = Tensor::allocate(in[0].type(), in[0].shape());
        const T* x = in[0].data<T>();
        T* y = out.mutable_data<T>();
        const size_t count = in[0].size();
        for (size_t i = 0; i < count; ++i) {
            double v = static_cast<double>(x[i]);
            if (std::isnan(v)) {
                y[i] = x[i];
                continue;
            }
            y[i] = static_cast<T>(std::min(std::max(v, lo), hi));
        }
        return std::vector<Tensor>{out};
    });
}

}  // namespace

void register_internal_ops(OpRegistry& r) {
    // No IR type or version: the emitter refuses these, CheckOnlyOpsetOps reports them.
    auto internal = [&](std::string type, size_t min_inputs, size_t max_inputs, std::vector<AttrSpec> attrs, InferFn infer,
                        EvalFn eval) {
        OpSchema s;
        s.type = std::move(type);
        s.min_inputs = min_inputs;
        s.max_inputs = max_inputs;
        s.num_outputs = 1;
        s.attrs = std::move(attrs);
        s.infer = std::move(infer);
        s.eval = std::move(eval);
        r.add(std::move(s));
    };
    internal("Gemm", 2, 3,
             {{"alpha", AttrKind::Float, 1.0}, {"beta", AttrKind::Float, 1.0}, {"transA", AttrKind::Bool, false},
              {"transB", AttrKind::Bool, false}},
             infer_gemm, eval_gemm);
    internal("Flatten", 1, 1, {{"axis", AttrKind::Int, int64_t{1}}}, infer_flatten, eval_flatten);
    internal("BatchNormalization", 5, 5, {{"epsilon", AttrKind::Float, 1e-5}}, infer_batch_norm, eval_batch_norm);
    internal("Clip", 1, 3, {}, infer_clip, eval_clip);
    // ONNX sequences whose elements are known at conversion (extractors/onnx/sequence.cpp): the
    // output stands for the list of the inputs (SequenceMake) or for the list at input 0 with
    // input 1 inserted at position `position` (SequenceInsert; -1 appends). Sequence consumers
    // read the elements from these nodes; nothing may remain of them in the IR.
    auto placeholder = [](InferContext& c) { c.set_output(0, ElementType::dynamic, PartialShape::dynamic_rank()); };
    internal("SequenceMake", 0, SIZE_MAX, {}, placeholder, {});
    internal("SequenceInsert", 2, 2, {{"position", AttrKind::Int, int64_t{-1}}, {"length", AttrKind::Int, int64_t{-1}}},
             placeholder, {});
}

}  // namespace mo
