// --transformations_config: the parser's errors, scope and points matching, handing entries to
// configured transformations, and ReplaceSubgraphWithOp end to end through the real mo.
#include "transforms/config/transformations_config.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include <pugixml.hpp>

#include "emit/ir_test_util.hpp"
#include "support/onnx_model_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/run_command.hpp"
#include "transforms/config/subgraph_match.hpp"
#include "transforms/front/replace_subgraph_with_op.hpp"
#include "transforms/support/transform_test_graph.hpp"
#include "transforms/transforms.hpp"

namespace mo {
namespace {

using test::TestGraph;

std::vector<ConfigEntry> parse(const std::string& text) { return parse_transformations_config(text, "c.json"); }

TEST(TransformationsConfig, ParsesEntries) {
    auto entries = parse(R"([
      {"id": "A", "match_kind": "scope", "instances": ["net/block1", "net/block2"],
       "inputs": [[{"node": "conv", "port": 0}]], "outputs": [{"node": "relu", "port": 0}],
       "custom_attributes": {"op": "Relu", "k": [1, 2]}},
      {"id": "A", "match_kind": "points", "instances": {"start_points": ["s"], "end_points": ["e"]},
       "include_inputs_to_sub_graph": false},
      {"id": "B", "match_kind": "general", "custom_attributes": {"x": 1.5}}])");
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0].id, "A");
    EXPECT_EQ(entries[0].instances.size(), 2u);
    EXPECT_EQ(entries[0].custom_attributes["k"][1], 2);
    EXPECT_EQ(entries[1].match_kind, "points");
    EXPECT_FALSE(entries[1].include_inputs_to_sub_graph);
    EXPECT_TRUE(entries[1].include_outputs_to_sub_graph);
    EXPECT_EQ(entries[2].index, 2u);
    EXPECT_EQ(entries[2].custom_attributes["x"], 1.5);
}

TEST(TransformationsConfig, BadFilesAreClearErrors) {
    // The missing comma is at line 2, column 3.
    test::expect_error([] { parse("[{\"id\": \"A\"}\n  {\"id\": \"B\"}]"); },
                       {"not valid JSON", "line 2, column 3", "c.json"});
    test::expect_error([] { parse("{\"id\": \"A\"}"); }, {"must be a JSON array"});
    // A number beyond double's range is nlohmann's out_of_range, not a parse_error (found by fuzzing).
    test::expect_error([] { parse("[41e308]"); }, {"not valid JSON", "number overflow", "c.json"});
    test::expect_error([] { parse("[{\"match_kind\": \"scope\"}]"); }, {"entry 0: field 'id' must be a non-empty string"});
    test::expect_error([] { parse(R"([{"id": "A", "match_kind": "general"}, {"id": "A", "match_kind": "regex"}])"); },
                       {"entry 1: field 'match_kind' must be one of scope, points, general"});
    test::expect_error([] { parse(R"([{"id": "A", "match_kind": "scope", "instances": "net"}])"); },
                       {"entry 0: field 'instances' must be a list of node-name scopes"});
    test::expect_error([] { parse(R"([{"id": "A", "match_kind": "points", "instances": {"start_points": ["a"]}}])"); },
                       {"entry 0: field 'instances' must be {\"start_points\""});
    test::expect_error([] { parse(R"([{"id": "A", "match_kind": "general", "outputs": [{"node": "a"}]}])"); },
                       {"entry 0: field 'outputs' must be a list of {\"node\": regex, \"port\": number}"});
    test::expect_error([] { parse(R"([{"id": "A", "match_kind": "general", "custom_attributes": 3}])"); },
                       {"field 'custom_attributes' must be a JSON object"});
}

// x -> blk/neg -> blk/exp -> blk/plus(+1) -> blk/recip(1 / .) -> y: the sigmoid written out.
void sigmoid_by_hand(TestGraph& t) {
    auto x = t.input(ElementType::f32, {2, 3}, "x");
    auto neg = t.op("Negative", {x}, {}, "blk/neg");
    auto exp = t.op("Exp", {neg}, {}, "blk/exp");
    auto plus = t.op("Add", {exp, t.constant<float>({1.f}, {}, "blk/one")}, {}, "blk/plus");
    auto recip = t.op("Divide", {t.constant<float>({1.f}, {}, "blk/one_over"), plus}, {}, "blk/recip");
    recip.names().push_back("y");
    t.output(recip, "out");
}

