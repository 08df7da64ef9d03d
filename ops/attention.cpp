// ScaledDotProductAttention-13 (OpenVINO's spec, sequence/scaled-dot-product-attention.rst):
//   softmax(query · keyᵀ · scale + bias) · value
// with query [N..., L, E], key [N..., S, E], value [N..., S, Ev] -> [N..., L, Ev]. The bias is
// -inf above the diagonal of [L, S] when `causal` (the mask input is then ignored), else the
// attention_mask input: boolean (false -> -inf, true -> 0) or added as it is (a float of the
// query's type, or the scalar 0 for none). scale is the fifth input (one element), else
// 1/sqrt(E) in the query's type. Batch dimensions N... broadcast numpy-style across query, key,
// value and the mask's leading dimensions, and the mask's L and S dimensions may be 1 — as in
// the spec's pseudo-code, where each step is an opset op with numpy broadcasting. Shape
// inference follows OpenVINO's scaled_dot_product_attention_shape_inference.hpp.
#include <cmath>
#include <limits>
#include <optional>

#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

constexpr size_t kQuery = 0, kKey = 1, kValue = 2, kMask = 3, kScale = 4;

// Two dimensions that must be equal or one of them 1 (numpy broadcasting of one axis).
std::optional<Dimension> broadcast_dim(const Dimension& a, const Dimension& b) {
    if (a == Dimension(1)) return b;
    if (b == Dimension(1)) return a;
    if (a.is_static() && b.is_static()) return a == b ? std::optional<Dimension>(a) : std::nullopt;
    if (a.is_static()) return b.compatible(a) || b.compatible(1) ? std::optional<Dimension>(a) : std::nullopt;
    if (b.is_static()) return a.compatible(b) || a.compatible(1) ? std::optional<Dimension>(b) : std::nullopt;
    return a.compatible(b) ? Dimension::merge(a, b) : Dimension::dynamic();
}

PartialShape leading(const PartialShape& s) {
    return PartialShape(std::vector<Dimension>(s.dims().begin(), s.dims().end() - 2));
}

void infer_sdpa(InferContext& c) {
    const ElementType type = c.in_type(kQuery);
    const bool causal = c.attr<bool>("causal");
    const bool mask = c.has_input(kMask) && !causal;
    for (size_t i = 0; i < c.input_count(); ++i) {
        if (!c.has_input(i)) continue;
        const ElementType t = c.in_type(i);
        if (t == ElementType::dynamic) continue;
        if (i == kMask && (causal || t == ElementType::boolean)) continue;
        if (!is_float(t)) c.fail("input " + std::to_string(i) + " is " + std::string(ir_name(t)) + ", not a floating-point type");
        if (type != ElementType::dynamic && t != type)
            c.fail("inputs have different element types (" + std::string(ir_name(type)) + " and " + std::string(ir_name(t)) + ")",
                   "query, key, value, a float mask and scale share one type");
    }
    // N... (numpy-broadcast over the inputs), L, S, E, Ev.
    std::optional<PartialShape> batch;  // nullopt: dynamic rank
    Dimension l, s, e, ev;
    auto merge_batch = [&](const PartialShape& more, const char* what) {
        if (!batch) return;
        try {
            batch = broadcast_numpy(*batch, more);
        } catch (const Error&) {
            c.fail(std::string(what) + " shape [" + more.to_string() + "] does not broadcast with the query's batch [" +
                   batch->to_string() + "]");
        }
    };
    auto rank3 = [&](size_t i, const char* what) {
        const PartialShape& shape = c.in_shape(i);
        if (shape.rank_is_static() && shape.rank() < 3)
            c.fail(std::string(what) + " must have rank 3 or more, not [" + shape.to_string() + "]");
        return shape.rank_is_static();
    };
    const PartialShape& q = c.in_shape(kQuery);
    if (rank3(kQuery, "query")) {
        batch = leading(q);
        l = q[q.rank() - 2];
        e = q[q.rank() - 1];
    }
    const PartialShape& k = c.in_shape(kKey);
    if (rank3(kKey, "key")) {
        merge_batch(leading(k), "the key's");
        if (!e.compatible(k[k.rank() - 1]))
            c.fail("query [" + q.to_string() + "] and key [" + k.to_string() + "] have different embedding sizes");
        e = Dimension::merge(e, k[k.rank() - 1]);
        s = k[k.rank() - 2];
    }
    const PartialShape& v = c.in_shape(kValue);
    if (rank3(kValue, "value")) {
        merge_batch(leading(v), "the value's");
        if (!s.compatible(v[v.rank() - 2]))
            c.fail("key [" + k.to_string() + "] and value [" + v.to_string() + "] have different sequence lengths");
        s = Dimension::merge(s, v[v.rank() - 2]);
        ev = v[v.rank() - 1];
    }
    if (mask) {
        const PartialShape& m = c.in_shape(kMask);
        if (m.rank_is_static() && m.rank() != 0) {
            if (m.rank() < 2) c.fail("attention_mask must be a scalar or have rank 2 or more, not [" + m.to_string() + "]");
            auto ml = broadcast_dim(l, m[m.rank() - 2]), ms = broadcast_dim(s, m[m.rank() - 1]);
            if (!ml || !ms)
                c.fail("attention_mask [" + m.to_string() + "] does not fit [L, S] = [" + l.to_string() + ", " + s.to_string() + "]");
            l = *ml;
            s = *ms;
            if (m.rank() >= 3) merge_batch(leading(m), "the attention_mask's");
        }
    }
    if (c.has_input(kScale)) {
        const PartialShape& scale = c.in_shape(kScale);
        if (scale.is_static() && !(scale.rank() == 0 || (scale.rank() == 1 && scale[0] == Dimension(1))))
            c.fail("scale must be a scalar or have one element, not [" + scale.to_string() + "]");
    }
    if (!batch) return c.set_output(0, type, PartialShape::dynamic_rank());
    batch->dims().push_back(l);
    batch->dims().push_back(ev);
    c.set_output(0, type, *batch);
}

