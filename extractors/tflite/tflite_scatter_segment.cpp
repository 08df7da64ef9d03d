// Lookups, scatters and segment reductions: EMBEDDING_LOOKUP, HASHTABLE_LOOKUP, SCATTER_ND, SPARSE_TO_DENSE,
// DYNAMIC_UPDATE_SLICE, SEGMENT_SUM,
// UNSORTED_SEGMENT_SUM / PROD / MAX / MIN. The accumulating ones are ScatterElementsUpdate-12
// with a reduction on a tensor of the reduction's identity, so repeated indices accumulate as in
// TFLite (ScatterNDUpdate would keep one of them).
#include <limits>

#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

OutPort i64_of(ExtractContext& c, const std::string& suffix, const OutPort& x) {
    return x.type() == ElementType::i64 ? x : c.op("Convert", suffix, {x}, {{"destination_type", ElementType::i64}});
}

OutPort reshape(ExtractContext& c, const std::string& suffix, const OutPort& x, const std::vector<int64_t>& shape) {
    return c.op("Reshape", suffix, {x, c.i64s(suffix + "/shape", shape)}, {{"special_zero", false}});
}

Shape static_shape(ExtractContext& c, size_t input, const char* what) {
    const PartialShape& s = c.input(input).shape();
    if (!s.is_static()) c.unsupported(std::string(what) + " of dynamic shape [" + s.to_string() + "]");
    return s.to_shape();
}

// The product of s[from, to), checked (a hostile shape must not overflow).
int64_t product(ExtractContext& c, const Shape& s, size_t from, size_t to) {
    return tflite_constant_elements(c, {s.begin() + static_cast<std::ptrdiff_t>(from), s.begin() + static_cast<std::ptrdiff_t>(to)},
                                    ElementType::u8, "a shape product");
}

// `values` scattered into `init` along axis 0 at `indices` (same shape as `values`).
OutPort scatter(ExtractContext& c, const std::string& suffix, const OutPort& init, const OutPort& indices,
                const OutPort& values, const char* reduction) {
    return c.op("ScatterElementsUpdate", suffix, {init, indices, values, c.i64(suffix + "/axis", 0)},
                {{"reduction", std::string(reduction)}, {"use_init_val", true}});
}

// SCATTER_ND(indices [..., k], updates, shape): zeros of `shape` plus each update at its index
// (repeated indices add up). Each update element gets its flat index: the row of its k-index
// (a dot product with the strides of shape[:k]) times the slice size, plus its offset in the
// slice.
void scatter_nd(ExtractContext& c) {
    const std::vector<int64_t> shape = c.input_ints(2);
    const Shape indices = static_shape(c, 0, "SCATTER_ND indices");
    if (indices.empty()) c.fail("the indices are a scalar", "the model is corrupt; re-export it");
    const size_t k = static_cast<size_t>(indices.back());
    if (k > shape.size()) c.fail("indices of depth " + std::to_string(k) + " into a shape of rank " + std::to_string(shape.size()),
                                 "the model is corrupt; re-export it");
    const int64_t rows = product(c, indices, 0, indices.size() - 1), slice = product(c, shape, k, shape.size());
    tflite_constant_elements(c, {rows, slice}, ElementType::i64, "the scatter's element indices");
    std::vector<int64_t> strides(k, slice);
    for (size_t j = k; j-- > 1;) strides[j - 1] = strides[j] * shape[j];
    OutPort flat_rows = c.op("Multiply", "row_offsets",
                             {i64_of(c, "indices", reshape(c, "index_rows", c.input(0), {rows, static_cast<int64_t>(k)})),
                              c.i64s("strides", strides)});
    flat_rows = c.op("ReduceSum", "row_starts", {flat_rows, c.i64s("row_starts/axes", {1})}, {{"keep_dims", true}});
    std::vector<int64_t> offsets(static_cast<size_t>(slice));
    for (int64_t i = 0; i < slice; ++i) offsets[static_cast<size_t>(i)] = i;
    OutPort element = c.op("Add", "element_index", {flat_rows, c.constant("slice_offsets", Tensor::from_vector<int64_t>(offsets, {1, slice}))});
    element = reshape(c, "element_index/flat", element, {rows * slice});
    const OutPort updates = reshape(c, "updates/flat", c.input(1), {rows * slice});
    const OutPort zeros = c.op("Broadcast", "zeros", {c.scalar_like("zero", 0, c.input(1)), c.i64s("zeros/shape", {product(c, shape, 0, shape.size())})},
                               {{"mode", std::string("numpy")}});
    c.set_output(0, c.op("Reshape", "", {scatter(c, "scatter", zeros, element, updates, "sum"), c.i64s("shape", shape)},
                         {{"special_zero", false}}));
}