ConfigEntry entry_of(const std::string& json) { return parse("[" + json + "]").front(); }

TEST(TransformationsConfig, ScopeMatchesNodesUnderTheScopeAndResolvesTheBoundary) {
    TestGraph t;
    sigmoid_by_hand(t);
    auto matches = match_scopes(t.graph(), entry_of(R"({"id": "A", "match_kind": "scope", "instances": ["bl.", "nothing"],
        "inputs": [[{"node": "neg", "port": 0}]], "outputs": [{"node": "recip", "port": 0}]})"));
    ASSERT_EQ(matches.size(), 1u);  // "nothing" matches no node
    std::vector<std::string> names;
    for (const Node& n : matches[0].nodes) names.push_back(n.name());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"blk/exp", "blk/neg", "blk/one", "blk/one_over", "blk/plus", "blk/recip"}));
    ASSERT_EQ(matches[0].inputs.size(), 1u);
    EXPECT_EQ(matches[0].inputs[0][0].node().name(), "blk/neg");
    EXPECT_EQ(matches[0].outputs[0].node().name(), "blk/recip");
    test::expect_error([&] {
        match_scopes(t.graph(), entry_of(R"({"id": "A", "match_kind": "scope", "instances": ["blk"],
            "outputs": [{"node": "missing", "port": 0}]})"));
    }, {"entry 0 (id 'A'): output 0: no node of the matched sub-graph is named '(blk)/missing'"});
}

// Scopes are matched in linear time (found by fuzz_transformations_config: std::regex backtracked
// for minutes), and a pattern that does not compile is named.
TEST(TransformationsConfig, ScopePatternsMatchInLinearTime) {
    TestGraph t;
    sigmoid_by_hand(t);
    // (a*)*b against 60 a's: 2^60 ways to split them for a backtracking matcher.
    t.op("Negative", {t.input(ElementType::f32, {1}, "x2")}, {}, std::string(60, 'a'));
    EXPECT_TRUE(match_scopes(t.graph(), entry_of(R"({"id": "A", "match_kind": "scope", "instances": ["(a*)*b"]})")).empty());
    // The fuzzer's scope: repeated quantifiers are not RE2 syntax.
    test::expect_error([&] {
        match_scopes(t.graph(), entry_of(R"({"id": "A", "match_kind": "scope", "instances": ["poo???}??****nv"]})"));
    }, {"is not a valid regular expression (bad repetition operator"});
    test::expect_error([&] { match_scopes(t.graph(), entry_of(R"({"id": "A", "match_kind": "scope", "instances": ["(blk"]})")); },
                       {"'((blk)(/.*)?' is not a valid regular expression"});
}

TEST(TransformationsConfig, PointsTakeTheNodesBetweenAndTheirProducers) {
    TestGraph t;
    sigmoid_by_hand(t);
    SubgraphMatch m = match_points(t.graph(), entry_of(R"({"id": "A", "match_kind": "points",
        "instances": {"start_points": ["blk/neg"], "end_points": ["blk/recip"]}})"));
    std::vector<std::string> names;
    for (const Node& n : m.nodes) names.push_back(n.name());
    std::sort(names.begin(), names.end());
    // The constants come in as producers; x (a model input) feeds a start point and stays out.
    EXPECT_EQ(names, (std::vector<std::string>{"blk/exp", "blk/neg", "blk/one", "blk/one_over", "blk/plus", "blk/recip"}));
    ASSERT_EQ(m.inputs.size(), 1u);
    EXPECT_EQ(m.inputs[0][0].src().node().name(), "x");
    ASSERT_EQ(m.outputs.size(), 1u);

    test::expect_error([&] {
        match_points(t.graph(), entry_of(R"({"id": "A", "match_kind": "points",
            "instances": {"start_points": ["blk/exp"], "end_points": ["blk/neg"]}})"));
    }, {"end point 'blk/neg' is not reached from the start points"});
    // b = a + x between start a and end b reads x: the model input would be pulled in.
    TestGraph pull;
    auto px = pull.input(ElementType::f32, {2}, "x");
    auto a = pull.op("Relu", {px}, {}, "a");
    pull.output(pull.op("Add", {a, px}, {}, "b"), "y");
    test::expect_error([&] {
        match_points(pull.graph(), entry_of(R"({"id": "A", "match_kind": "points",
            "instances": {"start_points": ["a"], "end_points": ["b"]}})"));
    }, {"pulls in the model input 'x'", "add the node that reads it to the start points", "c.json"});
    test::expect_error([&] {
        match_points(t.graph(), entry_of(R"({"id": "A", "match_kind": "points",
            "instances": {"start_points": ["nope"], "end_points": ["blk/recip"]}})"));
    }, {"no node or tensor is named 'nope'"});
}

