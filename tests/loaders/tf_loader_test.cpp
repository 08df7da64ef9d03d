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
#include "support/tf_graph_builder.hpp"
#include "driver/convert.hpp"
#include "core/evaluator.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;
using namespace test::tf;
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
