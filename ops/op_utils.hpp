// Small helpers shared by the op families: element-type dispatch for evaluation and numpy
// broadcasting of indices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/op_schema.hpp"
#include "core/tensor.hpp"

namespace mo {

// Calls f.template operator()<T>() with the C++ type of `t`. f16/bf16 are not dispatched
// (evaluate them through f32, see evaluate_via_f32); boolean dispatches as uint8_t... unless
// `allow_bool` is false, in which case it is an error like any other unsupported type.
template <typename F>
decltype(auto) dispatch_type(ElementType t, F&& f, bool allow_bool = true) {
    switch (t) {
    case ElementType::f32: return f.template operator()<float>();
    case ElementType::f64: return f.template operator()<double>();
    case ElementType::i8: return f.template operator()<int8_t>();
    case ElementType::i16: return f.template operator()<int16_t>();
    case ElementType::i32: return f.template operator()<int32_t>();
    case ElementType::i64: return f.template operator()<int64_t>();
    case ElementType::u8: return f.template operator()<uint8_t>();
    case ElementType::u16: return f.template operator()<uint16_t>();
    case ElementType::u32: return f.template operator()<uint32_t>();
    case ElementType::u64: return f.template operator()<uint64_t>();
    case ElementType::boolean:
        if (allow_bool) return f.template operator()<uint8_t>();
        break;
    default: break;
    }
    throw Error("evaluation of " + std::string(ir_name(t)) + " tensors is not supported");
}

// A schema with its identity, arity and attributes; the caller sets infer and eval.
OpSchema make_schema(std::string type, std::string ir_type, std::string version, size_t min_inputs,
                     size_t max_inputs, size_t outputs = 1, std::vector<AttrSpec> attrs = {});

// Row-major strides of a static shape (in elements).
std::vector<int64_t> row_major_strides(const Shape& shape);

// For numpy broadcasting of `in` to `out` (in's rank <= out's rank): the strides to walk `in`
// while iterating `out` in row-major order (0 where `in` has extent 1).
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out);

// Calls visit(out_index, in_offsets...) for every element of `out`, where each input offset
// follows numpy broadcasting. Two-input version (the common case for binary ops).
template <typename Visit>
void for_each_broadcast(const Shape& out, const Shape& a, const Shape& b, Visit&& visit) {
    const size_t rank = out.size();
    auto sa = broadcast_strides(a, out), sb = broadcast_strides(b, out);
    std::vector<int64_t> idx(rank, 0);
    const int64_t total = shape_size(out);
    int64_t oa = 0, ob = 0;
    for (int64_t i = 0; i < total; ++i) {
        visit(i, oa, ob);
        for (size_t d = rank; d-- > 0;) {
            if (++idx[d] < out[d]) {
                oa += sa[d];
                ob += sb[d];
                break;
            }
            oa -= sa[d] * (out[d] - 1);
            ob -= sb[d] * (out[d] - 1);
            idx[d] = 0;
        }
    }
}

// Evaluates an op on f16/bf16 inputs by converting float inputs to f32, calling `eval`, and
// converting float outputs back to the original type.
template <typename Eval>
std::vector<Tensor> evaluate_via_f32(const std::vector<Tensor>& inputs, Eval&& eval) {
    ElementType low = ElementType::dynamic;
    std::vector<Tensor> wide;
    wide.reserve(inputs.size());
    for (const auto& t : inputs) {
        if (!t.empty() && (t.type() == ElementType::f16 || t.type() == ElementType::bf16)) {
            low = t.type();
            wide.push_back(t.convert(ElementType::f32));
        } else {
            wide.push_back(t);
        }
    }
    auto out = eval(wide);
    if (low != ElementType::dynamic)
        for (auto& t : out)
            if (t.type() == ElementType::f32) t = t.convert(low);
    return out;
}

}  // namespace mo

// ---- Sliding windows (convolution, pooling) ------------------------------------------------

namespace mo {

// Geometry of a sliding window along one spatial axis. `pad_begin`/`pad_end` are explicit pads;
// auto_pad ("explicit", "valid", "same_upper", "same_lower") may replace them.
struct WindowAxis {
    int64_t kernel = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0;
    int64_t effective_kernel() const;  // (kernel - 1) * dilation + 1
};

// Window arithmetic runs in 128 bits: kernels, strides, dilations and pads are the model's
// numbers, and their sums and products may leave int64. A result that does not fit int64 is an
// error in the model (mo::Error naming `what`).
int64_t fit_int64(__int128 value, const char* what);

// Rewrites the pads of `w` for `auto_pad` given a static input extent (same_*: the output is
// ceil(in / stride) and the extra pad goes to the end for same_upper, the start for same_lower).
void resolve_auto_pad(WindowAxis& w, const std::string& auto_pad, int64_t in);
// Output extent of a window slid over `in` (explicit pads already resolved); `ceil` selects
// ceil rounding (pooling). Returns < 1 when the window does not fit.
int64_t window_output_extent(const WindowAxis& w, int64_t in, bool ceil);
// The same over a partial dimension: applies auto_pad per bound, keeps intervals.
Dimension window_output_dim(WindowAxis w, const std::string& auto_pad, const Dimension& in, bool ceil);

// ---- Dense matrix product --------------------------------------------------------------------

// C[M,N] (+)= op(A)[M,K] * op(B)[K,N], row-major with leading dimensions; op() transposes when
// asked. Blocked i-k-j order so the inner loop streams contiguous rows (vectorises); integer
// types wrap modulo 2^N. Instantiated for every type dispatch_type() yields.
template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, bool trans_a, const T* B, int64_t ldb,
          bool trans_b, T* C, int64_t ldc, bool accumulate);

}  // namespace mo

// ---- Element-wise value helpers ------------------------------------------------------------

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/op_schema.hpp"
#include "core/saturate_cast.hpp"

namespace mo {

// Integer +, -, * that wrap modulo 2^N like the hardware (signed overflow is undefined in C++,
// and uint16 * uint16 promotes to int and can overflow it); floats use the plain operators.
template <typename T>
T wrapping_add(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using W = std::make_unsigned_t<decltype(a + b)>;
        return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
    } else {
        return a + b;
    }
}
template <typename T>
T wrapping_sub(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using W = std::make_unsigned_t<decltype(a - b)>;
        return static_cast<T>(static_cast<W>(a) - static_cast<W>(b));
    } else {
        return a - b;
    }
}
template <typename T>
T wrapping_mul(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using W = std::make_unsigned_t<decltype(a * b)>;
        return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
    } else {
        return a * b;
    }
}

// True when some input is f16/bf16: such ops are evaluated through evaluate_via_f32.
inline bool has_half_input(const std::vector<Tensor>& inputs) {
    for (const auto& t : inputs)
        if (!t.empty() && (t.type() == ElementType::f16 || t.type() == ElementType::bf16)) return true;
    return false;
}

// Wraps an EvalFn written for f32/f64/integers so that f16/bf16 inputs go through f32.
inline EvalFn half_via_f32(EvalFn eval) {
    return [eval = std::move(eval)](const Node& n, const std::vector<Tensor>& in) {
        if (!has_half_input(in)) return eval(n, in);
        return evaluate_via_f32(in, [&](const std::vector<Tensor>& wide) { return eval(n, wide); });
    };
}

}  // namespace mo
