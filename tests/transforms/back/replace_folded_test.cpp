#include "transforms/back/replace_folded_with_constants.hpp"
#include "transforms/back/remove_dead_nodes.hpp"

#include <gtest/gtest.h>

#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

TEST(ReplaceFoldedWithConstants, ReplacesTheFrontierOfFoldedSubgraphs) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2}, "x");
    auto sum = t.op("Add", {t.constant<float>({1, 2}, {2}, "a"), t.constant<float>({3, 4}, {2}, "b")}, {}, "sum");
    auto scaled = t.op("Multiply", {sum, t.constant<float>({2}, {}, "two")}, {}, "scaled");
    scaled.names().push_back("s");
    t.output(t.op("Add", {x, scaled}, {}, "y"), "out");
    t.output(t.op("Relu", {sum}, {}, "folded_out"), "out2");
    test::infer(t.graph());
    ReplaceFoldedWithConstants pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));

    TestGraph e;
    auto ex = e.input(ElementType::f32, {2}, "x");
    auto c = e.constant<float>({8, 12}, {2}, "scaled");
    c.names().push_back("s");
    e.output(e.op("Add", {ex, c}, {}, "y"), "out");
    e.output(e.constant<float>({4, 6}, {2}, "folded_out"), "out2");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
    EXPECT_EQ(t->find_by_name("scaled").fused_names(), std::vector<std::string>{"scaled"});
}

TEST(ReplaceFoldedWithConstants, NothingFoldedIsUnchanged) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2}, "x");
    t.output(t.op("Add", {x, t.constant<float>({1, 2}, {2}, "a")}, {}, "y"), "out");
    test::infer(t.graph());
    std::string before = test::dump(t.graph());
    ReplaceFoldedWithConstants pass;
    EXPECT_FALSE(test::run_pass(pass, t.graph()));
    EXPECT_EQ(test::dump(t.graph()), before);
}

TEST(RemoveDeadNodes, RemovesWhatNoResultNeeds) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2}, "x");
    t.output(t.op("Relu", {x}, {}, "live"), "out");
    t.op("Relu", {t.op("Relu", {x}, {}, "dead1")}, {}, "dead2");
    RemoveDeadNodes pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));
    EXPECT_FALSE(test::run_pass(pass, t.graph()));
    TestGraph e;
    e.output(e.op("Relu", {e.input(ElementType::f32, {2}, "x")}, {}, "live"), "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
}

}  // namespace
}  // namespace mo
