// Tensors made, reordered or ranked: SHAPE, RANK, FILL, ZEROS_LIKE, BROADCAST_TO, BROADCAST_ARGS,
// RANGE, REVERSE_V2, REVERSE_SEQUENCE, MATRIX_DIAG, MATRIX_SET_DIAG, CUMSUM, ONE_HOT, TOPK_V2, UNIQUE.
#include <limits>

#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

// The element type the file declares for output j (the options are optional or absent).
ElementType declared_type(ExtractContext& c, size_t j, const char* what) {
    const ElementType t = c.node().out(j).type();
    if (t == ElementType::dynamic) c.unsupported(std::string(what) + " to a tensor of a type mo does not read");
    return t;
}

OutPort converted(ExtractContext& c, const std::string& suffix, const OutPort& x, ElementType to) {
    return c.op("Convert", suffix, {x}, {{"destination_type", to}});
}

// RANK: the number of dimensions, an int32 scalar.
void rank(ExtractContext& c) {
    OutPort shape = c.op("ShapeOf", "shape", {c.input(0)}, {{"output_type", ElementType::i64}});
    OutPort rank = c.op("ShapeOf", "rank", {shape}, {{"output_type", ElementType::i64}});
    rank = c.op("Squeeze", "scalar", {rank, c.i64s("scalar/axes", {0})});
    c.set_output(0, converted(c, "", rank, declared_type(c, 0, "RANK")));
}

// BROADCAST_ARGS(s0, s1): the shape s0 and s1 broadcast to, numpy-style (an error where they do
// not): the shape of 0-filled tensors of the two shapes added.
void broadcast_args(ExtractContext& c) {
    const ElementType t = declared_type(c, 0, "BROADCAST_ARGS");
    auto zeros = [&](const std::string& suffix, const OutPort& shape) {
        return c.op("Broadcast", suffix, {c.constant(suffix + "/zero", Tensor::scalar<uint8_t>(0)), shape},
                    {{"mode", std::string("numpy")}});
    };
    OutPort sum = c.op("Add", "broadcast", {zeros("zeros0", c.input(0)), zeros("zeros1", c.input(1))});
    c.set_output(0, c.op("ShapeOf", "", {sum}, {{"output_type", t}}));
}

// REVERSE_V2(x, axes): a Slice with step -1 along each axis.
void reverse_v2(ExtractContext& c) {
    const std::vector<int64_t> axes = c.input_ints(1);
    const std::vector<int64_t> start(axes.size(), -1), stop(axes.size(), std::numeric_limits<int64_t>::min()),
        step(axes.size(), -1);
    c.set_output(0, c.op("Slice", "", {c.input(0), c.i64s("start", start), c.i64s("stop", stop), c.i64s("step", step),
                                       c.i64s("axes", axes)}));
}

// MATRIX_DIAG(x [..., N]): [..., N, N] with x on the diagonal and zeros elsewhere.
void matrix_diag(ExtractContext& c) {
    const PartialShape& s = c.input(0).shape();
    if (!s.rank_is_static() || s.rank() < 1 || !s[s.rank() - 1].is_static())
        c.unsupported("MATRIX_DIAG of an input whose last dimension is not known at conversion");
    const int64_t n = s[s.rank() - 1].get_length();
    tflite_constant_elements(c, {n, n}, ElementType::boolean, "the diagonal mask");
    std::vector<bool> eye(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) eye[static_cast<size_t>(i * n + i)] = true;
    const OutPort column = c.op("Unsqueeze", "column", {c.input(0), c.i64s("column/axes", {-1})});
    c.set_output(0, c.op("Select", "",
                         {c.constant("diagonal", Tensor::from_vector<bool>(eye, {n, n})),
                          column, c.scalar_like("zero", 0, c.input(0))},
                         {{"auto_broadcast", std::string("numpy")}}));
}

// MATRIX_SET_DIAG(x [..., M, N], diagonal [..., min(M, N)]): x with its main diagonal replaced.
void matrix_set_diag(ExtractContext& c) {
    const PartialShape& s = c.input(0).shape();
    if (!s.rank_is_static() || s.rank() < 2 || !s[s.rank() - 1].is_static() || !s[s.rank() - 2].is_static())
        c.unsupported("MATRIX_SET_DIAG of an input whose last two dimensions are not known at conversion");
    const int64_t m = s[s.rank() - 2].get_length(), n = s[s.rank() - 1].get_length();
    tflite_constant_elements(c, {m, n}, ElementType::boolean, "the diagonal mask");
    std::vector<bool> eye(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < std::min(m, n); ++i) eye[static_cast<size_t>(i * n + i)] = true;
    OutPort column = c.op("Unsqueeze", "column", {c.input(1), c.i64s("column/axes", {-1})});
    if (m > n) {  // rows past the diagonal's length: any value, the mask leaves them out
        const int64_t rank = static_cast<int64_t>(s.rank());
        std::vector<int64_t> begin(static_cast<size_t>(rank), 0), end(static_cast<size_t>(rank), 0);
        end[static_cast<size_t>(rank - 2)] = m - n;
        column = c.op("Pad", "rows", {column, c.i64s("rows/begin", begin), c.i64s("rows/end", end)},
                      {{"pad_mode", std::string("constant")}});
    }
    c.set_output(0, c.op("Select", "", {c.constant("diagonal", Tensor::from_vector<bool>(eye, {m, n})), column, c.input(0)},
                         {{"auto_broadcast", std::string("numpy")}}));
}

