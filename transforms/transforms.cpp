// The built-in transformations, listed explicitly (static self-registration would be dropped
// by the linker). Their order comes from run_after / run_before, not from this list.
#include "transforms/transforms.hpp"

#include "transforms/back/clip_to_clamp.hpp"
#include "transforms/back/compress_to_f16.hpp"
#include "transforms/back/compressed_weights_layout.hpp"
#include "transforms/back/flatten_to_reshape.hpp"
#include "transforms/back/gemm_to_matmul.hpp"
#include "transforms/back/keep_past_for_empty_presents.hpp"
#include "transforms/back/make_stateful.hpp"
#include "transforms/back/normalize_axes.hpp"
#include "transforms/back/replace_folded.hpp"
#include "transforms/back/unsupported_ops.hpp"
#include "transforms/front/input_preprocessing.hpp"
#include "transforms/front/output_cut.hpp"
#include "transforms/front/replace_subgraph_with_op.hpp"
#include "transforms/middle/activation_fusions.hpp"
#include "transforms/middle/attention_fusion.hpp"
#include "transforms/middle/batch_norm.hpp"
#include "transforms/middle/stacked_upsampling.hpp"
#include "transforms/middle/layout_change.hpp"
#include "transforms/middle/linear_fusions.hpp"
#include "transforms/middle/normalization_fusions.hpp"
#include "transforms/middle/partial_inference.hpp"
#include "transforms/middle/quantization_fusions.hpp"
#include "transforms/middle/rotate_half_form.hpp"
#include "transforms/middle/subgraph_folding.hpp"
#include "transforms/middle/torchvision_ssd.hpp"

namespace mo {

void register_builtin_transforms(TransformRegistry& r) {
    // front
    r.add(std::make_unique<OutputCut>());
    r.add(std::make_unique<ReplaceSubgraphWithOp>());
    // middle
    r.add(std::make_unique<InputPreprocessing>());
    r.add(std::make_unique<PartialInference>());
    r.add(std::make_unique<TorchvisionSSDPostprocessing>());
    r.add(std::make_unique<StackedCopiesToInterpolate>());
    r.add(std::make_unique<LayoutChange>());
    r.add(std::make_unique<FuseBatchNormIntoConvolution>());
    r.add(std::make_unique<BatchNormToBatchNormInference>());
    r.add(std::make_unique<GeluFusion>());
    r.add(std::make_unique<HSwishFusion>());
    r.add(std::make_unique<HSigmoidFusion>());
    r.add(std::make_unique<SwishFusion>());
    r.add(std::make_unique<SoftPlusFusion>());
    r.add(std::make_unique<MishFusion>());
    r.add(std::make_unique<LayerNormFusion>());
    r.add(std::make_unique<SoftmaxFusion>());
    r.add(std::make_unique<ScaledDotProductAttentionFusion>());
    r.add(std::make_unique<RotateHalfForRoPEFusion>());
    r.add(std::make_unique<ConstantChainMerge>());
    r.add(std::make_unique<ConvolutionMultiplyFusion>());
    r.add(std::make_unique<PadFusion>());
    r.add(std::make_unique<QuantizeDequantizeToFakeQuantize>());
    r.add(std::make_unique<ConstantsIntoBodies>());
    r.add(std::make_unique<FoldConstantIf>());
    r.add(std::make_unique<UnrollLoop>());
    // back
    r.add(std::make_unique<GemmToMatMul>());
    r.add(std::make_unique<FlattenToReshape>());
    r.add(std::make_unique<ClipToClamp>());
    r.add(std::make_unique<NormalizeAxes>());
    r.add(std::make_unique<ReplaceFoldedWithConstants>());
    r.add(std::make_unique<MoveLayoutIntoCompressedWeights>());
    r.add(std::make_unique<RemoveDeadNodes>());
    r.add(std::make_unique<KeepPastForEmptyPresents>());
    r.add(std::make_unique<MakeStateful>());
    r.add(std::make_unique<CompressFloatConstantsToF16>());
    r.add(std::make_unique<ReportUnsupportedOps>());
    r.add(std::make_unique<CheckOnlyOpsetOps>());
}

}  // namespace mo
