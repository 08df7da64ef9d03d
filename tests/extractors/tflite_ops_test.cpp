// TFLite slicing, splitting, gathering and rearranging ops on one NHWC input, against values
// computed here from TensorFlow's definitions of each op.
#include <gtest/gtest.h>

#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/tflite_model_builder.hpp"
#include "core/evaluator.hpp"

namespace mo {
namespace {

using tflite::BuiltinOperator;
using Options = std::pair<tflite::BuiltinOptions, flatbuffers::Offset<void>>;

// `m` saved as `file` and converted, f32 weights unless `f16`: the IR read back.
std::unique_ptr<Graph> converted(const test::TfliteModelBuilder& m, const std::string& file, bool f16 = false) {
    test::ScratchDir dir{"tflite_ops_ir"};
    return test::convert_to_ir(m.save(file), dir, f16);
}

// x[0, h, w, c], h, w < 2, c < 4: distinct values with no order along any axis.
float xv(int h, int w, int c) { return static_cast<float>(((h * 2 + w) * 4 + c) * 7 % 16) - 5.f; }

TEST(TfliteOps, SlicingSplittingGatheringAndRearranging) {
    test::TfliteModelBuilder m;
    int x = m.input("x", {1, 2, 2, 4});
    int d2s = m.tensor("d2s", {1, 4, 4, 1});
    m.op(BuiltinOperator::DEPTH_TO_SPACE, {x}, {d2s}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::DepthToSpaceOptions, tflite::CreateDepthToSpaceOptions(fb, 2).Union()};
    });
    int ss = m.tensor("strided", {1, 2, 1, 2});  // x[:, :, 1:, ::2]
    m.op(BuiltinOperator::STRIDED_SLICE,
         {x, m.constant_i32("b", {4}, {0, 0, 1, 0}), m.constant_i32("e", {4}, {0, 0, 2, 4}),
          m.constant_i32("s", {4}, {1, 1, 1, 2})},
         {ss}, [](auto& fb) {
             return Options{tflite::BuiltinOptions::StridedSliceOptions,
                            tflite::CreateStridedSliceOptions(fb, 0b0011, 0b0011).Union()};
         });
    int am = m.tensor("argmax", {1, 2, 2}, tflite::TensorType::INT64);
    m.op(BuiltinOperator::ARG_MAX, {x, m.constant_i32("axis", {1}, {3})}, {am}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::ArgMaxOptions,
                       tflite::CreateArgMaxOptions(fb, tflite::TensorType::INT64).Union()};
    });
    int s0 = m.tensor("split0", {1, 2, 2, 2}), s1 = m.tensor("split1", {1, 2, 2, 2});
    m.op(BuiltinOperator::SPLIT, {m.constant_i32("split_axis", {}, {3}), x}, {s0, s1}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::SplitOptions, tflite::CreateSplitOptions(fb, 2).Union()};
    });
    int g = m.tensor("gather", {1, 2, 2, 2});
    m.op(BuiltinOperator::GATHER, {x, m.constant_i32("idx", {2}, {3, 0})}, {g}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::GatherOptions, tflite::CreateGatherOptions(fb, 3).Union()};
    });
    int gnd = m.tensor("gather_nd", {2, 4});
    m.op(BuiltinOperator::GATHER_ND, {x, m.constant_i32("nd", {2, 3}, {0, 1, 1, 0, 0, 0})}, {gnd});
    int cast = m.tensor("cast", {1, 2, 2, 4}, tflite::TensorType::INT32);
    m.op(BuiltinOperator::CAST, {x}, {cast});
    for (int t : {d2s, ss, am, s1, g, gnd, cast}) m.output(t);
    const std::string path = m.save("ops.tflite");

    test::ScratchDir out{"tflite_ops"};
    auto ir = test::convert_to_ir(path, out, false);
    std::vector<float> input;
    for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 2; ++w)
            for (int c = 0; c < 4; ++c) input.push_back(xv(h, w, c));
    auto r = evaluate(*ir, {Tensor::from_vector<float>(input, {1, 2, 2, 4})});
    ASSERT_EQ(r.size(), 7u);

    // DepthToSpace: out[h * 2 + i, w * 2 + j] = x[h, w, i * 2 + j].
    std::vector<double> want;
    for (int oh = 0; oh < 4; ++oh)
        for (int ow = 0; ow < 4; ++ow) want.push_back(xv(oh / 2, ow / 2, (oh % 2) * 2 + ow % 2));
    EXPECT_EQ(r[0].to_f64(), want);
    // x[:, :, 1:, ::2]
    want.clear();
    for (int h = 0; h < 2; ++h)
        for (int c : {0, 2}) want.push_back(xv(h, 1, c));
    EXPECT_EQ(r[1].to_f64(), want);
    // argmax over channels
    std::vector<int64_t> arg;
    for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 2; ++w) {
            int best = 0;
            for (int c = 1; c < 4; ++c)
                if (xv(h, w, c) > xv(h, w, best)) best = c;
            arg.push_back(best);
        }
    EXPECT_EQ(r[2].to_i64(), arg);
    // the second half of the channels; channels 3 and 0
    std::vector<double> half, gathered;
    for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 2; ++w) {
            half.insert(half.end(), {xv(h, w, 2), xv(h, w, 3)});
            gathered.insert(gathered.end(), {xv(h, w, 3), xv(h, w, 0)});
        }
    EXPECT_EQ(r[3].to_f64(), half);
    EXPECT_EQ(r[4].to_f64(), gathered);
    // gather_nd of x[0, 1, 1, :] and x[0, 0, 0, :]
    want.clear();
    for (int c = 0; c < 4; ++c) want.push_back(xv(1, 1, c));
    for (int c = 0; c < 4; ++c) want.push_back(xv(0, 0, c));
    EXPECT_EQ(r[5].to_f64(), want);
    // cast to int32 truncates toward zero
    EXPECT_EQ(r[6].type(), ElementType::i32);
    std::vector<int64_t> truncated;
    for (float v : input) truncated.push_back(static_cast<int64_t>(v));
    EXPECT_EQ(r[6].to_i64(), truncated);
}

