// The ONNX emitter (emit/onnx): every op has a rule or is listed as having no ONNX form; small
// graphs of the ops whose rules decompose or rewrite are written (the ONNX checker runs on each
// file), read back by mo's ONNX loader and evaluated against mo's evaluation of the source graph
// (OpenVINO's semantics); the ONNX form is checked where it matters (integer weights kept, the
// opset chosen); external data, reruns and errors.
#include "emit/onnx/onnx_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <onnx/onnx_pb.h>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "emit/onnx/onnx_rules.hpp"
#include "support/graph_builder.hpp"
#include "tools/load_and_transform.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;
using test::GraphBuilder;

onnx::ModelProto load_model(const std::string& path) {
    onnx::ModelProto m;
    const std::string bytes = test::read_bytes(path);
    EXPECT_TRUE(m.ParseFromString(bytes)) << path;
    return m;
}

std::vector<std::string> op_types(const onnx::GraphProto& g) {
    std::vector<std::string> types;
    for (const auto& n : g.node()) {
        types.push_back(n.op_type());
        for (const auto& a : n.attribute())
            if (a.has_g())
                for (auto& t : op_types(a.g())) types.push_back(t);
    }
    return types;
}

size_t count(const std::vector<std::string>& v, const std::string& s) { return std::count(v.begin(), v.end(), s); }

// The ONNX file read back by mo (ONNX loader, extractors, transformations, no f16 compression).
std::unique_ptr<Graph> read_back(const std::string& path, const Pipeline& pipeline) {
    ConversionOptions o;
    o.input_model = path;
    o.framework = "onnx";
    o.compress_to_fp16 = false;
    return load_and_transform(o, pipeline, o);
}

const Pipeline& pipeline() {
    static Pipeline p{ConversionOptions{}};
    return p;
}

// Writes `g`, reads it back and compares the outputs on `inputs`; returns the ONNX op types.
std::vector<std::string> round_trip(Graph& g, const std::vector<Tensor>& inputs, double tolerance = 1e-6,
                                    int* opset = nullptr) {
    test::infer_all(g);
    test::ScratchDir dir("onnx_writer");
    OnnxEmitOptions options;
    options.path = dir.file("m.onnx");
    options.model_name = "m";
    OnnxEmitStats stats = write_onnx(g, options);
    if (opset) *opset = stats.opset;
    auto back = read_back(options.path, pipeline());
    const auto want = evaluate(g, inputs), got = evaluate(*back, inputs);
    EXPECT_EQ(got.size(), want.size());
    for (size_t j = 0; j < std::min(got.size(), want.size()); ++j) {
        EXPECT_EQ(got[j].shape(), want[j].shape()) << "output " << j;
        EXPECT_EQ(got[j].type(), want[j].type()) << "output " << j;
        const auto a = got[j].to_f64(), b = want[j].to_f64();
        EXPECT_EQ(a.size(), b.size());
        for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) EXPECT_NEAR(a[i], b[i], tolerance) << "output " << j << " element " << i;
    }
    return op_types(load_model(options.path).graph());
}

Tensor floats(std::vector<float> v, Shape s) { return Tensor::from_vector<float>(std::move(v), std::move(s)); }

