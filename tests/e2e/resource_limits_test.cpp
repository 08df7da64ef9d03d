// Hostile sizes: constant folding never materializes a tensor above --max_constant_size (the op
// stays in the IR instead), never spends more than its work budget on one node (nested loops,
// a MatMul of huge fills, a pooling window of billions of taps), and a shape whose element count
// overflows 64 bits is a clear error.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "emit/ir_test_util.hpp"
#include "extractors/onnx_test_support.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "core/evaluator.hpp"
#include "core/infer.hpp"
#include "support/op_test_util.hpp"
#include "driver/cli.hpp"
#include "driver/convert.hpp"

namespace mo {
namespace {

// y = x + ConstantOfShape(shape): with a constant shape, the fill folds unless it is too large.
std::string fill_model(const std::vector<int64_t>& shape) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1});
    m.initializer(test::int_tensor("shape", onnx::TensorProto::INT64, shape, {static_cast<int64_t>(shape.size())}));
    m.node("ConstantOfShape", {"shape"}, {"fill"});
    m.node("Add", {"x", "fill"}, {"y"});
    m.output("y");
    return m.save("fill.onnx");
}

size_t count(const Graph& g, const char* type) {
    size_t n = 0;
    for (const Node& node : g.nodes()) n += node.is(type);
    return n;
}

ConversionResult convert_with_limit(const std::string& model, test::ScratchDir& out, int64_t limit) {
    ConversionOptions o;
    o.input_model = model;
    o.output_dir = out.path().string();
    o.max_constant_bytes = limit;
    return convert(o);
}

TEST(ResourceLimits, FoldingStopsAtMaxConstantSize) {
    const std::string model = fill_model({1000});  // 4,000 bytes of f32 zeros
    test::ScratchDir folded{"limits_folded"}, kept{"limits_kept"};
    const ConversionResult small = convert_with_limit(model, folded, int64_t{2} << 30);
    const ConversionResult limited = convert_with_limit(model, kept, 3999);
    auto a = read_ir(small.xml_path, test::builtin_ops());
    auto b = read_ir(limited.xml_path, test::builtin_ops());
    EXPECT_EQ(count(*a, "Broadcast"), 0u);  // folded into a Constant
    EXPECT_GE(small.bin_bytes, 2000u);      // the zeros stored (f16)
    EXPECT_EQ(count(*b, "Broadcast"), 1u);  // ConstantOfShape kept as an op
    EXPECT_LT(limited.bin_bytes, 100u);
}

// 2^40 elements (4 TiB of f32) convert in a moment into an IR that computes them at run time.
TEST(ResourceLimits, ATerabyteFillIsNeverMaterialized) {
    test::ScratchDir out{"limits_terabyte"};
    const ConversionResult r = convert_with_limit(fill_model({int64_t{1} << 20, int64_t{1} << 20}), out, int64_t{2} << 30);
    auto ir = read_ir(r.xml_path, test::builtin_ops());
    EXPECT_EQ(count(*ir, "Broadcast"), 1u);
    EXPECT_LT(r.bin_bytes, 100u);
}

TEST(ResourceLimits, AShapeWhoseElementCountOverflowsIsAnError) {
    test::ScratchDir out{"limits_overflow"};
    const std::string model = fill_model({int64_t{1} << 40, int64_t{1} << 40});
    test::expect_error([&] { convert_with_limit(model, out, int64_t{2} << 30); }, "more elements than 64 bits count");

    // A Reshape to -1 multiplies the input's dims (found by fuzz_tflite and fuzz_ir under UBSan:
    // signed overflow in Reshape's inference).
    test::OnnxModelBuilder reshape(13);
    reshape.input("x", {int64_t{1} << 40, int64_t{1} << 30});
    reshape.initializer_i64("flat", {-1}, {1});
    reshape.node("Reshape", {"x", "flat"}, {"y"});
    reshape.output("y");
    test::expect_error([&] { convert_with_limit(reshape.save("reshape_overflow.onnx"), out, int64_t{2} << 30); },
                       {"Reshape", "more elements than 64 bits count"});

    // An empty tensor whose other dims overflow: it holds nothing, but an outer or inner size
    // computed from its dims would overflow, so its shape is refused too.
    test::OnnxModelBuilder empty(13);
    empty.input("x", {1});
    empty.initializer(test::int_tensor("e", onnx::TensorProto::INT64, std::vector<int64_t>{}, {0, int64_t{1} << 40, int64_t{1} << 40}));
    empty.node("ReduceSum", {"e"}, {"s"}, {{"keepdims", 0}});
    empty.node("Cast", {"s"}, {"sf"}, {{"to", 1}});
    empty.node("Add", {"x", "sf"}, {"y"});
    empty.output("y");
    test::expect_error([&] { convert_with_limit(empty.save("empty_overflow.onnx"), out, int64_t{2} << 30); },
                       "more elements than 64 bits count");
}

