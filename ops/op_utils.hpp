// Small helpers shared by the op families: element-type dispatch for evaluation and numpy
// broadcasting of indices.
#pragma once

#include <cstdint>
#include <vector>

#include "core/error.hpp"
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