// Element offsets of `in` (batch dims only, left-padded) for each multi-index of `out`.
struct BatchWalk {
    std::vector<int64_t> strides;  // per out batch axis, 0 where `in` broadcasts
    int64_t offset(const std::vector<int64_t>& index) const {
        int64_t o = 0;
        for (size_t d = 0; d < index.size(); ++d) o += index[d] * strides[d];
        return o;
    }
};

BatchWalk batch_walk(const Shape& in_full, const Shape& out_batch, int64_t matrix) {
    const Shape in(in_full.begin(), in_full.end() - std::min<size_t>(2, in_full.size()));
    BatchWalk w;
    w.strides = broadcast_strides(in, out_batch);
    for (int64_t& s : w.strides) s *= matrix;
    return w;
}

std::vector<Tensor> eval_sdpa(const Node& n, const std::vector<Tensor>& in) {
    const Tensor &q = in.at(kQuery), &k = in.at(kKey), &v = in.at(kValue);
    const bool causal = n.attr<bool>("causal");
    const Tensor* mask = in.size() > kMask && !in[kMask].empty() && !causal ? &in[kMask] : nullptr;
    const Tensor* scale_in = in.size() > kScale && !in[kScale].empty() ? &in[kScale] : nullptr;
    const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
    if (qs.size() < 3 || ks.size() < 3 || vs.size() < 3) throw Error("query, key and value must have rank 3 or more", n.describe());
    const int64_t L = qs[qs.size() - 2], E = qs.back(), S = ks[ks.size() - 2], Ev = vs.back();
    if (ks.back() != E || vs[vs.size() - 2] != S) throw Error("query, key and value shapes do not fit", n.describe());
    // The bias's last two dims and the mask's batch.
    int64_t ml = 1, ms = 1;
    Shape mask_batch;
    if (mask && !mask->shape().empty()) {
        const Shape& m = mask->shape();
        if (m.size() < 2) throw Error("attention_mask must be a scalar or have rank 2 or more", n.describe());
        ml = m[m.size() - 2];
        ms = m.back();
        mask_batch.assign(m.begin(), m.end() - 2);
    }
    if ((ml != 1 && L != 1 && ml != L) || (ms != 1 && ms != S))
        throw Error("attention_mask does not fit [L, S]", n.describe());
    const int64_t Lout = std::max(L, ml);
    PartialShape batch = broadcast_numpy(PartialShape(Shape(qs.begin(), qs.end() - 2)), PartialShape(Shape(ks.begin(), ks.end() - 2)));
    batch = broadcast_numpy(batch, PartialShape(Shape(vs.begin(), vs.end() - 2)));
    if (!mask_batch.empty()) batch = broadcast_numpy(batch, PartialShape(mask_batch));
    const Shape out_batch = batch.to_shape();
    Shape out_shape = out_batch;
    out_shape.push_back(Lout);
    out_shape.push_back(Ev);
    const int64_t batches = shape_size(out_batch);
    EvalBudget::charge_operations(saturating_product({batches, Lout, S, E + Ev}), "the ScaledDotProductAttention");

    return evaluate_via_f32(in, [&](const std::vector<Tensor>& wide) {
        const Tensor &wq = wide[kQuery], &wk = wide[kKey], &wv = wide[kValue];
        if (wk.type() != wq.type() || wv.type() != wq.type()) throw Error("query, key and value types differ", n.describe());
        Tensor out = Tensor::allocate(wq.type(), out_shape);
        dispatch_type(wq.type(), [&]<typename T>() {
            if constexpr (std::is_floating_point_v<T>) {
                const T scale = scale_in ? static_cast<T>(wide[kScale].to_f64().at(0))
                                         : T(1) / std::sqrt(static_cast<T>(E));
                const T minus_inf = -std::numeric_limits<T>::infinity();
                const BatchWalk wq_walk = batch_walk(qs, out_batch, L * E), wk_walk = batch_walk(ks, out_batch, S * E),
                                wv_walk = batch_walk(vs, out_batch, S * Ev);
                const Tensor* wm = mask ? &wide[kMask] : nullptr;
                const BatchWalk wm_walk = wm ? batch_walk(wm->shape(), out_batch, ml * ms) : BatchWalk{};
                const T* qd = wq.data<T>();
                const T* kd = wk.data<T>();
                const T* vd = wv.data<T>();
                T* od = out.mutable_data<T>();
                std::vector<T> row(static_cast<size_t>(S));
                std::vector<int64_t> index(out_batch.size(), 0);
                for (int64_t b = 0; b < batches; ++b) {
                    const T* qb = qd + wq_walk.offset(index);
                    const T* kb = kd + wk_walk.offset(index);
                    const T* vb = vd + wv_walk.offset(index);
                    const int64_t mask_off = wm ? wm_walk.offset(index) : 0;
                    for (int64_t l = 0; l < Lout; ++l) {
                        const T* ql = qb + (L == 1 ? 0 : l) * E;
                        for (int64_t s = 0; s < S; ++s) {
                            T dot = 0;
                            for (int64_t i = 0; i < E; ++i) dot += ql[i] * kb[s * E + i];
                            T bias = 0;
                            if (causal) {
                                if (s > l) bias = minus_inf;
                            } else if (wm) {
                                const int64_t m = mask_off + (ml == 1 ? 0 : l) * ms + (ms == 1 ? 0 : s);
                                if (wm->type() == ElementType::boolean)
                                    bias = wm->data<uint8_t>()[m] ? T(0) : minus_inf;
                                else
                                    bias = T(0) + wm->data<T>()[m];
                            }
                            row[static_cast<size_t>(s)] = dot * scale + bias;
                        }
                        // softmax along S as the Softmax op computes it
                        double max = -std::numeric_limits<double>::infinity(), sum = 0;
                        for (T x : row) max = std::max(max, double(x));
                        for (T x : row) sum += std::exp(double(x) - max);
                        for (T& x : row) x = static_cast<T>(std::exp(double(x) - max) / sum);
                        T* ol = od + (b * Lout + l) * Ev;
                        for (int64_t j = 0; j < Ev; ++j) ol[j] = 0;
                        for (int64_t s = 0; s < S; ++s)
                            for (int64_t j = 0; j < Ev; ++j) ol[j] += row[static_cast<size_t>(s)] * vb[s * Ev + j];
                    }
                    for (size_t d = index.size(); d-- > 0;) {
                        if (++index[d] < out_batch[d]) break;
                        index[d] = 0;
                    }
                }
            } else {
                throw Error("ScaledDotProductAttention takes floating-point inputs", n.describe());
            }
        }, false);
        return std::vector<Tensor>{out};
    });
}

}  // namespace

void register_attention_ops(OpRegistry& r) {
    OpSchema s = make_schema("ScaledDotProductAttention", "ScaledDotProductAttention", "opset13", 3, 5, 1,
                             {{"causal", AttrKind::Bool, {}}});
    s.infer = infer_sdpa;
    s.eval = eval_sdpa;
    s.precision_sensitive_inputs = {kScale};  // one number: kept exact under f16 compression
    r.add(std::move(s));
}

}  // namespace mo