// x [1, 4] -> FULLY_CONNECTED with DENSIFY(sparse weights [4, 4]) -> y = x W^T.
std::vector<double> sparse_matmul(const test::TfliteModelBuilder::SparseDim& d0, const test::TfliteModelBuilder::SparseDim& d1,
                                  const std::vector<float>& values, std::vector<int32_t> order, std::vector<int32_t> block_map,
                                  std::vector<test::TfliteModelBuilder::SparseDim> blocks = {}) {
    test::TfliteModelBuilder m;
    int x = m.input("x", {1, 4});
    std::vector<test::TfliteModelBuilder::SparseDim> dims{d0, d1};
    dims.insert(dims.end(), blocks.begin(), blocks.end());
    int sparse = m.sparse_constant("w_sparse", {4, 4}, values, order, block_map, dims);
    int w = m.tensor("w", {4, 4});
    m.op(BuiltinOperator::DENSIFY, {sparse}, {w});
    int y = m.tensor("y", {1, 4});
    m.op(BuiltinOperator::FULLY_CONNECTED, {x, w, -1}, {y});
    m.output(y);
    auto ir = converted(m, "densify.tflite");
    return evaluate(*ir, {Tensor::from_vector<float>({1, 10, 100, 1000}, {1, 4})}).at(0).to_f64();
}

