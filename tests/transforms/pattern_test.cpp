// The pattern matcher: ports, commutative inputs, predicates, alternatives, consumers, and
// that a failed match is a plain "no".
#include "transforms/pattern.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "core/mapped_file.hpp"
#include "emit/ir_test_util.hpp"
#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

// x * sigmoid(x), rooted at the Multiply.
Pattern silu() {
    Pattern p("mul");
    p.node("x").node("sig", {"Sigmoid"}, {consumers(1)}).node("mul", {"Multiply"});
    p.edge("x", "sig", 0).edge("x", "mul", 0).edge("sig", "mul", 1);
    return p;
}

TEST(Pattern, MatchesByPortsAndNamesTheNodes) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {4}, "x");
    auto sig = t.op("Sigmoid", {x}, {}, "sig");
    auto mul = t.op("Multiply", {x, sig}, {}, "mul");
    t.output(mul, "y");
    auto m = match_pattern(silu(), mul.node());
    ASSERT_TRUE(m);
    EXPECT_EQ((*m)["x"], x.node());
    EXPECT_EQ((*m)["sig"], sig.node());
    EXPECT_EQ((*m)["mul"], mul.node());
    EXPECT_FALSE(match_pattern(silu(), sig.node()));  // wrong root type: no match, no error
}

TEST(Pattern, InputOrderMattersUnlessCommutative) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {4}, "x");
    auto mul = t.op("Multiply", {t.op("Sigmoid", {x}, {}, "sig"), x}, {}, "mul");  // swapped
    t.output(mul, "y");
    EXPECT_FALSE(match_pattern(silu(), mul.node()));
    Pattern either = silu();
    either.commutative("mul");
    EXPECT_TRUE(match_pattern(either, mul.node()));
}

TEST(Pattern, PredicatesAndConsumers) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {4}, "x");
    auto sig = t.op("Sigmoid", {x}, {}, "sig");
    auto mul = t.op("Multiply", {x, sig}, {}, "mul");
    t.output(mul, "y");
    t.output(sig, "also_sig");  // a second consumer: consumers(1) fails
    EXPECT_FALSE(match_pattern(silu(), mul.node()));

    TestGraph c;
    auto cx = c.input(ElementType::f32, {2, 2}, "x");
    auto add = c.op("Add", {cx, c.constant<float>({3.f, 3.f}, {2}, "three")}, {}, "add");
    c.output(add, "y");
    test::infer(c.graph());
    auto plus = [](double v) {
        Pattern p("add");
        p.node("x", {}, {rank(2)}).node("c", {}, {const_value(v)}).node("add", {"Add"});
        p.edge("x", "add", 0).edge("c", "add", 1);
        return p;
    };
    EXPECT_TRUE(match_pattern(plus(3.0), add.node()));
    EXPECT_TRUE(match_pattern(plus(3.0 + 1e-7), add.node()));
    EXPECT_FALSE(match_pattern(plus(3.1), add.node()));
}

// Resident KiB of the mapping that starts at `start`, from /proc/self/smaps.
size_t resident_kib(const void* start) {
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%lx-", reinterpret_cast<unsigned long>(start));
    std::ifstream smaps("/proc/self/smaps");
    bool ours = false;
    for (std::string line; std::getline(smaps, line);) {
        if (line.find('-') < line.find(' ') && std::isxdigit(static_cast<unsigned char>(line[0])))
            ours = line.rfind(prefix, 0) == 0;
        else if (ours && line.rfind("Rss:", 0) == 0)
            return std::stoul(line.substr(4));
    }
    return SIZE_MAX;
}

