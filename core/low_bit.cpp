#include "core/low_bit.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace mo {

bool is_low_bit(ElementType t) { return t == ElementType::u1 || t == ElementType::u4 || t == ElementType::i4; }

ElementType unpacked_type(ElementType t) {
    MO_ASSERT(is_low_bit(t), "not a low-bit type");
    return t == ElementType::i4 ? ElementType::i8 : ElementType::u8;
}

int64_t low_bit_from_int(ElementType t, int64_t v) {
    switch (t) {
    case ElementType::u1: return v != 0 ? 1 : 0;
    case ElementType::u4: return v & 0xF;
    case ElementType::i4: return ((v & 0xF) ^ 0x8) - 0x8;  // sign-extends bit 3
    default: MO_ASSERT(false, "not a low-bit type"); return 0;
    }
}

int64_t low_bit_from_float(ElementType t, double v) {
    if (t == ElementType::u1) return v != 0.0 ? 1 : 0;
    MO_ASSERT(is_low_bit(t), "not a low-bit type");
    if (std::isnan(v)) return 0;
    const double lo = t == ElementType::i4 ? -8.0 : 0.0, hi = t == ElementType::i4 ? 7.0 : 15.0;
    return static_cast<int64_t>(std::clamp(v, lo, hi));  // in range: the cast truncates
}

Tensor unpack_low_bit(const Tensor& packed) {
    const ElementType t = packed.type();
    Tensor out = Tensor::allocate(unpacked_type(t), packed.shape());
    const auto* src = reinterpret_cast<const uint8_t*>(packed.bytes());
    auto* dst = out.mutable_data<uint8_t>();  // i8 written through its bit pattern
    const size_t n = packed.size();
    if (t == ElementType::u1) {
        for (size_t i = 0; i < n; ++i) dst[i] = (src[i / 8] >> (7 - i % 8)) & 1;
    } else {
        for (size_t i = 0; i < n; ++i) {
            uint8_t nibble = (src[i / 2] >> (4 * (i % 2))) & 0xF;
            if (t == ElementType::i4 && (nibble & 0x8)) nibble |= 0xF0;  // sign-extend
            dst[i] = nibble;
        }
    }
    return out;
}

Tensor pack_low_bit(const Tensor& unpacked, ElementType to) {
    if (!is_low_bit(to) || unpacked.type() != unpacked_type(to))
        throw Error("cannot pack a " + std::string(ir_name(unpacked.type())) + " tensor into " +
                    std::string(ir_name(to)));
    Tensor out = Tensor::allocate(to, unpacked.shape());  // zero-filled: trailing bits stay 0
    const auto* src = reinterpret_cast<const uint8_t*>(unpacked.bytes());
    auto* dst = out.mutable_data<uint8_t>();
    const size_t n = unpacked.size();
    if (to == ElementType::u1) {
        for (size_t i = 0; i < n; ++i) dst[i / 8] |= static_cast<uint8_t>((src[i] & 1) << (7 - i % 8));
    } else {
        for (size_t i = 0; i < n; ++i) dst[i / 2] |= static_cast<uint8_t>((src[i] & 0xF) << (4 * (i % 2)));
    }
    return out;
}

}  // namespace mo