TEST(TfliteOps, DensifyCsrAndBlockSparseWeights) {
    // Rows in CSR: row 0 has (0, 1) = 2; row 1 nothing; row 2 (2, 0) = 3 and (2, 3) = 4; row 3 (3, 2) = 5.
    // y[o] = sum_k x[k] W[o][k] with x = 1, 10, 100, 1000.
    EXPECT_EQ(sparse_matmul({4, {}, {}}, {0, {0, 1, 1, 3, 4}, {1, 0, 3, 2}}, {2, 3, 4, 5}, {0, 1}, {}),
              (std::vector<double>{20, 0, 4003, 500}));
    // 2x2 blocks, block rows in CSR: block (0, 0) = [[1, 2], [3, 4]], block (1, 1) = [[5, 6], [7, 8]].
    EXPECT_EQ(sparse_matmul({2, {}, {}}, {0, {0, 1, 2}, {0, 1}}, {1, 2, 3, 4, 5, 6, 7, 8}, {0, 1, 2, 3}, {0, 1},
                            {{2, {}, {}}, {2, {}, {}}}),
              (std::vector<double>{21, 43, 6500, 8700}));
    // A segment past the indices, and more values than the metadata addresses.
    try {
        sparse_matmul({4, {}, {}}, {0, {0, 1, 1, 3, 9}, {1, 0, 3, 2}}, {2, 3, 4, 5}, {0, 1}, {});
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("corrupt sparse tensor"), std::string::npos) << e.what();
    }
    EXPECT_THROW(sparse_matmul({4, {}, {}}, {0, {0, 1, 1, 3, 4}, {1, 0, 3, 2}}, {2, 3, 4, 5, 6}, {0, 1}, {}), Error);
}

// A few stored values whose dense shape is 4 TiB: refused before anything is allocated.
TEST(TfliteOps, DensifyBeyondMaxConstantSizeIsAnError) {
    test::TfliteModelBuilder m;
    int x = m.input("x", {1});
    const int32_t huge = 1 << 20;
    int sparse = m.sparse_constant("w_sparse", {huge, huge}, {1.f}, {0, 1}, {}, {{huge, {}, {}}, {0, {0, 1}, {0}}});
    int w = m.tensor("w", {huge, huge});
    m.op(BuiltinOperator::DENSIFY, {sparse}, {w});
    int y = m.tensor("y", {huge, huge});
    m.op(BuiltinOperator::ADD, {x, w}, {y});
    m.output(y);
    test::ScratchDir dir{"densify_huge"};
    test::expect_error([&] { test::convert_to_ir(m.save("densify_huge.tflite"), dir, true); }, {"w_sparse", "densifies to 1099511627776 elements, more than --max_constant_size"});
}

// Found by an audit: a DENSE dimension of 2^31 - 1 over a [1, 1, 1] shape (and a last dimension
// of 0) walked 2^62 empty loops; the sizes and CSR indices are now checked against the shape.
TEST(TfliteOps, DensifyMetadataBeyondTheShapeIsAnError) {
    test::TfliteModelBuilder m;
    int x = m.input("x", {1, 1, 1});
    int sparse = m.sparse_constant("w_sparse", {1, 1, 1}, {1.f}, {0, 1, 2}, {},
                                   {{INT32_MAX, {}, {}}, {INT32_MAX, {}, {}}, {0, {}, {}}});
    int w = m.tensor("w", {1, 1, 1});
    m.op(BuiltinOperator::DENSIFY, {sparse}, {w});
    int y = m.tensor("y", {1, 1, 1});
    m.op(BuiltinOperator::ADD, {x, w}, {y});
    m.output(y);
    test::ScratchDir dir{"densify_dense_size"};
    test::expect_error([&] { test::convert_to_ir(m.save("densify_dense_size.tflite"), dir, true); },
                       {"w_sparse", "corrupt sparse tensor: dim_metadata[0] has dense_size 2147483647, the shape makes "
                                    "it 1"});
    auto expect_corrupt = [](const test::TfliteModelBuilder::SparseDim& d1, const char* what) {
        test::expect_error([&] { sparse_matmul({4, {}, {}}, d1, {2.f}, {0, 1}, {}); }, {"w_sparse", what});
    };
    expect_corrupt({0, {0, 1, 1, 1, 1}, {9}}, "dim_metadata[1] has index 9, outside its extent 4");
    expect_corrupt({0, {0, 1, 0, 1, 1}, {1}}, "dim_metadata[1]'s array_segments are not ascending");
}

// x [3, 4] -> UNPACK(num, axis 0) -> `outputs` tensors [4].
test::TfliteModelBuilder unpack_model(int32_t num, int outputs, std::vector<int32_t> shape = {3, 4}) {
    test::TfliteModelBuilder m;
    int x = m.input("x", std::move(shape));
    std::vector<int32_t> ys;
    for (int j = 0; j < outputs; ++j) ys.push_back(m.tensor("y" + std::to_string(j), {4}));
    m.op(BuiltinOperator::UNPACK, {x}, ys, [num](auto& fb) {
        return Options{tflite::BuiltinOptions::UnpackOptions, tflite::CreateUnpackOptions(fb, num, 0).Union()};
    });
    for (int y : ys) m.output(y);
    return m;
}

