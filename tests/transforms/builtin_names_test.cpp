// One name per built-in transformation: its id (what users put in MO_DISABLED_TRANSFORMS), its
// class and its file (transforms/<phase>/<id in snake case>.hpp) say the same thing. The table
// below is the list of built-ins; a new one must be added to it.
#include <cxxabi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "transforms/transforms.hpp"

namespace mo {
namespace {

struct Builtin {
    const char* id;
    const char* header;  // relative to the source tree
};

const Builtin kBuiltins[] = {
    {"InputPreprocessing", "transforms/front/input_preprocessing.hpp"},
    {"OutputCut", "transforms/front/output_cut.hpp"},
    {"ReplaceSubgraphWithOp", "transforms/front/replace_subgraph_with_op.hpp"},
    {"PartialInference", "transforms/middle/partial_inference.hpp"},
    {"StackedCopiesToInterpolate", "transforms/middle/stacked_copies_to_interpolate.hpp"},
    {"LayoutChange", "transforms/middle/layout_change.hpp"},
    {"TorchvisionSSDPostprocessing", "transforms/middle/torchvision_ssd_postprocessing.hpp"},
    {"ConstantsIntoBodies", "transforms/middle/constants_into_bodies.hpp"},
    {"FoldConstantIf", "transforms/middle/fold_constant_if.hpp"},
    {"UnrollLoop", "transforms/middle/unroll_loop.hpp"},
    {"FuseBatchNormIntoConvolution", "transforms/middle/fuse_batch_norm_into_convolution.hpp"},
    {"BatchNormToBatchNormInference", "transforms/middle/batch_norm_to_batch_norm_inference.hpp"},
    {"GeluFusion", "transforms/middle/gelu_fusion.hpp"},
    {"HSwishFusion", "transforms/middle/hswish_fusion.hpp"},
    {"HSigmoidFusion", "transforms/middle/hsigmoid_fusion.hpp"},
    {"SwishFusion", "transforms/middle/swish_fusion.hpp"},
    {"SoftPlusFusion", "transforms/middle/soft_plus_fusion.hpp"},
    {"MishFusion", "transforms/middle/mish_fusion.hpp"},
    {"LayerNormToMVN", "transforms/middle/layer_norm_to_mvn.hpp"},
    {"SoftmaxFusion", "transforms/middle/softmax_fusion.hpp"},
    {"ScaledDotProductAttentionFusion", "transforms/middle/scaled_dot_product_attention_fusion.hpp"},
    {"RotateHalfForRoPEFusion", "transforms/middle/rotate_half_for_rope_fusion.hpp"},
    {"ConstantChainMerge", "transforms/middle/constant_chain_merge.hpp"},
    {"ConvolutionMultiplyFusion", "transforms/middle/convolution_multiply_fusion.hpp"},
    {"PadFusion", "transforms/middle/pad_fusion.hpp"},
    {"QuantizeDequantizeToFakeQuantize", "transforms/middle/quantize_dequantize_to_fake_quantize.hpp"},
    {"GemmToMatMul", "transforms/back/gemm_to_matmul.hpp"},
    {"FlattenToReshape", "transforms/back/flatten_to_reshape.hpp"},
    {"ClipToClamp", "transforms/back/clip_to_clamp.hpp"},
    {"NormalizeAxes", "transforms/back/normalize_axes.hpp"},
    {"ReplaceFoldedWithConstants", "transforms/back/replace_folded_with_constants.hpp"},
    {"MoveLayoutIntoCompressedWeights", "transforms/back/move_layout_into_compressed_weights.hpp"},
    {"RemoveDeadNodes", "transforms/back/remove_dead_nodes.hpp"},
    {"KeepPastForEmptyPresents", "transforms/back/keep_past_for_empty_presents.hpp"},
    {"MakeStateful", "transforms/back/make_stateful.hpp"},
    {"CompressFloatConstantsToF16", "transforms/back/compress_float_constants_to_f16.hpp"},
    {"ReportUnsupportedOps", "transforms/back/report_unsupported_ops.hpp"},
    {"CheckOnlyOpsetOps", "transforms/back/check_only_opset_ops.hpp"},
};

std::string class_name(const Transformation& t) {
    int status = 0;
    char* name = abi::__cxa_demangle(typeid(t).name(), nullptr, nullptr, &status);
    std::string result = status == 0 ? name : typeid(t).name();
    std::free(name);
    return result;
}

// "RotateHalfForRoPEFusion" and "rotate_half_for_rope_fusion" both give "rotatehalfforropefusion".
std::string folded(std::string s) {
    std::erase(s, '_');
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

const char* phase_folder(Phase p) { return p == Phase::Front ? "front" : p == Phase::Middle ? "middle" : "back"; }

TEST(BuiltinNames, IdClassAndFileAgree) {
    TransformRegistry r;
    const size_t anchors = r.size();
    register_builtin_transforms(r);
    std::map<std::string, const char*> table;
    for (const Builtin& b : kBuiltins) table[b.id] = b.header;
    EXPECT_EQ(r.size() - anchors, table.size()) << "kBuiltins must list every built-in transformation";
    for (Transformation* t : r.all()) {
        if (class_name(*t) == "mo::(anonymous namespace)::Anchor") continue;
        const std::string id = t->id();
        SCOPED_TRACE(id);
        ASSERT_TRUE(table.count(id)) << "not in kBuiltins";
        const std::filesystem::path header = table[id];
        EXPECT_EQ(class_name(*t), "mo::" + id);
        EXPECT_EQ(folded(header.stem().string()), folded(id));
        EXPECT_EQ(header.parent_path().filename().string(), phase_folder(t->phase()));
        EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(MO_SOURCE_DIR) / header));
    }
}

}  // namespace
}  // namespace mo
