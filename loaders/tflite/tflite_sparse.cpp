#include "loaders/tflite/tflite_sparse.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "core/eval_budget.hpp"
#include "core/infer.hpp"
#include "loaders/tflite/tflite_schema_generated.h"

namespace mo {

namespace {

// An index vector of the union (Int32Vector, Uint16Vector or Uint8Vector) as int64.
std::vector<int64_t> index_vector(tflite::SparseIndexVector type, const void* table) {
    std::vector<int64_t> out;
    auto copy = [&](const auto* v) {
        if (v && v->values())
            for (auto x : *v->values()) out.push_back(static_cast<int64_t>(x));
    };
    switch (type) {
        case tflite::SparseIndexVector::Int32Vector: copy(static_cast<const tflite::Int32Vector*>(table)); break;
        case tflite::SparseIndexVector::Uint16Vector: copy(static_cast<const tflite::Uint16Vector*>(table)); break;
        case tflite::SparseIndexVector::Uint8Vector: copy(static_cast<const tflite::Uint8Vector*>(table)); break;
        default: break;
    }
    return out;
}

struct Level {
    bool dense = true;
    int64_t size = 0;                       // DENSE: the dimension's size
    std::vector<int64_t> segments, indices;  // SPARSE_CSR
    size_t dim = 0;                          // the original dimension it indexes
    bool block = false;                      // a block (inner) level
};

class Densifier {
public:
    Densifier(std::vector<Level> levels, std::vector<int64_t> block_size, const Shape& shape, size_t element,
              std::span<const std::byte> values, std::byte* out, const std::string& where)
        : levels_(std::move(levels)), block_size_(std::move(block_size)), shape_(shape), element_(element),
          values_(values), out_(out), where_(where), coord_(shape.size(), 0), inner_(shape.size(), 0) {}

    void run() {
        walk(0, 0);
        if (next_ * element_ != values_.size())
            fail("the metadata addresses " + std::to_string(next_) + " values, the buffer holds " +
                 std::to_string(values_.size() / element_));
    }

private:
    void walk(size_t level, int64_t prev) {
        if (level == levels_.size()) return place();
        const Level& l = levels_[level];
        auto set = [&](int64_t i) { (l.block ? inner_ : coord_)[l.dim] = i; };
        if (l.dense) {
            for (int64_t i = 0; i < l.size; ++i) set(i), walk(level + 1, prev * l.size + i);
            return;
        }
        if (prev < 0 || static_cast<size_t>(prev) + 1 >= l.segments.size()) fail("a CSR segment index is out of range");
        const int64_t begin = l.segments[static_cast<size_t>(prev)], end = l.segments[static_cast<size_t>(prev) + 1];
        if (begin < 0 || begin > end || static_cast<size_t>(end) > l.indices.size()) fail("a CSR segment is out of range");
        for (int64_t j = begin; j < end; ++j) set(l.indices[static_cast<size_t>(j)]), walk(level + 1, j);
    }

    void place() {
        size_t offset = 0;
        for (size_t d = 0; d < shape_.size(); ++d) {
            const int64_t i = coord_[d] * block_size_[d] + inner_[d];
            if (i < 0 || i >= shape_[d]) fail("a stored value lies outside the dense shape");
            offset = offset * static_cast<size_t>(shape_[d]) + static_cast<size_t>(i);
        }
        if ((next_ + 1) * element_ > values_.size()) fail("the buffer holds fewer values than the metadata addresses");
        std::memcpy(out_ + offset * element_, values_.data() + next_ * element_, element_);
        ++next_;
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw Error("corrupt sparse tensor: " + what, where_, "re-export the model");
    }

