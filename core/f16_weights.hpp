// The f16 values of f32 weights, computed when they are written instead of held: what f16
// compression gives a Constant. Compression keeps f32 weights that hold a finite value beyond
// the f16 range (|v| > 65504); whether one does is known only after reading every value, so the
// IR writer converts, checks and writes a large weight in one sweep and writes the f32 weights
// instead when a value turns out not to fit (emit/bin_writer.hpp).
#pragma once

#include <atomic>
#include <functional>

#include "core/tensor.hpp"
#include "core/tool_api.hpp"

namespace mo {

class MO_TOOL_API F16Weights final : public DerivedBuffer {
public:
    // `source`: an f32 tensor. `known_to_fit`: the caller has checked every value.
    F16Weights(Tensor source, bool known_to_fit);
    const Tensor& source() const { return source_; }

    // Whether every value is known to fit: checked by the caller or by fits().
    bool known_to_fit() const { return state_.load(std::memory_order_relaxed) == kFits; }
    // Whether every finite value fits f16, reading them all the first time it is asked.
    bool fits() const;
    // Converts elements [offset / 2, (offset + n) / 2) into `out` and returns whether all of
    // them fit. Safe on several threads at once for disjoint ranges.
    bool produce_checked(size_t offset, std::byte* out, size_t n) const;
    // Records what a caller found by producing every byte with produce_checked().
    void record_check(bool fits) const { state_.store(fits ? kFits : kBeyond, std::memory_order_relaxed); }
    // produce_checked() for a reader that needs the values: they must all fit (checked once
    // with fits() when nobody has yet).
    void produce(size_t offset, std::byte* out, size_t n) const override;

private:
    enum : int { kUnknown, kFits, kBeyond };
    Tensor source_;
    mutable std::atomic<int> state_;
};

// Calls fn(values, count, done) on consecutive windows of elements [first, first + n) of f32
// tensor `t` until it returns false. Weights in the model file are read with pread into a
// per-thread scratch window rather than through the mapping: no page faults, and the resident
// set does not grow with them.
MO_TOOL_API void for_each_f32_window(const Tensor& t, size_t first, size_t n,
                                const std::function<bool(const float*, size_t, size_t)>& fn);

}  // namespace mo