// SPARSE_TO_DENSE(indices [n, k] or [n] or a scalar, output_shape, values [n] or a scalar,
// default_value): default_value everywhere but at the indices (ScatterNDUpdate; the fixtures
// have no repeated index, whose result neither op specifies).
void sparse_to_dense(ExtractContext& c) {
    OutPort indices = i64_of(c, "indices", c.input(0));
    const int64_t rank = ExtractContext::rank_of(c.input(0));
    if (rank < 0 || rank > 2) c.unsupported("SPARSE_TO_DENSE with indices of rank other than 0, 1 or 2");
    if (rank < 2) indices = reshape(c, "indices/rows", indices, {-1, 1});
    const OutPort dense = c.op("Broadcast", "default", {c.input(3), c.input(1)}, {{"mode", std::string("numpy")}});
    const OutPort count = c.op("Slice", "count", {c.op("ShapeOf", "index_shape", {indices}, {{"output_type", ElementType::i64}}),
                                                  c.i64s("count/start", {0}), c.i64s("count/stop", {1}), c.i64s("count/step", {1}),
                                                  c.i64s("count/axes", {0})});
    const OutPort values = c.op("Broadcast", "values", {c.input(2), count}, {{"mode", std::string("numpy")}});
    c.set_output(0, c.op("ScatterNDUpdate", "", {dense, indices, values}));
}

// DYNAMIC_UPDATE_SLICE(operand, update, start): the operand with `update` written from `start`,
// clamped as TFLite's kernel (and XLA) clamp it so that the update fits: ScatterNDUpdate at the
// update's coordinates (a constant grid, static shapes) plus the clamped start.
void dynamic_update_slice(ExtractContext& c) {
    const Shape operand = static_shape(c, 0, "DYNAMIC_UPDATE_SLICE operand"), update = static_shape(c, 1, "DYNAMIC_UPDATE_SLICE update");
    if (operand.size() != update.size())
        c.fail("the update's rank differs from the operand's", "the model is corrupt; re-export it");
    const int64_t rank = static_cast<int64_t>(operand.size());
    std::vector<int64_t> room(operand.size());
    for (size_t i = 0; i < operand.size(); ++i) {
        if (update[i] > operand[i]) c.fail("the update is larger than the operand", "the model is corrupt; re-export it");
        room[i] = operand[i] - update[i];
    }
    const int64_t n = tflite_constant_elements(c, {product(c, update, 0, update.size()), rank}, ElementType::i64, "the update's coordinates") / std::max<int64_t>(rank, 1);
    std::vector<int64_t> grid(static_cast<size_t>(n * rank));
    for (int64_t e = 0; e < n; ++e)
        for (int64_t a = rank, rest = e; a-- > 0;) {
            grid[static_cast<size_t>(e * rank + a)] = rest % update[static_cast<size_t>(a)];
            rest /= update[static_cast<size_t>(a)];
        }
    OutPort start = c.op("Maximum", "start/low", {i64_of(c, "start/i64", c.input(2)), c.i64s("start/zero", std::vector<int64_t>(operand.size(), 0))});
    start = c.op("Minimum", "start", {start, c.i64s("start/room", room)});
    const OutPort indices = c.op("Add", "indices", {c.constant("grid", Tensor::from_vector<int64_t>(grid, {n, rank})), start});
    c.set_output(0, c.op("ScatterNDUpdate", "", {c.input(0), indices, reshape(c, "values", c.input(1), {n})}));
}

