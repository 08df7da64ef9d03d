// TensorFlow GraphDefs and TF.js models built by the test: values worked by hand, and bad files.
#include "loaders/tf/tf_loader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include "loaders/tf/tf_graph.pb.h"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "tools/convert.hpp"
#include "core/evaluator.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;

fs::path scratch() {
    auto d = fs::temp_directory_path() / "mo_tf_tests";
    fs::create_directories(d);
    return d;
}

mo_tf::NodeDef& node(mo_tf::GraphDef& g, const std::string& name, const std::string& op, std::vector<std::string> inputs) {
    mo_tf::NodeDef* n = g.add_node();
    n->set_name(name);
    n->set_op(op);
    for (auto& i : inputs) n->add_input(i);
    return *n;
}

void set_s(mo_tf::NodeDef& n, const std::string& k, const std::string& v) { (*n.mutable_attr())[k].set_s(v); }
void set_ints(mo_tf::NodeDef& n, const std::string& k, std::vector<int64_t> v) {
    for (int64_t x : v) (*n.mutable_attr())[k].mutable_list()->add_i(x);
}

mo_tf::NodeDef& constant(mo_tf::GraphDef& g, const std::string& name, mo_tf::DataType type, std::vector<int64_t> shape,
                         const std::vector<float>& f, const std::vector<int32_t>& i = {}) {
    auto& n = node(g, name, "Const", {});
    auto* t = (*n.mutable_attr())["value"].mutable_tensor();
    t->set_dtype(type);
    for (int64_t d : shape) t->mutable_tensor_shape()->add_dim()->set_size(d);
    for (float v : f) t->add_float_val(v);
    for (int32_t v : i) t->add_int_val(v);
    (*n.mutable_attr())["dtype"].set_type(type);
    return n;
}

