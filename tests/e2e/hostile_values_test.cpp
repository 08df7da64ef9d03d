// Values that contradict the rest of a model: an empty constant where one value is needed, sizes
// and counts whose arithmetic leaves int64, outputs that the op does not have. Each converts to
// what the source model computes or is a clear mo::Error; before these fixes they were internal
// errors, SIGFPE, SIGSEGV, hangs, or an IR with a negative or wrapped dimension. Found by reading
// the extractors against such values and by scripts/mutate_models.py's field surgery.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <tuple>

#include "core/eval_budget.hpp"
#include "core/evaluator.hpp"
#include "core/infer.hpp"
#include "emit/ir_test_util.hpp"
#include "extractors/onnx_test_support.hpp"
#include "support/op_test_util.hpp"
#include "driver/convert.hpp"

namespace mo {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// Converts `m` into a scratch directory: the IR read back.
std::unique_ptr<Graph> convert_model(const test::OnnxModelBuilder& m, const std::string& name) {
    test::ScratchDir out{name};
    return test::convert_to_ir(m.save(name + ".onnx"), out, true);  // mo's default flags
}

void expect_refused(const test::OnnxModelBuilder& m, const std::string& name, std::initializer_list<const char*> fragments) {
    test::expect_error([&] { convert_model(m, name); }, fragments);
}

onnx::TensorProto empty_tensor(const std::string& name, int32_t type) {
    return test::int_tensor<int64_t>(name, type, {}, {0});
}

// A body graph: `inputs` and `outputs` (name, onnx type, shaped?) around one node.
onnx::GraphProto body(const std::vector<std::pair<std::string, int32_t>>& inputs,
                      const std::vector<std::pair<std::string, int32_t>>& outputs,
                      const std::string& op, const std::vector<std::string>& node_inputs,
                      const std::vector<std::string>& node_outputs) {
    onnx::GraphProto g;
    g.set_name("body_" + op);
    auto declare = [](onnx::ValueInfoProto* v, const std::string& name, int32_t type) {
        v->set_name(name);
        v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    };
    for (const auto& [name, type] : inputs) declare(g.add_input(), name, type);
    for (const auto& [name, type] : outputs) declare(g.add_output(), name, type);
    onnx::NodeProto* n = g.add_node();
    n->set_op_type(op);
    for (const auto& i : node_inputs) n->add_input(i);
    for (const auto& o : node_outputs) n->add_output(o);
    return g;
}

void set_graph(onnx::NodeProto& node, const std::string& name, onnx::GraphProto g) {
    onnx::AttributeProto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = std::move(g);
}

// ---- one value expected, none given --------------------------------------------------------

TEST(HostileValues, DropoutWithAnEmptyRatioOrTrainingMode) {
    test::OnnxModelBuilder ratio(13);
    ratio.input("x", {2});
    ratio.initializer("ratio", {}, {0});
    ratio.initializer(test::int_tensor<uint8_t>("training", onnx::TensorProto::BOOL, {1}, {}));
    ratio.node("Dropout", {"x", "ratio", "training"}, {"y"});
    ratio.output("y");
    expect_refused(ratio, "dropout_ratio", {"ratio must hold one value, not 0"});

    test::OnnxModelBuilder training(13);
    training.input("x", {2});
    training.initializer("ratio", {0.5f}, {});
    training.initializer(empty_tensor("training", onnx::TensorProto::BOOL));
    training.node("Dropout", {"x", "ratio", "training"}, {"y"});
    training.output("y");
    expect_refused(training, "dropout_training", {"training_mode must hold one value, not 0"});
}

TEST(HostileValues, SequenceAtAnEmptyPosition) {
    test::OnnxModelBuilder m(13);
    m.input("x", {2});
    m.initializer(empty_tensor("position", onnx::TensorProto::INT64));
    m.node("SequenceConstruct", {"x"}, {"seq"});
    m.node("SequenceAt", {"seq", "position"}, {"y"});
    m.output("y");
    expect_refused(m, "sequence_at_empty", {"position must hold one value, not 0"});
}

TEST(HostileValues, IfWithAnEmptyCondition) {
    test::OnnxModelBuilder m(13);
    m.input("x", {2});
    m.initializer(empty_tensor("cond", onnx::TensorProto::BOOL));
    onnx::NodeProto& n = m.node("If", {"cond"}, {"y"});
    set_graph(n, "then_branch", body({}, {{"a", onnx::TensorProto::FLOAT}}, "Identity", {"x"}, {"a"}));
    set_graph(n, "else_branch", body({}, {{"b", onnx::TensorProto::FLOAT}}, "Neg", {"x"}, {"b"}));
    m.output("y");
    expect_refused(m, "if_empty_condition", {"the condition must hold one value"});
}

TEST(HostileValues, LoopWithAnEmptyTripCount) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1});
    m.initializer(empty_tensor("trip", onnx::TensorProto::INT64));
    m.initializer(test::int_tensor<uint8_t>("cond", onnx::TensorProto::BOOL, {1}, {}));
    onnx::NodeProto& n = m.node("Loop", {"trip", "cond", "x"}, {"y"});
    // (i, cond, v) -> (cond, v): the Identity passes the condition, v comes back unchanged.
    onnx::GraphProto g = body({{"i", onnx::TensorProto::INT64}, {"c", onnx::TensorProto::BOOL}, {"v", onnx::TensorProto::FLOAT}},
                              {{"c_out", onnx::TensorProto::BOOL}, {"v", onnx::TensorProto::FLOAT}}, "Identity", {"c"},
                              {"c_out"});
    set_graph(n, "body", g);
    m.output("y");
    expect_refused(m, "loop_empty_trip", {"the trip count must hold one value, its shape is [0]"});
}