Tensor ramp(Shape s, float start = -2.f, float step = 0.37f) {
    std::vector<float> v(static_cast<size_t>(shape_size(s)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<float>(i % 23) - 0.01f * static_cast<float>(i / 23);
    return floats(v, s);
}

// Ops that have no ONNX form in this emitter (each is refused with its name): none left.
// Their outputs depend only on shapes: folded to constants when the shapes are static (Caffe's
// SSD models), an error naming them otherwise.
const std::set<std::string> kNoOnnxForm = {"PriorBox", "PriorBoxClustered"};

TEST(OnnxRules, EveryOpHasARuleOrIsListedAsHavingNone) {
    size_t rules = 0;
    for (const std::string& type : test::builtin_ops().types()) {
        const OpSchema& op = test::builtin_ops().get(type);
        if (op.is_internal() || type == "Parameter" || type == "Constant" || type == "Result") continue;
        const bool has = onnx_emit::find_rule(type) != nullptr;
        rules += has;
        EXPECT_NE(has, kNoOnnxForm.count(type) > 0) << type;
    }
    // Every rule names a registered op.
    for (const auto& r : onnx_emit::all_rules()) EXPECT_TRUE(test::builtin_ops().find(r.type)) << r.type;
    EXPECT_EQ(rules, onnx_emit::all_rules().size());
    EXPECT_EQ(rules, 129u);
}

// Internal ops (and ops a plugin adds) have no rule.
TEST(OnnxWriter, OpsWithoutOnnxFormAreNamedAllAtOnceAndNothingIsWritten) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1, 8, 2});
    auto d1 = b.op("Flatten", {x}, {}, "flatten_one");
    auto d2 = b.op("Gemm", {d1, b.constant<float>(std::vector<float>(16 * 4, 0.5f), {16, 4})}, {}, "gemm_two");
    b.output(d2);
    test::infer_all(b.graph());
    test::ScratchDir dir("onnx_writer_refused");
    OnnxEmitOptions options;
    options.path = dir.file("m.onnx");
    try {
        write_onnx(b.graph(), options);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("op with no ONNX form"), std::string::npos) << what;
        EXPECT_NE(what.find("'flatten_one' (Flatten)"), std::string::npos) << what;
        EXPECT_NE(what.find("'gemm_two' (Gemm)"), std::string::npos) << what;
    }
    EXPECT_TRUE(dir.entries().empty());
}

TEST(OnnxWriter, DecomposedEltwiseOpsComputeOpenVinosValues) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2, 5}, "x");
    auto y = b.input(ElementType::f32, {2, 5}, "y");
    b.output(b.op("FloorMod", {x, y}));
    b.output(b.op("Round", {x}, {{"mode", std::string("half_away_from_zero")}}));
    b.output(b.op("Gelu", {x}, {{"approximation_mode", std::string("TANH")}}));
    b.output(b.op("Gelu", {x}, {{"approximation_mode", std::string("ERF")}}));
    b.output(b.op("Mish", {x}));
    b.output(b.op("Swish", {x, b.constant(0.75f)}));
    b.output(b.op("SquaredDifference", {x, y}));
    b.output(b.op("HSigmoid", {x}));
    b.output(b.op("Clamp", {x}, {{"min", -0.5}, {"max", 1.25}}));
    b.output(b.op("NotEqual", {x, y}));
    const Tensor xs = floats({-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, -3.25f, 4.f, 0.f, 7.75f}, {2, 5});
    const Tensor ys = floats({2.f, -2.f, 0.75f, -0.75f, 1.f, -1.f, 3.f, -3.f, 5.f, -2.5f}, {2, 5});
    auto ops = round_trip(b.graph(), {xs, ys}, 1e-6);
    EXPECT_EQ(count(ops, "Erf"), 1u);  // the ERF Gelu; the TANH one uses Tanh
}

TEST(OnnxWriter, SignedIntegerDivisionFloorsAsPythonDivides) {
    GraphBuilder b;
    auto x = b.input(ElementType::i32, {6}, "x");
    auto y = b.input(ElementType::i32, {6}, "y");
    b.output(b.op("Divide", {x, y}, {{"m_pythondiv", true}}));
    b.output(b.op("FloorMod", {x, y}));
    auto xs = Tensor::from_vector<int32_t>({7, -7, 7, -7, 6, -6}, {6});
    auto ys = Tensor::from_vector<int32_t>({2, 2, -2, -2, 3, 3}, {6});
    round_trip(b.graph(), {xs, ys}, 0);
}