// x [1, 2, 2, 1] -> Conv2D(1x1 filter 2) -> BiasAdd(1) -> Relu -> Mean(H, W, keep) = mean
//                                                            \-> MaxPool 2x2 = max
mo_tf::GraphDef small_graph() {
    mo_tf::GraphDef g;
    auto& x = node(g, "x", "Placeholder", {});
    (*x.mutable_attr())["dtype"].set_type(mo_tf::DT_FLOAT);
    for (int64_t d : {1, 2, 2, 1}) (*x.mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(d);
    constant(g, "w", mo_tf::DT_FLOAT, {1, 1, 1, 1}, {2.f});
    constant(g, "b", mo_tf::DT_FLOAT, {1}, {1.f});
    constant(g, "axes", mo_tf::DT_INT32, {2}, {}, {1, 2});
    auto& conv = node(g, "conv", "Conv2D", {"x", "w"});
    set_s(conv, "padding", "SAME");
    set_ints(conv, "strides", {1, 1, 1, 1});
    node(g, "bias", "BiasAdd", {"conv", "b"});
    node(g, "relu", "Relu", {"bias:0", "^conv"});  // a control input is ignored
    auto& mean = node(g, "mean", "Mean", {"relu", "axes"});
    (*mean.mutable_attr())["keep_dims"].set_b(true);
    auto& pool = node(g, "max", "MaxPool", {"relu"});
    set_s(pool, "padding", "VALID");
    set_ints(pool, "ksize", {1, 2, 2, 1});
    set_ints(pool, "strides", {1, 2, 2, 1});
    return g;
}

std::string save(const mo_tf::GraphDef& g, const std::string& name) {
    const std::string path = (scratch() / name).string();
    std::ofstream(path, std::ios::binary) << g.SerializeAsString();
    return path;
}

std::vector<double> run(const std::string& path, size_t output, int* transposes = nullptr) {
    test::ScratchDir out{"tf"};
    ConversionOptions o;
    o.input_model = path;
    o.output_dir = out.path().string();
    o.compress_to_fp16 = false;
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    if (transposes) {
        *transposes = 0;
        for (const Node& n : ir->nodes()) *transposes += n.is("Transpose");
    }
    return evaluate(*ir, {Tensor::from_vector<float>({1, -3, 2, 4}, {1, 2, 2, 1})}).at(output).to_f64();
}

mo_tf::NodeDef& placeholder(mo_tf::GraphDef& g, const std::string& name, std::vector<int64_t> shape) {
    auto& x = node(g, name, "Placeholder", {});
    (*x.mutable_attr())["dtype"].set_type(mo_tf::DT_FLOAT);
    auto* s = (*x.mutable_attr())["shape"].mutable_shape();
    for (int64_t d : shape) s->add_dim()->set_size(d);
    return x;
}

// Converts `g` (saved as `name`) and evaluates the IR on `inputs`.
std::vector<Tensor> convert_and_evaluate(const mo_tf::GraphDef& g, const std::string& name, std::vector<Tensor> inputs) {
    test::ScratchDir out{"tf"};
    ConversionOptions o;
    o.input_model = save(g, name);
    o.output_dir = out.path().string();
    o.compress_to_fp16 = false;
    return evaluate(*read_ir(convert(o).xml_path, test::builtin_ops()), std::move(inputs));
}

// TensorFlow repeats the last listed value over the shape: a 4 TiB "splat" from one float is
// refused before anything is allocated.
TEST(TfLoader, ASplatConstantBeyondMaxConstantSizeIsAnError) {
    mo_tf::GraphDef g = small_graph();
    constant(g, "huge", mo_tf::DT_FLOAT, {int64_t{1} << 20, int64_t{1} << 20}, {1.f});
    node(g, "sum", "AddV2", {"x", "huge"});
    test::expect_error([&] { run(save(g, "splat.pb"), 0); },
                       {"huge", "1 value(s) repeated to 1099511627776 elements is larger than --max_constant_size"});
}

// Sizes that leave 64 bits were errors without a place: byte_size and shape_size do not know
// the tensor they are asked about. The error names the constant.
TEST(TfLoader, AConstantWhoseSizeOverflowsNamesItself) {
    mo_tf::GraphDef content = small_graph();
    auto& wide = constant(content, "wide", mo_tf::DT_FLOAT, {int64_t{1} << 60}, {});
    (*wide.mutable_attr())["value"].mutable_tensor()->set_tensor_content(std::string(4, '\0'));
    node(content, "sum", "AddV2", {"x", "wide"});
    test::expect_error([&] { run(save(content, "content_overflow.pb"), 0); },
                       {"node 'wide'", "1152921504606846976 elements of f32 have more bytes than 64 bits count"});

    mo_tf::GraphDef values = small_graph();
    constant(values, "square", mo_tf::DT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40}, {1.f});
    node(values, "sum", "AddV2", {"x", "square"});
    test::expect_error([&] { run(save(values, "values_overflow.pb"), 0); },
                       {"node 'square'", "more elements than 64 bits count"});
}

TEST(TfLoader, ConstantsWithTensorContentStayViewsOfTheFile) {
    mo_tf::GraphDef g = small_graph();
    for (auto& n : *g.mutable_node())
        if (n.name() == "w") {
            auto* t = (*n.mutable_attr())["value"].mutable_tensor();
            t->clear_float_val();
            const float two = 2.f;
            t->set_tensor_content(std::string(reinterpret_cast<const char*>(&two), 4));
        }
    // A large constant (80 KB) stays a view of the file; the small filter may be an aligned copy.
    std::vector<float> values(20000, 0.5f);
    auto& big = constant(g, "big", mo_tf::DT_FLOAT, {20000}, {});
    (*big.mutable_attr())["value"].mutable_tensor()->set_tensor_content(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
    const std::string path = save(g, "content.pb");
    auto graph = load_tf(path, ConversionOptions{}, test::builtin_ops());
    const Tensor* w = graph->find_by_name("w").out(0).value();
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(w->bytes()) % alignof(float), 0u);
    EXPECT_EQ(w->to_f64(), std::vector<double>{2});
    const Tensor* b = graph->find_by_name("big").out(0).value();
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(b->buffer()->is_file_view());
    EXPECT_EQ(b->to_f64()[19999], 0.5);
    EXPECT_EQ(run(path, 0), std::vector<double>{4.25});
}