// A point that names no node or tensor is a pattern for a node name, matched whole or after a
// '/': a module wrapping the model puts its scope in front ("/m/Softmax" for "/Softmax"). Of the
// nodes it finds, the one in the fewest scopes is taken; two in as few scopes are an error.
TEST(TransformationsConfig, PointsMatchUnderAnyScopeAndTheShallowestWins) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2, 3}, "x");
    auto outer = t.op("Negative", {x}, {}, "/m/Neg");
    auto inner = t.op("Exp", {t.op("Negative", {outer}, {}, "/m/head/Neg")}, {}, "/m/Exp");
    auto relu = t.op("Relu", {inner}, {}, "/m/Relu");
    t.output(t.op("Relu", {relu}, {}, "/n/Relu"), "y");
    auto nodes_of = [&](const std::string& start, const std::string& end) {
        SubgraphMatch m = match_points(t.graph(), entry_of(R"({"id": "A", "match_kind": "points",
            "instances": {"start_points": [")" + start + R"("], "end_points": [")" + end + R"("]}})"));
        std::vector<std::string> names;
        for (const Node& n : m.nodes) names.push_back(n.name());
        std::sort(names.begin(), names.end());
        return names;
    };
    // "/Neg" is /m/Neg (two scopes), not /m/head/Neg (three); "Ex." is a pattern for /m/Exp; "m/Relu"
    // must follow a '/', so "/Relu" alone would find /m/Relu and /n/Relu.
    EXPECT_EQ(nodes_of("/Neg", "Ex."), (std::vector<std::string>{"/m/Exp", "/m/Neg", "/m/head/Neg"}));
    EXPECT_EQ(nodes_of("/m/head/Neg", "m/Relu"), (std::vector<std::string>{"/m/Exp", "/m/Relu", "/m/head/Neg"}));
    // "eg" does not end a scope: no node is found.
    test::expect_error([&] { nodes_of("eg", "/m/Exp"); },
                       {"no node or tensor is named 'eg', and no node name ends with it", "c.json",
                        "or a pattern for a node name under any scope"});
    test::expect_error([&] { nodes_of("/m/Neg", "/Relu"); },
                       {"entry 0 (id 'A'): point '/Relu' finds several nodes in as many scopes: '/m/Relu' and '/n/Relu'",
                        "give the full node name, or a narrower pattern"});
    test::expect_error([&] { nodes_of("/m/Neg", "Re(lu"); },
                       {"no node or tensor is named 'Re(lu', and as a pattern it is not a valid regular expression",
                        "missing )"});
    // An unbalanced ')' does not escape the group the point is matched in ("x)|(.*" would find every node).
    test::expect_error([&] { nodes_of("/m/Neg", "x)|(.*"); },
                       {"as a pattern it is not a valid regular expression", "unexpected )"});
}

TEST(TransformationsConfig, PointsByTensorNameUpToTheOutputsAndThroughKnownValues) {
    // x -> neg -> exp -> plus(exp, k) -> recip ("y"), where k = ShapeOf(x)-derived and folded:
    // a known value is taken in without its producers, so x is not pulled in through it.
    TestGraph t;
    auto x = t.input(ElementType::f32, {3, 2}, "x");
    auto neg = t.op("Negative", {x}, {}, "neg");
    auto exp = t.op("Exp", {neg}, {}, "exp");
    auto rank = t.op("Convert", {t.op("ShapeOf", {x}, {{"output_type", ElementType::i64}}, "shape")},
                     {{"destination_type", ElementType::f32}}, "k");
    auto plus = t.op("Add", {exp, rank}, {}, "plus");
    auto recip = t.op("Divide", {t.constant<float>({1.f}, {}, "one"), plus}, {}, "recip");
    recip.names().push_back("y");
    t.output(recip, "out");
    test::infer(t.graph());
    ASSERT_NE(rank.value(), nullptr);
    SubgraphMatch m = match_points(t.graph(), entry_of(R"({"id": "A", "match_kind": "points",
        "instances": {"start_points": ["neg"], "end_points": []}})"));
    std::vector<std::string> names;
    for (const Node& n : m.nodes) names.push_back(n.name());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"exp", "k", "neg", "one", "plus", "recip"}));
    ASSERT_EQ(m.outputs.size(), 1u);  // the tensor the Result reads
    EXPECT_EQ(m.outputs[0].node().name(), "recip");
    // The end point as the output tensor's name.
    SubgraphMatch by_tensor = match_points(t.graph(), entry_of(R"({"id": "A", "match_kind": "points",
        "instances": {"start_points": ["neg"], "end_points": ["y"]}})"));
    EXPECT_EQ(by_tensor.nodes.size(), m.nodes.size());
}

