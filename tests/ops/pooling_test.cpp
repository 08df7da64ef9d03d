// Shape inference and evaluation of MaxPool-8 and AvgPool-1 against hand-computed results.
#include <gtest/gtest.h>

#include "core/graph.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
using Ints = std::vector<int64_t>;
constexpr auto f32 = ElementType::f32;

using test::inferred;

AttrMap pool_attrs(Ints kernel, Ints strides, Ints pads_begin, Ints pads_end, std::string rounding = "floor",
                   std::string auto_pad = "explicit") {
    return {{"kernel", kernel}, {"strides", strides}, {"pads_begin", pads_begin}, {"pads_end", pads_end},
            {"rounding_type", rounding}, {"auto_pad", auto_pad}};
}

AttrMap avg_attrs(Ints kernel, Ints strides, Ints pads_begin, Ints pads_end, bool exclude_pad,
                  std::string rounding = "floor") {
    auto a = pool_attrs(kernel, strides, pads_begin, pads_end, rounding);
    a["exclude-pad"] = exclude_pad;
    return a;
}

std::vector<float> values(const Tensor& t) { return test::values<float>(t); }
using test::iota;

TEST(PoolingOps, FloorAndCeilRounding) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 3, 5, 5});
    Node floor_pool = b.node("MaxPool", {x}, pool_attrs({2, 2}, {2, 2}, {0, 0}, {0, 0}));
    Node ceil_pool = b.node("MaxPool", {x}, pool_attrs({2, 2}, {2, 2}, {0, 0}, {0, 0}, "ceil"));
    Node avg = b.node("AvgPool", {x}, avg_attrs({3, 3}, {2, 2}, {0, 0}, {0, 0}, true, "ceil"));
    EXPECT_EQ(inferred(floor_pool).to_string(), "1,3,2,2");
    EXPECT_EQ(inferred(ceil_pool).to_string(), "1,3,3,3");
    EXPECT_EQ(inferred(ceil_pool, 1).to_string(), "1,3,3,3");
    EXPECT_EQ(ceil_pool.out(1).type(), ElementType::i64);
    EXPECT_EQ(inferred(avg).to_string(), "1,3,2,2");  // ceil((5 - 3) / 2) + 1
}

TEST(PoolingOps, AutoPadDilationsAndIndexType) {
    GraphBuilder b;
    auto x = b.input(f32, {1, 3, 5, 6});
    Node same = b.node("MaxPool", {x}, pool_attrs({3, 3}, {2, 2}, {}, {}, "floor", "same_upper"));
    EXPECT_EQ(inferred(same).to_string(), "1,3,3,3");
    AttrMap dilated = pool_attrs({2, 2}, {1, 1}, {0, 0}, {0, 0});
    dilated["dilations"] = Ints{2, 3};
    dilated["index_element_type"] = ElementType::i32;
    Node d = b.node("MaxPool", {x}, dilated);
    EXPECT_EQ(inferred(d).to_string(), "1,3,3,3");  // effective kernel 3 x 4
    EXPECT_EQ(d.out(1).type(), ElementType::i32);
    Node valid = b.node("AvgPool", {x}, [] {
        auto a = avg_attrs({2, 2}, {2, 2}, {1, 1}, {1, 1}, false);
        a["auto_pad"] = std::string("valid");
        return a;
    }());
    EXPECT_EQ(inferred(valid).to_string(), "1,3,2,3");
}

TEST(PoolingOps, DynamicBatchIntervalsAndDynamicRank) {
    GraphBuilder b;
    Node p = b.node("MaxPool", {b.input(f32, PartialShape{Dimension(), 8, Dimension(4, 8), 7})},
                    pool_attrs({2, 2}, {2, 2}, {0, 0}, {0, 0}));
    EXPECT_EQ(inferred(p).to_string(), "?,8,2..4,3");
    Node r = b.node("AvgPool", {b.input(f32, PartialShape::dynamic_rank())}, avg_attrs({2, 2}, {2, 2}, {0, 0}, {0, 0}, true));
    EXPECT_EQ(inferred(r).to_string(), "?,?,?,?");
    Node bad = b.node("MaxPool", {b.input(f32, {1, 3, 8})}, pool_attrs({2, 2}, {2, 2}, {0, 0}, {0, 0}));
    EXPECT_THROW(inferred(bad), Error);
}