TEST(TfLoader, FrozenGraphComputesWhatTensorFlowDoes) {
    // conv: 2x + 1 = [3, -5, 5, 9]; relu: [3, 0, 5, 9]; mean 4.25, max 9.
    const std::string path = save(small_graph(), "small.pb");
    int transposes = 0;
    EXPECT_EQ(run(path, 0, &transposes), std::vector<double>{4.25});
    EXPECT_EQ(run(path, 1), std::vector<double>{9});
    // After the input and before each 4-D output: with one channel, Reshapes (the element order is kept).
    EXPECT_EQ(transposes, 0);
    // The same graph as text.
    std::string text;
    google::protobuf::TextFormat::PrintToString(small_graph(), &text);
    const std::string txt = (scratch() / "small.pbtxt").string();
    std::ofstream(txt) << text;
    EXPECT_EQ(run(txt, 0), std::vector<double>{4.25});
    // A syntax error names its line and column.
    std::ofstream(txt) << "node {\n  name: \"x\"\n  op: Placeholder\n}\n";
    test::expect_error([&] { run(txt, 0); }, {"not a valid text GraphDef: line 3, column"});
}

TEST(TfLoader, TfjsModelReadsItsQuantizedShards) {
    // The same graph as a TF.js model: the weights w (uint8-quantized: q * 0.5 + 1 = 2 for q = 2)
    // and b (float32) live in a shard, not in the Consts.
    mo_tf::GraphDef g = small_graph();
    for (auto& n : *g.mutable_node())
        if (n.name() == "w" || n.name() == "b") (*n.mutable_attr())["value"].mutable_tensor()->clear_float_val();
    std::string topology;
    google::protobuf::util::MessageToJsonString(g, &topology);
    const fs::path dir = scratch() / "tfjs";
    fs::create_directories(dir);
    nlohmann::json manifest = nlohmann::json::array({{{"paths", {"group1-shard1of1.bin"}},
                                                      {"weights",
                                                       {{{"name", "w"}, {"shape", {1, 1, 1, 1}}, {"dtype", "float32"},
                                                         {"quantization", {{"dtype", "uint8"}, {"scale", 0.5}, {"min", 1.0}}}},
                                                        {{"name", "b"}, {"shape", {1}}, {"dtype", "float32"}}}}}});
    nlohmann::json model{{"format", "graph-model"}, {"modelTopology", nlohmann::json::parse(topology)},
                         {"weightsManifest", manifest}};
    std::ofstream(dir / "model.json") << model.dump();
    const float bias = 1.f;
    {
        std::ofstream shard(dir / "group1-shard1of1.bin", std::ios::binary);
        shard.put(2);
        shard.write(reinterpret_cast<const char*>(&bias), 4);
    }
    EXPECT_EQ(run((dir / "model.json").string(), 0), std::vector<double>{4.25});
    // A short shard and a missing one are errors naming model.json.
    fs::resize_file(dir / "group1-shard1of1.bin", 3);
    test::expect_error([&] { run((dir / "model.json").string(), 0); }, {"end before weight 'b'", "model.json"});
    fs::remove(dir / "group1-shard1of1.bin");
    test::expect_error([&] { run((dir / "model.json").string(), 0); }, {"'group1-shard1of1.bin' is missing"});
}