TEST(TransformationsConfig, EntriesGoToTheirTransformationAndSwitchItOn) {
    test::ScratchDir dir("tconfig");
    TransformRegistry r;
    register_builtin_transforms(r);
    const Transformation& replace = *r.find("ReplaceSubgraphWithOp");
    EXPECT_FALSE(r.is_enabled(replace));
    std::ofstream(dir.file("two.json")) << R"([{"id": "ReplaceSubgraphWithOp", "match_kind": "general"},
        {"id": "ReplaceSubgraphWithOp", "match_kind": "general"}])";
    apply_transformations_config(r, dir.file("two.json"));
    EXPECT_TRUE(r.is_enabled(replace));
    EXPECT_EQ(dynamic_cast<const ConfiguredTransformation&>(replace).entries().size(), 2u);

    std::ofstream(dir.file("unknown.json")) << R"([{"id": "SsdPostprocessing", "match_kind": "general"}])";
    test::expect_error([&] { apply_transformations_config(r, dir.file("unknown.json")); },
                       {"entry 0 (id 'SsdPostprocessing'): no configured transformation has this id",
                        "known configured transformations: ReplaceSubgraphWithOp"});
}

TEST(TransformationsConfig, ADeviceOrAnOversizedFileIsRefusedBeforeItIsRead) {
    TransformRegistry r;
    register_builtin_transforms(r);
    // /dev/zero has no end: reading it would take all memory.
    test::expect_error([&] { apply_transformations_config(r, "/dev/zero"); },
                       {"cannot read the transformations config: it is not a regular file", "/dev/zero"});
    test::ScratchDir dir("tconfig");
    std::ofstream(dir.file("huge.json")).flush();
    std::filesystem::resize_file(dir.file("huge.json"), (uintmax_t{64} << 20) + 1);  // sparse: no disk used
    test::expect_error([&] { apply_transformations_config(r, dir.file("huge.json")); },
                       {"the transformations config is 67108865 bytes, more than the 64 MiB a config may have",
                        "huge.json"});
}

TEST(TransformationsConfig, AnEntryThatMatchesNothingChangesNothing) {
    TestGraph t;
    sigmoid_by_hand(t);
    const std::string before = test::dump(t.graph());
    ReplaceSubgraphWithOp pass;
    pass.add_entry(entry_of(R"({"id": "ReplaceSubgraphWithOp", "match_kind": "scope", "instances": ["blk"],
        "inputs": [[{"node": "neg", "port": 0}]], "outputs": [{"node": "recip", "port": 0}],
        "custom_attributes": {"op": "Sigmoid"}})"));
    ConfigEntry nothing = entry_of(R"({"id": "ReplaceSubgraphWithOp", "match_kind": "scope", "instances": ["head"]})");
    nothing.index = 1;
    pass.add_entry(nothing);
    test::expect_error([&] { pass.run(t.graph(), TransformContext{ConversionOptions{}}); },
                       {"entry 1 (id 'ReplaceSubgraphWithOp'): no node matches scope [\"head\"]"});
    EXPECT_EQ(test::dump(t.graph()), before);  // the first entry's match was not replaced either
}