// A hostile model, "y" from "x" [1], whose op `op` must stay in the IR instead of folding.
struct KeptOp {
    const char* op;
    std::function<void(test::OnnxModelBuilder&)> build;
};

// Converts the case's model (default --max_constant_size) and checks that `op` appears once.
ConversionResult expect_kept(const KeptOp& c) {
    SCOPED_TRACE(c.op);
    test::OnnxModelBuilder m(13);
    m.input("x", {1});
    c.build(m);
    m.output("y");
    test::ScratchDir out{"limits_kept_op"};
    const ConversionResult r = convert_with_limit(m.save("kept_op.onnx"), out, int64_t{2} << 30);
    EXPECT_EQ(count(*read_ir(r.xml_path, test::builtin_ops()), c.op), 1u);
    return r;
}

// Hostile shapes from the issue: each converts at once, its op kept to compute at run time.
TEST(ResourceLimits, HugeOutputsOfExpandRangeTileReshapeStayOps) {
    const int64_t half = int64_t{1} << 20;
    const std::vector<KeptOp> cases = {
        {"Broadcast", [&](test::OnnxModelBuilder& m) {  // Expand to 2^40 elements
             m.initializer_i64("shape", {half, half}, {2});
             m.node("Expand", {"x", "shape"}, {"y"});
         }},
        {"Range", [](test::OnnxModelBuilder& m) {  // 10^12 elements
             m.initializer("start", {0.f}, {});
             m.initializer("limit", {1e12f}, {});
             m.initializer("delta", {1.f}, {});
             m.node("Range", {"start", "limit", "delta"}, {"r"});
             m.node("Add", {"x", "r"}, {"y"});
         }},
        {"Tile", [](test::OnnxModelBuilder& m) {
             m.initializer_i64("repeats", {int64_t{1} << 40}, {1});
             m.node("Tile", {"x", "repeats"}, {"y"});
         }},
        {"Reshape", [&](test::OnnxModelBuilder& m) {  // a 2^40-element fill reshaped to 1-D
             m.initializer_i64("shape", {half, half}, {2});
             m.initializer_i64("flat", {-1}, {1});
             m.node("ConstantOfShape", {"shape"}, {"fill"});
             m.node("Reshape", {"fill", "flat"}, {"r"});
             m.node("Add", {"x", "r"}, {"y"});
         }},
    };
    for (const KeptOp& c : cases) EXPECT_LT(expect_kept(c).bin_bytes, 100u) << c.op;
}

// A value-info of `type`, a scalar or [1].
void value_info(onnx::ValueInfoProto* vi, const std::string& name, int32_t type, bool vector) {
    vi->set_name(name);
    auto* tensor = vi->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(type);
    auto* shape = tensor->mutable_shape();
    if (vector) shape->add_dim()->set_dim_value(1);
}

// The body of a Loop adding 1 to its carried [1] value, through `depth` more Loops of "trip"
// iterations nested in it.
onnx::GraphProto counting_body(int depth, const std::string& tag) {
    onnx::GraphProto g;
    g.set_name("body" + tag);
    value_info(g.add_input(), "i" + tag, onnx::TensorProto::INT64, false);
    value_info(g.add_input(), "c" + tag, onnx::TensorProto::BOOL, false);
    value_info(g.add_input(), "v" + tag, onnx::TensorProto::FLOAT, true);
    value_info(g.add_output(), "c_out" + tag, onnx::TensorProto::BOOL, false);
    value_info(g.add_output(), "v_out" + tag, onnx::TensorProto::FLOAT, true);
    onnx::NodeProto* keep = g.add_node();
    keep->set_op_type("Identity");
    keep->add_input("c" + tag);
    keep->add_output("c_out" + tag);
    onnx::NodeProto* n = g.add_node();
    n->add_output("v_out" + tag);
    if (depth == 0) {
        n->set_op_type("Add");
        n->add_input("v" + tag);
        n->add_input("one");  // the main graph's initializer
        return g;
    }
    n->set_op_type("Loop");
    n->add_input("trip");
    n->add_input("");
    n->add_input("v" + tag);
    onnx::AttributeProto* body = n->add_attribute();
    body->set_name("body");
    body->set_type(onnx::AttributeProto::GRAPH);
    *body->mutable_g() = counting_body(depth - 1, tag + "_");
    return g;
}

