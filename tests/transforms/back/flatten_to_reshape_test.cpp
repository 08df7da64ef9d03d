#include "transforms/back/flatten_to_reshape.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

std::string lowered(PartialShape shape, int64_t axis) {
    TestGraph t;
    auto x = t.input(ElementType::f32, shape, "x");
    t.output(t.op("Flatten", {x}, {{"axis", AttrValue(axis)}}, "f"), "out");
    test::infer(t.graph());
    FlattenToReshape pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));
    return test::dump(t.graph());
}

std::string reshape_to(PartialShape shape, std::vector<int64_t> target) {
    TestGraph e;
    auto x = e.input(ElementType::f32, shape, "x");
    e.output(e.op("Reshape", {x, e.constant<int64_t>(target, {2}, "f/shape")}, {{"special_zero", AttrValue(false)}}, "f"), "out");
    return test::dump(e.graph());
}

TEST(FlattenToReshape, ConstantTargetWhenAtMostOneSideIsDynamic) {
    EXPECT_EQ(lowered({2, 3, 4}, 1), reshape_to({2, 3, 4}, {2, 12}));
    EXPECT_EQ(lowered({2, 3, 4}, 0), reshape_to({2, 3, 4}, {1, 24}));
    EXPECT_EQ(lowered({2, 3, 4}, -1), reshape_to({2, 3, 4}, {6, 4}));
    EXPECT_EQ(lowered({Dimension(), 3, 4}, 1), reshape_to({Dimension(), 3, 4}, {-1, 12}));
    EXPECT_EQ(lowered({2, Dimension(1, 5), 4}, 1), reshape_to({2, Dimension(1, 5), 4}, {2, -1}));
}

TEST(FlattenToReshape, ShapeOfSubgraphWhenBothSidesAreDynamic) {
    TestGraph t;
    auto x = t.input(ElementType::f32, {Dimension(), 3, Dimension()}, "x");
    t.output(t.op("Flatten", {x}, {{"axis", AttrValue(int64_t{2})}}, "f"), "out");
    test::infer(t.graph());
    FlattenToReshape pass;
    EXPECT_TRUE(test::run_pass(pass, t.graph()));

    TestGraph e;
    auto ex = e.input(ElementType::f32, {Dimension(), 3, Dimension()}, "x");
    auto shape = e.op("ShapeOf", {ex}, {}, "f/ShapeOf");
    auto part = [&](const std::string& p, int64_t begin, int64_t end) {
        auto i64 = [&](const std::string& s, int64_t v) { return e.constant<int64_t>({v}, {1}, "f/" + p + s); };
        auto slice = e.op("Slice", {shape, i64("_begin", begin), i64("_end", end), i64("_step", 1), i64("_axes", 0)}, {},
                          "f/" + p + "_dims");
        return e.op("ReduceProd", {slice, i64("_reduce_axes", 0)}, {{"keep_dims", AttrValue(true)}}, "f/" + p);
    };
    auto target = e.op("Concat", {part("outer", 0, 2), part("inner", 2, std::numeric_limits<int64_t>::max())},
                       {{"axis", AttrValue(int64_t{0})}}, "f/shape");
    e.output(e.op("Reshape", {ex, target}, {{"special_zero", AttrValue(false)}}, "f"), "out");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));

    // [2, 3, 5] flattened at 2 is [6, 5]
    std::vector<float> v(30);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
    auto y = test::evaluate(t.graph(), {{"x", Tensor::from_vector<float>(v, {2, 3, 5})}}).at(0);
    EXPECT_EQ(y.shape(), (Shape{6, 5}));
    EXPECT_EQ(y.to_f64()[29], 29.0);
}

}  // namespace
}  // namespace mo