// ---- counts and sizes ----------------------------------------------------------------------

// num_scan_inputs = 1 of 2 inputs leaves one state variable, which needs an output.
TEST(HostileValues, ScanWithFewerOutputsThanStateVariables) {
    test::OnnxModelBuilder m(11);
    m.input("s", {1});
    m.input("xs", {3, 1});
    onnx::NodeProto& n = m.node("Scan", {"s", "xs"}, {}, {{"num_scan_inputs", 1}});
    set_graph(n, "body", body({{"si", onnx::TensorProto::FLOAT}, {"xi", onnx::TensorProto::FLOAT}},
                              {{"so", onnx::TensorProto::FLOAT}}, "Add", {"si", "xi"}, {"so"}));
    m.node("Identity", {"s"}, {"y"});
    m.output("y");
    expect_refused(m, "scan_no_outputs", {"0 outputs, fewer than its 1 state variables"});
}

// W of shape [0, 4*H, I]: no direction at all (the gate size divided by it: SIGFPE).
TEST(HostileValues, LstmWeightsWithoutADirection) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 1, 3});
    m.initializer("w", {}, {0, 8, 3});
    m.initializer("r", {}, {0, 8, 2});
    m.node("LSTM", {"x", "w", "r"}, {"y"}, {{"hidden_size", 2}});
    m.output("y");
    expect_refused(m, "lstm_no_direction", {"do not hold 4 gates"});
}

TEST(HostileValues, SplitToSequenceInPartsOfZero) {
    test::OnnxModelBuilder m(13);
    m.input("x", {4});
    m.initializer_i64("split", {0}, {});
    m.initializer_i64("first", {0}, {});
    m.node("SplitToSequence", {"x", "split"}, {"seq"});
    m.node("SequenceAt", {"seq", "first"}, {"y"});
    m.output("y");
    expect_refused(m, "split_to_sequence_zero", {"split must be positive, it is 0"});
}

// block_size^2 wraps to 0 in 64 bits; the channels were divided by it (SIGFPE).
TEST(HostileValues, DepthToSpaceBlockWhoseSquareOverflows) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 4, 2, 2});
    m.node("DepthToSpace", {"x"}, {"y"}, {{"blocksize", int64_t{1} << 32}});
    m.output("y");
    expect_refused(m, "depth_to_space_overflow", {"block_size 4294967296 to the power 2 overflows int64"});
}