// TOPK_V2(x, k): the k largest along the last axis, sorted; equal values lower index first.
void topk(ExtractContext& c) {
    Node n = c.add("TopK", "", {c.input(0), c.input(1)},
                   {{"axis", int64_t{-1}}, {"mode", std::string("max")}, {"sort", std::string("value")},
                    {"index_element_type", declared_type(c, 1, "TOPK_V2")}, {"stable", true}});
    n.set_output_count(2);
    c.set_output(0, n.out(0));
    c.set_output(1, n.out(1));
}

// UNIQUE(x [N]): the values in order of first occurrence, and for each element the index of its
// value among them (Unique's third output).
void unique(ExtractContext& c) {
    Node n = c.add("Unique", "", {c.input(0)},
                   {{"sorted", false}, {"index_element_type", declared_type(c, 1, "UNIQUE")},
                    {"count_element_type", ElementType::i64}});
    n.set_output_count(4);
    c.set_output(0, n.out(0));
    c.set_output(1, n.out(2));
}

}  // namespace

void register_tflite_tensor(ExtractorRegistry& r) {
    r.add({"tflite", "", "SHAPE", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("ShapeOf", "", {c.input(0)}, {{"output_type", declared_type(c, 0, "SHAPE")}}));
           }});
    r.add({"tflite", "", "RANK", 1, INT64_MAX, rank});
    // FILL(dims, value)
    r.add({"tflite", "", "FILL", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("Broadcast", "", {c.input(1), c.input(0)}, {{"mode", std::string("numpy")}}));
           }});
    r.add({"tflite", "", "ZEROS_LIKE", 1, INT64_MAX, [](ExtractContext& c) {
               const OutPort shape = c.op("ShapeOf", "shape", {c.input(0)}, {{"output_type", ElementType::i64}});
               c.set_output(0, c.op("Broadcast", "", {c.scalar_like("zero", 0, c.input(0)), shape},
                                    {{"mode", std::string("numpy")}}));
           }});
    // BROADCAST_TO(x, shape)
    r.add({"tflite", "", "BROADCAST_TO", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("Broadcast", "", {c.input(0), c.input(1)}, {{"mode", std::string("numpy")}}));
           }});
    r.add({"tflite", "", "BROADCAST_ARGS", 1, INT64_MAX, broadcast_args});
    // RANGE(start, limit, delta)
    r.add({"tflite", "", "RANGE", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("Range", "", {c.input(0), c.input(1), c.input(2)},
                                    {{"output_type", declared_type(c, 0, "RANGE")}}));
           }});
    r.add({"tflite", "", "REVERSE_V2", 1, INT64_MAX, reverse_v2});
    // REVERSE_SEQUENCE(x, seq_lengths; seq_dim, batch_dim)
    r.add({"tflite", "", "REVERSE_SEQUENCE", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("ReverseSequence", "", {c.input(0), c.input(1)},
                                    {{"seq_axis", c.i("seq_dim", 0)}, {"batch_axis", c.i("batch_dim", 0)}}));
           }});
    r.add({"tflite", "", "MATRIX_DIAG", 1, INT64_MAX, matrix_diag});
    r.add({"tflite", "", "MATRIX_SET_DIAG", 1, INT64_MAX, matrix_set_diag});
    // CUMSUM(x, axis; exclusive, reverse)
    r.add({"tflite", "", "CUMSUM", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("CumSum", "", {c.input(0), c.input(1)},
                                    {{"exclusive", c.i("exclusive", 0) != 0}, {"reverse", c.i("reverse", 0) != 0}}));
           }});
    // ONE_HOT(indices, depth, on_value, off_value; axis)
    r.add({"tflite", "", "ONE_HOT", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("OneHot", "", {c.input(0), c.input(1), c.input(2), c.input(3)}, {{"axis", c.i("axis", -1)}}));
           }});
    r.add({"tflite", "", "TOPK_V2", 1, INT64_MAX, topk});
    r.add({"tflite", "", "UNIQUE", 1, INT64_MAX, unique});
}

}  // namespace mo