TEST(OnnxWriter, ShapeOpsWithOpenVinoFormsBecomeOnnxOnes) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2, 4, 6, 6}, "x");
    // StridedSlice with a new axis, a shrunk axis, an ellipsis and a reversed axis.
    b.output(b.op("StridedSlice",
                  {x, b.constant<int64_t>({0, 1, 0, -1}, {4}), b.constant<int64_t>({0, 2, 0, 0}, {4}),
                   b.constant<int64_t>({1, 1, 1, -2}, {4})},
                  {{"begin_mask", std::vector<int64_t>{0, 0, 0, 0}}, {"end_mask", std::vector<int64_t>{0, 0, 0, 1}},
                   {"new_axis_mask", std::vector<int64_t>{1, 0, 0, 0}}, {"shrink_axis_mask", std::vector<int64_t>{0, 1, 0, 0}},
                   {"ellipsis_mask", std::vector<int64_t>{0, 0, 1, 0}}}));
    b.output(b.op("SpaceToDepth", {x}, {{"block_size", int64_t{2}}, {"mode", std::string("depth_first")}}));
    b.output(b.op("SpaceToDepth", {x}, {{"block_size", int64_t{3}}, {"mode", std::string("blocks_first")}}));
    b.output(b.op("DepthToSpace", {x}, {{"block_size", int64_t{2}}, {"mode", std::string("depth_first")}}));
    b.output(b.op("Tile", {x, b.constant<int64_t>({2, 1}, {2})}));
    Node split = b.node("VariadicSplit", {x, b.constant<int64_t>({2}, {}), b.constant<int64_t>({1, -1}, {2})});
    split.set_output_count(2);
    b.output(split.out(0));
    b.output(split.out(1));
    auto updates = b.input(ElementType::f32, {2, 2, 3, 6, 6}, "updates");
    b.output(b.op("ScatterUpdate", {x, b.constant<int64_t>({3, 0, 2, 1, 1, 3}, {2, 3}), updates, b.constant<int64_t>({1}, {})}));
    b.output(b.op("Broadcast", {b.constant<float>({1.f, 2.f, 3.f, 4.f}, {4}), b.constant<int64_t>({2, 4, 3}, {3}),
                                b.constant<int64_t>({1}, {1})},
                  {{"mode", std::string("explicit")}}));
    round_trip(b.graph(), {ramp({2, 4, 6, 6}), ramp({2, 2, 3, 6, 6}, 5.f, 0.11f)}, 0);
}

TEST(OnnxWriter, NormalizationPoolingAndResamplingMatch) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1, 3, 5, 7}, "x");
    b.output(b.op("MVN", {x, b.constant<int64_t>({2, 3}, {2})},
                  {{"eps", 1e-3}, {"normalize_variance", true}, {"eps_mode", std::string("outside_sqrt")}}));
    b.output(b.op("Interpolate", {x, b.constant<int64_t>({9, 4}, {2}), b.constant<int64_t>({2, 3}, {2})},
                  {{"mode", std::string("linear_onnx")}, {"shape_calculation_mode", std::string("sizes")},
                   {"coordinate_transformation_mode", std::string("half_pixel")}}));
    b.output(b.op("Interpolate", {x, b.constant<float>({2.f, 0.5f}, {2}), b.constant<int64_t>({2, 3}, {2})},
                  {{"mode", std::string("nearest")}, {"shape_calculation_mode", std::string("scales")},
                   {"coordinate_transformation_mode", std::string("asymmetric")}, {"nearest_mode", std::string("floor")}}));
    b.output(b.op("MaxPool", {x},
                  {{"strides", std::vector<int64_t>{2, 2}}, {"pads_begin", std::vector<int64_t>{0, 1}},
                   {"pads_end", std::vector<int64_t>{1, 1}}, {"kernel", std::vector<int64_t>{3, 3}},
                   {"rounding_type", std::string("ceil")}, {"dilations", std::vector<int64_t>{1, 1}}}));
    b.output(b.op("AvgPool", {x},
                  {{"strides", std::vector<int64_t>{1, 2}}, {"pads_begin", std::vector<int64_t>{1, 1}},
                   {"pads_end", std::vector<int64_t>{1, 1}}, {"kernel", std::vector<int64_t>{3, 2}},
                   {"exclude-pad", true}}));
    b.output(b.op("NormalizeL2", {x, b.constant<int64_t>({1}, {1})}, {{"eps", 1e-10}, {"eps_mode", std::string("max")}}));
    b.output(b.op("NormalizeL2", {x, b.constant<int64_t>({2, 3}, {2})}, {{"eps", 0.5}, {"eps_mode", std::string("add")}}));
    b.output(b.op("NormalizeL2", {x, b.constant<int64_t>({}, {0})}, {{"eps", 0.5}, {"eps_mode", std::string("max")}}));
    b.output(b.op("ReduceMean", {x, b.constant<int64_t>({1, 3}, {2})}, {{"keep_dims", true}}));
    b.output(b.op("ReduceSum", {x, b.constant<int64_t>({}, {0})}, {{"keep_dims", false}}));  // reduces nothing
    auto filter = b.constant<float>(std::vector<float>(3 * 1 * 2 * 2, 0.25f), {3, 1, 1, 2, 2});
    b.output(b.op("GroupConvolution", {x, filter},
                  {{"strides", std::vector<int64_t>{1, 1}}, {"dilations", std::vector<int64_t>{1, 1}},
                   {"pads_begin", std::vector<int64_t>{0, 0}}, {"pads_end", std::vector<int64_t>{0, 0}}}));
    round_trip(b.graph(), {ramp({1, 3, 5, 7})}, 1e-5);
}