TEST(HostileValues, TileWhoseOutputDimOverflows) {
    test::OnnxModelBuilder m(13);
    m.input("x", {3});
    m.initializer_i64("repeats", {int64_t{1} << 62}, {1});
    m.node("Tile", {"x", "repeats"}, {"y"});
    m.output("y");
    expect_refused(m, "tile_overflow", {"dimension arithmetic overflows int64: 3 * 4611686018427387904"});
}

TEST(HostileValues, SplitLengthsWhoseSumOverflows) {
    test::OnnxModelBuilder m(13);
    m.input("x", {5});
    const int64_t quarter = int64_t{1} << 62;  // four of them wrap to 0, and 5 is left
    m.initializer_i64("split", {quarter, quarter, quarter, quarter, 5}, {5});
    m.node("Split", {"x", "split"}, {"a", "b", "c", "d", "e"});
    m.output("e");
    expect_refused(m, "split_overflow", {"split_lengths add up to more than int64 holds"});
}

TEST(HostileValues, ConvolutionWhoseDilatedKernelOverflows) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 1, 5, 5});
    m.initializer("w", test::iota(9), {1, 1, 3, 3});
    m.node("Conv", {"x", "w"}, {"y"}, {{"dilations", {kMax, kMax}}});
    m.output("y");
    expect_refused(m, "conv_dilation_overflow", {"the dilated kernel overflows int64"});
}

// A Pad of INT64_MAX on both sides of a dim of 2 wrapped to a dim of 2.
TEST(HostileValues, PadsWhoseSumOverflows) {
    test::OnnxModelBuilder m(13);
    m.input("x", {2});
    m.initializer_i64("pads", {kMax, kMax}, {2});
    m.node("Pad", {"x", "pads"}, {"y"});
    m.output("y");
    expect_refused(m, "pad_overflow", {"the padded axis overflows int64"});
}

// 1e30 elements: the double count was cast to int64 (undefined), giving an output of [0].
TEST(HostileValues, RangeOfMoreElementsThanInt64Counts) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1});
    m.initializer("start", {0.f}, {});
    m.initializer("limit", {1e30f}, {});
    m.initializer("delta", {1.f}, {});
    m.node("Range", {"start", "limit", "delta"}, {"r"});
    m.node("Add", {"x", "r"}, {"y"});
    m.output("y");
    expect_refused(m, "range_huge", {"the range has more elements than int64 counts"});
}

// Reflect pads of 5 on a dim of 4 (at most 3): refused when folding, but converted when the data
// was a model input (found by the TFLite audit, MIRROR_PAD).
TEST(HostileValues, ReflectPadsBeyondTheDim) {
    test::OnnxModelBuilder m(13);
    m.input("x", {4});
    m.initializer_i64("pads", {0, 5}, {2});
    m.node("Pad", {"x", "pads"}, {"y"}, {{"mode", "reflect"}});
    m.output("y");
    expect_refused(m, "reflect_pad_beyond", {"pads of axis 0 are too large for pad_mode reflect on a dim of 4"});
}

// Steps beyond any dim take one element: x[0:5:2^63-2] and x[4::-2^63] are [x[0]] and [x[4]].
TEST(HostileValues, SliceWithAHugeStepTakesOneElement) {
    for (const auto& [start, end, step, want] : {std::tuple{int64_t{0}, int64_t{5}, kMax - 1, 1.0f},
                                                 std::tuple{int64_t{4}, kMin, kMin, 5.0f}}) {
        test::OnnxModelBuilder m(13);
        m.input("x", {1});
        m.initializer("data", {1, 2, 3, 4, 5}, {5});
        m.initializer_i64("starts", {start}, {1});
        m.initializer_i64("ends", {end}, {1});
        m.initializer_i64("axes", {0}, {1});
        m.initializer_i64("steps", {step}, {1});
        m.node("Slice", {"data", "starts", "ends", "axes", "steps"}, {"part"});
        m.node("Add", {"x", "part"}, {"y"});
        m.output("y");
        auto ir = convert_model(m, "slice_huge_step");
        const auto y = evaluate(*ir, {Tensor::from_vector<float>({0.f}, {1})});
        ASSERT_EQ(y.at(0).shape(), Shape{1}) << "step " << step;
        EXPECT_EQ(y.at(0).convert(ElementType::f32).data<float>()[0], want) << "step " << step;
    }
}