// Converting `m` fails with every fragment in the message.
void expect_conversion_error(const test::TfliteModelBuilder& m, std::initializer_list<const char*> fragments) {
    test::ScratchDir dir{"tflite_ops_bad"};
    test::expect_error([&] { test::convert_to_ir(m.save("bad_op.tflite"), dir, true); }, fragments);
}

// Found by an audit: UNPACK with num -1 was a std::length_error and with fewer parts than
// outputs an internal error; PACK and CONCATENATION of nothing crashed in constant folding.
TEST(TfliteOps, UnpackPackAndConcatenationCheckTheirCounts) {
    expect_conversion_error(unpack_model(1, 3), {"node 'y0' (UNPACK", "num is 1 but the operator has 3 outputs"});
    expect_conversion_error(unpack_model(-1, 1), {"num is -1 but the operator has 1 outputs"});
    expect_conversion_error(unpack_model(3, 3, {2, 4}), {"num is 3 but the input has 2 entries along axis 0"});
    for (auto code : {BuiltinOperator::PACK, BuiltinOperator::CONCATENATION}) {
        test::TfliteModelBuilder m;
        int y = m.tensor("y", {1});
        m.op(code, {}, {y});
        m.output(y);
        expect_conversion_error(m, {"node 'y'", "the node has no inputs"});
    }
    // ARG_MAX to another type than INT32 or INT64.
    test::TfliteModelBuilder m;
    int x = m.input("x", {1, 4});
    int am = m.tensor("argmax", {1}, tflite::TensorType::BOOL);
    m.op(BuiltinOperator::ARG_MAX, {x, m.constant_i32("axis", {1}, {1})}, {am}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::ArgMaxOptions,
                       tflite::CreateArgMaxOptions(fb, tflite::TensorType::BOOL).Union()};
    });
    m.output(am);
    expect_conversion_error(m, {"node 'argmax' (ARG_MAX", "output_type is 6; it must be INT32 (2) or INT64 (4)"});
    // A good UNPACK.
    test::ScratchDir dir{"tflite_unpack"};
    auto ir = test::convert_to_ir(unpack_model(3, 3).save("unpack.tflite"), dir, true);  // mo's default flags
    auto r = evaluate(*ir, {Tensor::from_vector<float>(test::iota(12, 0), {3, 4})});
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[1].to_f64(), (std::vector<double>{4, 5, 6, 7}));
}

// TensorFlow's conv2d_transpose of a 2x2 input of ones with a 3x3 kernel of ones at stride 2:
// each input pixel adds the kernel at (2i - pad_before, 2j - pad_before), so an output value
// counts the windows covering it. SAME to 4x4: pad 1, all of it behind; VALID: the full 5x5.
std::vector<double> transposed_ones(int out, int pad_before) {
    auto cover = [&](int r) {
        int n = 0;
        for (int i = 0; i < 2; ++i) n += r >= 2 * i - pad_before && r < 2 * i - pad_before + 3;
        return n;
    };
    std::vector<double> v;
    for (int r = 0; r < out; ++r)
        for (int c = 0; c < out; ++c) v.push_back(cover(r) * cover(c));
    return v;
}