// A weight file's small constant is compared by value without faulting the file's pages into
// the process (each fault maps 64 KiB, kept until the BIN writer releases them), and a constant
// of more than 4096 elements is not read at all.
TEST(Pattern, ConstantsInTheMappedModelAreReadWithoutTouchingTheMapping) {
    test::ScratchDir dir("pattern_mapping");
    const std::string path = dir.file("weights.bin");
    std::vector<float> bytes(1 << 18, 3.f);  // 1 MiB of 3.0, in the page cache once written
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size() * 4);
    auto file = MappedFile::open(path);
    ASSERT_EQ(resident_kib(file->data()), 0u);

    auto add_of = [&](size_t offset, size_t count) {
        auto g = std::make_unique<TestGraph>();
        auto x = g->input(ElementType::f32, {2, static_cast<int64_t>(count)}, "x");
        auto view = std::make_shared<ViewBuffer>(file, file->data() + offset, count * 4);
        Node c = g->graph().add_constant("c", Tensor(ElementType::f32, {static_cast<int64_t>(count)}, view));
        OutPort add = g->op("Add", {x, c.out(0)}, {}, "add");
        g->output(add, "y");
        test::infer(g->graph());
        return std::pair{std::move(g), add};
    };
    auto plus = [](double v) {
        Pattern p("add");
        p.node("x").node("c", {}, {const_value(v)}).node("add", {"Add"});
        p.edge("x", "add", 0).edge("c", "add", 1);
        return p;
    };
    auto [small_graph, small] = add_of(512 * 1024, 8);
    EXPECT_TRUE(match_pattern(plus(3.0), small.node()));
    EXPECT_FALSE(match_pattern(plus(2.0), small.node()));
    auto [at_limit_graph, at_limit] = add_of(64 * 1024, 4096);
    EXPECT_TRUE(match_pattern(plus(3.0), at_limit.node()));
    auto [large_graph, large] = add_of(0, 4097);
    EXPECT_FALSE(match_pattern(plus(3.0), large.node()));
    EXPECT_EQ(resident_kib(file->data()), 0u);
}

TEST(Pattern, ConstantsMatchByValueOnlyWhenTheyLeaveTheOutputShape) {
    // x + c matched as "x + 3": c may be dropped only if it does not broadcast x to another shape.
    auto plus3 = [] {
        Pattern p("add");
        p.node("x").node("c", {}, {const_value(3.0)}).node("add", {"Add"});
        p.edge("x", "add", 0).edge("c", "add", 1);
        return p;
    };
    auto scalar_c = [] {
        Pattern p("add");
        p.node("x").node("c", {}, {scalar_constant()}).node("add", {"Add"});
        p.edge("x", "add", 0).edge("c", "add", 1);
        return p;
    };
    struct Case {
        PartialShape x;
        Shape c;
        bool value_match, scalar_match;
    };
    const std::vector<Case> cases{
        {PartialShape{2, 3}, {}, true, true},          // the usual scalar
        {PartialShape{2, 3}, {1}, true, true},         // and [1]
        {PartialShape{2, 3}, {1, 1}, true, true},      // same rank
        {PartialShape{2, 3}, {3}, true, false},        // repeated along an existing axis
        {PartialShape{3}, {2, 3}, false, false},       // broadcasts x to [2, 3]
        {PartialShape{3}, {1, 1, 1}, false, false},    // raises the rank
        {PartialShape{}, {1}, false, false},           // a scalar x becomes [1]
        {PartialShape{Dimension(), 2}, {2, 1}, false, false},  // the dynamic dim may be 1
        {PartialShape::dynamic_rank(), {1}, false, false},
        {PartialShape::dynamic_rank(), {}, true, true},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE("x [" + c.x.to_string() + "], c of " + std::to_string(c.c.size()) + " dims");
        TestGraph t;
        auto x = t.input(ElementType::f32, c.x, "x");
        auto add = t.op("Add", {x, t.constant<float>(std::vector<float>(static_cast<size_t>(shape_size(c.c)), 3.f), c.c, "c")},
                        {}, "add");
        t.output(add, "y");
        test::infer(t.graph());
        EXPECT_EQ(match_pattern(plus3(), add.node()).has_value(), c.value_match);
        EXPECT_EQ(match_pattern(scalar_c(), add.node()).has_value(), c.scalar_match);
    }
}

TEST(Pattern, BranchesOverConsumersToFindTheMatchingOne) {
    // x feeds Relu first and Sigmoid second; the pattern walks from x's side to the sigmoid.
    TestGraph t;
    auto x = t.input(ElementType::f32, {4}, "x");
    auto relu = t.op("Relu", {x}, {}, "relu");
    auto sig = t.op("Sigmoid", {x}, {}, "sig");
    t.output(relu, "r");
    t.output(sig, "s");
    Pattern p("x");
    p.node("x", {"Parameter"}).node("act", {"Sigmoid"}).edge("x", "act", 0);
    auto m = match_pattern(p, x.node());
    ASSERT_TRUE(m);
    EXPECT_EQ((*m)["act"], sig.node());
}