TEST(PoolingOps, EvaluatesStridedPaddedMaxPoolWithIndices) {
    GraphBuilder b;
    Node p = b.node("MaxPool", {b.input(f32, {1, 2, 4, 4})}, pool_attrs({3, 3}, {2, 2}, {1, 1}, {1, 1}));
    std::vector<float> x = iota(16);  // channel 0: 1..16
    for (int i = 0; i < 16; ++i) x.push_back(-static_cast<float>(i + 1));  // channel 1: -1..-16
    auto out = p.op().eval(p, {Tensor::from_vector<float>(x, {1, 2, 4, 4})});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), (Shape{1, 2, 2, 2}));
    // Windows cover rows/cols {-1..1} and {1..3}: maxima sit at their bottom-right corners in
    // channel 0 and at their top-left in-bounds corners in channel 1.
    EXPECT_EQ(values(out[0]), (std::vector<float>{6, 8, 14, 16, -1, -2, -5, -6}));
    ASSERT_EQ(out[1].type(), ElementType::i64);
    const int64_t* idx = out[1].data<int64_t>();
    EXPECT_EQ(std::vector<int64_t>(idx, idx + 8), (std::vector<int64_t>{5, 7, 13, 15, 16, 17, 20, 21}));

    AttrMap per_plane = pool_attrs({3, 3}, {2, 2}, {1, 1}, {1, 1});
    per_plane["axis"] = int64_t{2};
    Node q = b.node("MaxPool", {b.input(f32, {1, 2, 4, 4})}, per_plane);
    auto planes = q.op().eval(q, {Tensor::from_vector<float>(x, {1, 2, 4, 4})});
    const int64_t* pidx = planes[1].data<int64_t>();
    EXPECT_EQ(std::vector<int64_t>(pidx, pidx + 8), (std::vector<int64_t>{5, 7, 13, 15, 0, 1, 4, 5}));
}

TEST(PoolingOps, EvaluatesAvgPoolWithAndWithoutPadding) {
    GraphBuilder b;
    Tensor x = Tensor::from_vector<float>(iota(9), {1, 1, 3, 3});
    Node plain = b.node("AvgPool", {b.input(f32, {1, 1, 3, 3})}, avg_attrs({2, 2}, {1, 1}, {0, 0}, {0, 0}, true));
    EXPECT_EQ(values(plain.op().eval(plain, {x})[0]), (std::vector<float>{3, 4, 6, 7}));
    Node excl = b.node("AvgPool", {b.input(f32, {1, 1, 3, 3})}, avg_attrs({3, 3}, {2, 2}, {1, 1}, {1, 1}, true));
    Node incl = b.node("AvgPool", {b.input(f32, {1, 1, 3, 3})}, avg_attrs({3, 3}, {2, 2}, {1, 1}, {1, 1}, false));
    // Window 0 covers 1, 2, 4, 5 inside the image and 5 padded positions.
    EXPECT_EQ(values(excl.op().eval(excl, {x})[0]), (std::vector<float>{3, 4, 6, 7}));
    auto with_pads = values(incl.op().eval(incl, {x})[0]);
    std::vector<float> expected{12.f / 9, 16.f / 9, 24.f / 9, 28.f / 9};
    ASSERT_EQ(with_pads.size(), 4u);
    for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(with_pads[i], expected[i]);
}

TEST(PoolingOps, CeilWindowOverhangIsNotCountedAsPadding) {
    GraphBuilder b;
    // 1D: input 1..5, kernel 2, stride 2, ceil: the last window holds only 5.
    Node p = b.node("AvgPool", {b.input(f32, {1, 1, 5})}, avg_attrs({2}, {2}, {0}, {0}, false, "ceil"));
    EXPECT_EQ(values(p.op().eval(p, {Tensor::from_vector<float>(iota(5), {1, 1, 5})})[0]),
              (std::vector<float>{1.5f, 3.5f, 5.f}));
}

}  // namespace
}  // namespace mo