// y = x + trip^depth, counted by `depth` nested Loops of `trip` iterations from a constant 0:
// foldable, if folding may run that many iterations.
std::string nested_loops_model(int depth, int64_t trip) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1});
    m.initializer_i64("trip", {trip}, {});
    m.initializer("one", {1.f}, {1});
    m.initializer("zero", {0.f}, {1});
    onnx::NodeProto& loop = m.node("Loop", {"trip", "", "zero"}, {"count"});
    onnx::AttributeProto* body = loop.add_attribute();
    body->set_name("body");
    body->set_type(onnx::AttributeProto::GRAPH);
    *body->mutable_g() = counting_body(depth - 1, "");
    m.node("Add", {"x", "count"}, {"y"});
    m.output("y");
    return m.save("loops" + std::to_string(depth) + "x" + std::to_string(trip) + ".onnx");
}

// y for x = 1, from the IR mo wrote.
float run_ir_on_one(const ConversionResult& r) {
    auto ir = read_ir(r.xml_path, test::builtin_ops());
    const auto y = evaluate(*ir, {Tensor::from_vector<float>({1.f}, {1})});
    return y.at(0).convert(ElementType::f32).data<float>()[0];
}

TEST(ResourceLimits, NestedLoopsFoldWithinTheIterationBudget) {
    test::ScratchDir out{"limits_loops_folded"};
    const ConversionResult r = convert_with_limit(nested_loops_model(2, 10), out, int64_t{2} << 30);  // 10 + 100 iterations
    EXPECT_EQ(count(*read_ir(r.xml_path, test::builtin_ops()), "Loop"), 0u);
    EXPECT_EQ(run_ir_on_one(r), 101.f);
}

// The iterations of nested loops count together: 40 + 40 * 40 is more than kMaxFoldedIterations
// although each Loop alone runs 40. Three levels of 100 (a million body runs, seconds of
// folding before the budget) convert at once.
TEST(ResourceLimits, NestedLoopsBeyondTheIterationBudgetStayInTheIr) {
    static_assert(40 + 40 * 40 > kMaxFoldedIterations);
    test::ScratchDir out{"limits_loops_kept"};
    const ConversionResult r = convert_with_limit(nested_loops_model(2, 40), out, int64_t{2} << 30);
    EXPECT_EQ(count(*read_ir(r.xml_path, test::builtin_ops()), "Loop"), 1u);
    EXPECT_EQ(run_ir_on_one(r), 1601.f);
    const ConversionResult deep = convert_with_limit(nested_loops_model(3, 100), out, int64_t{2} << 30);
    EXPECT_EQ(count(*read_ir(deep.xml_path, test::builtin_ops()), "Loop"), 1u);
}

// Compute bombs: small files whose folding would take billions of operations.
TEST(ResourceLimits, FoldingStopsAtItsWorkBudget) {
    const std::vector<KeptOp> cases = {
        {"MatMul", [](test::OnnxModelBuilder& m) {  // 1100^3 multiply-adds
             m.initializer_i64("shape", {1100, 1100}, {2});
             m.node("ConstantOfShape", {"shape"}, {"fill"});
             m.node("MatMul", {"fill", "fill"}, {"product"});
             m.node("ReduceSum", {"product"}, {"big"}, {{"keepdims", 0}});
             m.node("Add", {"x", "big"}, {"y"});
         }},
        {"MaxPool", [](test::OnnxModelBuilder& m) {  // one window of 2^32 taps
             m.initializer_i64("shape", {1, 1, 4, 4}, {4});
             m.node("ConstantOfShape", {"shape"}, {"fill"});
             m.node("MaxPool", {"fill"}, {"pooled"},
                    {{"kernel_shape", {65536, 65536}}, {"pads", {32766, 32766, 32766, 32766}}});
             m.node("ReduceSum", {"pooled"}, {"big"}, {{"keepdims", 0}});
             m.node("Add", {"x", "big"}, {"y"});
         }},
        {"NonMaxSuppression", [](test::OnnxModelBuilder& m) {  // 40,000 boxes against 40,000 selections
             m.initializer_i64("boxes_shape", {1, 40000, 4}, {3});
             m.initializer_i64("scores_shape", {1, 1, 40000}, {3});
             m.initializer_i64("max_boxes", {40000}, {1});
             m.node("ConstantOfShape", {"boxes_shape"}, {"boxes"});
             m.node("ConstantOfShape", {"scores_shape"}, {"scores"},
                    {{"value", test::onnx_tensor("one", {1.f}, {1})}});
             m.node("NonMaxSuppression", {"boxes", "scores", "max_boxes"}, {"selected"});
             m.node("Cast", {"selected"}, {"selected_f"}, {{"to", 1}});
             m.node("ReduceSum", {"selected_f"}, {"big"}, {{"keepdims", 0}});
             m.node("Add", {"x", "big"}, {"y"});
         }},
        // Found by auditing the evals: these three folded for minutes, or took 6 GB (RoiAlign).
        {"MatMul", [](test::OnnxModelBuilder& m) {  // a Gemm, lowered to MatMul: 1100^3 multiply-adds
             m.initializer_i64("shape", {1100, 1100}, {2});
             m.node("ConstantOfShape", {"shape"}, {"fill"});
             m.node("Gemm", {"fill", "fill"}, {"product"});
             m.node("ReduceSum", {"product"}, {"big"}, {{"keepdims", 0}});
             m.node("Add", {"x", "big"}, {"y"});
         }},
        {"LRN", [](test::OnnxModelBuilder& m) {  // 200,000 channels, each summing a window of all of them
             m.initializer_i64("shape", {1, 200000, 1, 1}, {4});
             m.node("ConstantOfShape", {"shape"}, {"fill"});
             m.node("LRN", {"fill"}, {"normalized"}, {{"size", 200001}});
             m.node("ReduceSum", {"normalized"}, {"big"}, {{"keepdims", 0}});
             m.node("Add", {"x", "big"}, {"y"});
         }},
        {"ROIAlign", [](test::OnnxModelBuilder& m) {  // a 10^5 x 10^5 box sampled adaptively: 10^10 samples
             m.initializer("map", {1, 2, 3, 4}, {1, 1, 2, 2});
             m.initializer("rois", {0, 0, 1e5f, 1e5f}, {1, 4});
             m.initializer_i64("batch", {0}, {1});
             m.node("RoiAlign", {"map", "rois", "batch"}, {"pooled"},
                    {{"output_height", 1}, {"output_width", 1}, {"sampling_ratio", 0}});
             m.node("ReduceSum", {"pooled"}, {"big"}, {{"keepdims", 0}});
             m.node("Add", {"x", "big"}, {"y"});
         }},
    };
    static_assert(int64_t{1100} * 1100 * 1100 > kMaxFoldedOperations);
    static_assert((int64_t{65536} * 65536) > kMaxFoldedOperations);
    static_assert(int64_t{40000} * 40000 > kMaxFoldedOperations);
    for (const KeptOp& c : cases) expect_kept(c);
}