// MatMul with transpose_b on a constant: the weights stored transposed, no Transpose node.
TEST(OnnxWriter, TransposedConstantWeightsAreStoredTransposed) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2, 3, 4}, "x");
    std::vector<float> w(5 * 4);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i) - 0.7f;
    b.output(b.op("MatMul", {x, b.constant<float>(w, {5, 4})}, {{"transpose_b", true}}));
    b.output(b.op("MatMul", {b.constant<float>(w, {4, 5}), x}, {{"transpose_a", true}, {"transpose_b", true}}));
    auto ops = round_trip(b.graph(), {ramp({2, 3, 4})}, 1e-5);
    EXPECT_EQ(count(ops, "Transpose"), 1u);  // x's, for the second MatMul
}

// NonMaxSuppression sorted across classes by score, with its scores and count outputs; Gather
// with batch dims on a later axis (GatherND between two Transposes).
TEST(OnnxWriter, NonMaxSuppressionAndBatchedGatherMatch) {
    GraphBuilder b;
    auto boxes = b.input(ElementType::f32, {1, 6, 4}, "boxes");
    auto scores = b.input(ElementType::f32, {1, 2, 6}, "scores");
    Node nms = b.node("NonMaxSuppression", {boxes, scores, b.constant<int64_t>({3}, {}), b.constant<float>({0.5f}, {}),
                                            b.constant<float>({0.05f}, {})},
                      {{"sort_result_descending", true}, {"output_type", ElementType::i32}});
    for (size_t j = 0; j < 3; ++j) b.output(nms.out(j));
    auto data = b.input(ElementType::f32, {2, 3, 4, 5}, "data");
    auto idx = b.constant<int64_t>({3, 0, -1, 1, 1, 2}, {2, 3});
    b.output(b.op("Gather", {data, idx, b.constant<int64_t>({2}, {})}, {{"batch_dims", int64_t{1}}}));
    const Tensor bx = floats({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101}, {1, 6, 4});
    const Tensor sc = floats({0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f, 0.1f, 0.2f, 0.85f, 0.01f, 0.4f, 0.97f}, {1, 2, 6});
    auto ops = round_trip(b.graph(), {bx, sc, ramp({2, 3, 4, 5})}, 1e-6);
    EXPECT_EQ(count(ops, "NonMaxSuppression"), 1u);
    EXPECT_EQ(count(ops, "GatherND"), 2u);  // the selected scores, the batched Gather
}

