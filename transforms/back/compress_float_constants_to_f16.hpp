// Constant<f32>(v) -> Convert<f32>(Constant<f16>(v)), the Convert marked as decompression.
#pragma once

#include "transforms/transformation.hpp"

namespace mo {

// Enabled by ConversionOptions::compress_to_fp16. Skips constants feeding an input listed in
// the consumer's OpSchema::precision_sensitive_inputs or any input of a node whose rt_info has
// kDisableFp16Compression, and constants with a finite value beyond
// the f16 range (|v| > 65504). The Convert takes the constant's name and tensor names (and gets
// rt_info decompression = "0"); the f16 constant is named "<name>_compressed".
// The pass reads only weights under 2 MiB: the values of larger ones are checked by the IR
// writer while it converts and writes them (F16Weights, core/f16_weights.hpp), which writes such
// a pair as the f32 Constant again when a value does not fit. Anything else that reads the
// values after this pass calls keep_f32_where_f16_does_not_fit() first.
class CompressFloatConstantsToF16 final : public Transformation {
public:
    std::string id() const override { return "CompressFloatConstantsToF16"; }
    Phase phase() const override { return Phase::Back; }
    // Compress what will really be written: folded values and no dead constants.
    std::vector<std::string> run_after() const override { return {"ReplaceFoldedWithConstants", "RemoveDeadNodes"}; }
    bool condition(const Graph&, const TransformContext& ctx) const override { return ctx.options.compress_to_fp16; }
    bool run(Graph& graph, const TransformContext& ctx) override;
};

// Turns every Convert(Constant<f16>) the pass made whose f32 source holds a value beyond the f16
// range back into the f32 Constant (reading the weights whose range is not yet known). Returns
// how many.
size_t keep_f32_where_f16_does_not_fit(Graph& graph);

}  // namespace mo