// An IR whose TensorIterator bodies nest `levels` deep (each body holds the next layer only; the
// nesting is refused before the unfed input ports).
std::string nested_ir(const test::ScratchDir& dir, size_t levels) {
    std::string layers;
    for (size_t i = 0; i < levels; ++i)
        layers += "<layer id=\"0\" name=\"ti" + std::to_string(i) +
                  "\" type=\"TensorIterator\" version=\"opset1\"><input><port id=\"0\" precision=\"FP32\"><dim>1</dim>"
                  "</port></input><port_map/><back_edges/><body><layers>";
    for (size_t i = 0; i < levels; ++i) layers += "</layers><edges/></body></layer>";
    const std::string path = dir.file("nested.xml");
    std::ofstream(path) << "<?xml version=\"1.0\"?>\n<net name=\"n\" version=\"11\"><layers>" << layers
                        << "</layers><edges/></net>\n";
    return path;
}

TEST(ResourceLimits, TheIrReaderRefusesBodiesNestedBeyondItsLimit) {
    test::ScratchDir dir{"limits_nested_ir"};
    test::expect_error([&] { read_ir(nested_ir(dir, kMaxBodyNesting + 1), test::builtin_ops()); },
                       "bodies are nested more than 64 levels deep");
}

// An ONNX model nested deeper than protobuf parses is named as such, not as a corrupt file.
TEST(ResourceLimits, OnnxBodiesNestedBeyondProtobufsLimitAreNamed) {
    test::ScratchDir out{"limits_nested_onnx"};
    test::expect_error([&] { convert_with_limit(nested_loops_model(40, 1), out, int64_t{2} << 30); },
                       "nests messages more deeply than protobuf parses");
    EXPECT_NO_THROW(convert_with_limit(nested_loops_model(30, 1), out, int64_t{2} << 30));
}

TEST(ResourceLimits, MaxConstantSizeFlag) {
    EXPECT_EQ(parse_command_line({"--input_model", "m.onnx", "--max_constant_size", "512M"}).options.max_constant_bytes,
              int64_t{512} << 20);
    EXPECT_EQ(parse_command_line({"--input_model", "m.onnx", "--max_constant_size=4096"}).options.max_constant_bytes, 4096);
    EXPECT_EQ(parse_command_line({"--input_model", "m.onnx"}).options.max_constant_bytes, int64_t{2} << 30);
    for (const char* bad : {"", "0", "12T", "-5", "1.5G", "99999999999999G"})
        EXPECT_THROW(parse_command_line({"--input_model", "m.onnx", "--max_constant_size", bad}), UsageError) << bad;
    EXPECT_THROW(parse_command_line({"--input_model", "m.onnx", "--batch", "1e300"}), UsageError);
}

}  // namespace
}  // namespace mo