// Recurrent sequences (gates reordered, biases split, batch-first <-> sequence-first) and Fourier
// transforms (per axis; RDFT one-sided on its last axis; signal_size as dft_length).
TEST(OnnxWriter, RecurrentSequencesAndFourierTransformsMatch) {
    GraphBuilder b;
    const int64_t B = 2, T = 3, I = 4, H = 5;
    auto x = b.input(ElementType::f32, {B, T, I}, "x");
    auto h0 = b.input(ElementType::f32, {B, 2, H}, "h0");
    auto c0 = b.input(ElementType::f32, {B, 2, H}, "c0");
    auto lengths = b.constant<int32_t>({3, 2}, {2});
    auto weights = [&](int64_t rows, int64_t cols, float scale) {
        std::vector<float> v(static_cast<size_t>(2 * rows * cols));
        for (size_t i = 0; i < v.size(); ++i) v[i] = scale * std::sin(0.7f * static_cast<float>(i) + scale);
        return b.constant<float>(v, {2, rows, cols});
    };
    auto bias = [&](int64_t rows) {
        std::vector<float> v(static_cast<size_t>(2 * rows));
        for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * std::cos(static_cast<float>(i));
        return b.constant<float>(v, {2, rows});
    };
    Node lstm = b.node("LSTMSequence", {x, h0, c0, lengths, weights(4 * H, I, 0.3f), weights(4 * H, H, 0.2f), bias(4 * H)},
                       {{"hidden_size", H}, {"direction", std::string("bidirectional")}});
    for (size_t j = 0; j < 3; ++j) b.output(lstm.out(j));
    Node gru = b.node("GRUSequence", {x, h0, lengths, weights(3 * H, I, 0.25f), weights(3 * H, H, 0.35f), bias(4 * H)},
                      {{"hidden_size", H}, {"direction", std::string("bidirectional")}, {"linear_before_reset", true}});
    for (size_t j = 0; j < 2; ++j) b.output(gru.out(j));
    auto signal = b.input(ElementType::f32, {2, 6, 5}, "signal");
    b.output(b.op("RDFT", {signal, b.constant<int64_t>({1, 2}, {2})}));
    auto complex = b.input(ElementType::f32, {2, 6, 5, 2}, "complex");
    b.output(b.op("DFT", {complex, b.constant<int64_t>({-2}, {1}), b.constant<int64_t>({8}, {1})}));
    b.output(b.op("IDFT", {complex, b.constant<int64_t>({0, 1}, {2})}));
    auto ops = round_trip(b.graph(), {ramp({B, T, I}), ramp({B, 2, H}, 0.3f, -0.05f), ramp({B, 2, H}, -0.2f, 0.07f),
                                      ramp({2, 6, 5}), ramp({2, 6, 5, 2}, 1.f, -0.13f)},
                          2e-5);
    EXPECT_EQ(count(ops, "LSTM"), 1u);
    EXPECT_EQ(count(ops, "GRU"), 1u);
    EXPECT_EQ(count(ops, "DFT"), 5u);
}

// Integer weights -> Convert -> Subtract zero point -> Multiply per-channel scale: one
// DequantizeLinear whose input stays an INT8 initializer.
TEST(OnnxWriter, WeightDecompressionIsDequantizeLinearOnIntegerWeights) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2, 4}, "x");
    std::vector<int8_t> w = {-128, -3, 0, 5, 127, 64, -64, 1, 2, 3, 4, 5};
    auto weights = b.constant<int8_t>(w, {3, 4}, "weights");
    auto f = b.op("Convert", {weights}, {{"destination_type", ElementType::f32}});
    auto zp = b.op("Convert", {b.constant<int8_t>({1, -2, 0}, {3, 1})}, {{"destination_type", ElementType::f32}});
    auto centred = b.op("Subtract", {f, zp});
    auto scaled = b.op("Multiply", {centred, b.constant<float>({0.5f, 0.25f, 0.125f}, {3, 1})});
    b.output(b.op("MatMul", {x, scaled}, {{"transpose_b", true}}));
    auto ops = round_trip(b.graph(), {ramp({2, 4})}, 1e-6);
    EXPECT_EQ(count(ops, "DequantizeLinear"), 1u);
    EXPECT_EQ(count(ops, "Cast"), 0u);
    EXPECT_EQ(count(ops, "Sub"), 0u);
}

