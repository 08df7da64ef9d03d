// Stored integers read as real values, y = (f32(q) - zero_point) · scale: the one builder of
// that sub-graph for every frontend (ONNX DequantizeLinear, TFLite quantized tensors). A
// constant u8 / i8 (or u4 / i4) tensor stays low-bit in the IR: its Convert is marked as decompression, which
// constant folding and f16 compression leave alone, so Convert -> Subtract(zero point) ->
// Multiply(scale) reaches the IR in the form OpenVINO's runtime takes as compressed weights.
#pragma once

#include <string>

#include "extractors/extract_context.hpp"

namespace mo {

// Marks `converted` (a Convert reading `source`) as decompression when `source` is a constant
// u8 / i8 / u4 / i4 tensor; returns `converted`.
OutPort keep_8bit_weights(const OutPort& converted, const OutPort& source);

// Keeps a scaling op in f32 under --compress_to_fp16: an f16 scale moves values across rounding
// boundaries (0.1 would become 0.0999755859375). Returns the op's output.
OutPort in_f32(const Node& scaling);

// (f32(q) - zero_point) · scale, named <node>/<q_suffix>/f32 (the Convert, absent when q is
// f32), <node>/shifted (the Subtract, absent when `zero_point` is null) and <node> (the
// Multiply). `zero_point` (f32) and `scale` must broadcast against q.
OutPort dequantized(ExtractContext& c, const std::string& q_suffix, const OutPort& q, const OutPort* zero_point,
                    const OutPort& scale);

}  // namespace mo