TEST(TfLoader, GatherSplitArgMaxDepthToSpaceFloorDivSelectGatherNdCast) {
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
    ConversionOptions o;
    o.input_model = path;
    o.output_dir = out.path().string();
    o.compress_to_fp16 = false;
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
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

TEST(TfLoader, Conv2DBackpropInputIsTheTransposedConvolution) {
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
    ConversionOptions o;
    o.input_model = save(g, "deconv.pb");
    o.output_dir = out.path().string();
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    auto r = evaluate(*ir, {Tensor::from_vector<float>({1, 1, 1, 1}, {1, 2, 2, 1})});
    EXPECT_EQ(r.at(0).to_f64(), (std::vector<double>{1, 1, 2, 1, 1, 1, 2, 1, 2, 2, 4, 2, 1, 1, 2, 1}));
}

TEST(TfLoader, NonMaxSuppressionV5SelectsInScoreOrder) {
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
    ConversionOptions o;
    o.input_model = save(g, "nms.pb");
    o.output_dir = out.path().string();
    o.compress_to_fp16 = false;  // the constant scores would be rounded to f16
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
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
TEST(TfLoader, UnpackNumMustBePositiveAndMatchTheInputAndTheOutputsRead) {
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
TEST(TfLoader, SplitsMakeAllTheirPartsWhateverTheGraphReads) {
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
TEST(TfLoader, ConcatV2AndPackWithoutValuesAreErrors) {
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

// Found by an audit: an index past 64 bits was a std::out_of_range from stoul, and "r:50000000"
// made the loader create 50 million output ports.
TEST(TfLoader, AnOutputIndexBeyondTheLimitIsAnError) {
    for (const std::string index : {"99999999999999999999999", "50000000", "65536"}) {
        mo_tf::GraphDef g = small_graph();
        node(g, "q", "Relu", {"relu:" + index});
        test::expect_error([&] { run(save(g, "index.pb"), 0); },
                           {"node 'q' (Relu)", ("input 'relu:" + index + "' reads output " + index).c_str(),
                            "mo accepts at most 65536 outputs per node"});
    }
}

// Each index within the per-node limit, but 17 nodes read at ":65535" would ask for 2^20 + 16
// ports beyond their first (11 MB each).
TEST(TfLoader, OutputsReadAcrossTheGraphAreLimitedToo) {
    mo_tf::GraphDef g = small_graph();
    for (int i = 0; i < 17; ++i) {
        const std::string id = std::to_string(i);
        node(g, "r" + id, "Relu", {"relu"});
        node(g, "q" + id, "Relu", {"r" + id + ":65535"});
    }
    test::expect_error([&] { run(save(g, "wide.pb"), 0); },
                       {"the nodes' inputs read 1114095 outputs beyond each node's first", "at most 1048576"});
}

// Found by an audit: DstT 2^32 + 1 was cut to an int, DT_FLOAT, and converted; an out_type or
// output_type other than DT_INT32 / DT_INT64 silently gave one of them.
TEST(TfLoader, TypeAttributesOutOfRangeAreErrors) {
    mo_tf::GraphDef cast = small_graph();
    (*node(cast, "cast", "Cast", {"relu"}).mutable_attr())["DstT"].set_i((int64_t{1} << 32) + 1);
    test::expect_error([&] { run(save(cast, "cast_huge.pb"), 0); },
                       {"node 'cast' (Cast", "TensorFlow type DataType(4294967297) is not supported"});
    mo_tf::GraphDef shape = small_graph();
    (*node(shape, "shape", "Shape", {"relu"}).mutable_attr())["out_type"].set_type(mo_tf::DT_FLOAT);
    test::expect_error([&] { run(save(shape, "shape_float.pb"), 0); },
                       {"node 'shape' (Shape", "out_type is DT_FLOAT; it must be DT_INT32 or DT_INT64"});
    mo_tf::GraphDef argmax = small_graph();
    constant(argmax, "channels", mo_tf::DT_INT32, {}, {}, {3});
    (*node(argmax, "argmax", "ArgMax", {"relu", "channels"}).mutable_attr())["output_type"].set_i((int64_t{1} << 32) + 3);
    test::expect_error([&] { run(save(argmax, "argmax_huge.pb"), 0); },
                       {"node 'argmax' (ArgMax", "output_type is DataType(4294967299)"});
}

// Mask bits stop at 64: entry 64 of a 66-entry slice is not shrunk by bit 0 (shifting by 64 or
// more was undefined behaviour, on x86 the same as shifting by 0).
TEST(TfLoader, StridedSliceMaskBitsStopAt64Axes) {
    mo_tf::GraphDef g;
    placeholder(g, "x", std::vector<int64_t>(66, 1));
    constant(g, "begin", mo_tf::DT_INT32, {66}, {}, {0});
    constant(g, "end", mo_tf::DT_INT32, {66}, {}, {1});
    auto& slice = node(g, "slice", "StridedSlice", {"x", "begin", "end", "end"});
    (*slice.mutable_attr())["shrink_axis_mask"].set_i(1);
    auto r = convert_and_evaluate(g, "slice_66.pb", {Tensor::from_vector<float>({5}, Shape(66, 1))});
    EXPECT_EQ(r.at(0).shape(), Shape(65, 1));
}

// Found by an audit: a userDefinedMetadata string was a JSON type_error (an internal error).
TEST(TfLoader, TfjsModelJsonOfTheWrongShapeIsAnError) {
    std::string topology;
    google::protobuf::util::MessageToJsonString(small_graph(), &topology);
    const fs::path dir = scratch() / "tfjs_types";
    fs::create_directories(dir);
    auto model = [&](nlohmann::json manifest, nlohmann::json metadata = nullptr) {
        nlohmann::json j{{"format", "graph-model"}, {"modelTopology", nlohmann::json::parse(topology)},
                         {"weightsManifest", std::move(manifest)}};
        if (!metadata.is_null()) j["userDefinedMetadata"] = std::move(metadata);
        std::ofstream(dir / "model.json") << j.dump();
        return (dir / "model.json").string();
    };
    using json = nlohmann::json;
    const json none = json::array();
    test::expect_error([&] { run(model(none, "x"), 0); },
                       {"model.json's userDefinedMetadata is a string, not an object"});
    test::expect_error([&] { run(model(none, {{"signature", "abc"}}), 0); },
                       {"userDefinedMetadata.signature is a string, not an object"});
    test::expect_error([&] { run(model(none, {{"signature", {{"outputs", json::array({"max:0"})}}}}), 0); },
                       {"userDefinedMetadata.signature.outputs is an array, not an object"});
    test::expect_error([&] { run(model(5), 0); }, {"weightsManifest is the number 5, not an array"});
    test::expect_error([&] { run(model(json::array({{{"paths", json::array({7})}, {"weights", none}}})), 0); },
                       {"weightsManifest[0].paths[0] is the number 7, not a string"});
    auto weight = [&](json w) { return model(json::array({{{"paths", none}, {"weights", json::array({w})}}})); };
    test::expect_error([&] { run(weight({{"name", "w"}, {"shape", json::array({-1})}, {"dtype", "float32"}}), 0); },
                       {"weightsManifest[0].weights[0].shape[0] is the number -1, not a non-negative integer"});
    const json one = json::array({1});
    test::expect_error([&] { run(weight({{"name", "w"}, {"shape", one}, {"dtype", "float32"}, {"quantization", 5}}), 0); },
                       {"weightsManifest[0].weights[0].quantization is the number 5, not an object"});
    test::expect_error([&] { run(weight({{"shape", one}, {"dtype", "float32"}}), 0); },
                       {"model.json has no weightsManifest[0].weights[0].name"});
    // 2^62 elements in no bytes: the byte count would overflow to 0.
    const json huge = json::array({int64_t{1} << 61, 2});
    test::expect_error([&] { run(weight({{"name", "w"}, {"shape", huge}, {"dtype", "float32"}}), 0); },
                       {"the weight shards end before weight 'w'"});
    // The signature's outputs, an object keyed by tensor name, pick the results.
    EXPECT_EQ(run(model(none, {{"signature", {{"outputs", {{"max:0", json::object()}}}}}}), 0), std::vector<double>{9});
}

// Found by an audit of the TF extractors: each converted with exit 0 to an IR that computes
// something other than TensorFlow does.
TEST(TfLoader, NchwBiasAddAddsAlongAxisOneOfAnyRank) {
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
TEST(TfLoader, PoolingOverTheChannelAxisIsNotSupported) {
    mo_tf::GraphDef g;
    placeholder(g, "x", {1, 2, 2, 6});
    auto& pool = node(g, "y", "MaxPool", {"x"});
    set_ints(pool, "ksize", {1, 1, 1, 3});
    set_ints(pool, "strides", {1, 1, 1, 3});
    set_s(pool, "padding", "VALID");
    test::expect_error([&] { convert_and_evaluate(g, "pool_depth.pb", {}); },
                       {"node 'y' (MaxPool", "over the batch or channel axis (1 and 3)", "not supported"});
}

// A binary .pb's constant took the tensor_content of another tensor attribute of its node
// ("_extra", which TensorFlow ignores): y = x + c gave [100, 100], not [1, 2].
TEST(TfLoader, AConstantsBytesComeFromItsValueAttributeOnly) {
    mo_tf::GraphDef g;
    placeholder(g, "x", {2});
    const float hundreds[2] = {100.f, 100.f}, threes[2] = {3.f, 4.f};
    auto extra = [&](mo_tf::NodeDef& n) {
        auto* t = (*n.mutable_attr())["_extra"].mutable_tensor();
        t->set_dtype(mo_tf::DT_FLOAT);
        t->mutable_tensor_shape()->add_dim()->set_size(2);
        t->set_tensor_content(std::string(reinterpret_cast<const char*>(hundreds), 8));
    };
    extra(constant(g, "listed", mo_tf::DT_FLOAT, {2}, {1.f, 2.f}));  // value as float_val
    auto& stored = constant(g, "stored", mo_tf::DT_FLOAT, {2}, {});  // value as tensor_content too
    (*stored.mutable_attr())["value"].mutable_tensor()->set_tensor_content(std::string(reinterpret_cast<const char*>(threes), 8));
    extra(stored);
    node(g, "sum", "AddV2", {"x", "listed"});
    node(g, "y", "AddV2", {"sum", "stored"});
    auto out = convert_and_evaluate(g, "extra_tensor_attr.pb", {Tensor::from_vector<float>({0, 0}, {2})});
    EXPECT_EQ(out.at(0).to_f64(), (std::vector<double>{4, 6}));
}

// ResizeBilinear returns float32 whatever its input: a uint8 input was interpolated and
// rounded in uint8 ([0, 0, 1, 1] and a uint8 output).
TEST(TfLoader, ResizeBilinearComputesInFloat) {
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
TEST(TfLoader, MirrorPadReflectsOrMirrorsAndRefusesOtherModes) {
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

TEST(TfLoader, BrokenGraphsAreClearErrors) {
    mo_tf::GraphDef missing = small_graph();
    node(missing, "extra", "Relu", {"nowhere:0"});
    test::expect_error([&] { run(save(missing, "missing.pb"), 0); }, {"'nowhere:0' names a node the graph does not have",
                                                                     "node 'extra' (Relu)"});
    mo_tf::GraphDef cycle = small_graph();
    node(cycle, "a", "Relu", {"c"});
    node(cycle, "c", "Relu", {"a"});
    test::expect_error([&] { run(save(cycle, "cycle.pb"), 0); }, {"cycle through node 'a'"});
    const std::string garbage = (scratch() / "garbage.pb").string();
    std::ofstream(garbage) << "\xff\xff\xff this is not protobuf";
    test::expect_error([&] { run(garbage, 0); }, {"the GraphDef file is truncated or corrupt", "garbage.pb"});
    // Cut short inside a constant's tensor_content.
    const std::string whole = small_graph().SerializeAsString();
    const std::string cut = (scratch() / "cut.pb").string();
    std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() * 2 / 3);
    test::expect_error([&] { run(cut, 0); }, {"cut.pb"});
}

}  // namespace
}  // namespace mo

namespace mo {
namespace {

// TensorFlow's remapper fuses an inference batch norm into _FusedConv2D (fused_ops
// [FusedBatchNorm], args scale, offset, mean, variance, attr epsilon): (y - mean) * scale /
// sqrt(variance + epsilon) + offset, worked by hand below. TF.js refuses this form.
TEST(TfLoader, FusedConv2DTakesAFusedBatchNorm) {
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

// TF.js's signature: userDefinedMetadata.signature (older exports) wins over the top-level one,
// an entry's `name` is the tensor, and a signature input must be a Placeholder.
TEST(TfLoader, TfjsSignatureNamesTheTensorsAndOrdersThem) {
    std::string topology;
    google::protobuf::util::MessageToJsonString(small_graph(), &topology);
    const fs::path dir = scratch() / "tfjs_signature";
    fs::create_directories(dir);
    using json = nlohmann::ordered_json;
    auto model = [&](json signature, json metadata = nullptr) {
        json j{{"format", "graph-model"}, {"modelTopology", json::parse(topology)}, {"weightsManifest", json::array()},
               {"signature", std::move(signature)}};
        if (!metadata.is_null()) j["userDefinedMetadata"] = std::move(metadata);
        std::ofstream(dir / "model.json") << j.dump();
        return (dir / "model.json").string();
    };
    const json max_first{{"outputs", {{"pooled", {{"name", "max:0"}}}, {"averaged", {{"name", "mean:0"}}}}}};
    const json mean_only{{"outputs", {{"averaged", {{"name", "mean:0"}}}}}};
    // Outputs in the signature's order (not the graph's), keyed by another name than the tensor's.
    EXPECT_EQ(run(model(max_first), 0), std::vector<double>{9});
    EXPECT_EQ(run(model(max_first), 1), std::vector<double>{4.25});
    // userDefinedMetadata.signature takes precedence.
    EXPECT_EQ(run(model(max_first, {{"signature", mean_only}}), 0), std::vector<double>{4.25});
    test::expect_error([&] { run(model({{"inputs", {{"w_in", {{"name", "w:0"}}}}}}), 0); },
                       {"the signature's input 'w:0' is a Const, not a Placeholder"});
    test::expect_error([&] { run(model({{"outputs", {{"o", {{"name", "nothing:0"}}}}}}), 0); },
                       {"the signature's output 'nothing:0' is not in the graph"});
}

}  // namespace
}  // namespace mo

namespace mo {
namespace {

// Control flow that does not have the forms TensorFlow writes is an error naming the node.
TEST(TfLoader, MalformedControlFlowIsAClearError) {
    mo_tf::GraphDef missing = small_graph();
    node(missing, "pred", "Greater", {"b", "b"});
    auto& n = node(missing, "if", "StatelessIf", {"pred", "x"});
    (*n.mutable_attr())["then_branch"].mutable_func()->set_name("nope");
    (*n.mutable_attr())["else_branch"].mutable_func()->set_name("nope");
    test::expect_error([&] { convert_and_evaluate(missing, "if_missing.pb", {}); },
                       {"function 'nope' is not in the graph's library", "node 'if' (StatelessIf)"});

    mo_tf::GraphDef lone = small_graph();
    node(lone, "merge", "Merge", {"relu", "max"});
    test::expect_error([&] { convert_and_evaluate(lone, "lone_merge.pb", {}); },
                       {"the Merge node 'merge' is part of no while loop or conditional mo recognises"});

    // A loop variable's Enter feeding its Merge, but no NextIteration closing the loop.
    mo_tf::GraphDef open_loop = small_graph();
    auto& enter = node(open_loop, "enter", "Enter", {"x"});
    (*enter.mutable_attr())["frame_name"].set_s("loop");
    node(open_loop, "merge", "Merge", {"enter", "relu"});
    test::expect_error([&] { convert_and_evaluate(open_loop, "open_loop.pb", {}); },
                       {"node 'merge' (Merge)", "is not fed by a NextIteration or feeds no single Switch"});

    // A branch whose value flows on without a Merge (TensorFlow's dead tensors): refused, not cut.
    mo_tf::GraphDef dead = small_graph();
    node(dead, "pred", "Greater", {"b", "b"});
    node(dead, "switch", "Switch", {"relu", "pred"});
    node(dead, "taken", "Neg", {"switch:1"});
    node(dead, "after", "AddV2", {"taken", "max"});
    test::expect_error([&] { convert_and_evaluate(dead, "dead_branch.pb", {}); },
                       {"'after' inside the conditional on 'pred' is an output of the graph without passing an Exit or Merge"});

    // A function calling itself.
    mo_tf::GraphDef recursive = small_graph();
    auto* f = recursive.mutable_library()->add_function();
    f->mutable_signature()->set_name("f");
    f->mutable_signature()->add_input_arg()->set_name("a");
    f->mutable_signature()->add_output_arg()->set_name("out");
    auto* call = f->add_node_def();
    call->set_name("again");
    call->set_op("PartitionedCall");
    call->add_input("a");
    (*call->mutable_attr())["f"].mutable_func()->set_name("f");
    (*f->mutable_ret())["out"] = "again:output:0";
    auto& top = node(recursive, "call", "PartitionedCall", {"x"});
    (*top.mutable_attr())["f"].mutable_func()->set_name("f");
    test::expect_error([&] { convert_and_evaluate(recursive, "recursive.pb", {}); },
                       {"functions are nested more than 64 levels deep"});
}

}  // namespace
}  // namespace mo

namespace mo {
namespace {

// Slice's begin computed at run time (from a shape), size -1 to the end of the axis:
// x [3, 4] = 0..11, begin = shape - [2, 3] = [1, 1], size [-1, 2] -> x[1:, 1:3], by hand.
TEST(TfLoader, SliceTakesABeginComputedAtRunTime) {
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
TEST(TfLoader, WhereRangeReciprocalAndARunTimePad) {
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

// A call TensorFlow 2 leaves in a frozen graph (StatefulPartitionedCall, attr f) is inlined: the
// function's nodes, reading "node:output_arg:index", take the call's place and its outputs'
// consumers; a signature-less GraphDef's output is then the function's value (by hand: 2x + 1).
TEST(TfLoader, FunctionCallsAreInlined) {
    mo_tf::GraphDef g;
    placeholder(g, "x", {3});
    auto* f = g.mutable_library()->add_function();
    f->mutable_signature()->set_name("scale_and_shift");
    f->mutable_signature()->add_input_arg()->set_name("a");
    f->mutable_signature()->add_output_arg()->set_name("identity");
    auto add_node = [&](const std::string& name, const std::string& op, std::vector<std::string> inputs) -> mo_tf::NodeDef& {
        auto* n = f->add_node_def();
        n->set_name(name);
        n->set_op(op);
        for (auto& in : inputs) n->add_input(in);
        return *n;
    };
    auto constant_in_function = [&](const std::string& name, float v) {
        auto& c = add_node(name, "Const", {});
        auto* t = (*c.mutable_attr())["value"].mutable_tensor();
        t->set_dtype(mo_tf::DT_FLOAT);
        t->add_float_val(v);
        (*c.mutable_attr())["dtype"].set_type(mo_tf::DT_FLOAT);
    };
    constant_in_function("two", 2.f);
    constant_in_function("one", 1.f);
    add_node("mul", "Mul", {"a", "two:output:0"});
    add_node("add", "AddV2", {"mul:z:0", "one:output:0"});
    add_node("Identity", "Identity", {"add:z:0"});
    (*f->mutable_ret())["identity"] = "Identity:output:0";
    auto& call = node(g, "call", "StatefulPartitionedCall", {"x"});
    (*call.mutable_attr())["f"].mutable_func()->set_name("scale_and_shift");
    node(g, "out", "Identity", {"call"});
    auto out = convert_and_evaluate(g, "call.pb", {Tensor::from_vector<float>({0.f, 1.f, -2.f}, {3})});
    EXPECT_EQ(out.at(0).to_f64(), (std::vector<double>{1, 3, -3}));
}

}  // namespace
}  // namespace mo