TEST(HostileValues, StftWithANegativeFrameLength) {
    test::OnnxModelBuilder m(17);
    m.input("signal", {1, 16, 1});
    m.input("step", {}, onnx::TensorProto::INT64);
    m.initializer_i64("length", {-8}, {});
    m.node("STFT", {"signal", "step", "", "length"}, {"y"});
    m.output("y");
    expect_refused(m, "stft_negative_length", {"negative dimension -8"});  // of the window it implies
}

// values of one element: the Gather of "on" (index 1) was out of range and gave 0.
TEST(HostileValues, OneHotWithoutAnOnValue) {
    test::OnnxModelBuilder m(11);
    m.input("x", {2}, onnx::TensorProto::INT64);
    m.initializer_i64("depth", {3}, {});
    m.initializer("values", {0.f}, {1});
    m.node("OneHot", {"x", "depth", "values"}, {"y"});
    m.output("y");
    expect_refused(m, "one_hot_one_value", {"values must be [off, on], its shape is [1]"});
}

// A split of an axis of 4 into no parts converted to a sequence of length 0.
TEST(HostileValues, SplitToSequenceOfNoParts) {
    test::OnnxModelBuilder m(13);
    m.input("x", {4});
    m.initializer_i64("split", {}, {0});
    m.node("SplitToSequence", {"x", "split"}, {"seq"});
    m.node("SequenceLength", {"seq"}, {"y"});
    m.output("y", onnx::TensorProto::INT64);
    expect_refused(m, "split_to_sequence_no_parts", {"split does not divide the axis of 4 into parts"});
}

// A sequence of 2^40 elements, one tensor each, from a small file.
TEST(HostileValues, SplitToSequenceIntoATrillionElements) {
    test::OnnxModelBuilder m(13);
    m.input("x", {int64_t{1} << 40});
    m.node("SplitToSequence", {"x"}, {"seq"});
    m.node("SequenceLength", {"seq"}, {"y"});
    m.output("y", onnx::TensorProto::INT64);
    expect_refused(m, "split_to_sequence_huge", {"SplitToSequence into 1099511627776 elements (at most 65536)"});
}

// ---- evaluations of constants (found by auditing the ops' evals) --------------------------------

// y = x + op(constants): the folded value, read back from the IR for x = 0.
std::vector<double> folded(test::OnnxModelBuilder& m, const std::string& name) {
    auto ir = convert_model(m, name);
    return evaluate(*ir, {Tensor::from_vector<float>({0.f}, {1})}).at(0).to_f64();
}

// The element count was cast to the data type: 256 became 0 for uint8 (SIGFPE), 200 became -56
// for int8 (a mean of -1). 255 ones and a zero average 255 / 256, truncated to 0.
TEST(HostileValues, IntegerMeanOfMoreElementsThanTheTypeCounts) {
    for (const auto& [type, values] : {std::pair{onnx::TensorProto::UINT8, std::vector<uint8_t>(255, 1)},
                                       std::pair{onnx::TensorProto::INT8, std::vector<uint8_t>(100, 1)}}) {
        std::vector<uint8_t> data = values;
        data.resize(type == onnx::TensorProto::UINT8 ? 256 : 200, 0);
        test::OnnxModelBuilder m(13);
        m.input("x", {1});
        m.initializer(test::int_tensor<uint8_t>("data", type, data, {static_cast<int64_t>(data.size())}));
        m.node("ReduceMean", {"data"}, {"mean"}, {{"keepdims", 0}});
        m.node("Cast", {"mean"}, {"mean_f"}, {{"to", 1}});
        m.node("Add", {"x", "mean_f"}, {"y"});
        m.output("y");
        EXPECT_EQ(folded(m, "integer_mean"), std::vector<double>{0}) << data.size() << " elements";
    }
}

