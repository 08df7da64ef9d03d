#include "transforms/back/normalize_axes.hpp"

#include <gtest/gtest.h>

#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

TEST(NormalizeAxes, AttributesAndConstantInputs) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2, 3, 4}, "x");
    t.output(t.op("Softmax", {x}, {{"axis", AttrValue(int64_t{-1})}}, "sm"), "o1");
    t.output(t.op("ReduceMean", {x, t.constant<int64_t>({-1, 0}, {2}, "rm_axes")}, {}, "rm"), "o2");
    t.output(t.op("Unsqueeze", {x, t.constant<int32_t>({-1}, {1}, "uq_axes")}, {}, "uq"), "o3");
    auto shared = t.constant<int64_t>({-2}, {}, "shared");
    t.output(t.op("Gather", {x, t.constant<int64_t>({0}, {1}, "idx"), shared}, {}, "ga"), "o4");
    t.output(t.op("Squeeze", {t.input(ElementType::f32, {2, 1, 4}, "x1"), shared}, {}, "sq"), "o5");
    test::infer(t.graph());
    NormalizeAxes pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));
    t->remove_dead_nodes();

    TestGraph e;
    auto ex = e.input(ElementType::f32, {2, 3, 4}, "x");
    e.output(e.op("Softmax", {ex}, {{"axis", AttrValue(int64_t{2})}}, "sm"), "o1");
    e.output(e.op("ReduceMean", {ex, e.constant<int64_t>({2, 0}, {2}, "rm_axes")}, {}, "rm"), "o2");
    // Unsqueeze counts the output rank: -1 of rank 4 is 3.
    e.output(e.op("Unsqueeze", {ex, e.constant<int32_t>({3}, {1}, "uq_axes")}, {}, "uq"), "o3");
    e.output(e.op("Gather", {ex, e.constant<int64_t>({0}, {1}, "idx"), e.constant<int64_t>({1}, {}, "shared/normalized")}, {}, "ga"), "o4");
    // The last user of the shared constant gets it rewritten in place (same name).
    e.output(e.op("Squeeze", {e.input(ElementType::f32, {2, 1, 4}, "x1"), e.constant<int64_t>({1}, {}, "shared")}, {}, "sq"), "o5");
    std::string got = test::dump(t.graph()), want = test::dump(e.graph());
    EXPECT_EQ(got, want);
    EXPECT_EQ(t->find_by_name("uq_axes").out(0).type(), ElementType::i32);
}

TEST(NormalizeAxes, LeavesNonNegativeAndDynamicRankAlone) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {2, 3}, "x");
    auto d = t.input(ElementType::f32, PartialShape::dynamic_rank(), "d");
    t.output(t.op("Softmax", {x}, {{"axis", AttrValue(int64_t{1})}}, "sm"), "o1");
    t.output(t.op("LogSoftmax", {d}, {{"axis", AttrValue(int64_t{-1})}}, "lsm"), "o2");
    t.output(t.op("ReduceMean", {d, t.constant<int64_t>({-1}, {1}, "axes")}, {}, "rm"), "o3");
    t.output(t.op("ReduceMean", {x, t.input(ElementType::i64, {1}, "axes_in")}, {}, "rm2"), "o4");
    test::infer(t.graph());
    std::string before = test::dump(t.graph());
    NormalizeAxes pass;
    EXPECT_FALSE(test::run_pass(pass, t.graph()));
    EXPECT_EQ(test::dump(t.graph()), before);
}

}  // namespace
}  // namespace mo