// Found by an audit of TFLite's semantics, each an IR that converted with exit 0 and computed
// something else: integer DIV floored, a 1-D PRELU alpha went along axis 1 when H == C, absent
// LEAKY_RELU alpha and SOFTMAX beta read as 0.2 and 1 (the schema's defaults are 0), and
// STRIDED_SLICE's offset added the begin before resolving it.
TEST(TfliteOps, DivPreluDefaultsAndStridedSliceOffset) {
    test::TfliteModelBuilder m;
    int a = m.input("a", {4}, tflite::TensorType::INT32), b = m.input("b", {4}, tflite::TensorType::INT32);
    int x = m.input("x", {1, 3, 2, 3});  // H == C == 3
    int v = m.input("v", {5});
    int div = m.tensor("div", {4}, tflite::TensorType::INT32);
    m.op(BuiltinOperator::DIV, {a, b}, {div});
    int prelu = m.tensor("prelu", {1, 3, 2, 3});
    m.op(BuiltinOperator::PRELU, {x, m.constant("alpha", {3}, {0.1f, 0.2f, 0.3f})}, {prelu});
    int leaky = m.tensor("leaky", {5});
    m.op(BuiltinOperator::LEAKY_RELU, {v}, {leaky}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::LeakyReluOptions, tflite::CreateLeakyReluOptions(fb).Union()};
    });
    int softmax = m.tensor("softmax", {5});
    m.op(BuiltinOperator::SOFTMAX, {v}, {softmax}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::SoftmaxOptions, tflite::CreateSoftmaxOptions(fb).Union()};
    });
    auto offset_slice = [&](const char* name, int32_t begin, int32_t end, int32_t begin_mask) {
        const std::string n(name);
        int y = m.tensor(name, {2});
        m.op(BuiltinOperator::STRIDED_SLICE,
             {v, m.constant_i32(n + "_b", {1}, {begin}), m.constant_i32(n + "_e", {1}, {end}), m.constant_i32(n + "_s", {1}, {1})},
             {y}, [begin_mask](auto& fb) {
                 return Options{tflite::BuiltinOptions::StridedSliceOptions,
                                tflite::CreateStridedSliceOptions(fb, begin_mask, 0, 0, 0, 0, true).Union()};
             });
        return y;
    };
    int from_end = offset_slice("from_end", -2, 2, 0);     // v[3:5]
    int masked = offset_slice("masked", 3, 2, 1);          // begin masked to 0: v[0:2]
    for (int t : {div, prelu, leaky, softmax, from_end, masked}) m.output(t);
    auto ir = converted(m, "semantics.tflite");
    std::vector<float> xs(18);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = -1.f - static_cast<float>(i);
    auto r = evaluate(*ir, {Tensor::from_vector<int32_t>({-7, 7, -1, 5}, {4}), Tensor::from_vector<int32_t>({2, -2, 3, 3}, {4}),
                            Tensor::from_vector<float>(xs, {1, 3, 2, 3}), Tensor::from_vector<float>({-2, -1, 0, 1, 2}, {5})});
    ASSERT_EQ(r.size(), 6u);
    EXPECT_EQ(r[0].to_f64(), (std::vector<double>{-3, -3, 0, 1}));  // C++ division truncates
    const auto p = r[1].to_f64();
    for (size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(p[i], xs[i] * (0.1 * static_cast<double>(i % 3 + 1)), 1e-6) << i;
    EXPECT_EQ(r[2].to_f64(), (std::vector<double>{0, 0, 0, 1, 2}));  // alpha 0
    for (double s : r[3].to_f64()) EXPECT_NEAR(s, 0.2, 1e-6);         // beta 0: uniform
    EXPECT_EQ(r[4].to_f64(), (std::vector<double>{1, 2}));
    EXPECT_EQ(r[5].to_f64(), (std::vector<double>{-2, -1}));
}

// QUANTIZE was the output's FakeQuantize alone, which rounds exact ties half to even: 0.5 became
// 0 where TFLite's AffineQuantize gives 1, and a requantization by 2 sent 1 to 0 where TFLite's
// fixed-point multiplier gives 1 (half up).
TEST(TfliteOps, QuantizeRoundsTiesAsTflite) {
    test::TfliteModelBuilder m;
    int x = m.input("x", {8});
    int q1 = m.tensor("q1", {8}, tflite::TensorType::INT8);
    m.quantize(q1, {1.f}, {0});
    m.op(BuiltinOperator::QUANTIZE, {x}, {q1});
    int q2 = m.tensor("q2", {8}, tflite::TensorType::INT8);
    m.quantize(q2, {2.f}, {0});
    m.op(BuiltinOperator::QUANTIZE, {q1}, {q2});
    int y1 = m.tensor("y1", {8}), y2 = m.tensor("y2", {8});
    m.op(BuiltinOperator::DEQUANTIZE, {q1}, {y1});
    m.op(BuiltinOperator::DEQUANTIZE, {q2}, {y2});
    m.output(y1);
    m.output(y2);
    for (bool f16 : {false, true}) {
        auto ir = converted(m, "quantize_ties.tflite", f16);
        auto r = evaluate(*ir, {Tensor::from_vector<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.4f, -3.6f}, {8})});
        // round(x) half away from zero, then round(q1 / 2) half up, times 2.
        EXPECT_EQ(r.at(0).to_f64(), (std::vector<double>{1, 2, 3, -1, -2, -3, 3, -4})) << f16;
        EXPECT_EQ(r.at(1).to_f64(), (std::vector<double>{2, 2, 4, 0, -2, -2, 4, -4})) << f16;
    }
}

