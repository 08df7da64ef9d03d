#include "core/f16_weights.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/float16.hpp"
#include "core/mapped_file.hpp"

namespace mo {

void for_each_f32_window(const Tensor& t, size_t first, size_t n,
                         const std::function<bool(const float*, size_t, size_t)>& fn) {
    constexpr size_t kWindow = size_t{1} << 18;  // elements: 1 MiB, stays in cache between reading and using
    const MappedFile* file = t.buffer()->source_file();
    const auto* src = reinterpret_cast<const float*>(t.buffer()->data()) + first;
    thread_local std::vector<float> scratch;
    if (file) scratch.resize(kWindow);
    for (size_t done = 0; done < n;) {
        const size_t count = std::min(kWindow, n - done);
        if (file) {
            file->read(reinterpret_cast<const std::byte*>(src + done), reinterpret_cast<std::byte*>(scratch.data()),
                       count * sizeof(float));
            if (!fn(scratch.data(), count, done)) return;
        } else if (!fn(src + done, count, done)) {
            return;
        }
        done += count;
    }
}

F16Weights::F16Weights(Tensor source, bool known_to_fit)
    : DerivedBuffer(source.size() * 2), source_(std::move(source)), state_(known_to_fit ? kFits : kUnknown) {
    MO_ASSERT(source_.type() == ElementType::f32, "f16 weights of a ", ir_name(source_.type()), " tensor");
}

bool F16Weights::fits() const {
    int state = state_.load(std::memory_order_relaxed);
    if (state == kUnknown) {
        std::vector<uint16_t> half;
        bool all = true;
        for_each_f32_window(source_, 0, source_.size(), [&](const float* v, size_t count, size_t) {
            half.resize(count);
            all = f32_to_f16_fits(v, half.data(), count);
            return all;
        });
        state = all ? kFits : kBeyond;
        state_.store(state, std::memory_order_relaxed);
    }
    return state == kFits;
}

bool F16Weights::produce_checked(size_t offset, std::byte* out, size_t n) const {
    MO_ASSERT(offset % 2 == 0 && n % 2 == 0 && offset + n <= size(), "f16 range [", offset, ", +", n, ")");
    auto* half = reinterpret_cast<uint16_t*>(out);
    bool all = true;
    for_each_f32_window(source_, offset / 2, n / 2, [&](const float* v, size_t count, size_t done) {
        all &= f32_to_f16_fits(v, half + done, count);
        return true;
    });
    if (!all) state_.store(kBeyond, std::memory_order_relaxed);
    return all;
}

void F16Weights::produce(size_t offset, std::byte* out, size_t n) const {
    MO_ASSERT(fits(), "f16 weights asked for although a value of their f32 source does not fit f16");
    produce_checked(offset, out, n);
}

}  // namespace mo