// FakeQuantize on activations: QuantizeLinear + DequantizeLinear where the ranges put zero on
// a step (per tensor and per channel), the formula where they do not.
TEST(OnnxWriter, FakeQuantizeIsQdqWhereExactAndTheFormulaElsewhere) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1, 2, 3, 3}, "x");
    auto lo = b.constant<float>({-1.28f}, {}), hi = b.constant<float>({1.27f}, {});
    b.output(b.op("FakeQuantize", {x, lo, hi, lo, hi}, {{"levels", int64_t{256}}}));
    auto clo = b.constant<float>({-0.64f, 0.f}, {1, 2, 1, 1}), chi = b.constant<float>({0.635f, 2.55f}, {1, 2, 1, 1});
    b.output(b.op("FakeQuantize", {x, clo, chi, clo, chi}, {{"levels", int64_t{256}}}));
    auto olo = b.constant<float>({-0.3f}, {}), ohi = b.constant<float>({2.1f}, {});
    b.output(b.op("FakeQuantize", {x, b.constant<float>({-0.7f}, {}), b.constant<float>({0.9f}, {}), olo, ohi},
                  {{"levels", int64_t{16}}}));
    auto ops = round_trip(b.graph(), {ramp({1, 2, 3, 3}, -2.f, 0.2f)}, 1e-6);
    EXPECT_EQ(count(ops, "QuantizeLinear"), 2u);
    EXPECT_EQ(count(ops, "Round"), 1u);
}

TEST(OnnxWriter, OpsBeyondOpset13RaiseTheOpsetAndOthersKeep13) {
    int opset = 0;
    {
        GraphBuilder b;
        auto x = b.input(ElementType::f32, {4}, "x");
        b.output(b.op("Relu", {x}));
        round_trip(b.graph(), {ramp({4})}, 0, &opset);
        EXPECT_EQ(opset, 13);
    }
    {
        GraphBuilder b;
        auto x = b.input(ElementType::f32, {4}, "x");
        b.output(b.op("HSwish", {x}));
        round_trip(b.graph(), {ramp({4})}, 1e-6, &opset);
        EXPECT_EQ(opset, 14);  // HardSwish
    }
}

// The weights pass the (lowered) threshold: initializers of 1 KiB or more go to <name>.onnx.data;
// the checker finds them there, mo reads them back, and a second run gives the same bytes.
TEST(OnnxWriter, ExternalDataAboveTheThresholdAndByteIdenticalReruns) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1, 512}, "x");
    std::vector<float> w(512 * 64);
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(static_cast<float>(i)) * 0.1f;
    auto y = b.op("MatMul", {x, b.constant<float>(w, {512, 64}, "big")});
    b.output(b.op("Add", {y, b.constant<float>({0.5f}, {1}, "small")}));
    test::infer_all(b.graph());
    test::ScratchDir dir("onnx_external");
    std::string first_model, first_data;
    for (int run = 0; run < 2; ++run) {
        OnnxEmitOptions options;
        options.path = dir.file("m.onnx");
        options.model_name = "m";
        options.external_data_threshold = 64 << 10;
        OnnxEmitStats stats = write_onnx(b.graph(), options);
        EXPECT_EQ(stats.external_data, dir.file("m.onnx.data"));
        EXPECT_EQ(dir.entries(), (std::vector<std::string>{"m.onnx", "m.onnx.data"}));  // no temporaries left
        EXPECT_GE(fs::file_size(dir.file("m.onnx.data")), w.size() * 4);
        EXPECT_LT(fs::file_size(dir.file("m.onnx")), 4096u);
        const std::string model = test::read_bytes(dir.file("m.onnx")), data = test::read_bytes(dir.file("m.onnx.data"));
        if (run == 0) first_model = model, first_data = data;
        else EXPECT_TRUE(model == first_model && data == first_data) << "a rerun changed the bytes";
    }
    auto back = read_back(dir.file("m.onnx"), pipeline());
    const Tensor in = ramp({1, 512}, -1.f, 0.01f);
    const auto want = evaluate(b.graph(), {in})[0].to_f64(), got = evaluate(*back, {in})[0].to_f64();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5);
}

