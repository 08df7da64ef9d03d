// TensorFlow ops as the extractors convert them: each graph is built here, converted by mo and its
// IR evaluated against values worked from TensorFlow's definitions of the op.
#include <gtest/gtest.h>

#include <cmath>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/tf/tf_graph.pb.h"
#include "support/op_test_util.hpp"
#include "support/tf_graph_builder.hpp"

namespace mo {
namespace {

using namespace test::tf;

TEST(TfExtractors, GatherSplitArgMaxDepthToSpaceFloorDivSelectGatherNdCast) {
    // x [1, 1, 2, 4] = 0..7 (NHWC)
    mo_tf::GraphDef g;
    auto& x = node(g, "x", "Placeholder", {});
    (*x.mutable_attr())["dtype"].set_type(mo_tf::DT_FLOAT);
    for (int64_t d : {1, 1, 2, 4}) (*x.mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(d);
    constant(g, "three", mo_tf::DT_INT32, {}, {}, {3});
    constant(g, "idx", mo_tf::DT_INT32, {2}, {}, {3, 0});
    constant(g, "two", mo_tf::DT_FLOAT, {}, {3.f});
    node(g, "gather", "GatherV2", {"x", "idx", "three"});
    auto& split = node(g, "split", "Split", {"three", "x"});
    (*split.mutable_attr())["num_split"].set_i(2);
    node(g, "split_out", "Identity", {"split:1"});
    node(g, "argmax", "ArgMax", {"x", "three"});
    auto& d2s = node(g, "d2s", "DepthToSpace", {"x"});
    (*d2s.mutable_attr())["block_size"].set_i(2);
    node(g, "floordiv", "FloorDiv", {"x", "two"});
    node(g, "greater", "Greater", {"x", "two"});
    node(g, "select", "SelectV2", {"greater", "x", "two"});
    constant(g, "nd", mo_tf::DT_INT32, {1, 3}, {}, {0, 0, 1});
    node(g, "gather_nd", "GatherNd", {"x", "nd"});
    auto& cast = node(g, "cast", "Cast", {"floordiv"});
    (*cast.mutable_attr())["DstT"].set_type(mo_tf::DT_INT32);
    const std::string path = save(g, "ops.pb");
    test::ScratchDir out{"tf_ops"};
    auto ir = test::convert_to_ir(path, out, false);
    auto r = evaluate(*ir, {Tensor::from_vector<float>({0, 1, 2, 3, 4, 5, 6, 7}, {1, 1, 2, 4})});
    ASSERT_EQ(r.size(), 7u);  // the graph's sinks, in graph order: floordiv feeds cast, greater feeds select
    EXPECT_EQ(r[0].to_f64(), (std::vector<double>{3, 0, 7, 4}));                    // channels 3, 0
    EXPECT_EQ(r[1].to_f64(), (std::vector<double>{2, 3, 6, 7}));                    // second half
    EXPECT_EQ(r[2].to_i64(), (std::vector<int64_t>{3, 3}));                         // argmax
    EXPECT_EQ(r[3].to_f64(), (std::vector<double>{0, 1, 4, 5, 2, 3, 6, 7}));        // [1, 2, 4, 1]
    EXPECT_EQ(r[4].to_f64(), (std::vector<double>{3, 3, 3, 3, 4, 5, 6, 7}));        // x > 3 ? x : 3
    EXPECT_EQ(r[5].to_f64(), (std::vector<double>{4, 5, 6, 7}));                    // x[0, 0, 1, :]
    EXPECT_EQ(r[6].type(), ElementType::i32);                                       // int32(floor(x / 3))
    EXPECT_EQ(r[6].to_i64(), (std::vector<int64_t>{0, 0, 0, 1, 1, 1, 2, 2}));
}

TEST(TfExtractors, Conv2DBackpropInputIsTheTransposedConvolution) {
    // out_backprop 2x2 of ones, filter 3x3 of ones, stride 2, SAME to 4x4 (as in tflite_ops_test).
    mo_tf::GraphDef g;
    auto& x = node(g, "x", "Placeholder", {});
    (*x.mutable_attr())["dtype"].set_type(mo_tf::DT_FLOAT);
    for (int64_t d : {1, 2, 2, 1}) (*x.mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(d);
    constant(g, "sizes", mo_tf::DT_INT32, {4}, {}, {1, 4, 4, 1});
    constant(g, "filter", mo_tf::DT_FLOAT, {3, 3, 1, 1}, {1.f});  // one value fills the tensor
    auto& t = node(g, "deconv", "Conv2DBackpropInput", {"sizes", "filter", "x"});
    set_s(t, "padding", "SAME");
    set_ints(t, "strides", {1, 2, 2, 1});
    test::ScratchDir out{"tf_deconv"};
    auto ir = test::convert_to_ir(save(g, "deconv.pb"), out, true);  // mo's default flags
    auto r = evaluate(*ir, {Tensor::from_vector<float>({1, 1, 1, 1}, {1, 2, 2, 1})});
    EXPECT_EQ(r.at(0).to_f64(), (std::vector<double>{1, 1, 2, 1, 1, 1, 2, 1, 2, 2, 4, 2, 1, 1, 2, 1}));
}

TEST(TfExtractors, NonMaxSuppressionV5SelectsInScoreOrder) {
    // A [0, 0, 1, 1], B [0, 0, 1, 0.9] (IoU with A 0.9), C [0, 2, 1, 3]; scores .9, .8, .7:
    // A is kept, B suppressed by A, C kept.
    mo_tf::GraphDef g;
    auto& boxes = node(g, "boxes", "Placeholder", {});
    (*boxes.mutable_attr())["dtype"].set_type(mo_tf::DT_FLOAT);
    for (int64_t d : {3, 4}) (*boxes.mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(d);
    constant(g, "scores", mo_tf::DT_FLOAT, {3}, {.9f, .8f, .7f});
    constant(g, "max", mo_tf::DT_INT32, {}, {}, {3});
    constant(g, "iou", mo_tf::DT_FLOAT, {}, {.5f});
    constant(g, "score", mo_tf::DT_FLOAT, {}, {0.f});
    constant(g, "sigma", mo_tf::DT_FLOAT, {}, {0.f});
    node(g, "nms", "NonMaxSuppressionV5", {"boxes", "scores", "max", "iou", "score", "sigma"});
    node(g, "indices", "Identity", {"nms:0"});
    node(g, "kept_scores", "Identity", {"nms:1"});
    node(g, "count", "Identity", {"nms:2"});
    test::ScratchDir out{"tf_nms"};
    auto ir = test::convert_to_ir(save(g, "nms.pb"), out, false);  // the constant scores would be rounded to f16
    auto r = evaluate(*ir, {Tensor::from_vector<float>({0, 0, 1, 1, 0, 0, 1, .9f, 0, 2, 1, 3}, {3, 4})});
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].type(), ElementType::i32);
    EXPECT_EQ(r[0].to_i64(), (std::vector<int64_t>{0, 2}));
    auto s = r[1].to_f64();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_NEAR(s[0], .9, 1e-6);
    EXPECT_NEAR(s[1], .7, 1e-6);
    EXPECT_EQ(r[2].to_i64(), std::vector<int64_t>{2});
}

// x [3, 4] -> Unpack(axis 0, num) -> Relu of each output in `reads` ("u:2").
mo_tf::GraphDef unpack_graph(int64_t num, const std::vector<std::string>& reads, std::vector<int64_t> shape = {3, 4}) {
    mo_tf::GraphDef g;
    placeholder(g, "x", std::move(shape));
    auto& u = node(g, "u", "Unpack", {"x"});
    (*u.mutable_attr())["num"].set_i(num);
    for (size_t i = 0; i < reads.size(); ++i) node(g, "r" + std::to_string(i), "Relu", {reads[i]});
    return g;
}

// Found by an audit: num -1 was a std::length_error, 0 or too small an internal error, and a huge
// num ran out of memory.
TEST(TfExtractors, UnpackNumMustBePositiveAndMatchTheInputAndTheOutputsRead) {
    test::expect_error([&] { run(save(unpack_graph(-1, {"u"}), "unpack_neg.pb"), 0); },
                       {"node 'u' (Unpack", "num is -1; it must be between 1 and 65536"});
    test::expect_error([&] { run(save(unpack_graph(0, {"u"}), "unpack_zero.pb"), 0); }, {"num is 0"});
    test::expect_error([&] { run(save(unpack_graph(1, {"u:0", "u:2"}), "unpack_few.pb"), 0); },
                       {"the graph reads output 2 but num is 1"});
    test::expect_error([&] { run(save(unpack_graph(5, {"u"}), "unpack_dim.pb"), 0); },
                       {"num is 5 but the input has 3 entries along axis 0"});
    test::expect_error([&] { run(save(unpack_graph(int64_t{1} << 40, {"u"}, {-1, 4}), "unpack_huge.pb"), 0); },
                       {"num is 1099511627776"});
    // Reading one of the parts is fine.
    auto r = convert_and_evaluate(unpack_graph(3, {"u:1"}), "unpack.pb",
                                  {Tensor::from_vector<float>(test::iota(12, 0), {3, 4})});
    EXPECT_EQ(r.at(0).to_f64(), (std::vector<double>{4, 5, 6, 7}));
}

// A graph may read fewer outputs than a split makes (this was refused: "the node has 1 outputs
// but num_splits is 3"); a bad count is an error naming the node.
TEST(TfExtractors, SplitsMakeAllTheirPartsWhateverTheGraphReads) {
    mo_tf::GraphDef g;
    placeholder(g, "x", {3, 6});
    constant(g, "axis", mo_tf::DT_INT32, {}, {}, {1});
    constant(g, "sizes", mo_tf::DT_INT32, {3}, {}, {1, 2, 3});
    auto& split = node(g, "split", "Split", {"axis", "x"});
    (*split.mutable_attr())["num_split"].set_i(3);
    auto& split_v = node(g, "split_v", "SplitV", {"x", "sizes", "axis"});
    (*split_v.mutable_attr())["num_split"].set_i(3);
    node(g, "first", "Relu", {"split"});
    node(g, "middle", "Relu", {"split_v:1"});
    auto r = convert_and_evaluate(g, "split.pb", {Tensor::from_vector<float>(test::iota(18, 0), {3, 6})});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].to_f64(), (std::vector<double>{0, 1, 6, 7, 12, 13}));
    EXPECT_EQ(r[1].to_f64(), (std::vector<double>{1, 2, 7, 8, 13, 14}));
    (*split.mutable_attr())["num_split"].set_i(0);
    test::expect_error([&] { convert_and_evaluate(g, "split_zero.pb", {}); },
                       {"node 'split' (Split", "num_split is 0; it must be between 1 and 65536"});
    (*split.mutable_attr())["num_split"].set_i(3);
    node(g, "past", "Relu", {"split_v:3"});
    test::expect_error([&] { convert_and_evaluate(g, "split_v_past.pb", {}); },
                       {"node 'split_v' (SplitV", "the graph reads output 3 but num_split is 3"});
}

// Found by an audit: with no values to join, ConcatV2 and Pack crashed in constant folding.
TEST(TfExtractors, ConcatV2AndPackWithoutValuesAreErrors) {
    mo_tf::GraphDef concat = small_graph();
    constant(concat, "axis0", mo_tf::DT_INT32, {}, {}, {0});
    node(concat, "joined", "ConcatV2", {"axis0"});
    test::expect_error([&] { run(save(concat, "concat_axis_only.pb"), 0); },
                       {"node 'joined' (ConcatV2", "needs at least one value and the axis; the node has 1 input(s)"});
    mo_tf::GraphDef pack = small_graph();
    node(pack, "packed", "Pack", {});
    test::expect_error([&] { run(save(pack, "pack_nothing.pb"), 0); },
                       {"node 'packed' (Pack", "nothing to pack: the node has no inputs"});
}

// Mask bits stop at 64: entry 64 of a 66-entry slice is not shrunk by bit 0 (shifting by 64 or
// more was undefined behaviour, on x86 the same as shifting by 0).
TEST(TfExtractors, StridedSliceMaskBitsStopAt64Axes) {
    mo_tf::GraphDef g;
    placeholder(g, "x", std::vector<int64_t>(66, 1));
    constant(g, "begin", mo_tf::DT_INT32, {66}, {}, {0});
    constant(g, "end", mo_tf::DT_INT32, {66}, {}, {1});
    auto& slice = node(g, "slice", "StridedSlice", {"x", "begin", "end", "end"});
    (*slice.mutable_attr())["shrink_axis_mask"].set_i(1);
    auto r = convert_and_evaluate(g, "slice_66.pb", {Tensor::from_vector<float>({5}, Shape(66, 1))});
    EXPECT_EQ(r.at(0).shape(), Shape(65, 1));
}

// Found by an audit of the TF extractors: each converted with exit 0 to an IR that computes
// something other than TensorFlow does.
TEST(TfExtractors, NchwBiasAddAddsAlongAxisOneOfAnyRank) {
    mo_tf::GraphDef g;
    placeholder(g, "x", {1, 2, 2, 2, 3});
    constant(g, "b", mo_tf::DT_FLOAT, {2}, {1.f, 2.f});
    set_s(node(g, "y", "BiasAdd", {"x", "b"}), "data_format", "NCHW");
    auto out = convert_and_evaluate(g, "bias_nchw_rank5.pb", {Tensor::from_vector<float>(std::vector<float>(24), {1, 2, 2, 2, 3})});
    std::vector<double> want(24, 1.0);  // channel 0 gets 1, channel 1 gets 2, whatever D, H, W
    std::fill(want.begin() + 12, want.end(), 2.0);
    EXPECT_EQ(out.at(0).to_f64(), want);

    mo_tf::GraphDef flat;
    placeholder(flat, "x", {3, 3});
    constant(flat, "b", mo_tf::DT_FLOAT, {3}, {1.f, 2.f, 3.f});
    set_s(node(flat, "y", "BiasAdd", {"x", "b"}), "data_format", "NCHW");
    test::expect_error([&] { convert_and_evaluate(flat, "bias_nchw_rank2.pb", {}); },
                       {"node 'y' (BiasAdd", "needs an input of rank 3 or more, not 2"});
}

// TensorFlow's depth-wise pooling (a window over the channels) was dropped: the IR returned x.
TEST(TfExtractors, PoolingOverTheChannelAxisIsNotSupported) {
    mo_tf::GraphDef g;
    placeholder(g, "x", {1, 2, 2, 6});
    auto& pool = node(g, "y", "MaxPool", {"x"});
    set_ints(pool, "ksize", {1, 1, 1, 3});
    set_ints(pool, "strides", {1, 1, 1, 3});
    set_s(pool, "padding", "VALID");
    test::expect_error([&] { convert_and_evaluate(g, "pool_depth.pb", {}); },
                       {"node 'y' (MaxPool", "over the batch or channel axis (1 and 3)", "not supported"});
}

// ResizeBilinear returns float32 whatever its input: a uint8 input was interpolated and
// rounded in uint8 ([0, 0, 1, 1] and a uint8 output).
TEST(TfExtractors, ResizeBilinearComputesInFloat) {
    mo_tf::GraphDef g;
    auto& x = node(g, "x", "Placeholder", {});
    (*x.mutable_attr())["dtype"].set_type(mo_tf::DT_UINT8);
    for (int64_t d : {1, 1, 2, 1}) (*x.mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(d);
    constant(g, "size", mo_tf::DT_INT32, {2}, {}, {1, 4});
    node(g, "y", "ResizeBilinear", {"x", "size"});
    auto out = convert_and_evaluate(g, "resize_u8.pb", {Tensor::from_vector<uint8_t>({0, 1}, {1, 1, 2, 1})});
    EXPECT_EQ(out.at(0).type(), ElementType::f32);
    // Asymmetric sampling at 0, .5, 1, 1.5 (clamped to the last pixel).
    EXPECT_EQ(out.at(0).to_f64(), (std::vector<double>{0, .5, 1, 1}));
}

// MirrorPad read any mode but REFLECT as SYMMETRIC; TensorFlow knows only those two.
TEST(TfExtractors, MirrorPadReflectsOrMirrorsAndRefusesOtherModes) {
    for (auto [mode, want] : {std::pair{"REFLECT", std::vector<double>{2, 1, 2, 3, 2}},
                              std::pair{"SYMMETRIC", std::vector<double>{1, 1, 2, 3, 3}}}) {
        mo_tf::GraphDef g;
        placeholder(g, "x", {3});
        constant(g, "paddings", mo_tf::DT_INT32, {1, 2}, {}, {1, 1});
        set_s(node(g, "y", "MirrorPad", {"x", "paddings"}), "mode", mode);
        EXPECT_EQ(convert_and_evaluate(g, "mirror_pad.pb", {Tensor::from_vector<float>({1, 2, 3}, {3})}).at(0).to_f64(), want)
            << mode;
    }
    mo_tf::GraphDef wrap;
    placeholder(wrap, "x", {3});
    constant(wrap, "paddings", mo_tf::DT_INT32, {1, 2}, {}, {1, 1});
    set_s(node(wrap, "y", "MirrorPad", {"x", "paddings"}), "mode", "WRAP");
    test::expect_error([&] { convert_and_evaluate(wrap, "mirror_pad_wrap.pb", {}); },
                       {"node 'y' (MirrorPad", "mode 'WRAP' is neither REFLECT nor SYMMETRIC"});
}

// TensorFlow's remapper fuses an inference batch norm into _FusedConv2D (fused_ops
// [FusedBatchNorm], args scale, offset, mean, variance, attr epsilon): (y - mean) * scale /
// sqrt(variance + epsilon) + offset, worked by hand below. TF.js refuses this form.
TEST(TfExtractors, FusedConv2DTakesAFusedBatchNorm) {
    mo_tf::GraphDef g;
    placeholder(g, "x", {1, 1, 1, 2});
    constant(g, "w", mo_tf::DT_FLOAT, {1, 1, 2, 2}, {1.f, 0.f, 0.f, 1.f});  // identity filter
    constant(g, "scale", mo_tf::DT_FLOAT, {2}, {2.f, 0.5f});
    constant(g, "offset", mo_tf::DT_FLOAT, {2}, {1.f, -1.f});
    constant(g, "mean", mo_tf::DT_FLOAT, {2}, {0.5f, 1.f});
    constant(g, "variance", mo_tf::DT_FLOAT, {2}, {3.f, 0.25f});
    auto& conv = node(g, "conv", "_FusedConv2D", {"x", "w", "scale", "offset", "mean", "variance"});
    set_s(conv, "padding", "VALID");
    set_ints(conv, "strides", {1, 1, 1, 1});
    (*conv.mutable_attr())["fused_ops"].mutable_list()->add_s("FusedBatchNorm");
    (*conv.mutable_attr())["num_args"].set_i(4);
    (*conv.mutable_attr())["epsilon"].set_f(1.f);
    auto out = convert_and_evaluate(g, "fused_bn.pb", {Tensor::from_vector<float>({1.f, -3.f}, {1, 1, 1, 2})});
    // channel 0: (1 - 0.5) * 2 / sqrt(3 + 1) + 1 = 1.5; channel 1: (-3 - 1) * 0.5 / sqrt(1.25) - 1
    const auto got = out.at(0).to_f64();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_NEAR(got[0], 1.5, 1e-6);
    EXPECT_NEAR(got[1], -4 * 0.5 / std::sqrt(1.25) - 1, 1e-6);

    // Grappler's [BiasAdd, Add, Relu]: the bias, then a tensor of the output's (NHWC) shape, by hand.
    mo_tf::GraphDef residual;
    placeholder(residual, "x", {1, 1, 2, 2});
    constant(residual, "w", mo_tf::DT_FLOAT, {1, 1, 2, 2}, {1.f, 0.f, 0.f, 1.f});
    constant(residual, "bias", mo_tf::DT_FLOAT, {2}, {0.5f, 0.5f});
    placeholder(residual, "side", {1, 1, 2, 2});
    auto& fused = node(residual, "conv", "_FusedConv2D", {"x", "w", "bias", "side"});
    set_s(fused, "padding", "VALID");
    set_ints(fused, "strides", {1, 1, 1, 1});
    for (const char* op : {"BiasAdd", "Add", "Relu"}) (*fused.mutable_attr())["fused_ops"].mutable_list()->add_s(op);
    (*fused.mutable_attr())["num_args"].set_i(2);
    auto sum = convert_and_evaluate(residual, "fused_add.pb",
                                    {Tensor::from_vector<float>({1.f, -3.f, 2.f, 0.5f}, {1, 1, 2, 2}),
                                     Tensor::from_vector<float>({1.f, 1.f, -4.f, 0.f}, {1, 1, 2, 2})});
    EXPECT_EQ(sum.at(0).to_f64(), (std::vector<double>{2.5, 0, 0, 1}));  // relu(x + 0.5 + side)

    // num_args must count the arguments the fused ops take.
    (*conv.mutable_attr())["num_args"].set_i(3);
    test::expect_error([&] { convert_and_evaluate(g, "fused_bn_bad.pb", {}); },
                       {"node 'conv'", "num_args is 3 but fused_ops [FusedBatchNorm] take 4 argument(s)"});
}

// Slice's begin computed at run time (from a shape), size -1 to the end of the axis:
// x [3, 4] = 0..11, begin = shape - [2, 3] = [1, 1], size [-1, 2] -> x[1:, 1:3], by hand.
TEST(TfExtractors, SliceTakesABeginComputedAtRunTime) {
    mo_tf::GraphDef g;
    placeholder(g, "x", {-1, 4});
    node(g, "shape", "Shape", {"x"});
    constant(g, "back", mo_tf::DT_INT32, {2}, {}, {2, 3});
    node(g, "begin", "Sub", {"shape", "back"});
    constant(g, "size", mo_tf::DT_INT32, {2}, {}, {-1, 2});
    node(g, "slice", "Slice", {"x", "begin", "size"});
    std::vector<float> x(12);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    auto out = convert_and_evaluate(g, "slice_dynamic.pb", {Tensor::from_vector<float>(x, {3, 4})});
    EXPECT_EQ(out.at(0).shape(), (Shape{2, 2}));
    EXPECT_EQ(out.at(0).to_f64(), (std::vector<double>{5, 6, 9, 10}));
}

}  // namespace
}  // namespace mo