TEST(ReplaceSubgraphWithOp, ReplacesTheScopeWithOneOp) {
    TestGraph t;
    sigmoid_by_hand(t);
    ReplaceSubgraphWithOp pass;
    pass.add_entry(entry_of(R"({"id": "ReplaceSubgraphWithOp", "match_kind": "scope", "instances": ["blk"],
        "inputs": [[{"node": "neg", "port": 0}]], "outputs": [{"node": "recip", "port": 0}],
        "custom_attributes": {"op": "Sigmoid"}})"));
    std::map<std::string, Tensor> in{{"x", Tensor::from_vector<float>({-2, -1, 0, 0.5f, 1, 3}, {2, 3})}};
    test::infer(t.graph());
    std::vector<Tensor> before = test::evaluate(t.graph(), in);
    EXPECT_TRUE(test::run_pass(pass, t.graph()));
    TestGraph e;
    auto ex = e.input(ElementType::f32, {2, 3}, "x");
    auto sig = e.op("Sigmoid", {ex}, {}, "blk/recip");
    sig.names().push_back("y");
    e.output(sig, "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
    std::vector<Tensor> after = test::evaluate(t.graph(), in);
    for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(after[0].data<float>()[i], before[0].data<float>()[i], 1e-6);
    // Attributes follow the schema's kinds; a wrong kind is an error.
    ReplaceSubgraphWithOp bad;
    TestGraph t2;
    sigmoid_by_hand(t2);
    bad.add_entry(entry_of(R"({"id": "ReplaceSubgraphWithOp", "match_kind": "scope", "instances": ["blk"],
        "inputs": [[{"node": "neg", "port": 0}]], "outputs": [{"node": "recip", "port": 0}],
        "custom_attributes": {"op": "Elu", "attributes": {"alpha": "one"}}})"));
    test::expect_error([&] { bad.run(t2.graph(), TransformContext{ConversionOptions{}}); },
                       {"attribute 'alpha' of Elu must be a float", "entry 0"});
}

// The whole path: mo --transformations_config on an ONNX model, the IR, --validate.
TEST(TransformationsConfig, MoConvertsWithAConfigAndLeavesNothingOnErrors) {
    test::ScratchDir dir("tconfig");
    test::OnnxModelBuilder m(13);
    m.input("x", {2, 3});
    m.node("Neg", {"x"}, {"n"}, {}, "blk/neg");
    m.node("Exp", {"n"}, {"e"}, {}, "blk/exp");
    m.initializer("one", {1.f}, {});
    m.node("Add", {"e", "one"}, {"p"}, {}, "blk/plus");
    m.node("Reciprocal", {"p"}, {"y"}, {}, "blk/recip");
    m.output("y");
    const std::string model = m.save(dir.file("sig.onnx"));
    std::ofstream(dir.file("ok.json")) << R"([{"id": "ReplaceSubgraphWithOp", "match_kind": "points",
        "instances": {"start_points": ["blk/neg"], "end_points": ["blk/recip"]},
        "custom_attributes": {"op": "Sigmoid"}}])";
    auto r = test::run_command(MO_BINARY, "--input_model " + model + " --output_dir " + dir.file("out") +
                                              " --compress_to_fp16=False --validate --transformations_config " + dir.file("ok.json"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("[ VALIDATE ] passed"), std::string::npos) << r.output;
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file(dir.file("out/sig.xml").c_str()));
    std::vector<std::string> types;
    for (auto l : doc.child("net").child("layers").children("layer")) types.push_back(l.attribute("type").value());
    EXPECT_EQ(types, (std::vector<std::string>{"Parameter", "Sigmoid", "Result"}));

    // --list_transformations shows the configured transformation switched on.
    r = test::run_command(MO_BINARY, "--list_transformations --transformations_config " + dir.file("ok.json"));
    EXPECT_NE(r.output.find("ReplaceSubgraphWithOp\tfront\tyes\tbuilt-in"), std::string::npos) << r.output;

    for (const char* bad : {R"([{"id": "ReplaceSubgraphWithOp", "match_kind": "scope", "instances": ["head"]}])",
                            R"([{"id": "ReplaceSubgraphWithOp", "match_kind": "points",)"}) {
        std::ofstream(dir.file("bad.json")) << bad;
        r = test::run_command(MO_BINARY, "--input_model " + model + " --output_dir " + dir.file("bad_out") +
                                             " --transformations_config " + dir.file("bad.json"));
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_NE(r.output.find("bad.json"), std::string::npos) << r.output;
        EXPECT_FALSE(std::filesystem::exists(dir.file("bad_out")));
    }
}

}  // namespace
}  // namespace mo
