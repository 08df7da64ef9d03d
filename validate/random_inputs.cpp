#include "validate/random_inputs.hpp"

#include "core/error.hpp"
#include "core/float16.hpp"

namespace mo {

namespace {

// SplitMix64: tiny, fast, and fully specified, so the stream is the same everywhere.
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [-1, 1): 53 random bits scaled.
    double symmetric_unit() { return static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0; }
    // Uniform in [0, n): the bias of the modulo is below 2^-60 for small n.
    uint64_t below(uint64_t n) { return next() % n; }

private:
    uint64_t state_;
};

template <typename T, typename Gen>
Tensor fill(ElementType type, const Shape& shape, Gen&& gen) {
    Tensor t = Tensor::allocate(type, shape);
    T* p = t.mutable_data<T>();
    for (size_t i = 0, n = t.size(); i < n; ++i) p[i] = gen();
    return t;
}

}  // namespace

Tensor random_tensor(ElementType type, const Shape& shape, uint64_t seed) {
    SplitMix64 rng(seed);
    auto unit = [&] { return rng.symmetric_unit(); };
    auto digit = [&] { return rng.below(10); };
    switch (type) {
    case ElementType::f32: return fill<float>(type, shape, [&] { return static_cast<float>(unit()); });
    case ElementType::f64: return fill<double>(type, shape, unit);
    case ElementType::f16: return fill<uint16_t>(type, shape, [&] { return f32_to_f16(static_cast<float>(unit())); });
    case ElementType::bf16: return fill<uint16_t>(type, shape, [&] { return f32_to_bf16(static_cast<float>(unit())); });
    case ElementType::i8: return fill<int8_t>(type, shape, digit);
    case ElementType::i16: return fill<int16_t>(type, shape, digit);
    case ElementType::i32: return fill<int32_t>(type, shape, digit);
    case ElementType::i64: return fill<int64_t>(type, shape, digit);
    case ElementType::u8: return fill<uint8_t>(type, shape, digit);
    case ElementType::u16: return fill<uint16_t>(type, shape, digit);
    case ElementType::u32: return fill<uint32_t>(type, shape, digit);
    case ElementType::u64: return fill<uint64_t>(type, shape, digit);
    case ElementType::boolean: return fill<uint8_t>(type, shape, [&] { return rng.below(2); });
    default: break;
    }
    throw Error("cannot generate random " + std::string(ir_name(type)) + " data", "random inputs",
                "give the input values in a .npy file");
}

Tensor random_input(const Graph& graph, size_t index, uint64_t seed) {
    MO_ASSERT(index < graph.parameters().size(), "no parameter ", index);
    const Node p = graph.parameters()[index];
    const PartialShape& shape = p.out(0).shape();
    if (!shape.is_static())
        throw Error("input shape [" + shape.to_string() + "] is not static", p.describe(),
                    "give the input a static shape (--input name[1,3,224,224]) or give its values in a .npy file");
    // A distinct, well-mixed stream per parameter.
    const uint64_t stream = SplitMix64(seed ^ (index * 0xD1B54A32D192ED03ull)).next();
    return random_tensor(p.out(0).type(), shape.to_shape(), stream);
}

std::vector<Tensor> random_inputs(const Graph& graph, uint64_t seed) {
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < graph.parameters().size(); ++i) inputs.push_back(random_input(graph, i, seed));
    return inputs;
}

}  // namespace mo