// An empty spatial axis has nothing to reflect (the period was 0: SIGFPE); its taps are zeros.
TEST(HostileValues, GridSampleOfAnEmptyAxis) {
    test::OnnxModelBuilder m(16);
    m.input("x", {1});
    m.initializer("map", {}, {1, 1, 0, 2});
    m.initializer("grid", {0, 0}, {1, 1, 1, 2});
    m.node("GridSample", {"map", "grid"}, {"sampled"}, {{"padding_mode", "reflection"}});
    m.node("Reshape", {"sampled", "one"}, {"flat"});
    m.initializer_i64("one", {1}, {1});
    m.node("Add", {"x", "flat"}, {"y"});
    m.output("y");
    EXPECT_EQ(folded(m, "grid_sample_empty"), std::vector<double>{0});
}

// An empty feature map: the clamped sample index was H - 1 = -1 (a read 10^8 elements before
// the buffer: SIGSEGV). No sample, so the pooled value is 0.
TEST(HostileValues, RoiAlignOfAnEmptyMap) {
    test::OnnxModelBuilder m(16);
    m.input("x", {1});
    m.initializer("map", {}, {1, 1, 0, 100000000});
    m.initializer("rois", {-1, -1, -1, -1}, {1, 4});
    m.initializer_i64("batch", {0}, {1});
    m.node("RoiAlign", {"map", "rois", "batch"}, {"pooled"},
           {{"output_height", 1}, {"output_width", 1}, {"sampling_ratio", 1}});
    m.initializer_i64("one", {1}, {1});
    m.node("Reshape", {"pooled", "one"}, {"flat"});
    m.node("Add", {"x", "flat"}, {"y"});
    m.output("y");
    EXPECT_EQ(folded(m, "roi_align_empty"), std::vector<double>{0});
}

// int64 bounds went through a double: Range(2^53 + 1, 2^53 + 3, 1) had 4 elements from 2^53, and
// Range(INT64_MAX, 0, -2^62) started at INT64_MIN.
TEST(HostileValues, Int64RangesAreExact) {
    const int64_t big = (int64_t{1} << 53) + 1, quarter = int64_t{1} << 62;
    for (const auto& [start, stop, step, want] :
         {std::tuple{big, big + 2, int64_t{1}, std::vector<int64_t>{big, big + 1}},
          std::tuple{kMax, int64_t{0}, -quarter, std::vector<int64_t>{kMax, kMax - quarter}}}) {
        test::OnnxModelBuilder m(13);
        m.input("x", {1}, onnx::TensorProto::INT64);
        m.initializer_i64("start", {start}, {});
        m.initializer_i64("limit", {stop}, {});
        m.initializer_i64("delta", {step}, {});
        m.node("Range", {"start", "limit", "delta"}, {"r"});
        m.node("Add", {"x", "r"}, {"y"});
        m.output("y", onnx::TensorProto::INT64);
        auto ir = convert_model(m, "range_int64");
        EXPECT_EQ(evaluate(*ir, {Tensor::from_vector<int64_t>({0}, {1})}).at(0).to_i64(), want) << start;
    }
}

// A float beyond an integer type's range converted by a plain cast (undefined; INT32_MIN on x86).
// Folding saturates, as to_i64 does.
TEST(HostileValues, FloatToIntegerConversionSaturates) {
    test::OnnxModelBuilder m(13);
    m.input("x", {2}, onnx::TensorProto::INT32);
    m.initializer("big", {1e30f, -1e30f}, {2});
    m.node("Cast", {"big"}, {"converted"}, {{"to", static_cast<int64_t>(onnx::TensorProto::INT32)}});
    m.node("Add", {"x", "converted"}, {"y"});
    m.output("y", onnx::TensorProto::INT32);
    auto ir = convert_model(m, "cast_saturates");
    EXPECT_EQ(evaluate(*ir, {Tensor::from_vector<int32_t>({0, 0}, {2})}).at(0).to_i64(),
              (std::vector<int64_t>{INT32_MAX, INT32_MIN}));
}