// If and Loop bodies: the branches read the outer inputs; the loop carries a value, reads an
// invariant one and stacks a per-iteration output, as OpenVINO's port maps say.
TEST(OnnxWriter, IfAndLoopBodiesKeepTheirPortMaps) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {3}, "x");
    auto c = b.input(ElementType::boolean, {}, "c");
    Node node = b.node("If", {c, x});
    node.set_output_count(1);
    for (const char* role : {"then_body", "else_body"}) {
        Body& body = node.add_body(role);
        Graph& g = *body.graph;
        Node p = g.add_node("Parameter", "p");
        p.set_attr("shape", PartialShape{3});
        p.set_attr("element_type", ElementType::f32);
        g.parameters().push_back(p);
        Node k = g.add_constant("k", Tensor::scalar<float>(std::string(role) == "then_body" ? 2.f : -1.f));
        Node m = g.add_op(std::string(role) == "then_body" ? "Multiply" : "Add", "op", {p.out(0), k.out(0)});
        Node r = g.add_op("Result", "r", {m.out(0)});
        g.results().push_back(r);
        body.inputs.push_back(BodyInput{BodyInput::Kind::Invariant, 1, 0});
        body.outputs.push_back(BodyOutput{BodyOutput::Kind::Last, 0, 0});
    }
    b.output(node.out(0));

    // Loop: 4 iterations of acc = acc * x + i (x invariant), stacking acc along axis 0.
    auto yes = b.graph().add_constant("yes", Tensor::from_vector<uint8_t>({1}, {}).convert(ElementType::boolean)).out(0);
    Node loop = b.node("Loop", {b.constant<int64_t>({4}, {}), yes, b.constant<float>({1.f, 1.f, 1.f}, {3}), x});
    loop.set_output_count(2);
    Body& body = loop.add_body("body");
    Graph& g = *body.graph;
    auto param = [&](const char* name, ElementType t, PartialShape s) {
        Node p = g.add_node("Parameter", name);
        p.set_attr("shape", s);
        p.set_attr("element_type", t);
        g.parameters().push_back(p);
        return p;
    };
    Node i = param("i", ElementType::i64, PartialShape(std::vector<Dimension>{}));
    Node acc = param("acc", ElementType::f32, PartialShape{3});
    Node xv = param("xv", ElementType::f32, PartialShape{3});
    Node fi = g.add_op("Convert", "fi", {i.out(0)}, {{"destination_type", ElementType::f32}});
    Node next = g.add_op("Add", "next", {g.add_op("Multiply", "mul", {acc.out(0), xv.out(0)}).out(0), fi.out(0)});
    Node more = g.add_constant("more", Tensor::from_vector<uint8_t>({1}, {}).convert(ElementType::boolean));
    Node unsq = g.add_op("Unsqueeze", "unsq", {next.out(0), g.add_constant("ax", Tensor::scalar<int64_t>(0)).out(0)});
    for (Node r : {g.add_op("Result", "r_next", {next.out(0)}), g.add_op("Result", "r_more", {more.out(0)}),
                   g.add_op("Result", "r_stack", {unsq.out(0)})})
        g.results().push_back(r);
    body.inputs = {BodyInput{BodyInput::Kind::CurrentIteration, 0, 0},
                   BodyInput{BodyInput::Kind::Merged, 2, 1, 0}, BodyInput{BodyInput::Kind::Invariant, 3, 2}};
    BodyOutput last{BodyOutput::Kind::Last, 0, 0}, cond{BodyOutput::Kind::Condition, 0, 1}, stack{BodyOutput::Kind::Concat, 1, 2};
    body.outputs = {last, cond, stack};
    b.output(loop.out(0));
    b.output(loop.out(1));

    const Tensor xs = floats({0.5f, -1.f, 2.f}, {3});
    auto t = Tensor::from_vector<uint8_t>({1}, {}).convert(ElementType::boolean);
    auto f = Tensor::from_vector<uint8_t>({0}, {}).convert(ElementType::boolean);
    auto ops = round_trip(b.graph(), {xs, t}, 1e-6);
    round_trip(b.graph(), {xs, f}, 1e-6);
    EXPECT_EQ(count(ops, "If"), 1u);
    EXPECT_EQ(count(ops, "Loop"), 1u);
}

}  // namespace
}  // namespace mo
