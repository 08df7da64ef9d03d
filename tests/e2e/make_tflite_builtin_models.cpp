// Writes the builtin-op fixtures of tests/e2e/data/tflite_builtins (model.tflite and input_<i>.npy
// per directory, one directory per op family); scripts/tflite_outputs.js then runs the TFLite
// interpreter on them for output_<i>.npy. Not run by CI:
//   ./build/tests/mo-make-tflite-builtin-models tests/e2e/data/tflite_builtins
//   NODE_PATH=... node scripts/tflite_outputs.js tests/e2e/data/tflite_builtins/*
// Each operator is written as TFLite's converter writes it: the BuiltinOperator code, the input
// order and the options table of TFLite's schema.fbs (an op without options has none). Inputs are
// small fixed values with the cases each op's semantics turn on (ties, equal elements, zero rows,
// duplicate indices, empty segments).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "support/tflite_model_builder.hpp"

namespace {

namespace fs = std::filesystem;
using mo::Tensor;
using mo::test::TfliteModelBuilder;
using mo::test::TfliteOptions;
using tflite::BuiltinOperator;
using tflite::BuiltinOptions;
using tflite::TensorType;
using Fb = flatbuffers::FlatBufferBuilder;

template <typename Make>
TfliteOptions options(BuiltinOptions type, Make make) {
    return [=](Fb& fb) { return std::make_pair(type, make(fb).Union()); };
}


// An op output that is also a model output.
int out(TfliteModelBuilder& m, const std::string& name, std::vector<int32_t> shape, TensorType t = TensorType::FLOAT32) {
    const int k = m.tensor(name, std::move(shape), t);
    m.output(k);
    return k;
}

TfliteOptions reducer(bool keep) {
    return options(BuiltinOptions::ReducerOptions, [=](Fb& fb) { return tflite::CreateReducerOptions(fb, keep); });
}

// EQUAL ... LESS_EQUAL of a [2, 3] against b [3] (broadcast, with equal elements), the logical
// ops on their results, SELECT_V2, SELECT by rows (REDUCE_ANY), WHERE, REDUCE_ALL.
void comparison(const fs::path& dir) {
    TfliteModelBuilder m;
    const int a = m.input("a", {2, 3}), b = m.input("b", {3});
    const BuiltinOperator codes[] = {BuiltinOperator::EQUAL, BuiltinOperator::NOT_EQUAL, BuiltinOperator::GREATER,
                                     BuiltinOperator::GREATER_EQUAL, BuiltinOperator::LESS, BuiltinOperator::LESS_EQUAL};
    const char* names[] = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal"};
    int r[6];
    for (int i = 0; i < 6; ++i) {
        r[i] = out(m, names[i], {2, 3}, TensorType::BOOL);
        m.op(codes[i], {a, b}, {r[i]});
    }
    m.op(BuiltinOperator::LOGICAL_AND, {r[3], r[5]}, {out(m, "logical_and", {2, 3}, TensorType::BOOL)});
    m.op(BuiltinOperator::LOGICAL_OR, {r[2], r[4]}, {out(m, "logical_or", {2, 3}, TensorType::BOOL)});
    m.op(BuiltinOperator::LOGICAL_NOT, {r[0]}, {out(m, "logical_not", {2, 3}, TensorType::BOOL)});
    m.op(BuiltinOperator::SELECT_V2, {r[2], a, b}, {out(m, "select_v2", {2, 3})});
    const int rows = m.tensor("rows", {2}, TensorType::BOOL);
    m.op(BuiltinOperator::REDUCE_ANY, {r[0], m.constant_i32("rows/axis", {1}, {1})}, {rows}, reducer(false));
    const int neg = m.tensor("neg", {2, 3});
    m.op(BuiltinOperator::NEG, {a}, {neg});
    m.op(BuiltinOperator::SELECT, {rows, a, neg}, {out(m, "select_rows", {2, 3})});
    // WHERE gives int64, which the interpreter's JavaScript API does not read: CAST to int32.
    const int where = m.tensor("where", {2, 2}, TensorType::INT64);
    m.op(BuiltinOperator::WHERE, {r[2]}, {where});
    m.op(BuiltinOperator::CAST, {where}, {out(m, "where_int32", {2, 2}, TensorType::INT32)});
    m.op(BuiltinOperator::REDUCE_ALL, {r[3], m.constant_i32("all/axis", {1}, {0})}, {out(m, "reduce_all", {1, 3}, TensorType::BOOL)},
         reducer(true));
    // Row 0 has an element equal to b's, row 1 none: SELECT takes row 0 of a and row 1 of -a.
    save_fixture(m, dir, {Tensor::from_vector<float>({1, 2, 3, 4, 5, -1}, {2, 3}), Tensor::from_vector<float>({2, 2, 0}, {3})});
}

// SIGN, SQUARE, ROUND (ties), GELU (erf and tanh), RELU_0_TO_1, FLOOR_DIV (float, int32 with
// negatives), ADD_N, L2_NORMALIZATION (a zero row), REDUCE_PROD.
void math(const fs::path& dir) {
    TfliteModelBuilder m;
    const int x = m.input("x", {2, 4}), y = m.input("y", {2, 4}), i = m.input("i", {4}, TensorType::INT32),
              j = m.input("j", {4}, TensorType::INT32), z = m.input("z", {2, 4});
    m.op(BuiltinOperator::SIGN, {x}, {out(m, "sign", {2, 4})});
    m.op(BuiltinOperator::SQUARE, {x}, {out(m, "square", {2, 4})});
    m.op(BuiltinOperator::ROUND, {x}, {out(m, "round", {2, 4})});
    m.op(BuiltinOperator::GELU, {x}, {out(m, "gelu", {2, 4})},
         options(BuiltinOptions::GeluOptions, [](Fb& fb) { return tflite::CreateGeluOptions(fb, false); }));
    m.op(BuiltinOperator::GELU, {x}, {out(m, "gelu_tanh", {2, 4})},
         options(BuiltinOptions::GeluOptions, [](Fb& fb) { return tflite::CreateGeluOptions(fb, true); }));
    m.op(BuiltinOperator::RELU_0_TO_1, {x}, {out(m, "relu_0_to_1", {2, 4})});
    m.op(BuiltinOperator::FLOOR_DIV, {x, y}, {out(m, "floor_div", {2, 4})});
    m.op(BuiltinOperator::FLOOR_DIV, {i, j}, {out(m, "floor_div_int", {4}, TensorType::INT32)});
    m.op(BuiltinOperator::ADD_N, {x, y, z}, {out(m, "add_n", {2, 4})});
    m.op(BuiltinOperator::L2_NORMALIZATION, {z}, {out(m, "l2_normalization", {2, 4})});
    m.op(BuiltinOperator::REDUCE_PROD, {x, m.constant_i32("prod/axis", {1}, {1})}, {out(m, "reduce_prod", {2})}, reducer(false));
    save_fixture(m, dir,
         {Tensor::from_vector<float>({-2.5f, -0.5f, 0.f, 0.5f, 1.5f, 2.5f, 3.2f, -1.7f}, {2, 4}),
          Tensor::from_vector<float>({2.f, -0.75f, 3.f, 0.25f, -2.f, 1.5f, 1.f, 0.5f}, {2, 4}),
          Tensor::from_vector<int32_t>({7, -7, 7, -8}, {4}), Tensor::from_vector<int32_t>({2, 2, -2, 3}, {4}),
          Tensor::from_vector<float>({0.f, 0.f, 0.f, 0.f, 3.f, -4.f, 1e-3f, 2.f}, {2, 4})});
}

// SHAPE, RANK, FILL, ZEROS_LIKE, BROADCAST_ARGS, RANGE, REVERSE_V2, REVERSE_SEQUENCE,
// MATRIX_DIAG, CUMSUM (plain, exclusive + reverse), ONE_HOT, TOPK_V2 (ties), UNIQUE.
void tensor(const fs::path& dir) {
    TfliteModelBuilder m;
    const int x = m.input("x", {2, 3, 4}), b = m.input("b", {3, 1}), limit = m.input("limit", {}),
              idx = m.input("idx", {5}, TensorType::INT32);
    const int shape = out(m, "shape", {3}, TensorType::INT32);
    m.op(BuiltinOperator::SHAPE, {x}, {shape},
         options(BuiltinOptions::ShapeOptions, [](Fb& fb) { return tflite::CreateShapeOptions(fb, TensorType::INT32); }));
    m.op(BuiltinOperator::RANK, {x}, {out(m, "rank", {}, TensorType::INT32)});
    m.op(BuiltinOperator::FILL, {m.constant_i32("fill/dims", {2}, {2, 2}), limit}, {out(m, "fill", {2, 2})});
    m.op(BuiltinOperator::ZEROS_LIKE, {b}, {out(m, "zeros_like", {3, 1})});
    m.op(BuiltinOperator::BROADCAST_ARGS, {shape, m.constant_i32("args/other", {2}, {1, 4})},
         {out(m, "broadcast_args", {3}, TensorType::INT32)});
    m.op(BuiltinOperator::RANGE, {m.constant("range/start", {}, {0.5f}), limit, m.constant("range/delta", {}, {0.75f})},
         {out(m, "range", {4})});
    m.op(BuiltinOperator::REVERSE_V2, {x, m.constant_i32("reverse/axes", {1}, {2})}, {out(m, "reverse_v2", {2, 3, 4})});
    m.op(BuiltinOperator::REVERSE_SEQUENCE, {x, m.constant_i32("seq/lengths", {2}, {3, 1})}, {out(m, "reverse_sequence", {2, 3, 4})},
         options(BuiltinOptions::ReverseSequenceOptions,
                 [](Fb& fb) { return tflite::CreateReverseSequenceOptions(fb, 2, 0); }));
    m.op(BuiltinOperator::MATRIX_DIAG, {b}, {out(m, "matrix_diag", {3, 1, 1})});
    m.op(BuiltinOperator::CUMSUM, {x, m.constant_i32("cumsum/axis", {}, {1})}, {out(m, "cumsum", {2, 3, 4})});
    m.op(BuiltinOperator::CUMSUM, {x, m.constant_i32("cumsum2/axis", {}, {2})}, {out(m, "cumsum_exclusive_reverse", {2, 3, 4})},
         options(BuiltinOptions::CumsumOptions, [](Fb& fb) { return tflite::CreateCumsumOptions(fb, true, true); }));
    m.op(BuiltinOperator::ONE_HOT,
         {idx, m.constant_i32("one_hot/depth", {}, {4}), m.constant("one_hot/on", {}, {1.f}), m.constant("one_hot/off", {}, {-1.f})},
         {out(m, "one_hot", {5, 4})},
         options(BuiltinOptions::OneHotOptions, [](Fb& fb) { return tflite::CreateOneHotOptions(fb, -1); }));
    m.op(BuiltinOperator::TOPK_V2, {x, m.constant_i32("topk/k", {}, {2})},
         {out(m, "topk_values", {2, 3, 2}), out(m, "topk_indices", {2, 3, 2}, TensorType::INT32)});
    m.op(BuiltinOperator::UNIQUE, {idx}, {out(m, "unique", {3}, TensorType::INT32), out(m, "unique_index", {5}, TensorType::INT32)},
         options(BuiltinOptions::UniqueOptions, [](Fb& fb) { return tflite::CreateUniqueOptions(fb, TensorType::INT32); }));
    // Equal values within rows, at the top-2 boundary too: TopK takes the lower index first.
    const std::vector<float> xv{1, 3, 3, 0, 2, 2, 2, 1, 0, -1, 4, 4, -2, 5, -2, 5, 3, 1, 3, 1, 0, 0, 0, 0};
    save_fixture(m, dir,
         {Tensor::from_vector<float>(xv, {2, 3, 4}), Tensor::from_vector<float>({1.5f, -2.f, 0.25f}, {3, 1}),
          Tensor::scalar<float>(3.2f), Tensor::from_vector<int32_t>({3, 1, 3, 0, 1}, {5})});
}

// EMBEDDING_LOOKUP, SCATTER_ND (a duplicate index: its updates add up), SEGMENT_SUM (TFLite's
// kernel takes ids that step by 0 or 1), UNSORTED_SEGMENT_SUM / PROD / MAX / MIN (empty segments).
void scatter_segment(const fs::path& dir) {
    TfliteModelBuilder m;
    const int ids = m.input("ids", {3}, TensorType::INT32), updates = m.input("updates", {3, 2}), data = m.input("data", {5, 2});
    m.op(BuiltinOperator::EMBEDDING_LOOKUP, {ids, m.constant("table", {4, 2}, {0.f, 1.f, 10.f, 11.f, 20.f, 21.f, 30.f, 31.f})},
         {out(m, "embedding_lookup", {3, 2})});
    m.op(BuiltinOperator::SCATTER_ND,
         {m.constant_i32("scatter/indices", {3, 1}, {1, 3, 1}), updates, m.constant_i32("scatter/shape", {2}, {4, 2})},
         {out(m, "scatter_nd", {4, 2})});
    m.op(BuiltinOperator::SEGMENT_SUM, {data, m.constant_i32("segment/ids", {5}, {0, 0, 1, 2, 2})}, {out(m, "segment_sum", {3, 2})});
    const BuiltinOperator unsorted[] = {BuiltinOperator::UNSORTED_SEGMENT_SUM, BuiltinOperator::UNSORTED_SEGMENT_PROD,
                                        BuiltinOperator::UNSORTED_SEGMENT_MAX, BuiltinOperator::UNSORTED_SEGMENT_MIN};
    const char* names[] = {"unsorted_segment_sum", "unsorted_segment_prod", "unsorted_segment_max", "unsorted_segment_min"};
    const int segment_ids = m.constant_i32("unsorted/ids", {5}, {2, 0, 2, 4, 0}), segments = m.constant_i32("unsorted/num", {}, {5});
    for (int k = 0; k < 4; ++k) m.op(unsorted[k], {data, segment_ids, segments}, {out(m, names[k], {5, 2})});
    save_fixture(m, dir,
         {Tensor::from_vector<int32_t>({2, 0, 2}, {3}), Tensor::from_vector<float>({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {3, 2}),
          Tensor::from_vector<float>({1.f, -2.f, 3.f, 4.f, -5.f, 6.f, 7.f, 0.5f, 2.f, -1.f}, {5, 2})});
}

TfliteOptions pool(tflite::Padding padding, int stride, int filter) {
    return options(BuiltinOptions::Pool2DOptions, [=](Fb& fb) {
        return tflite::CreatePool2DOptions(fb, padding, stride, stride, filter, filter);
    });
}

// SPACE_TO_BATCH_ND (padded), BATCH_TO_SPACE_ND (cropped), L2_POOL_2D (SAME, a partial window),
// LOCAL_RESPONSE_NORMALIZATION.
void spatial(const fs::path& dir) {
    TfliteModelBuilder m;
    const int x = m.input("x", {1, 4, 4, 5}), z = m.input("z", {4, 2, 3, 1});
    m.op(BuiltinOperator::SPACE_TO_BATCH_ND,
         {x, m.constant_i32("s2b/block", {2}, {2, 2}), m.constant_i32("s2b/pads", {2, 2}, {0, 0, 1, 1})},
         {out(m, "space_to_batch_nd", {4, 2, 3, 5})});
    m.op(BuiltinOperator::BATCH_TO_SPACE_ND,
         {z, m.constant_i32("b2s/block", {2}, {2, 2}), m.constant_i32("b2s/crops", {2, 2}, {1, 0, 0, 1})},
         {out(m, "batch_to_space_nd", {1, 3, 5, 1})});
    m.op(BuiltinOperator::L2_POOL_2D, {x}, {out(m, "l2_pool_2d", {1, 2, 2, 5})}, pool(tflite::Padding::SAME, 3, 3));
    m.op(BuiltinOperator::LOCAL_RESPONSE_NORMALIZATION, {x}, {out(m, "local_response_normalization", {1, 4, 4, 5})},
         options(BuiltinOptions::LocalResponseNormalizationOptions,
                 [](Fb& fb) { return tflite::CreateLocalResponseNormalizationOptions(fb, 1, 1.5f, 0.25f, 0.75f); }));
    std::vector<float> xv, zv;
    for (int k = 0; k < 80; ++k) xv.push_back(static_cast<float>((k * 7) % 13) / 4.f - 1.f);
    for (int k = 0; k < 24; ++k) zv.push_back(static_cast<float>(k));
    save_fixture(m, dir, {Tensor::from_vector<float>(xv, {1, 4, 4, 5}), Tensor::from_vector<float>(zv, {4, 2, 3, 1})});
}

// RFFT2D (the last axis zero-padded from 6 to 8) read by COMPLEX_ABS, REAL and IMAG.
void fft(const fs::path& dir) {
    TfliteModelBuilder m;
    const int x = m.input("x", {2, 4, 6});
    const int spectrum = m.tensor("spectrum", {2, 4, 5}, TensorType::COMPLEX64);
    m.op(BuiltinOperator::RFFT2D, {x, m.constant_i32("fft_length", {2}, {4, 8})}, {spectrum});
    m.op(BuiltinOperator::COMPLEX_ABS, {spectrum}, {out(m, "complex_abs", {2, 4, 5})});
    m.op(BuiltinOperator::REAL, {spectrum}, {out(m, "real", {2, 4, 5})});
    m.op(BuiltinOperator::IMAG, {spectrum}, {out(m, "imag", {2, 4, 5})});
    std::vector<float> xv;
    for (int k = 0; k < 48; ++k) xv.push_back(static_cast<float>((k * 11) % 9) - 4.f);
    save_fixture(m, dir, {Tensor::from_vector<float>(xv, {2, 4, 6})});
}

// The weights of one LSTM direction: input weights [4][cell, input], recurrent [4][cell, cell]
// and biases [4][cell] (gates i, f, c, o), fixed sixteenths in [-0.5, 0.5] (forget biases + 1).
std::vector<int32_t> lstm_weights(TfliteModelBuilder& m, const std::string& prefix, int32_t cell, int32_t input, int seed) {
    std::vector<int32_t> t;
    int k = seed;
    auto values = [&](size_t n) {
        std::vector<float> v(n);
        for (float& x : v) x = static_cast<float>((k++ * 37) % 17) / 16.f - 0.5f;  // exact in f16
        return v;
    };
    const char* gates[] = {"input", "forget", "cell", "output"};
    for (const char* g : gates)
        t.push_back(m.constant(prefix + g + "_w", {cell, input}, values(static_cast<size_t>(cell * input))));
    for (const char* g : gates)
        t.push_back(m.constant(prefix + g + "_r", {cell, cell}, values(static_cast<size_t>(cell * cell))));
    for (int p = 0; p < 3; ++p) t.push_back(-1);  // no peepholes
    for (const char* g : gates) {
        std::vector<float> b = values(static_cast<size_t>(cell));
        if (std::string(g) == "forget")
            for (float& x : b) x += 1.f;
        t.push_back(m.constant(prefix + g + "_b", {cell}, b));
    }
    t.push_back(-1);  // no projection
    t.push_back(-1);
    return t;
}

// UNIDIRECTIONAL_SEQUENCE_LSTM (batch-major, TANH) and BIDIRECTIONAL_SEQUENCE_LSTM (time-major,
// separate outputs), 3 steps of 3 features, 4 cells, zero initial states (variables).
void lstm(const fs::path& dir) {
    TfliteModelBuilder m;
    const int x = m.input("x", {2, 3, 3}), xt = m.input("x_time_major", {3, 2, 3});
    std::vector<int32_t> in{x};
    const auto w = lstm_weights(m, "uni/", 4, 3, 1);
    in.insert(in.end(), w.begin(), w.end());
    in.push_back(m.variable("uni/output_state", {2, 4}));
    in.push_back(m.variable("uni/cell_state", {2, 4}));
    m.op(BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM, in, {out(m, "unidirectional", {2, 3, 4})},
         options(BuiltinOptions::UnidirectionalSequenceLSTMOptions, [](Fb& fb) {
             return tflite::CreateUnidirectionalSequenceLSTMOptions(fb, tflite::ActivationFunctionType::TANH, 0.f, 0.f, false);
         }));
    std::vector<int32_t> bi{xt};
    const auto fw = lstm_weights(m, "fw/", 4, 3, 5), bw = lstm_weights(m, "bw/", 4, 3, 9);
    bi.insert(bi.end(), fw.begin(), fw.end());
    bi.insert(bi.end(), bw.begin(), bw.end());
    for (const char* s : {"fw/output_state", "fw/cell_state", "bw/output_state", "bw/cell_state"}) bi.push_back(m.variable(s, {2, 4}));
    for (int a = 39; a < 48; ++a) bi.push_back(-1);  // no auxiliary input
    m.op(BuiltinOperator::BIDIRECTIONAL_SEQUENCE_LSTM, bi, {out(m, "forward", {3, 2, 4}), out(m, "backward", {3, 2, 4})},
         options(BuiltinOptions::BidirectionalSequenceLSTMOptions, [](Fb& fb) {
             return tflite::CreateBidirectionalSequenceLSTMOptions(fb, tflite::ActivationFunctionType::TANH, 0.f, 0.f, false, true);
         }));
    std::vector<float> xv;
    for (int k = 0; k < 18; ++k) xv.push_back(static_cast<float>((k * 5) % 11) / 5.f - 1.f);
    save_fixture(m, dir, {Tensor::from_vector<float>(xv, {2, 3, 3}), Tensor::from_vector<float>(xv, {3, 2, 3})});
}

// BUCKETIZE, FAKE_QUANT (a value on a tie of the grid), MATRIX_SET_DIAG (more rows than
// columns), SPARSE_TO_DENSE, NON_MAX_SUPPRESSION_V4 and V5 (an IoU equal to the threshold), RNN
// and UNIDIRECTIONAL_SEQUENCE_RNN (time-major, RELU).
void more(const fs::path& dir) {
    TfliteModelBuilder m;
    const int x = m.input("x", {2, 4}), boxes = m.input("boxes", {5, 4}), scores = m.input("scores", {5}),
              s = m.input("sequence", {3, 2, 2});
    m.op(BuiltinOperator::BUCKETIZE, {x}, {out(m, "bucketize", {2, 4}, TensorType::INT32)},
         options(BuiltinOptions::BucketizeOptions,
                 [](Fb& fb) { return tflite::CreateBucketizeOptions(fb, fb.CreateVector(std::vector<float>{-1.f, 0.f, 0.5f, 2.f})); }));
    m.op(BuiltinOperator::FAKE_QUANT, {x}, {out(m, "fake_quant", {2, 4})},
         options(BuiltinOptions::FakeQuantOptions, [](Fb& fb) { return tflite::CreateFakeQuantOptions(fb, -1.f, 2.f, 4, false); }));
    m.op(BuiltinOperator::MATRIX_SET_DIAG, {m.constant("matrix", {3, 2}, {1, 2, 3, 4, 5, 6}), m.constant("diagonal", {2}, {-1, -2})},
         {out(m, "matrix_set_diag", {3, 2})});
    // (The matrix is a constant: x's rows are the diagonal of a second one.)
    m.op(BuiltinOperator::MATRIX_SET_DIAG, {m.constant("square", {2, 4, 4}, std::vector<float>(32, 7.f)), x},
         {out(m, "matrix_set_diag_x", {2, 4, 4})});
    m.op(BuiltinOperator::SPARSE_TO_DENSE,
         {m.constant_i32("sparse/indices", {3, 2}, {0, 1, 2, 3, 1, 0}), m.constant_i32("sparse/shape", {2}, {3, 4}),
          m.constant("sparse/values", {3}, {5, 6, 7}), m.constant("sparse/default", {}, {-1})},
         {out(m, "sparse_to_dense", {3, 4})},
         options(BuiltinOptions::SparseToDenseOptions, [](Fb& fb) { return tflite::CreateSparseToDenseOptions(fb, false); }));
    const int max_out = m.constant_i32("nms/max", {}, {4}), iou = m.constant("nms/iou", {}, {0.5f}),
              score = m.constant("nms/score", {}, {0.1f});
    m.op(BuiltinOperator::NON_MAX_SUPPRESSION_V4, {boxes, scores, max_out, iou, score},
         {out(m, "nms_v4_indices", {4}, TensorType::INT32), out(m, "nms_v4_count", {}, TensorType::INT32)});
    m.op(BuiltinOperator::NON_MAX_SUPPRESSION_V5, {boxes, scores, max_out, iou, score, m.constant("nms/sigma", {}, {0.f})},
         {out(m, "nms_v5_indices", {4}, TensorType::INT32), out(m, "nms_v5_scores", {4}),
          out(m, "nms_v5_count", {}, TensorType::INT32)});
    m.op(BuiltinOperator::RNN,
         {x, m.constant("rnn/w", {3, 4}, {0.5f, -0.25f, 0.125f, 1.f, -0.5f, 0.75f, 0.25f, -1.f, 0.f, 0.5f, -0.75f, 0.25f}),
          m.constant("rnn/r", {3, 3}, {0.25f, -0.5f, 0.f, 0.5f, 0.25f, -0.25f, 0.f, 0.125f, 0.5f}),
          m.constant("rnn/b", {3}, {0.125f, -0.25f, 0.375f}), m.variable("rnn/state", {2, 3})},
         {out(m, "rnn", {2, 3})},
         options(BuiltinOptions::RNNOptions,
                 [](Fb& fb) { return tflite::CreateRNNOptions(fb, tflite::ActivationFunctionType::TANH); }));
    m.op(BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_RNN,
         {s, m.constant("seq_rnn/w", {3, 2}, {0.5f, -0.25f, 1.f, 0.75f, -0.5f, 0.25f}),
          m.constant("seq_rnn/r", {3, 3}, {0.25f, -0.5f, 0.f, 0.5f, 0.25f, -0.25f, 0.f, 0.125f, 0.5f}),
          m.constant("seq_rnn/b", {3}, {0.125f, -0.25f, 0.375f}), m.variable("seq_rnn/state", {2, 3})},
         {out(m, "sequence_rnn", {3, 2, 3})},
         options(BuiltinOptions::SequenceRNNOptions,
                 [](Fb& fb) { return tflite::CreateSequenceRNNOptions(fb, true, tflite::ActivationFunctionType::RELU); }));
    // Box 1 overlaps box 0 with IoU exactly 0.5 (TFLite suppresses at the threshold), box 3 box 2
    // with IoU 0.6; box 4's score is under the threshold. FAKE_QUANT's grid (-1, 2, 4 bits) has
    // steps of 0.2 from -1: 0.5 is a tie (7.5 steps), rounded up.
    save_fixture(m, dir,
         {Tensor::from_vector<float>({-1.5f, -1.f, 0.f, 0.25f, 0.5f, 1.25f, 2.f, 3.f}, {2, 4}),
          Tensor::from_vector<float>({0, 0, 2, 2, 0, 0, 2, 1, 5, 5, 6, 7, 5, 5.5f, 6, 7.5f, 0, 0, 1, 1}, {5, 4}),
          Tensor::from_vector<float>({0.9f, 0.8f, 0.7f, 0.6f, 0.05f}, {5}),
          Tensor::from_vector<float>({0.5f, -1.f, 1.f, 0.25f, -0.5f, 2.f, 0.75f, 0.f, 1.5f, -1.5f, 0.f, 1.f}, {3, 2, 2})});
}

// CONV_3D (SAME, strides 1 x 2 x 2, bias, RELU) and DYNAMIC_UPDATE_SLICE (a start past the end
// and a negative one, clamped).
void volume(const fs::path& dir) {
    TfliteModelBuilder m;
    const int x = m.input("x", {1, 3, 4, 4, 2}), operand = m.input("operand", {3, 4}), update = m.input("update", {2, 2}),
              start = m.input("start", {2}, TensorType::INT32);
    std::vector<float> w;
    for (int k = 0; k < 2 * 3 * 3 * 2 * 3; ++k) w.push_back(static_cast<float>((k * 7) % 9) / 8.f - 0.5f);
    m.op(BuiltinOperator::CONV_3D, {x, m.constant("conv3d/filter", {2, 3, 3, 2, 3}, w), m.constant("conv3d/bias", {3}, {0.25f, -0.5f, 0.f})},
         {out(m, "conv_3d", {1, 3, 2, 2, 3})},
         options(BuiltinOptions::Conv3DOptions, [](Fb& fb) {
             return tflite::CreateConv3DOptions(fb, tflite::Padding::SAME, 1, 2, 2, tflite::ActivationFunctionType::RELU);
         }));
    m.op(BuiltinOperator::DYNAMIC_UPDATE_SLICE, {operand, update, start}, {out(m, "dynamic_update_slice", {3, 4})});
    std::vector<float> xv;
    for (int k = 0; k < 96; ++k) xv.push_back(static_cast<float>((k * 5) % 11) / 4.f - 1.f);
    std::vector<float> ov(12);
    for (int k = 0; k < 12; ++k) ov[static_cast<size_t>(k)] = static_cast<float>(k);
    save_fixture(m, dir,
         {Tensor::from_vector<float>(xv, {1, 3, 4, 4, 2}), Tensor::from_vector<float>(ov, {3, 4}),
          Tensor::from_vector<float>({-1, -2, -3, -4}, {2, 2}), Tensor::from_vector<int32_t>({5, -1}, {2})});
}

// ATAN2 (every quadrant, the axes, the origin), HASHTABLE_LOOKUP (a key that misses), LSTM (one
// step of the full kernel) and BIDIRECTIONAL_SEQUENCE_RNN (batch-major, merged outputs, TANH).
void extra(const fs::path& dir) {
    TfliteModelBuilder m;
    const int y = m.input("y", {8}), x = m.input("x", {8}), lookup = m.input("lookup", {4}, TensorType::INT32),
              step = m.input("step", {2, 3}), s = m.input("sequence", {2, 3, 2});
    m.op(BuiltinOperator::ATAN2, {y, x}, {out(m, "atan2", {8})});
    const int hits = m.tensor("hits", {4}, TensorType::UINT8);
    m.op(BuiltinOperator::HASHTABLE_LOOKUP,
         {lookup, m.constant_i32("keys", {3}, {2, 5, 9}), m.constant("values", {3, 2}, {1.5f, 2.5f, -1.f, -2.f, 7.f, 8.f})},
         {out(m, "hashtable_lookup", {4, 2}), hits});
    m.op(BuiltinOperator::CAST, {hits}, {out(m, "hits_int32", {4}, TensorType::INT32)});
    std::vector<int32_t> in{step};
    const auto w = lstm_weights(m, "step/", 4, 3, 3);
    in.insert(in.end(), w.begin(), w.end());
    in.push_back(m.variable("step/output_state", {2, 4}));
    in.push_back(m.variable("step/cell_state", {2, 4}));
    m.op(BuiltinOperator::LSTM, in, {out(m, "lstm", {2, 4})},
         options(BuiltinOptions::LSTMOptions,
                 [](Fb& fb) { return tflite::CreateLSTMOptions(fb, tflite::ActivationFunctionType::TANH); }));
    const std::vector<float> r{0.25f, -0.5f, 0.f, 0.5f, 0.25f, -0.25f, 0.f, 0.125f, 0.5f};
    m.op(BuiltinOperator::BIDIRECTIONAL_SEQUENCE_RNN,
         {s, m.constant("fw/w", {3, 2}, {0.5f, -0.25f, 1.f, 0.75f, -0.5f, 0.25f}), m.constant("fw/r", {3, 3}, r),
          m.constant("fw/b", {3}, {0.125f, -0.25f, 0.375f}), m.variable("fw/state", {2, 3}),
          m.constant("bw/w", {3, 2}, {-0.5f, 0.25f, 0.5f, 0.5f, 0.25f, -1.f}), m.constant("bw/r", {3, 3}, r),
          m.constant("bw/b", {3}, {0.f, 0.25f, -0.125f}), m.variable("bw/state", {2, 3}), -1, -1, -1},
         {out(m, "bidirectional_rnn", {2, 3, 6})},
         options(BuiltinOptions::BidirectionalSequenceRNNOptions, [](Fb& fb) {
             return tflite::CreateBidirectionalSequenceRNNOptions(fb, false, tflite::ActivationFunctionType::TANH, true);
         }));
    save_fixture(m, dir,
         {Tensor::from_vector<float>({1, 1, -1, -1, 0, 2, -2, 0}, {8}), Tensor::from_vector<float>({2, -2, -2, 2, 3, 0, 0, 0}, {8}),
          Tensor::from_vector<int32_t>({5, 3, 9, 2}, {4}), Tensor::from_vector<float>({0.5f, -1.f, 0.25f, 1.f, 0.f, -0.5f}, {2, 3}),
          Tensor::from_vector<float>({0.5f, -1.f, 1.f, 0.25f, -0.5f, 2.f, 0.75f, 0.f, 1.5f, -1.5f, 0.f, 1.f}, {2, 3, 2})});
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    const fs::path root = argv[1];
    comparison(root / "comparison");
    math(root / "math");
    tensor(root / "tensor");
    scatter_segment(root / "scatter_segment");
    spatial(root / "spatial");
    fft(root / "fft");
    lstm(root / "lstm");
    more(root / "more");
    volume(root / "volume");
    extra(root / "extra");
    return 0;
}
