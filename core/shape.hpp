// Static and partial shapes. A dimension is static (min == max), an interval [min, max], or
// fully dynamic ([0, unbounded]); a partial shape may also have a dynamic rank.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "api.hpp"

namespace mo {

using Shape = std::vector<int64_t>;  // a fully static shape
// The product of the dims (1 for a scalar); throws mo::Error when it, or the product of the
// non-zero dims, overflows int64.
MO_API int64_t shape_size(const Shape& s);

class MO_API Dimension {
public:
    static constexpr int64_t kUnbounded = -1;

    Dimension() = default;  // fully dynamic
    Dimension(int64_t value) : min_(value), max_(value) {}  // NOLINT: static dims convert implicitly
    Dimension(int64_t min, int64_t max) : min_(min), max_(max) {}
    static Dimension dynamic() { return Dimension(); }

    bool is_static() const { return min_ == max_; }
    bool is_dynamic() const { return !is_static(); }
    int64_t get_length() const;  // asserts is_static()
    int64_t min() const { return min_; }
    int64_t max() const { return max_; }  // kUnbounded when there is no upper bound
    bool is_fully_dynamic() const { return min_ == 0 && max_ == kUnbounded; }

    // Both dims could be equal (used to check broadcasting and concat compatibility).
    bool compatible(const Dimension& o) const;
    // The tighter of two compatible dims; throws if incompatible.
    static Dimension merge(const Dimension& a, const Dimension& b);

    Dimension operator+(const Dimension& o) const;
    Dimension operator-(const Dimension& o) const;
    Dimension operator*(const Dimension& o) const;
    bool operator==(const Dimension& o) const { return min_ == o.min_ && max_ == o.max_; }
    bool operator!=(const Dimension& o) const { return !(*this == o); }

    // IR spelling: "5", "?", "1..10", "..10", "2.."
    std::string to_string() const;

private:
    int64_t min_ = 0;
    int64_t max_ = kUnbounded;
};

class MO_API PartialShape {
public:
    PartialShape() = default;  // rank 0 (scalar)
    PartialShape(std::initializer_list<Dimension> dims) : dims_(dims) {}
    PartialShape(std::vector<Dimension> dims) : dims_(std::move(dims)) {}  // NOLINT
    PartialShape(const Shape& s);                                          // NOLINT
    static PartialShape dynamic_rank();
    static PartialShape dynamic(size_t rank) { return PartialShape(std::vector<Dimension>(rank)); }

    bool rank_is_static() const { return !dynamic_rank_; }
    size_t rank() const;  // asserts rank_is_static()
    bool is_static() const;
    Shape to_shape() const;  // asserts is_static()

    const Dimension& operator[](size_t i) const { return dims_.at(i); }
    Dimension& operator[](size_t i) { return dims_.at(i); }
    const std::vector<Dimension>& dims() const { return dims_; }
    std::vector<Dimension>& dims() { return dims_; }

    bool operator==(const PartialShape& o) const { return dynamic_rank_ == o.dynamic_rank_ && dims_ == o.dims_; }
    bool operator!=(const PartialShape& o) const { return !(*this == o); }

    // IR Parameter spelling: "1,3,?,1..10", "..." for dynamic rank, "" for a scalar.
    std::string to_string() const;
    // Parses the IR spelling (also accepts -1 for a dynamic dim and optional brackets).
    static PartialShape parse(const std::string& text);

private:
    std::vector<Dimension> dims_;
    bool dynamic_rank_ = false;
};

// Whether a concrete shape is one the partial shape allows.
MO_API bool shape_fits(const PartialShape& partial, const Shape& actual);

// Numpy-style broadcast of two partial shapes; throws mo::Error when incompatible.
MO_API PartialShape broadcast_numpy(const PartialShape& a, const PartialShape& b);
// Normalises a possibly negative axis against `rank`; throws mo::Error when out of range.
MO_API int64_t normalize_axis(int64_t axis, int64_t rank);

}  // namespace mo