    std::vector<Level> levels_;
    std::vector<int64_t> block_size_;
    const Shape& shape_;
    size_t element_;
    std::span<const std::byte> values_;
    std::byte* out_;
    const std::string& where_;
    std::vector<int64_t> coord_, inner_;
    size_t next_ = 0;
};

}  // namespace

Tensor densify_tflite(const tflite::SparsityParameters& sp, ElementType type, const Shape& shape,
                      std::span<const std::byte> values, const std::string& where, int64_t max_bytes) {
    const size_t n = shape.size();
    const auto* order = sp.traversal_order();
    const auto* metadata = sp.dim_metadata();
    const size_t k = sp.block_map() ? sp.block_map()->size() : 0;
    if (!order || !metadata || order->size() != n + k || metadata->size() != n + k)
        throw Error("corrupt sparse tensor: traversal_order and dim_metadata need one entry per dimension and block",
                    where, "re-export the model");
    std::vector<int64_t> block_size(n, 1);
    std::vector<Level> levels(n + k);
    for (size_t l = 0; l < n + k; ++l) {
        const auto* m = metadata->Get(static_cast<uint32_t>(l));
        const int32_t t = order->Get(static_cast<uint32_t>(l));
        Level& level = levels[l];
        if (t < 0 || static_cast<size_t>(t) >= n + k)
            throw Error("corrupt sparse tensor: traversal_order names dimension " + std::to_string(t), where,
                        "re-export the model");
        level.block = static_cast<size_t>(t) >= n;
        level.dim = level.block ? static_cast<size_t>(sp.block_map()->Get(static_cast<uint32_t>(t) - static_cast<uint32_t>(n)))
                                : static_cast<size_t>(t);
        if (level.dim >= n) throw Error("corrupt sparse tensor: block_map names a missing dimension", where);
        level.dense = m->format() == tflite::DimensionType::DENSE;
        level.size = m->dense_size();
        if (level.dense && level.size < 0) throw Error("corrupt sparse tensor: a negative dense_size", where);
        if (!level.dense) {
            level.segments = index_vector(m->array_segments_type(), m->array_segments());
            level.indices = index_vector(m->array_indices_type(), m->array_indices());
        }
        if (level.block) block_size[level.dim] = level.size;
    }
    for (size_t d = 0; d < n; ++d)
        if (block_size[d] < 1 || shape[d] % block_size[d] != 0)
            throw Error("corrupt sparse tensor: a block size does not divide its dimension", where);
    // A level walks its extent (a block's size, or the blocks along its dimension): a DENSE size
    // or a CSR index beyond it would make the walk run far past the values and the shape.
    for (size_t l = 0; l < levels.size(); ++l) {
        const Level& level = levels[l];
        const int64_t extent = level.block ? block_size[level.dim] : shape[level.dim] / block_size[level.dim];
        const std::string at = "dim_metadata[" + std::to_string(l) + "]";
        if (level.dense && level.size != extent)
            throw Error("corrupt sparse tensor: " + at + " has dense_size " + std::to_string(level.size) +
                            ", the shape makes it " + std::to_string(extent),
                        where, "re-export the model");
        if (level.dense) continue;
        const auto& seg = level.segments;
        const bool ascending =
            std::is_sorted(seg.begin(), seg.end()) &&
            (seg.empty() || (seg.front() >= 0 && static_cast<size_t>(seg.back()) <= level.indices.size()));
        if (!ascending)
            throw Error("corrupt sparse tensor: " + at + "'s array_segments are not ascending offsets into its " +
                            "array_indices",
                        where, "re-export the model");
        for (int64_t i : level.indices)
            if (i < 0 || i >= extent)
                throw Error("corrupt sparse tensor: " + at + " has index " + std::to_string(i) +
                                ", outside its extent " + std::to_string(extent),
                            where, "re-export the model");
    }
    // The file bounds the stored values, not the dense shape: held to constant folding's limit.
    const int64_t elements = located(where, [&] { return shape_size(shape); });
    if (!fits_bytes(type, elements, max_bytes))
        throw Error("the sparse tensor densifies to " + std::to_string(elements) +
                        " elements, more than --max_constant_size (" + std::to_string(max_bytes) + " bytes)",
                    where, "raise --max_constant_size if the model is genuine");
    Tensor out = Tensor::allocate(type, shape);
    const size_t element = byte_size(type, 1);
    Densifier(std::move(levels), std::move(block_size), shape, element, values, out.mutable_data<std::byte>(), where).run();
    return out;
}

}  // namespace mo
