#include "extractors/dequantization.hpp"

namespace mo {

OutPort keep_8bit_weights(const OutPort& converted, const OutPort& source) {
    const ElementType t = source.type();
    const bool low_bit = t == ElementType::u8 || t == ElementType::i8 || t == ElementType::u4 || t == ElementType::i4;
    if (source.value() && low_bit && converted.node().is("Convert"))
        converted.node().rt_info()[kDecompression] = std::string("0");  // (a const char* trips GCC 12's -Wrestrict)
    return converted;
}

OutPort in_f32(const Node& scaling) {
    scaling.rt_info()[kDisableFp16Compression] = std::string("0");
    return scaling.out(0);
}

OutPort dequantized(ExtractContext& c, const std::string& q_suffix, const OutPort& q, const OutPort* zero_point,
                    const OutPort& scale) {
    // Integers of up to 16 bits and their difference are exact in f32.
    OutPort y = q;
    if (q.type() != ElementType::f32)
        y = keep_8bit_weights(c.op("Convert", q_suffix + "/f32", {q}, {{"destination_type", ElementType::f32}}), q);
    if (zero_point) y = c.op("Subtract", "shifted", {y, *zero_point});
    return in_f32(c.add("Multiply", "", {y, scale}));
}

}  // namespace mo