// HASHTABLE_LOOKUP(lookup [n], keys [k], values [k, ...]): for each lookup the values row of its
// key and a hit flag (uint8), zeros where no key matches: Equal against every key, the first
// match's row (TopK of the matches, stable), Select by the hit.
void hashtable_lookup(ExtractContext& c) {
    const int64_t rank = ExtractContext::rank_of(c.input(2));
    if (rank < 1) c.unsupported("HASHTABLE_LOOKUP of values of unknown rank");
    const OutPort column = c.op("Unsqueeze", "column", {c.input(0), c.i64s("column/axes", {1})});
    const OutPort match = c.op("Equal", "match", {column, c.input(1)});
    const OutPort hit = c.op("ReduceLogicalOr", "hit", {match, c.i64s("hit/axes", {1})}, {{"keep_dims", false}});
    Node first = c.add("TopK", "first_match",
                       {c.op("Convert", "match/i32", {match}, {{"destination_type", ElementType::i32}}), c.i64("first_match/k", 1)},
                       {{"axis", int64_t{1}}, {"mode", std::string("max")}, {"sort", std::string("value")},
                        {"index_element_type", ElementType::i64}, {"stable", true}});
    first.set_output_count(2);
    const OutPort row = c.op("Squeeze", "row", {first.out(1), c.i64s("row/axes", {1})});
    const OutPort rows = c.op("Gather", "rows", {c.input(2), row, c.i64("rows/axis", 0)}, {{"batch_dims", int64_t{0}}});
    std::vector<int64_t> hit_shape(static_cast<size_t>(rank), 1);
    hit_shape[0] = -1;
    const OutPort hit_column = reshape(c, "hit/column", hit, hit_shape);
    c.set_output(0, c.op("Select", "", {hit_column, rows, c.scalar_like("zero", 0, c.input(2))}, {{"auto_broadcast", std::string("numpy")}}));
    c.set_output(1, c.op("Convert", "hits", {hit}, {{"destination_type", ElementType::u8}}));
}

// Segment reductions of data [n, ...] by ids [n] into `segments` rows ([1] i64): the reduction's
// identity where no id points (TFLite's initial value), else the reduction of the rows there.
void segment_reduce(ExtractContext& c, const OutPort& data, const OutPort& ids, const OutPort& segments,
                    const char* reduction, double identity) {
    const int64_t rank = ExtractContext::rank_of(data);
    if (rank < 1) c.unsupported("a segment reduction of data of unknown rank");
    const OutPort data_shape = c.op("ShapeOf", "data_shape", {data}, {{"output_type", ElementType::i64}});
    const OutPort rest = c.op("Slice", "row_shape", {data_shape, c.i64s("row_shape/start", {1}),
                                                     c.i64s("row_shape/stop", {std::numeric_limits<int64_t>::max()}),
                                                     c.i64s("row_shape/step", {1}), c.i64s("row_shape/axes", {0})});
    const OutPort out_shape = c.op("Concat", "output_shape", {segments, rest}, {{"axis", int64_t{0}}});
    const OutPort init = c.op("Broadcast", "initial", {c.scalar_like("identity", identity, data), out_shape},
                              {{"mode", std::string("numpy")}});
    std::vector<int64_t> column(static_cast<size_t>(rank), 1);
    column[0] = -1;
    OutPort index = c.op("Broadcast", "index", {reshape(c, "index/column", i64_of(c, "ids", ids), column), data_shape},
                         {{"mode", std::string("numpy")}});
    c.set_output(0, scatter(c, "", init, index, data, reduction));
}

