#include "transforms/back/compress_float_constants_to_f16.hpp"

#include <sched.h>

#include <algorithm>
#include <future>
#include <map>
#include <thread>

#include "core/float16.hpp"
#include "core/log.hpp"
#include "core/mapped_file.hpp"

namespace mo {

namespace {

bool feeds_precision_sensitive_input(const OutPort& port) {
    for (const InPort& t : port.targets()) {
        if (t.node().rt_info().count(kDisableFp16Compression)) return true;
        const auto& sensitive = t.node().op().precision_sensitive_inputs;
        if (std::find(sensitive.begin(), sensitive.end(), t.index()) != sensitive.end()) return true;
    }
    return false;
}

// Whether no finite value has a magnitude beyond 65504, the largest f16. Works on the bits
// (branch-free, so it vectorises): |x| > 65504 and finite <=> 0x477fe000 < bits(|x|) < 0x7f800000.
bool finite_values_fit_f16(const float* v, size_t n) {
    const auto* bits = reinterpret_cast<const uint32_t*>(v);
    uint32_t out_of_range = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t a = bits[i] & 0x7fffffffu;
        out_of_range |= static_cast<uint32_t>(a > 0x477fe000u) & static_cast<uint32_t>(a < 0x7f800000u);
    }
    return out_of_range == 0;
}

// Calls fn(values, count, done) on consecutive windows of elements [first, first + n) of f32
// tensor `t` until it returns false. Weights in the model file are read with pread into a
// per-thread scratch window rather than through the mapping: no page faults, and the resident
// set does not grow with them.
template <typename Fn>
void for_each_window(const Tensor& t, size_t first, size_t n, Fn&& fn) {
    constexpr size_t kWindow = size_t{1} << 18;  // elements: 1 MiB, stays in cache between reading and using
    const float* src = t.data<float>() + first;
    const MappedFile* file = t.buffer()->source_file();
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

// Whether every finite value of `t` fits f16; reading stops at the first window that does not.
bool fits_f16(const Tensor& t) {
    bool fits = true;
    for_each_window(t, 0, t.size(), [&](const float* v, size_t count, size_t) {
        fits = finite_values_fit_f16(v, count);
        return fits;
    });
    return fits;
}

// The f16 values of an f32 tensor, converted when the emitter (or anyone) asks for them: the
// pass holds no converted weights, and the emitter streams them in bounded pieces.
class F16OfF32 final : public DerivedBuffer {
public:
    explicit F16OfF32(Tensor source) : DerivedBuffer(source.size() * 2), source_(std::move(source)) {}
    void produce(size_t offset, std::byte* out, size_t n) const override {
        MO_ASSERT(offset % 2 == 0 && n % 2 == 0 && offset + n <= size(), "f16 range [", offset, ", +", n, ")");
        auto* half = reinterpret_cast<uint16_t*>(out);
        for_each_window(source_, offset / 2, n / 2,
                        [&](const float* v, size_t count, size_t done) {
                            f32_to_f16(v, half + done, count);
                            return true;
                        });
    }

private:
    Tensor source_;
};

// CPUs this process may run on: its affinity mask (taskset, a container's cpuset), which
// hardware_concurrency() ignores.
unsigned usable_cpus() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(CPU_COUNT(&set), 1));
    return std::max(std::thread::hardware_concurrency(), 1u);
}

// Which of `tensors` fit f16, checked on up to two threads (the check reads every weight).
std::vector<char> fitting_f16(const std::vector<const Tensor*>& tensors) {
    std::vector<char> fits(tensors.size(), 0);
    size_t total = 0;
    for (const Tensor* t : tensors) total += t->byte_size();
    auto check = [&](size_t first, size_t step) {
        for (size_t i = first; i < tensors.size(); i += step) fits[i] = fits_f16(*tensors[i]);
    };
    constexpr size_t kWorthAThread = size_t{64} << 20;
    if (total < kWorthAThread || usable_cpus() < 2) {
        check(0, 1);
        return fits;
    }
    MO_LOG(Debug, "CompressFloatConstantsToF16: checking ", tensors.size(), " weights (", total, " bytes) on two threads");
    auto other = std::async(std::launch::async, check, 1, 2);
    check(0, 2);
    other.get();
    return fits;
}

}  // namespace

bool CompressFloatConstantsToF16::run(Graph& graph, const TransformContext&) {
    std::vector<Node> candidates;
    for (Node n : graph.nodes()) {
        if (!n.is("Constant") || n.out(0).type() != ElementType::f32 || !n.out(0).has_targets()) continue;
        if (!feeds_precision_sensitive_input(n.out(0))) candidates.push_back(n);
    }
    std::vector<const Tensor*> values;
    for (Node c : candidates) values.push_back(c.out(0).value());
    const std::vector<char> fits = fitting_f16(values);
    // One f16 buffer per f32 buffer, so constants sharing weights still share them in the BIN.
    std::map<std::pair<const std::byte*, size_t>, std::shared_ptr<const Buffer>> converted;
    bool changed = false;
    for (size_t i = 0; i < candidates.size(); ++i) {
        if (!fits[i]) continue;
        Node c = candidates[i];
        const Tensor& source = *values[i];
        auto& half = converted[{source.bytes(), source.byte_size()}];
        if (!half) half = std::make_shared<F16OfF32>(source);
        const std::string name = c.name();
        Node compressed = graph.add_constant(name + "_compressed", Tensor(ElementType::f16, source.shape(), half));
        Node convert = graph.add_op("Convert", name, {compressed.out(0)},
                                    {{"destination_type", AttrValue(ElementType::f32)}});
        convert.rt_info()[kDecompression] = "0";
        c.out(0).replace_all_uses_with(convert.out(0));
        convert.out(0).names() = std::move(c.out(0).names());
        convert.fused_names() = c.fused_names();
        graph.remove_node(c);
        changed = true;
    }
    return changed;
}

}  // namespace mo