// Valid models that were refused: PADV2's constant_values of shape [1] ("must be a scalar"),
// ARG_MAX of booleans (TopK compares numbers).
TEST(TfliteOps, PadV2ValueOfOneElementAndArgMaxOfBooleans) {
    test::TfliteModelBuilder m;
    int x = m.input("x", {2});
    int flags = m.input("flags", {2, 4}, tflite::TensorType::BOOL);
    int padded = m.tensor("padded", {4});
    m.op(BuiltinOperator::PADV2, {x, m.constant_i32("paddings", {1, 2}, {1, 1}), m.constant("value", {1}, {-5.f})}, {padded});
    int first_true = m.tensor("first_true", {2}, tflite::TensorType::INT32);
    m.op(BuiltinOperator::ARG_MAX, {flags, m.constant_i32("axis", {1}, {1})}, {first_true}, [](auto& fb) {
        return Options{tflite::BuiltinOptions::ArgMaxOptions,
                       tflite::CreateArgMaxOptions(fb, tflite::TensorType::INT32).Union()};
    });
    m.output(padded);
    m.output(first_true);
    auto ir = converted(m, "padv2_argmax.tflite", true);
    auto r = evaluate(*ir, {Tensor::from_vector<float>({1, 2}, {2}),
                            Tensor::from_vector<bool>({false, true, false, true, false, false, false, true}, {2, 4})});
    EXPECT_EQ(r.at(0).to_f64(), (std::vector<double>{-5, 1, 2, -5}));
    EXPECT_EQ(r.at(1).to_f64(), (std::vector<double>{1, 3}));  // the first true
}

TEST(TfliteOps, TransposeConvSameAndValid) {
    for (bool same : {true, false}) {
        const int out = same ? 4 : 5;
        test::TfliteModelBuilder m;
        int x = m.input("x", {1, 2, 2, 1});
        int y = m.tensor("y", {1, out, out, 1});
        m.op(BuiltinOperator::TRANSPOSE_CONV,
             {m.constant_i32("shape", {4}, {1, out, out, 1}), m.constant("w", {1, 3, 3, 1}, std::vector<float>(9, 1.f)), x},
             {y}, [same](auto& fb) {
                 return Options{tflite::BuiltinOptions::TransposeConvOptions,
                                tflite::CreateTransposeConvOptions(fb, same ? tflite::Padding::SAME : tflite::Padding::VALID, 2, 2)
                                    .Union()};
             });
        m.output(y);
        test::ScratchDir dir{"transpose_conv"};
        auto ir = test::convert_to_ir(m.save("transpose_conv.tflite"), dir, true);  // mo's default flags
        auto r = evaluate(*ir, {Tensor::from_vector<float>({1, 1, 1, 1}, {1, 2, 2, 1})});
        EXPECT_EQ(r.at(0).shape(), (Shape{1, out, out, 1}));
        EXPECT_EQ(r.at(0).to_f64(), transposed_ones(out, 0)) << (same ? "SAME" : "VALID");
    }
    // SAME gives [[1, 1, 2, 1], [1, 1, 2, 1], [2, 2, 4, 2], [1, 1, 2, 1]].
    EXPECT_EQ(transposed_ones(4, 0), (std::vector<double>{1, 1, 2, 1, 1, 1, 2, 1, 2, 2, 4, 2, 1, 1, 2, 1}));
}

}  // namespace
}  // namespace mo
