// Comparisons, logic and selection: EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL,
// LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT, SELECT, SELECT_V2, WHERE (numpy broadcasting throughout,
// but SELECT's row form below).
#include "extractors/tflite/tflite_extractors.hpp"

namespace mo {

namespace {

void binary(ExtractContext& c, const char* type) { c.set_output(0, c.op(type, "", {c.input(0), c.input(1)})); }

// SELECT (TensorFlow's Select v1): a condition of rank 1 under inputs of higher rank picks whole
// rows (condition[i] chooses x[i, ...] or y[i, ...]); otherwise shapes broadcast as in SELECT_V2.
void select(ExtractContext& c, bool v1) {
    OutPort cond = c.input(0);
    const int64_t cond_rank = ExtractContext::rank_of(cond), rank = ExtractContext::rank_of(c.input(1));
    if (v1 && cond_rank == 1 && rank > 1) {
        std::vector<int64_t> axes;
        for (int64_t a = 1; a < rank; ++a) axes.push_back(a);
        cond = c.op("Unsqueeze", "rows", {cond, c.i64s("rows/axes", axes)});
    } else if (v1 && (cond_rank < 0 || rank < 0)) {
        c.unsupported("SELECT of inputs of unknown rank (its condition may pick rows)");
    }
    c.set_output(0, c.op("Select", "", {cond, c.input(1), c.input(2)}, {{"auto_broadcast", std::string("numpy")}}));
}

// WHERE(condition): the coordinates of its true (non-zero) elements, [count, rank] int64, in
// row-major order: NonZero gives them as [rank, count].
void where(ExtractContext& c) {
    if (c.input_count() > 1 && (c.has_input(1) || c.has_input(2)))
        c.unsupported("WHERE with x and y inputs (TensorFlow's Where v1 form; TFLite's kernel takes the condition only)");
    OutPort nz = c.op("NonZero", "coordinates", {c.input(0)}, {{"output_type", ElementType::i64}});
    c.set_output(0, c.op("Transpose", "", {nz, c.i64s("order", {1, 0})}));
}

}  // namespace

void register_tflite_comparison(ExtractorRegistry& r) {
    const std::pair<const char*, const char*> binaries[] = {
        {"EQUAL", "Equal"},         {"NOT_EQUAL", "NotEqual"},     {"GREATER", "Greater"},
        {"GREATER_EQUAL", "GreaterEqual"}, {"LESS", "Less"},       {"LESS_EQUAL", "LessEqual"},
        {"LOGICAL_AND", "LogicalAnd"}, {"LOGICAL_OR", "LogicalOr"}};
    for (const auto& [name, type] : binaries)
        r.add({"tflite", "", name, 1, INT64_MAX, [type = type](ExtractContext& c) { binary(c, type); }});
    r.add({"tflite", "", "LOGICAL_NOT", 1, INT64_MAX, [](ExtractContext& c) { c.become("LogicalNot"); }});
    r.add({"tflite", "", "SELECT", 1, INT64_MAX, [](ExtractContext& c) { select(c, true); }});
    r.add({"tflite", "", "SELECT_V2", 1, INT64_MAX, [](ExtractContext& c) { select(c, false); }});
    r.add({"tflite", "", "WHERE", 1, INT64_MAX, where});
}

}  // namespace mo