namespace mo {
namespace {

// What detection post-processing (TF Object Detection API exports, TF.js's handtrack) uses, worked
// by hand: Where's coordinates [count, rank] in row-major order, Range, Reciprocal, and a Pad whose
// paddings are computed at run time.
TEST(TfExtractors, WhereRangeReciprocalAndARunTimePad) {
    mo_tf::GraphDef g;
    placeholder(g, "x", {-1, 3});
    node(g, "where", "Where", {"x"});
    constant(g, "start", mo_tf::DT_INT32, {}, {}, {2});
    constant(g, "limit", mo_tf::DT_INT32, {}, {}, {9});
    constant(g, "delta", mo_tf::DT_INT32, {}, {}, {3});
    auto& range = node(g, "range", "Range", {"start", "limit", "delta"});
    (*range.mutable_attr())["Tidx"].set_type(mo_tf::DT_INT32);
    node(g, "reciprocal", "Reciprocal", {"x"});
    // paddings [[0, rows], [1, 0]]: rows = the number of rows of x, known only at run time.
    node(g, "shape", "Shape", {"x"});
    constant(g, "zero", mo_tf::DT_INT32, {1}, {}, {0});
    constant(g, "one", mo_tf::DT_INT32, {1}, {}, {1});
    auto& rows = node(g, "rows", "StridedSlice", {"shape", "zero", "one", "one"});
    (*rows.mutable_attr())["shrink_axis_mask"].set_i(1);
    constant(g, "z", mo_tf::DT_INT32, {}, {}, {0});
    constant(g, "o", mo_tf::DT_INT32, {}, {}, {1});
    auto& first = node(g, "first", "Pack", {"z", "rows"});
    (*first.mutable_attr())["N"].set_i(2);
    auto& second = node(g, "second", "Pack", {"o", "z"});
    (*second.mutable_attr())["N"].set_i(2);
    auto& paddings = node(g, "paddings", "Pack", {"first", "second"});
    (*paddings.mutable_attr())["N"].set_i(2);
    node(g, "pad", "Pad", {"x", "paddings"});
    auto out = convert_and_evaluate(g, "where_range.pb", {Tensor::from_vector<float>({0, 2, 0, -4, 0, 0.5f}, {2, 3})});
    EXPECT_EQ(out.at(0).shape(), (Shape{3, 2}));
    EXPECT_EQ(out.at(0).to_f64(), (std::vector<double>{0, 1, 1, 0, 1, 2}));
    EXPECT_EQ(out.at(1).to_f64(), (std::vector<double>{2, 5, 8}));
    const auto r = out.at(2).to_f64();
    EXPECT_EQ(r[1], 0.5);
    EXPECT_EQ(r[5], 2);
    EXPECT_TRUE(std::isinf(r[0]));
    EXPECT_EQ(out.at(3).shape(), (Shape{4, 4}));
    EXPECT_EQ(out.at(3).to_f64(), (std::vector<double>{0, 0, 2, 0, 0, -4, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace mo

namespace mo {
namespace {

}  // namespace
}  // namespace mo