// ---- outputs the op does not have ------------------------------------------------------------

// Found by field surgery on tests/e2e/data models (a Shape, a SkipLayerNormalization): a
// consumer renamed onto an output the op does not have.
TEST(HostileValues, AConsumerOfAnOutputTheOpDoesNotHave) {
    test::OnnxModelBuilder m(13);
    m.input("x", {2});
    m.node("Shape", {"x"}, {"s", "extra"});
    m.node("Neg", {"extra"}, {"y"}, {}, "reader");
    m.output("y");
    expect_refused(m, "shape_second_output", {"Shape has no output 1, but node 'reader' reads it"});
}

// ---- control flow (found by an audit of If, Loop, Scan and sequences) -------------------------

// A body graph node by node; kSequence declares a sequence of float tensors.
constexpr int32_t kSequence = -1;
struct BodyGraph {
    onnx::GraphProto g;
    static void declare(onnx::ValueInfoProto* v, const std::string& name, int32_t type) {
        v->set_name(name);
        if (type == kSequence)
            v->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
                onnx::TensorProto::FLOAT);
        else
            v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    }
    BodyGraph& in(const std::string& name, int32_t type) { return declare(g.add_input(), name, type), *this; }
    BodyGraph& out(const std::string& name, int32_t type) { return declare(g.add_output(), name, type), *this; }
    onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
        onnx::NodeProto* n = g.add_node();
        n->set_op_type(op);
        for (const auto& i : inputs) n->add_input(i);
        for (const auto& o : outputs) n->add_output(o);
        return *n;
    }
};

// (i, cond, v) -> (cond, v + 1)
onnx::GraphProto add_one_body() {
    BodyGraph b;
    b.in("i", onnx::TensorProto::INT64).in("c", onnx::TensorProto::BOOL).in("v", onnx::TensorProto::FLOAT);
    b.out("c_out", onnx::TensorProto::BOOL).out("v_out", onnx::TensorProto::FLOAT);
    b.node("Identity", {"c"}, {"c_out"});
    *b.g.add_initializer() = test::onnx_tensor("one", {1.f}, {});
    b.node("Add", {"v", "one"}, {"v_out"});
    return b.g;
}

// ONNX runs no iteration for M < 0; Loop-5 reads a negative trip count as no limit, so the IR
// ran until the body's condition stopped it (here: never, with a constant true condition).
TEST(HostileValues, LoopWithANegativeTripCountRunsNoIteration) {
    const Tensor x = Tensor::from_vector<float>({10, 20}, {2});
    test::OnnxModelBuilder constant(13);
    constant.input("x", {2});
    constant.initializer(test::int_tensor<int64_t>("M", onnx::TensorProto::INT64, {-1}, {}));
    constant.initializer(test::int_tensor<uint8_t>("cond", onnx::TensorProto::BOOL, {1}, {}));
    set_graph(constant.node("Loop", {"M", "cond", "x"}, {"y"}), "body", add_one_body());
    constant.output("y");
    EXPECT_EQ(evaluate(*convert_model(constant, "loop_negative_m"), {x}).at(0).to_f64(), (std::vector<double>{10, 20}));

    test::OnnxModelBuilder given(13);
    given.input("x", {2});
    given.input("M", {}, onnx::TensorProto::INT64);
    given.initializer(test::int_tensor<uint8_t>("cond", onnx::TensorProto::BOOL, {1}, {}));
    set_graph(given.node("Loop", {"M", "cond", "x"}, {"y"}), "body", add_one_body());
    given.output("y");
    auto ir = convert_model(given, "loop_given_m");
    EXPECT_EQ(evaluate(*ir, {x, Tensor::scalar<int64_t>(-5)}).at(0).to_f64(), (std::vector<double>{10, 20}));
    EXPECT_EQ(evaluate(*ir, {x, Tensor::scalar<int64_t>(3)}).at(0).to_f64(), (std::vector<double>{13, 23}));
}