// TFLite's initial value of an empty segment of a max (lowest) or min (highest) reduction.
double extreme(ExtractContext& c, bool lowest) {
    switch (c.input(0).type()) {
        case ElementType::f32: return lowest ? -std::numeric_limits<float>::max() : std::numeric_limits<float>::max();
        case ElementType::i32:
            return lowest ? std::numeric_limits<int32_t>::lowest() : std::numeric_limits<int32_t>::max();
        default: c.unsupported("UNSORTED_SEGMENT_MAX / MIN of " + std::string(ir_name(c.input(0).type())) + " data");
    }
}

void segment_sum(ExtractContext& c) {
    OutPort last = c.op("ReduceMax", "last_segment", {i64_of(c, "ids", c.input(1)), c.i64s("last_segment/axes", {0})},
                        {{"keep_dims", true}});
    const OutPort segments = c.op("Add", "segments", {last, c.i64s("one", {1})});
    segment_reduce(c, c.input(0), c.input(1), segments, "sum", 0);
}

// UNSORTED_SEGMENT_*(data, ids, num_segments): ids of data's leading shape; the ones TFLite's
// kernel skips (negative) are refused when they are constants.
void unsorted_segment(ExtractContext& c, const char* reduction, double identity) {
    OutPort data = c.input(0), ids = c.input(1);
    const int64_t id_rank = ExtractContext::rank_of(ids);
    if (id_rank != 1) {
        const Shape d = static_shape(c, 0, "UNSORTED_SEGMENT data"), s = static_shape(c, 1, "UNSORTED_SEGMENT ids");
        std::vector<int64_t> flat{product(c, s, 0, s.size())};
        flat.insert(flat.end(), d.begin() + static_cast<std::ptrdiff_t>(s.size()), d.end());
        data = reshape(c, "data/flat", data, flat);
        ids = reshape(c, "ids/flat", ids, {flat[0]});
    }
    if (const Tensor* v = c.input_value(1))
        for (int64_t id : v->to_i64())
            if (id < 0) c.unsupported("a negative segment id (TFLite's kernel skips the row)");
    const OutPort segments = c.op("Reshape", "segments", {i64_of(c, "num_segments", c.input(2)), c.i64s("segments/shape", {1})},
                                  {{"special_zero", false}});
    segment_reduce(c, data, ids, segments, reduction, identity);
}

}  // namespace

void register_tflite_scatter_segment(ExtractorRegistry& r) {
    // EMBEDDING_LOOKUP(ids, table): the rows of the table.
    r.add({"tflite", "", "EMBEDDING_LOOKUP", 1, INT64_MAX, [](ExtractContext& c) {
               c.set_output(0, c.op("Gather", "", {c.input(1), c.input(0), c.i64("axis", 0)}, {{"batch_dims", int64_t{0}}}));
           }});
    r.add({"tflite", "", "HASHTABLE_LOOKUP", 1, INT64_MAX, hashtable_lookup});
    r.add({"tflite", "", "SCATTER_ND", 1, INT64_MAX, scatter_nd});
    r.add({"tflite", "", "SPARSE_TO_DENSE", 1, INT64_MAX, sparse_to_dense});
    r.add({"tflite", "", "DYNAMIC_UPDATE_SLICE", 1, INT64_MAX, dynamic_update_slice});
    r.add({"tflite", "", "SEGMENT_SUM", 1, INT64_MAX, segment_sum});
    r.add({"tflite", "", "UNSORTED_SEGMENT_SUM", 1, INT64_MAX, [](ExtractContext& c) { unsorted_segment(c, "sum", 0); }});
    r.add({"tflite", "", "UNSORTED_SEGMENT_PROD", 1, INT64_MAX, [](ExtractContext& c) { unsorted_segment(c, "prod", 1); }});
    r.add({"tflite", "", "UNSORTED_SEGMENT_MAX", 1, INT64_MAX,
           [](ExtractContext& c) { unsorted_segment(c, "max", extreme(c, true)); }});
    r.add({"tflite", "", "UNSORTED_SEGMENT_MIN", 1, INT64_MAX,
           [](ExtractContext& c) { unsorted_segment(c, "min", extreme(c, false)); }});
}

}  // namespace mo
