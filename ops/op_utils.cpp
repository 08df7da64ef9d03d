#include "ops/op_utils.hpp"

#include <algorithm>
#include <type_traits>

namespace mo {

OpSchema make_schema(std::string type, std::string ir_type, std::string version, size_t min_inputs,
                     size_t max_inputs, size_t outputs, std::vector<AttrSpec> attrs) {
    OpSchema s;
    s.type = std::move(type);
    s.ir_type = std::move(ir_type);
    s.ir_version = std::move(version);
    s.min_inputs = min_inputs;
    s.max_inputs = max_inputs;
    s.num_outputs = outputs;
    s.attrs = std::move(attrs);
    return s;
}

std::vector<int64_t> row_major_strides(const Shape& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
    return s;
}

std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
    MO_ASSERT(in.size() <= out.size(), "broadcast to a lower rank");
    std::vector<int64_t> result(out.size(), 0);
    auto own = row_major_strides(in);
    size_t offset = out.size() - in.size();
    for (size_t i = 0; i < in.size(); ++i) result[offset + i] = in[i] == 1 ? 0 : own[i];
    return result;
}

}  // namespace mo

// ---- Sliding windows ---------------------------------------------------------------------------

namespace mo {

int64_t fit_int64(__int128 value, const char* what) {
    if (value < INT64_MIN || value > INT64_MAX)
        throw Error(std::string(what) + " overflows int64", {},
                    "the model's kernel, stride, dilation or pads are corrupt or hostile");
    return static_cast<int64_t>(value);
}

int64_t WindowAxis::effective_kernel() const {
    return fit_int64((static_cast<__int128>(kernel) - 1) * dilation + 1, "the dilated kernel");
}

void resolve_auto_pad(WindowAxis& w, const std::string& auto_pad, int64_t in) {
    using Wide = __int128;
    if (auto_pad == "valid") {
        w.pad_begin = w.pad_end = 0;
    } else if (auto_pad == "same_upper" || auto_pad == "same_lower") {
        const Wide out = (Wide{in} + w.stride - 1) / w.stride;
        const Wide total = std::max<Wide>(0, (out - 1) * w.stride + w.effective_kernel() - in);
        w.pad_begin = fit_int64(auto_pad == "same_upper" ? total / 2 : total - total / 2, "the padding");
        w.pad_end = fit_int64(total - w.pad_begin, "the padding");
    } else if (auto_pad != "explicit") {
        throw Error("unknown auto_pad '" + auto_pad + "'", {}, "use explicit, valid, same_upper or same_lower");
    }
}

int64_t window_output_extent(const WindowAxis& w, int64_t in, bool ceil) {
    const __int128 span = __int128{in} + w.pad_begin + w.pad_end - w.effective_kernel();
    if (span < 0) return 0;
    return fit_int64((ceil ? (span + w.stride - 1) / w.stride : span / w.stride) + 1, "the window's output extent");
}

Dimension window_output_dim(WindowAxis w, const std::string& auto_pad, const Dimension& in, bool ceil) {
    auto at = [&](int64_t extent) {
        WindowAxis local = w;
        resolve_auto_pad(local, auto_pad, extent);
        return window_output_extent(local, extent, ceil);
    };
    if (in.is_static()) return at(in.get_length());
    int64_t lo = at(in.min());
    int64_t hi = in.max() == Dimension::kUnbounded ? Dimension::kUnbounded : at(in.max());
    return Dimension(lo, hi);
}

// ---- Dense matrix product ----------------------------------------------------------------------

template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, bool trans_a, const T* B, int64_t ldb,
          bool trans_b, T* C, int64_t ldc, bool accumulate) {
    if (!accumulate)
        for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, T{});
    if (M == 0 || N == 0 || K == 0) return;
    if constexpr (std::is_integral_v<T>) {
        // Integers wrap like the hardware: accumulate in the unsigned type (signed overflow and
        // small-type promotion to int would be undefined behaviour).
        using U = std::make_unsigned_t<std::common_type_t<T, unsigned>>;
        for (int64_t i = 0; i < M; ++i)
            for (int64_t k = 0; k < K; ++k) {
                const U a = static_cast<U>(trans_a ? A[k * lda + i] : A[i * lda + k]);
                for (int64_t n = 0; n < N; ++n) {
                    const U b = static_cast<U>(trans_b ? B[n * ldb + k] : B[k * ldb + n]);
                    C[i * ldc + n] = static_cast<T>(static_cast<U>(C[i * ldc + n]) + a * b);
                }
            }
        return;
    }
    // The inner loop wants rows of B contiguous in N: pack a transposed B once.
    std::vector<T> packed;
    if (trans_b) {
        packed.resize(static_cast<size_t>(K * N));
        for (int64_t n = 0; n < N; ++n)
            for (int64_t k = 0; k < K; ++k) packed[k * N + n] = B[n * ldb + k];
        B = packed.data();
        ldb = N;
    }
    // Blocks of B (kKBlock x kNBlock) stay in L2 and four rows of C in L1 while every row of A streams over them.
    constexpr int64_t kNBlock = 256, kKBlock = 128;
    for (int64_t n0 = 0; n0 < N; n0 += kNBlock) {
        const int64_t n1 = std::min(N, n0 + kNBlock);
        for (int64_t k0 = 0; k0 < K; k0 += kKBlock) {
            const int64_t k1 = std::min(K, k0 + kKBlock);
            auto a_at = [&](int64_t i, int64_t k) { return trans_a ? A[k * lda + i] : A[i * lda + k]; };
            int64_t i = 0;
            // Four rows of C at once: each loaded element of B feeds four multiply-adds.
            for (; i + 4 <= M; i += 4) {
                T* __restrict c0 = C + i * ldc;
                T* __restrict c1 = c0 + ldc;
                T* __restrict c2 = c1 + ldc;
                T* __restrict c3 = c2 + ldc;
                for (int64_t k = k0; k < k1; ++k) {
                    const T a0 = a_at(i, k), a1 = a_at(i + 1, k), a2 = a_at(i + 2, k), a3 = a_at(i + 3, k);
                    const T* __restrict b = B + k * ldb;
                    for (int64_t n = n0; n < n1; ++n) {
                        const T bn = b[n];
                        c0[n] += a0 * bn;
                        c1[n] += a1 * bn;
                        c2[n] += a2 * bn;
                        c3[n] += a3 * bn;
                    }
                }
            }
            for (; i < M; ++i) {
                T* __restrict c = C + i * ldc;
                for (int64_t k = k0; k < k1; ++k) {
                    const T a = a_at(i, k);
                    const T* __restrict b = B + k * ldb;
                    for (int64_t n = n0; n < n1; ++n) c[n] += a * b[n];
                }
            }
        }
    }
}

#define MO_INSTANTIATE_GEMM(T)                                                                              \
    template void gemm<T>(int64_t, int64_t, int64_t, const T*, int64_t, bool, const T*, int64_t, bool, T*, \
                          int64_t, bool);
MO_INSTANTIATE_GEMM(float)
MO_INSTANTIATE_GEMM(double)
MO_INSTANTIATE_GEMM(int8_t)
MO_INSTANTIATE_GEMM(int16_t)
MO_INSTANTIATE_GEMM(int32_t)
MO_INSTANTIATE_GEMM(int64_t)
MO_INSTANTIATE_GEMM(uint8_t)
MO_INSTANTIATE_GEMM(uint16_t)
MO_INSTANTIATE_GEMM(uint32_t)
MO_INSTANTIATE_GEMM(uint64_t)
#undef MO_INSTANTIATE_GEMM

}  // namespace mo