// Loop-5's condition is boolean (ONNX's too); a float one went into the IR.
TEST(HostileValues, LoopConditionsThatAreNotBoolean) {
    test::OnnxModelBuilder m(13);
    m.input("x", {2});
    m.initializer(test::int_tensor<int64_t>("M", onnx::TensorProto::INT64, {2}, {}));
    m.initializer("cond", {1.f}, {});
    set_graph(m.node("Loop", {"M", "cond", "x"}, {"y"}), "body", add_one_body());
    m.output("y");
    expect_refused(m, "loop_float_condition", {"node 'Loop_", "the execution condition is f32, not boolean"});
}

// SequenceEmpty then `inserts` SequenceInserts of x, then SequenceLength.
test::OnnxModelBuilder insert_chain(int inserts) {
    test::OnnxModelBuilder m(17);
    m.input("x", {1});
    m.node("SequenceEmpty", {}, {"s0"}, {{"dtype", 1}});
    for (int k = 0; k < inserts; ++k)
        m.node("SequenceInsert", {"s" + std::to_string(k), "x"}, {"s" + std::to_string(k + 1)});
    m.node("SequenceLength", {"s" + std::to_string(inserts)}, {"y"});
    m.output("y", onnx::TensorProto::INT64);
    return m;
}

// The chain was followed by recursion, one frame per insert: SIGSEGV at about 43,000.
TEST(HostileValues, ALongSequenceInsertChain) {
    auto ir = convert_model(insert_chain(50000), "insert_chain");
    const Tensor* length = ir->results().at(0).in(0).value();
    ASSERT_NE(length, nullptr);
    EXPECT_EQ(length->to_i64(), (std::vector<int64_t>{50000}));
    expect_refused(insert_chain(65537), "insert_chain_too_long", {"a sequence of more than 65536 elements"});
}

// Inserts at given positions: [a] -> [b, a] -> [b, c, a] (the length each insert records).
TEST(HostileValues, SequenceInsertsAtPositions) {
    test::OnnxModelBuilder m(17);
    for (const char* name : {"a", "b", "c"}) m.input(name, {1});
    m.initializer(test::int_tensor<int64_t>("zero", onnx::TensorProto::INT64, {0}, {}));
    m.initializer(test::int_tensor<int64_t>("one", onnx::TensorProto::INT64, {1}, {}));
    m.node("SequenceConstruct", {"a"}, {"s1"});
    m.node("SequenceInsert", {"s1", "b", "zero"}, {"s2"});
    m.node("SequenceInsert", {"s2", "c", "one"}, {"s3"});
    m.node("ConcatFromSequence", {"s3"}, {"y"}, {{"axis", 0}});
    m.output("y");
    auto out = evaluate(*convert_model(m, "insert_positions"), {Tensor::from_vector<float>({1}, {1}),
                                                                 Tensor::from_vector<float>({2}, {1}),
                                                                 Tensor::from_vector<float>({3}, {1})});
    EXPECT_EQ(out.at(0).to_f64(), (std::vector<double>{2, 3, 1}));
}

// Unrolling a Loop that carries a sequence made 64 copies of its body whatever the body's size
// (50,000 nodes: 2.6 GB).
TEST(HostileValues, UnrollingALoopThatCarriesASequenceIsBounded) {
    BodyGraph b;
    b.in("i", onnx::TensorProto::INT64).in("c", onnx::TensorProto::BOOL).in("seq_in", kSequence);
    b.out("c_out", onnx::TensorProto::BOOL).out("seq_out", kSequence);
    *b.g.add_initializer() = test::int_tensor<uint8_t>("always", onnx::TensorProto::BOOL, {1}, {});
    b.node("Identity", {"always"}, {"c_out"});
    std::string v = "x";
    for (int k = 0; k < 1100; ++k) b.node("Neg", {v}, {"n" + std::to_string(k)}), v = "n" + std::to_string(k);
    b.node("SequenceInsert", {"seq_in", v}, {"s1"});
    b.node("SequenceInsert", {"s1", "x"}, {"seq_out"});
    test::OnnxModelBuilder m(17);
    m.input("x", {2});
    m.initializer(test::int_tensor<int64_t>("M", onnx::TensorProto::INT64, {64}, {}));
    m.initializer(test::int_tensor<uint8_t>("cond", onnx::TensorProto::BOOL, {1}, {}));
    m.node("SequenceEmpty", {}, {"e"}, {{"dtype", 1}});
    set_graph(m.node("Loop", {"M", "cond", "e"}, {"s"}), "body", b.g);
    m.node("SequenceLength", {"s"}, {"y"});
    m.output("y", onnx::TensorProto::INT64);
    expect_refused(m, "unroll_too_large", {"node 'Loop_", "64 copies of", "at most 65536 in all"});
}