class CountingFusion final : public PatternTransformation {
public:
    std::string id() const override { return "TestSiluToSwish"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<Pattern> patterns() const override {
        Pattern swapped = silu();
        swapped.commutative("mul");
        return {silu(), swapped};
    }
    bool apply(const PatternMatch& m, const TransformContext&) override {
        ++applied;
        Node swish = m["x"].graph().add_op("Swish", "swish", {m["x"].out(0)});
        m["mul"].graph().replace(m["mul"], swish);
        return true;
    }
    int applied = 0;
};

// describe(): worked by hand from the pattern of pattern.hpp's header comment, plus a second
// output and a port left open.
TEST(Pattern, DescribeListsEveryNodeWithItsInputsInPortOrder) {
    Pattern p("mul");
    p.node("mul", {"Multiply"}).commutative("mul")
        .node("x")
        .node("sig", {"Sigmoid"}, {consumers(1)})
        .edge("x", "mul", 0).edge("sig", "mul", 1).edge("x", "sig", 0);
    EXPECT_EQ(p.describe(),
              "mul = Multiply(x, sig)  [root, commutative]\n"
              "x = *\n"
              "sig = Sigmoid(x)  [1 condition]\n");
    Pattern q("pad");
    q.node("pad", {"Pad", "Clamp"}).node("split", {"Split", "VariadicSplit"}, {consumers(2), rank(4)}).any_output("split");
    q.edge("split", "pad", 2, 1);
    EXPECT_EQ(q.describe(),
              "pad = Pad|Clamp(_, _, split:1)  [root]\n"
              "split = Split|VariadicSplit  [any output, 2 conditions]\n");
}

TEST(PatternTransformation, RewritesEveryMatchOnce) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {4}, "x");
    auto a = t.op("Multiply", {x, t.op("Sigmoid", {x}, {}, "s1")}, {}, "m1");
    auto b = t.op("Multiply", {t.op("Sigmoid", {a}, {}, "s2"), a}, {}, "m2");  // needs the second alternative
    t.output(b, "y");
    CountingFusion pass;
    EXPECT_TRUE(pass.run(t.graph(), TransformContext{ConversionOptions{}}));
    EXPECT_EQ(pass.applied, 2);
    t->remove_dead_nodes();
    std::map<std::string, int> types;
    for (const Node& n : t->nodes()) ++types[n.type()];
    EXPECT_EQ(types, (std::map<std::string, int>{{"Parameter", 1}, {"Result", 1}, {"Swish", 2}}));
    EXPECT_FALSE(pass.run(t.graph(), TransformContext{ConversionOptions{}}));
}

// Relu -> Sigmoid becomes Tanh -> Sigmoid (the Relu replaced for all its readers); Tanh ->
// Sigmoid is counted. The second alternative names Tanh, which no node has until the first one
// rewrites: it must still be tried on the Sigmoids offered after that.
class RewriteThenMatch final : public PatternTransformation {
public:
    std::string id() const override { return "TestRewriteThenMatch"; }
    Phase phase() const override { return Phase::Middle; }
    std::vector<Pattern> patterns() const override {
        Pattern relu("sig");
        relu.node("act", {"Relu"}).node("sig", {"Sigmoid"}).edge("act", "sig", 0);
        Pattern tanh("sig");
        tanh.node("act", {"Tanh"}).node("sig", {"Sigmoid"}).edge("act", "sig", 0);
        return {relu, tanh};
    }
    bool apply(const PatternMatch& m, const TransformContext&) override {
        const Node act = m["act"];
        if (act.is("Tanh")) {
            ++after_tanh;
            return true;
        }
        Graph& g = act.graph();
        g.replace(act, g.add_op("Tanh", act.name() + "/tanh", {act.in(0).src()}));
        return true;
    }
    int after_tanh = 0;
};

TEST(PatternTransformation, AnAlternativeNamingAnAbsentOpIsTriedOnceARewriteAddsIt) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {4}, "x");
    auto r = t.op("Relu", {x}, {}, "r");
    t.output(t.op("Sigmoid", {r}, {}, "s1"), "y1");
    t.output(t.op("Sigmoid", {r}, {}, "s2"), "y2");
    RewriteThenMatch pass;
    EXPECT_TRUE(pass.run(t.graph(), TransformContext{ConversionOptions{}}));
    EXPECT_EQ(pass.after_tanh, 1);  // s1 rewrote the Relu, s2 then read the Tanh
}

}  // namespace
}  // namespace mo