// A constant Loop that doubles its carried value 40 times: folding checks the outputs whose
// shapes it knows, and the body's Concat allocated 3 GB before failing. Folding now makes no
// tensor above --max_constant_size, inside a body or not; mo-run (no budget) still may.
TEST(HostileValues, FoldingALoopMakesNoTensorAboveMaxConstantSize) {
    BodyGraph b;
    b.in("i", onnx::TensorProto::INT64).in("c", onnx::TensorProto::BOOL).in("v", onnx::TensorProto::FLOAT);
    b.out("c_out", onnx::TensorProto::BOOL).out("v_out", onnx::TensorProto::FLOAT);
    b.node("Identity", {"c"}, {"c_out"});
    onnx::NodeProto& concat = b.node("Concat", {"v", "v"}, {"v_out"});
    onnx::AttributeProto* axis = concat.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    test::OnnxModelBuilder m(13);
    m.initializer("x", {1.f}, {1});
    m.initializer(test::int_tensor<int64_t>("M", onnx::TensorProto::INT64, {40}, {}));
    m.initializer(test::int_tensor<uint8_t>("cond", onnx::TensorProto::BOOL, {1}, {}));
    set_graph(m.node("Loop", {"M", "cond", "x"}, {"y"}), "body", b.g);
    m.output("y");
    test::ScratchDir out{"loop_doubling"};
    ConversionOptions o;
    o.input_model = m.save("loop_doubling.onnx");
    o.output_dir = out.path().string();
    o.max_constant_bytes = int64_t{1} << 20;
    EXPECT_LT(convert(o).bin_bytes, size_t{1} << 20);

    {
        EvalBudget folding(kMaxFoldedOperations, kMaxFoldedIterations, 1000);
        test::expect_error([] { Tensor::allocate(ElementType::f32, {251}); }, "more than --max_constant_size (1000 bytes)");
        EXPECT_NO_THROW(Tensor::allocate(ElementType::f32, {250}));
    }
    EXPECT_NO_THROW(Tensor::allocate(ElementType::f32, {251}));  // evaluation outside folding
}

TEST(HostileValues, ScanInputAxisOutsideTheRank) {
    BodyGraph b;
    b.in("s", onnx::TensorProto::FLOAT).in("slice", onnx::TensorProto::FLOAT);
    b.out("s_out", onnx::TensorProto::FLOAT);
    b.node("Add", {"s", "slice"}, {"s_out"});
    test::OnnxModelBuilder m(11);
    m.input("init", {3});
    m.input("x", {2, 3});
    onnx::NodeProto& scan = m.node("Scan", {"init", "x"}, {"y"}, {{"num_scan_inputs", 1}, {"scan_input_axes", {-3}}});
    set_graph(scan, "body", b.g);
    m.output("y");
    expect_refused(m, "scan_axis_minus_3", {"scan_input_axes[0] is -3, outside the input's rank 2"});
}

TEST(HostileValues, ConcatOfNothing) {
    test::OnnxModelBuilder m(13);
    m.input("x", {2});
    m.node("Concat", {}, {"nothing"}, {{"axis", 0}});
    m.node("Add", {"x", "nothing"}, {"y"});
    m.output("y");
    expect_refused(m, "concat_of_nothing", {"has 0 inputs, Concat takes 1 or more"});
}

}  // namespace
}  // namespace mo
